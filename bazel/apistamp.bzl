"""apistamp for Bazel: one cacheable `apistamp tu` action per C++ source, and a merge.

    # WORKSPACE
    local_repository(name = "apistamp", path = "/usr/local/share/apistamp/bazel")
    load("@apistamp//:apistamp.bzl", "apistamp_tool")
    apistamp_tool(name = "apistamp_tool")      # `apistamp` on PATH, or path = "..."

    # BUILD (at the root, next to .apistamp.yaml)
    load("@apistamp//:apistamp.bzl", "apistamp_merge")
    exports_files([".apistamp.yaml"])
    apistamp_merge(name = "apistamp", deps = ["//app:main"])

    bazel build //:apistamp                     # bazel-bin/apistamp.txt (+ .exit_code)
    bazel build //... --aspects=@apistamp//:apistamp.bzl%apistamp_aspect --output_groups=apistamp

The aspect follows `deps` of cc_library/cc_binary/cc_test. For every C++
source of a target in the main repository it writes the source's compile
command as a compile_commands.json entry (directory `__EXEC_ROOT__`) and runs
tu.sh: that entry, in the action's execution root, for

    apistamp tu -p <one-entry database> -o <result> <source>

The inputs are the source, the headers of the target's CcInfo, the rules files
(`--@apistamp//:rules`, default `//:.apistamp.yaml`), the entry, the apistamp
binary, the LLVM libraries it links and its `--version`: a new apistamp or
LLVM misses the cache, the same sources in another checkout or on another
machine hit. The command is the one Bazel compiles the source with (the C++
toolchain's features, --copt/--cxxopt, the rule's copts, defines, include
paths; PIC as the toolchain needs it), less what names its outputs and the
GCC-only flags clang's driver rejects. The result holds no absolute path.

apistamp_merge joins the entries into a database in its sandbox and runs
`apistamp merge -p` over it and every result (merge.sh), from the workspace's
directory: it prints what `apistamp check -p` run there prints over the same
commands.
"""

load("@bazel_tools//tools/build_defs/cc:action_names.bzl", "ACTION_NAMES")
load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")

ApiStampInfo = provider(
    doc = "What apistamp_merge needs of a target and its dependencies.",
    fields = {
        "results": "depset of `apistamp tu` result files",
        "commands": "depset of compile_commands.json entries (one JSON object a file)",
        "files": "depset of the sources and headers the results were made from",
    },
)

_CXX_EXTENSIONS = ["cc", "cpp", "cxx", "c++", "C", "cp", "CPP"]

# ---------------------------------------------------------------------------
# The apistamp binary as a repository: apistamp_tool

def _apistamp_tool_impl(rctx):
    if rctx.attr.path:
        binary = rctx.path(rctx.attr.path)
    else:
        binary = rctx.which("apistamp")
        if binary == None:
            fail("apistamp_tool: no `apistamp` on PATH; set path = \"/path/to/apistamp\"")
    if not binary.exists:
        fail("apistamp_tool: %s does not exist" % binary)
    rctx.symlink(binary, "apistamp")
    version = rctx.execute([binary, "--version"])
    if version.return_code != 0:
        fail("apistamp_tool: `%s --version` failed: %s" % (binary, version.stderr))

    # The LLVM and clang libraries it links are inputs too: an upgraded LLVM
    # at the same path changes their digests, so every result misses.
    libraries = []
    ldd = rctx.execute(["ldd", binary])
    if ldd.return_code == 0:
        for line in ldd.stdout.splitlines():
            parts = line.strip().split(" ")
            if len(parts) >= 3 and parts[1] == "=>" and (
                parts[0].startswith("libclang") or parts[0].startswith("libLLVM")
            ):
                name = "lib/" + parts[0]
                rctx.symlink(parts[2], name)
                libraries.append(name)
    rctx.file("version.txt", version.stdout)
    rctx.file("WORKSPACE", "workspace(name = \"%s\")\n" % rctx.name)
    rctx.file("BUILD.bazel", """\
exports_files(["apistamp", "version.txt"], visibility = ["//visibility:public"])

filegroup(
    name = "inputs",
    srcs = ["version.txt"] + {libraries},
    visibility = ["//visibility:public"],
)
""".format(libraries = repr(libraries)))

