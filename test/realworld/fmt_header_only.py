#!/usr/bin/env python3
"""fmt 9.1 (Debian's source): a library whose compiled API lives in an
installed header (format-inl.h, which header-only users compile too),
instrumented through a project-owned shim (issue 46, B5).

1. fmt's source with runtime/shim/api_usage_shim.h copied in as
   include/fmt/apistamp.h, and rules that name it as `include:`, with
   `public_header_edits: allow` and the outermost-only macro; fmt's own CMake
   gives the compilation database.
2. `apistamp fix`: the events of the compiled API (format-inl.h and the
   sources), the shim's #include in format-inl.h; `check` exits 0.
3. A project that add_subdirectory()s fmt and calls apistamp_instrument() on
   both its targets, the compiled `fmt` and the INTERFACE `fmt-header-only`
   (refused before), builds a program against each.
4. The compiled library's program logs the outermost calls (fmt.vformat,
   fmt.vprint), once each.
5. The header-only program, and the same source compiled by hand with
   FMT_HEADER_ONLY and fmt's include directory only (no apistamp anywhere),
   print the same and log nothing: no apistamp symbol in them.
6. A policy that selects nothing removes every call and the #include: the
   tree is fmt's again, byte for byte.

Each step is a JUnit test case; the test skips (with the reason) without
the fetched source (scripts/fetch-debian-source.sh fmtlib 9.1.0+ds1-2).
"""
import argparse
import os
import pathlib
import re
import shutil
import subprocess

from realworld import Steps, same_tree, sh

DEFAULT_SOURCE = "/var/cache/apistamp/fmtlib/fmtlib-9.1.0+ds1"
REPO = pathlib.Path(__file__).resolve().parents[2]

RULES = """version: 1
macro: APISTAMP_LOG_API_ENTRY
include: fmt/apistamp.h
# format-inl.h is installed: header-only users compile it, and get the
# shim's no-op macros; fmt's own build gets the runtime's.
public_header_edits: allow
rules:
  - id: fmt-compiled
    files: ["include/fmt/format-inl.h", "src/*.cc"]
    namespace: fmt
    linkage: external
    access: public
"""
NONE = RULES.replace("namespace: fmt\n", "namespace: none\n")

WRAPPER = """cmake_minimum_required(VERSION 3.20)
project(fmt_with_apistamp CXX)
find_package(apistamp REQUIRED)
add_subdirectory(${FMT_SOURCE} fmt)
apistamp_instrument(fmt)
apistamp_instrument(fmt-header-only)
add_executable(compiled main.cpp)
target_link_libraries(compiled fmt::fmt)
add_executable(header_only main.cpp)
target_link_libraries(header_only fmt::fmt-header-only)
"""

PROGRAM = """#include <fmt/format.h>
#include <string>
int main() {
  std::string s = fmt::format("{} and {}", 1, 2.5);
  fmt::print("{}\\n", s);
  fmt::print("{}\\n", fmt::format("{:>6}", "x"));
  return s == "1 and 2.5" ? 0 : 1;
}
"""




