#!/bin/sh
# apistamp_instrument() end to end: installs the runtime of BUILD_DIR into a
# prefix, builds and installs mylib/ (shared and static; with the installed
# runtime and with add_subdirectory of its source), and builds consumer/
# against the installed mylib with find_package(mylib) and with pkg-config;
# checks the events, the exported files and the dynamic symbols (nm -D).
# First, the old README recipe (negative check): its static mylib cannot be
# found by a consumer without apistamp. Last, a project that installs both a
# shared and a static library (mixed/): only consumers of the static one need
# apistamp.
# usage: run.sh BUILD_DIR WORK_DIR CXX
set -eu
build=$1 work=$2 cxx=$3
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work"
apistamp=$work/apistamp
gen=
command -v ninja > /dev/null && gen="-G Ninja"

fail() { echo "FAILED: $*" >&2; exit 1; }
# configure SRC BUILD LOG ARGS...: a quiet configure, its log kept.
configure() {
  src=$1 bld=$2 log=$3; shift 3
  # shellcheck disable=SC2086
  cmake -S "$src" -B "$bld" $gen -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF \
    "$@" > "$log" 2>&1
}
# mylib KIND RECIPE SHARED [RUNTIME_SOURCE]: builds and installs mylib into
# $work/KIND/prefix, with the installed runtime or add_subdirectory(SOURCE).
mylib() {
  mkdir -p "$work/$1"
  configure "$here/mylib" "$work/$1/mylib-build" "$work/$1/mylib.log" \
    -DCMAKE_PREFIX_PATH="$apistamp" -DMYLIB_RECIPE="$2" \
    -DBUILD_SHARED_LIBS="$3" -DMYLIB_APISTAMP_SOURCE_DIR="${4:-}" \
    -DCMAKE_INSTALL_PREFIX="$work/$1/prefix" \
    -DCMAKE_INSTALL_LIBDIR=lib || { cat "$work/$1/mylib.log"; fail "$1: mylib configure"; }
  cmake --build "$work/$1/mylib-build" > "$work/$1/mylib-build.log" 2>&1 \
    || { cat "$work/$1/mylib-build.log"; fail "$1: mylib build"; }
  cmake --install "$work/$1/mylib-build" > /dev/null
}
# count LOG EVENT: the number of JSON lines for EVENT.
count() { grep -c "\"event\":\"$2\"" "$1" || true; }
# events LOG COMMON WHAT: mylib.common COMMON times, each library's event once.
events() {
  [ "$(count "$1" mylib.common)" = "$2" ] \
    || { cat "$1"; fail "$3: mylib.common logged $(count "$1" mylib.common) times, expected $2"; }
  for e in mylib.f mylib_exported.f; do
    [ "$(count "$1" $e)" = 1 ] || { cat "$1"; fail "$3: $e not logged once"; }
  done
}

cmake --install "$build" --component apistamp_runtime --prefix "$apistamp" > /dev/null
module=$(find "$apistamp" -name apistampInstrument.cmake | head -n 1)
[ -n "$module" ] || fail "apistampInstrument.cmake is not installed"
apistamp_lib=$(cd "$(dirname "$module")/../.." && pwd)

# Negative check: target_link_libraries(mylib PRIVATE apistamp::runtime) on a
# static mylib exports $<LINK_ONLY:apistamp::runtime>; a consumer that does
# not have apistamp fails to configure.
mylib plain plain OFF
if configure "$here/consumer" "$work/plain/consumer-build" "$work/plain/consumer.log" \
     -DCMAKE_PREFIX_PATH="$work/plain/prefix" -DCMAKE_DISABLE_FIND_PACKAGE_apistamp=ON; then
  fail "plain recipe: the consumer configured without apistamp"
fi
grep -q "apistamp::runtime" "$work/plain/consumer.log" \
  || { cat "$work/plain/consumer.log"; fail "plain recipe: unexpected error"; }
echo "plain recipe: downstream find_package(mylib) fails, as expected"

