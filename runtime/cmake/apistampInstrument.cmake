# apistamp_instrument(): links the apistamp runtime into a target that is
# installed and exported, without leaking apistamp into its exported link
# interface or include directories. Included by apistampConfig.cmake and by
# the runtime's own CMakeLists.txt (add_subdirectory users). See
# runtime/README.md, "Instrumenting an installed library".
#
#   apistamp_instrument(<target>
#                       [HIDE_RUNTIME_SYMBOLS | EXPORT_RUNTIME_SYMBOLS]
#                       [CONFIG_DEPENDENCY_VAR <var>]
#                       [PKG_CONFIG_REQUIRES_PRIVATE_VAR <var>])
#
# Shared libraries and modules get a private copy of the static runtime: the
# installed library needs neither apistamp's CMake package nor its pkg-config
# file nor libapistamp_runtime.so. HIDE_RUNTIME_SYMBOLS (the default) keeps the
# runtime's symbols out of the library's dynamic symbol table
# (-Wl,--exclude-libs), so the library has its own registry, handler and
# once-per-name set; EXPORT_RUNTIME_SYMBOLS exports them, so that the first
# definition loaded in the process serves every library that exports them.
#
# Static libraries cannot carry the runtime: it is linked where the archive is
# linked. Their exported link interface names apistamp::runtime, and the
# project's package configuration file must call find_dependency(apistamp)
# (CONFIG_DEPENDENCY_VAR receives that line) and its .pc file must say
# "Requires.private: apistamp" (PKG_CONFIG_REQUIRES_PRIVATE_VAR receives
# "apistamp"). A project that also installs a shared library should export
# the static one in an export set of its own and run that line only for a
# component that asks for it, or every consumer needs apistamp (README,
# "A project that installs both a shared and a static library"). For shared
# libraries both variables are set to "". The symbol
# options are accepted and ignored for static libraries and executables: the
# final link decides.
#
# Every target but an INTERFACE library is compiled with APISTAMP_INSTRUMENTED
# defined (PRIVATE: not its users): a project's copy of the shim header
# (share/apistamp/api_usage_shim.h) gives the runtime's macros there and
# no-op macros everywhere else. An INTERFACE (header-only) library links
# nothing and defines nothing: its users compile its headers' calls to
# nothing through the shim, and need no apistamp.

include_guard(GLOBAL)

# The runtime version that find_dependency() asks for: set by the includer.
set_property(GLOBAL PROPERTY APISTAMP_INSTRUMENT_RUNTIME_VERSION
  "${APISTAMP_INSTRUMENT_RUNTIME_VERSION}")

function(apistamp_instrument target)
  cmake_parse_arguments(PARSE_ARGV 1 arg
    "HIDE_RUNTIME_SYMBOLS;EXPORT_RUNTIME_SYMBOLS"
    "CONFIG_DEPENDENCY_VAR;PKG_CONFIG_REQUIRES_PRIVATE_VAR" "")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR
      "apistamp_instrument: unknown arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(arg_HIDE_RUNTIME_SYMBOLS AND arg_EXPORT_RUNTIME_SYMBOLS)
    message(FATAL_ERROR "apistamp_instrument(${target}): HIDE_RUNTIME_SYMBOLS "
                        "and EXPORT_RUNTIME_SYMBOLS exclude each other")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "apistamp_instrument: no target ${target}")
  endif()
  foreach(_runtime apistamp::runtime apistamp::runtime_static)
    if(NOT TARGET ${_runtime})
      message(FATAL_ERROR "apistamp_instrument(${target}): ${_runtime} is not "
        "defined; find_package(apistamp) or add the runtime's directory first")
    endif()
  endforeach()
  get_target_property(_type ${target} TYPE)
  get_property(_version GLOBAL PROPERTY APISTAMP_INSTRUMENT_RUNTIME_VERSION)
  set(_config_dependency "")
  set(_pc_requires "")

  if(NOT _type STREQUAL "INTERFACE_LIBRARY")
    target_compile_definitions(${target} PRIVATE APISTAMP_INSTRUMENTED=1)
  endif()
  if(_type STREQUAL "INTERFACE_LIBRARY")
    # Header-only: nothing to link; the shim's no-op branch serves its users.
  elseif(_type STREQUAL "SHARED_LIBRARY" OR _type STREQUAL "MODULE_LIBRARY"
     OR _type STREQUAL "EXECUTABLE")
    # Headers and archive at build time only. A shared library's PRIVATE link
    # items are not exported; $<BUILD_INTERFACE:> makes sure of it.
    target_link_libraries(${target} PRIVATE
      $<BUILD_INTERFACE:apistamp::runtime_static>)
    if(NOT _type STREQUAL "EXECUTABLE" AND NOT arg_EXPORT_RUNTIME_SYMBOLS)
      if(CMAKE_EXECUTABLE_FORMAT STREQUAL "ELF")
        target_link_options(${target} PRIVATE
          "LINKER:--exclude-libs,$<TARGET_LINKER_FILE_NAME:apistamp::runtime_static>")
      else()
        message(WARNING "apistamp_instrument(${target}): HIDE_RUNTIME_SYMBOLS "
          "needs an ELF linker (--exclude-libs); the runtime's symbols stay "
          "exported")
      endif()
    endif()
  elseif(_type STREQUAL "STATIC_LIBRARY")
    # Headers at build time only; the runtime itself at the consumer's final
    # link, through the installed apistamp package.
    target_link_libraries(${target} PRIVATE
      $<BUILD_INTERFACE:apistamp::runtime>)
    target_link_libraries(${target} INTERFACE
      $<INSTALL_INTERFACE:$<LINK_ONLY:apistamp::runtime>>)
    set(_config_dependency "find_dependency(apistamp ${_version})")
    set(_pc_requires "apistamp")
  else()
    message(FATAL_ERROR "apistamp_instrument(${target}): ${_type} is not "
      "supported; instrument the library or executable that is linked")
  endif()

  if(arg_CONFIG_DEPENDENCY_VAR)
    set(${arg_CONFIG_DEPENDENCY_VAR} "${_config_dependency}" PARENT_SCOPE)
  endif()
  if(arg_PKG_CONFIG_REQUIRES_PRIVATE_VAR)
    set(${arg_PKG_CONFIG_REQUIRES_PRIVATE_VAR} "${_pc_requires}" PARENT_SCOPE)
  endif()
endfunction()