apistamp_tool = repository_rule(
    implementation = _apistamp_tool_impl,
    doc = "The installed apistamp (`path`, else `apistamp` on PATH), its version and libraries.",
    attrs = {"path": attr.string(doc = "absolute path of the apistamp binary")},
    environ = ["PATH"],
    local = True,
)

# ---------------------------------------------------------------------------
# The aspect

def _is_cxx_source(file):
    return file.is_source and file.extension in _CXX_EXTENSIONS

def _sources(ctx):
    sources = []
    for attribute in ["srcs"]:
        for target in getattr(ctx.rule.attr, attribute, []):
            sources += [f for f in target.files.to_list() if _is_cxx_source(f)]
    return sources

def _compile_flags(ctx, target):
    """The flags of the target's C++ compile actions, without source and output."""
    cc_toolchain = find_cpp_toolchain(ctx)
    feature_configuration = cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = cc_toolchain,
        requested_features = ctx.features,
        unsupported_features = ctx.disabled_features,
    )
    compilation_context = target[CcInfo].compilation_context
    rule_copts = [ctx.expand_make_variables("copts", copt, {}) for copt in getattr(ctx.rule.attr, "copts", [])]
    variables = cc_common.create_compile_variables(
        feature_configuration = feature_configuration,
        cc_toolchain = cc_toolchain,
        user_compile_flags = ctx.fragments.cpp.copts + ctx.fragments.cpp.cxxopts + rule_copts,
        include_directories = compilation_context.includes,
        quote_include_directories = compilation_context.quote_includes,
        system_include_directories = compilation_context.system_includes,
        framework_include_directories = compilation_context.framework_includes,
        preprocessor_defines = depset(transitive = [
            compilation_context.defines,
            compilation_context.local_defines,
        ]),
        use_pic = cc_toolchain.needs_pic_for_dynamic_libraries(feature_configuration = feature_configuration),
    )
    flags = cc_common.get_memory_inefficient_command_line(
        feature_configuration = feature_configuration,
        action_name = ACTION_NAMES.cpp_compile,
        variables = variables,
    )
    # GCC's flags that clang's driver rejects (-fno-canonical-system-headers)
    # apistamp drops itself, as it does from any database.
    return cc_toolchain.compiler_executable, flags

def _apistamp_aspect_impl(target, ctx):
    if CcInfo not in target:
        return []
    results = []
    commands = []
    files = []
    if (not target.label.workspace_root.startswith("external") and
        "no-apistamp" not in getattr(ctx.rule.attr, "tags", [])):
        sources = _sources(ctx)
        if sources:
            compiler, flags = _compile_flags(ctx, target)
            headers = target[CcInfo].compilation_context.headers
            tool_inputs = ctx.files._rules + ctx.files._tool_inputs
            files.append(depset(sources + ctx.files._rules, transitive = [headers]))
            for source in sources:
                stem = "%s.apistamp/%s" % (target.label.name, source.short_path)
                result = ctx.actions.declare_file(stem + ".json")
                command = ctx.actions.declare_file(stem + ".command.json")
                ctx.actions.write(command, json.encode({
                    "directory": "__EXEC_ROOT__",
                    "file": source.path,
                    "arguments": [compiler] + flags + ["-c", source.path],
                }) + "\n")
                ctx.actions.run(
                    executable = ctx.executable._tu_script,
                    arguments = [ctx.executable._apistamp.path, command.path, result.path, source.path],
                    inputs = depset(
                        [source, command, ctx.executable._apistamp] + tool_inputs,
                        transitive = [headers],
                    ),
                    outputs = [result],
                    mnemonic = "ApiStamp",
                    progress_message = "apistamp %s" % source.short_path,
                )
                results.append(result)
                commands.append(command)

    deps = [dep[ApiStampInfo] for dep in getattr(ctx.rule.attr, "deps", []) if ApiStampInfo in dep]
    all_results = depset(results, transitive = [d.results for d in deps])
    return [
        ApiStampInfo(
            results = all_results,
            commands = depset(commands, transitive = [d.commands for d in deps]),
            files = depset(transitive = files + [d.files for d in deps]),
        ),
        OutputGroupInfo(apistamp = all_results),
    ]