# shared and static: mylib uses the installed runtime; tree-*: mylib adds the
# runtime's source directory (the same runtime is installed for consumers).
runtime_source=$(cd "$here/../../.." && pwd)
for variant in shared static tree-shared tree-static; do
  case $variant in
    tree-*) kind=${variant#tree-} source=$runtime_source ;;
    *) kind=$variant source= ;;
  esac
  if [ "$kind" = shared ]; then shared=ON; else shared=OFF; fi
  mylib $variant instrument $shared "$source"
  prefix=$work/$variant/prefix
  cmakedir=$prefix/lib/cmake/mylib
  # The runtime's include directory is build-only.
  ! grep -rq "$apistamp\|/runtime/include" "$cmakedir" \
    || fail "$variant: the installed mylib package names apistamp's paths"
  if [ "$kind" = shared ]; then
    ! grep -rhi apistamp "$cmakedir" | grep -qv '^ *#' \
      || fail "$variant: mylib's package names apistamp"
    consumer_args="-DCMAKE_PREFIX_PATH=$prefix -DCMAKE_DISABLE_FIND_PACKAGE_apistamp=ON"
    common=2   # two copies of the runtime, two registries
  else
    grep -q 'LINK_ONLY:apistamp::runtime' "$cmakedir/mylibTargets.cmake" \
      || fail "$variant: no apistamp::runtime in mylib's link interface"
    grep -q 'find_dependency(apistamp 0\.' "$cmakedir/mylibConfig.cmake" \
      || fail "$variant: mylibConfig.cmake has no find_dependency(apistamp)"
    consumer_args="-DCMAKE_PREFIX_PATH=$prefix;$apistamp"
    common=1   # one runtime at the final link
  fi
  # shellcheck disable=SC2086
  configure "$here/consumer" "$work/$variant/consumer-build" "$work/$variant/consumer.log" \
    $consumer_args || { cat "$work/$variant/consumer.log"; fail "$variant: consumer configure"; }
  cmake --build "$work/$variant/consumer-build" > "$work/$variant/consumer-build.log" 2>&1 \
    || { cat "$work/$variant/consumer-build.log"; fail "$variant: consumer build"; }
  APISTAMP_API_USAGE_LOG=$work/$variant/events.jsonl "$work/$variant/consumer-build/consumer"
  events "$work/$variant/events.jsonl" $common "$variant find_package"

  if [ "$kind" = shared ]; then
    # Hidden by default, exported on request: nm -D on the installed libraries.
    hidden=$(nm -D --defined-only "$prefix/lib/libmylib.so" | c++filt | grep -c apistamp || true)
    exported=$(nm -D --defined-only "$prefix/lib/libmylib_exported.so" | c++filt | grep -c 'apistamp::' || true)
    echo "dynamic apistamp symbols: libmylib.so $hidden, libmylib_exported.so $exported"
    [ "$hidden" = 0 ] || fail "libmylib.so exports the runtime's symbols"
    nm -D --defined-only "$prefix/lib/libmylib_exported.so" | c++filt \
      | grep -q 'apistamp::detail::logSiteOnce' \
      || fail "libmylib_exported.so does not export the runtime's symbols"
    ! ldd "$work/$variant/consumer-build/consumer" | grep -q libapistamp \
      || fail "$variant: the consumer loads libapistamp_runtime.so"
  fi

  # pkg-config: a shared mylib needs no apistamp.pc; a static one has
  # Requires.private: apistamp, which pkg-config --static resolves.
  pcpath=$prefix/lib/pkgconfig
  if [ "$kind" = static ]; then
    ! PKG_CONFIG_PATH=$pcpath pkg-config --static --libs mylib > /dev/null 2>&1 \
      || fail "$variant: mylib.pc does not require apistamp"
    pcpath=$pcpath:$apistamp_lib/pkgconfig
    pcflags="--static --cflags --libs"
    pccommon=1
  else
    pcflags="--cflags --libs"
    pccommon=2
  fi
  # shellcheck disable=SC2086
  flags=$(PKG_CONFIG_PATH=$pcpath pkg-config $pcflags mylib) \
    || fail "$variant: pkg-config mylib"
  echo "$variant: pkg-config $pcflags mylib: $flags"
  # shellcheck disable=SC2086
  "$cxx" "$here/consumer/main.cpp" $flags -o "$work/$variant/consumer-pc"
  LD_LIBRARY_PATH=$prefix/lib:$apistamp_lib \
    APISTAMP_API_USAGE_LOG=$work/$variant/events-pc.jsonl "$work/$variant/consumer-pc"
  events "$work/$variant/events-pc.jsonl" $pccommon "$variant pkg-config"
  echo "$variant mylib: find_package and pkg-config consumers passed"