def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--apistamp", required=True)
    parser.add_argument("--build", required=True,
                        help="the build directory to install the runtime from")
    parser.add_argument("--source", default=DEFAULT_SOURCE)
    parser.add_argument("--work", required=True)
    parser.add_argument("--junit", required=True)
    args = parser.parse_args()
    apistamp = os.path.abspath(args.apistamp)
    work = pathlib.Path(args.work).resolve()
    source = pathlib.Path(args.source)
    src, cdb, prefix = work / "fmt", work / "fmt-build", work / "prefix"
    project, built = work / "project", work / "project-build"
    steps = Steps("fmt-header-only")
    names = ["fmt with the shim, its CMake database",
             "fix places the compiled API's events through the shim",
             "apistamp_instrument on fmt and on fmt-header-only; both build",
             "the compiled library logs its outermost calls",
             "header-only users log nothing and need no apistamp",
             "a policy that selects nothing gives fmt's tree back"]
    if not (source / "include/fmt/format-inl.h").exists():
        for name in names:
            steps.skip(name, "fmt 9.1 source not found at %s; run "
                       "scripts/fetch-debian-source.sh fmtlib 9.1.0+ds1-2"
                       % source)
        return steps.finish(args.junit)
    state = {}

    def prepare():
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        shutil.copytree(source, src, symlinks=True)
        shutil.copy(REPO / "runtime/shim/api_usage_shim.h",
                    src / "include/fmt/apistamp.h")
        state["pristine"] = work / "pristine"
        shutil.copytree(src, state["pristine"], symlinks=True)
        (src / ".apistamp.yaml").write_text(RULES)
        sh(["cmake", "-S", str(src), "-B", str(cdb), "-G", "Ninja",
            "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON", "-DFMT_TEST=OFF",
            "-DFMT_DOC=OFF"])
        sh(["cmake", "--install", os.path.abspath(args.build), "--prefix",
            str(prefix), "--component", "apistamp_runtime"])

    def fix():
        out = sh([apistamp, "fix", "--no-cache", "-p", str(cdb)])
        placed = re.search(r"inserted (\d+)", out)
        if not placed or int(placed.group(1)) < 20:
            raise RuntimeError("expected at least 20 events placed:\n" + out)
        inl = (src / "include/fmt/format-inl.h").read_text()
        for needed in ('#include "fmt/apistamp.h"',
                       'APISTAMP_LOG_API_ENTRY("fmt.vformat");',
                       'APISTAMP_LOG_API_ENTRY("fmt.vprint");'):
            if needed not in inl:
                raise RuntimeError("format-inl.h lacks %s" % needed)
        sh([apistamp, "check", "--no-cache", "-p", str(cdb)])
        print("  placed %s events" % placed.group(1))

    def build():
        project.mkdir()
        (project / "CMakeLists.txt").write_text(WRAPPER)
        (project / "main.cpp").write_text(PROGRAM)
        sh(["cmake", "-S", str(project), "-B", str(built), "-G", "Ninja",
            "-DCMAKE_BUILD_TYPE=Release", "-DCMAKE_PREFIX_PATH=%s" % prefix,
            "-DFMT_SOURCE=%s" % src, "-DFMT_TEST=OFF", "-DFMT_DOC=OFF",
            "-DFMT_INSTALL=OFF"])
        sh(["cmake", "--build", str(built), "-j2"])

    def run(program, log):
        env = dict(os.environ, APISTAMP_API_USAGE_LOG=str(log))
        out = subprocess.run([str(program)], env=env, capture_output=True,
                             text=True, timeout=60)
        if out.returncode != 0 or out.stdout != "1 and 2.5\n     x\n":
            raise RuntimeError("%s: exit %d, printed %r" % (
                program, out.returncode, out.stdout))

    def compiled():
        log = work / "compiled.jsonl"
        run(built / "compiled", log)
        events = [re.search(r'"event":"([^"]*)"', line).group(1)
                  for line in log.read_text().splitlines()]
        if sorted(events) != ["fmt.vformat", "fmt.vprint"]:
            raise RuntimeError("the compiled library logged %s" % events)

    def header_only():
        by_hand = work / "by_hand"
        sh(["c++", "-std=c++17", "-O1", "-DFMT_HEADER_ONLY", "-I",
            str(src / "include"), str(project / "main.cpp"), "-o",
            str(by_hand)])
        for program in (built / "header_only", by_hand):
            log = work / (program.name + ".jsonl")
            run(program, log)
            if log.exists():
                raise RuntimeError("%s logged: %s" % (program, log.read_text()))
            symbols = sh(["nm", "-C", str(program)])
            if "apistamp" in symbols:
                raise RuntimeError("%s has apistamp symbols" % program)

    def round_trip():
        (src / ".apistamp.yaml").write_text(NONE)
        sh([apistamp, "fix", "--no-cache", "-p", str(cdb)])
        (src / ".apistamp.yaml").unlink()
        same_tree(state["pristine"], src)

    for name, function in zip(names, (prepare, fix, build, compiled,
                                      header_only, round_trip)):
        steps.run(name, function)
    return steps.finish(args.junit)


if __name__ == "__main__":
    raise SystemExit(main())