# The apistamp binary, the libraries it loads and its version, and the rules
# files: inputs of every action, so that an upgrade or a rules edit reruns.
_TOOL_ATTRS = {
        "_apistamp": attr.label(
            default = Label("@apistamp_tool//:apistamp"),
            executable = True,
            allow_single_file = True,
            cfg = "exec",
        ),
        "_tool_inputs": attr.label(default = Label("@apistamp_tool//:inputs"), allow_files = True),
        "_rules": attr.label(default = Label("//:rules"), allow_files = True),
}

apistamp_aspect = aspect(
    implementation = _apistamp_aspect_impl,
    attr_aspects = ["deps"],
    fragments = ["cpp"],
    attrs = dict(_TOOL_ATTRS, **{
        "_cc_toolchain": attr.label(default = Label("@bazel_tools//tools/cpp:current_cc_toolchain")),
        "_tu_script": attr.label(
            default = Label("//:tu.sh"),
            executable = True,
            allow_single_file = True,
            cfg = "exec",
        ),
    }),
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
)

# ---------------------------------------------------------------------------
# The merge (merge.sh: the database in the sandbox, then `apistamp merge -p`)

def _apistamp_merge_impl(ctx):
    infos = [dep[ApiStampInfo] for dep in ctx.attr.deps]
    results = depset(transitive = [i.results for i in infos])
    commands = depset(transitive = [i.commands for i in infos])
    files = depset(transitive = [i.files for i in infos])
    extension = {"text": "txt", "json": "json", "sarif": "sarif", "diff": "diff"}[ctx.attr.format]
    out = ctx.actions.declare_file("%s.%s" % (ctx.label.name, extension))
    exit_file = ctx.actions.declare_file(ctx.label.name + ".exit_code")
    command_list = ctx.actions.declare_file(ctx.label.name + ".commands")
    result_list = ctx.actions.declare_file(ctx.label.name + ".results")
    ctx.actions.write(command_list, ctx.actions.args().add_all(commands).set_param_file_format("multiline"))
    ctx.actions.write(result_list, ctx.actions.args().add_all(results).set_param_file_format("multiline"))
    ctx.actions.run(
        executable = ctx.executable._merge_script,
        arguments = [
            ctx.executable._apistamp.path,
            ctx.attr.format,
            out.path,
            exit_file.path,
            "1" if ctx.attr.fail_on_findings else "0",
            command_list.path,
            result_list.path,
            ctx.files._rules[0].path,
        ],
        inputs = depset(
            [command_list, result_list, ctx.executable._apistamp] + ctx.files._tool_inputs + ctx.files._rules,
            transitive = [results, commands, files],
        ),
        outputs = [out, exit_file],
        # A SARIF merge leaves SRCROOT's absolute URI out (merge.sh): every
        # output is the same in every checkout, and cached.
        mnemonic = "ApiStampMerge",
        progress_message = "apistamp merge %s" % ctx.label,
    )
    outputs = depset([out, exit_file])
    return [DefaultInfo(files = outputs), OutputGroupInfo(apistamp = outputs)]

apistamp_merge = rule(
    implementation = _apistamp_merge_impl,
    doc = """`apistamp merge` over every C++ source of `deps` and of their deps:
`apistamp check -p`'s output over the same compile commands, in <name>.<format>,
and its exit code in <name>.exit_code.""",
    attrs = dict(_TOOL_ATTRS, **{
        "deps": attr.label_list(aspects = [apistamp_aspect], providers = [CcInfo]),
        "format": attr.string(default = "text", values = ["text", "json", "sarif", "diff"]),
        "fail_on_findings": attr.bool(
            default = False,
            doc = "Fail the build when apistamp finds something (exit 1) or a TU does not parse (3).",
        ),
        "_merge_script": attr.label(
            default = Label("//:merge.sh"),
            executable = True,
            allow_single_file = True,
            cfg = "exec",
        ),
    }),
)