done
# A project that installs the library shared and static: in one export set
# with find_dependency(apistamp), a consumer of the shared library needs
# apistamp too (the negative check); with the static library in an export set
# of its own, found for the component "static" only (runtime/README.md), it
# does not, and the static component finds apistamp or fails to configure.
# mixed RECIPE: builds and installs mixed/ into $work/mixed-RECIPE/prefix.
mixed() {
  dir=$work/mixed-$1
  mkdir -p "$dir"
  configure "$here/mixed" "$dir/build" "$dir/mixlib.log" \
    -DCMAKE_PREFIX_PATH="$apistamp" -DMIXLIB_RECIPE="$1" \
    -DCMAKE_INSTALL_PREFIX="$dir/prefix" -DCMAKE_INSTALL_LIBDIR=lib \
    || { cat "$dir/mixlib.log"; fail "mixed $1: configure"; }
  cmake --build "$dir/build" > "$dir/build.log" 2>&1 \
    || { cat "$dir/build.log"; fail "mixed $1: build"; }
  cmake --install "$dir/build" > /dev/null
}
# mixed_consumer RECIPE KIND NAME ARGS...: configures mixed-consumer/ for
# KIND (shared or static) into $work/mixed-RECIPE/NAME, log NAME.log.
mixed_consumer() {
  dir=$work/mixed-$1 kind=$2 name=$3; shift 3
  configure "$here/mixed-consumer" "$dir/$name" "$dir/$name.log" \
    -DMIXLIB_KIND="$kind" "$@"
}
# mixed_run RECIPE NAME: builds and runs the consumer NAME, checks its events.
mixed_run() {
  dir=$work/mixed-$1
  cmake --build "$dir/$2" > "$dir/$2-build.log" 2>&1 \
    || { cat "$dir/$2-build.log"; fail "mixed $1 $2: consumer build"; }
  APISTAMP_API_USAGE_LOG=$dir/$2.jsonl "$dir/$2/consumer"
  for e in mylib.common mylib.f; do
    [ "$(count "$dir/$2.jsonl" $e)" = 1 ] \
      || { cat "$dir/$2.jsonl"; fail "mixed $1 $2: $e not logged once"; }
  done
}
no_apistamp=-DCMAKE_DISABLE_FIND_PACKAGE_apistamp=ON
mixed one-set
if mixed_consumer one-set shared shared \
     -DCMAKE_PREFIX_PATH="$work/mixed-one-set/prefix" $no_apistamp; then
  fail "one export set: a consumer of the shared library configured without apistamp"
fi
grep -q "apistamp" "$work/mixed-one-set/shared.log" \
  || { cat "$work/mixed-one-set/shared.log"; fail "one export set: unexpected error"; }
echo "mixed, one export set: a consumer of the shared library needs apistamp, as expected"
mixed components
mixprefix=$work/mixed-components/prefix
mixed_consumer components shared shared -DCMAKE_PREFIX_PATH="$mixprefix" $no_apistamp \
  || { cat "$work/mixed-components/shared.log"; fail "components: the shared library's consumer needs apistamp"; }
mixed_run components shared
mixed_consumer components static static -DCMAKE_PREFIX_PATH="$mixprefix;$apistamp" \
  || { cat "$work/mixed-components/static.log"; fail "components: static consumer configure"; }
mixed_run components static
if mixed_consumer components static static-without-apistamp \
     -DCMAKE_PREFIX_PATH="$mixprefix" $no_apistamp; then
  fail "components: the static component configured without apistamp"
fi
grep -Eq "(module|dependency) apistamp" "$work/mixed-components/static-without-apistamp.log" \
  || { cat "$work/mixed-components/static-without-apistamp.log"; fail "components: unexpected error without apistamp"; }
echo "mixed, components: the shared library needs no apistamp, the static component finds it"
echo "instrument check passed"
