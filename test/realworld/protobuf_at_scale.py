#!/usr/bin/env python3
"""protobuf 3.21 (Debian's source, its own CMake database): the library
maintainer's findings of issue 46, checked on the library itself.

1. protobuf's CMake database (200 commands) and a policy: its external
   public API, declared in its headers, with the outermost-only macro; its
   descriptor registration at start-up (AddDescriptorsImpl, which parses
   every generated file's descriptor) an internal entry point (B11).
2. B10: a cold `check -p`, then a warm one answers from the cache alone
   ("cache: N hits, 0 misses"): no TU's stored facts are refused (a body
   with a brace per #ifdef branch was, so every warm run parsed two TUs).
3. B3: `apistamp ninja`'s tu actions and one `merge` say what `check -p`
   says (JSON, byte for byte); merge's peak memory is printed.
4. On twelve of its TUs (descriptor.cc, generated_message_reflection.cc,
   descriptor_database.cc, ...): `fix`, then `check` exits 0; the internal
   entry point gets APISTAMP_LIBRARY_INTERNAL and no catalog row.
5. B4, B7: the members of the private nested class template
   SimpleDescriptorDatabase::DescriptorIndex are neither selected nor listed
   by `catalog --unselected`; no name has "type-parameter"; the surface's
   exclude_files takes out inline definitions in headers (fewer rows).
6. B10: under the trial's policy (every public google::protobuf
   definition, so each TU's entry holds its headers' thousands of inline
   definitions, skipped as public-header edits), a warm check on twelve TUs
   answers from the cache alone, byte for byte as the cold one; a header's
   definitions are stored once, shared by the entries (sizes printed).
7. B8: a policy that selects nothing gives protobuf's tree back, byte for
   byte.

Each step is a JUnit test case; the test skips (with the reason) without
the fetched source (scripts/fetch-debian-source.sh protobuf 3.21.12-3+deb12u1).
"""
import argparse
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

from realworld import Steps, same_tree, sh

DEFAULT_SOURCE = "/var/cache/apistamp/protobuf/protobuf-3.21.12"
REPO = pathlib.Path(__file__).resolve().parents[2]

RULES = """version: 1
macro: APISTAMP_LOG_API_ENTRY
include: <apistamp/api_usage.h>
public_surface:
  headers: ["src/google/protobuf/**/*.h"]
  exclude_namespaces: [internal]
rules:
  # Start-up: every generated file's descriptor is registered (and parsed)
  # before main; its calls of the API are the library's own.
  - id: startup
    files: ["src/google/protobuf/generated_message_reflection.cc"]
    name: "AddDescriptorsImpl"
    namespace: "**"
    linkage: any
    internal: true
  - id: protobuf
    files: ["src/google/protobuf/**/*.cc"]
    exclude_files: ["src/google/protobuf/compiler/**"]
    namespace: "google::protobuf::**"
    linkage: external
    access: public
    declared_in: "src/google/protobuf/**/*.h"
"""
BROAD = """version: 1
macro: APISTAMP_LOG_API_ENTRY
include: <apistamp/api_usage.h>
rules:
  - id: protobuf
    namespace: "google::protobuf::**"
    access: public
    allow_skipped: true
"""
NONE = """version: 1
macro: APISTAMP_LOG_API_ENTRY
include: <apistamp/api_usage.h>
rules:
  - id: none
    namespace: none
"""
# Runs argv[2:], exits with its code; its peak RSS (KiB) in argv[1].
MEASURED = """import resource, subprocess, sys
code = subprocess.run(sys.argv[2:]).returncode
open(sys.argv[1], "w").write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
sys.exit(code)"""
SUBSET = ["descriptor.cc", "descriptor_database.cc",
          "generated_message_reflection.cc", "extension_set.cc",
          "message_lite.cc", "message.cc", "arena.cc", "wire_format_lite.cc",
          "repeated_field.cc", "text_format.cc", "io/coded_stream.cc",
          "stubs/strutil.cc"]




def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--apistamp", required=True)
    parser.add_argument("--source", default=DEFAULT_SOURCE)
    parser.add_argument("--work", required=True)
    parser.add_argument("--junit", required=True)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    apistamp = os.path.abspath(args.apistamp)
    work = pathlib.Path(args.work).resolve()
    source = pathlib.Path(args.source)
    src, build, sub = work / "protobuf", work / "build", work / "subset"
    cache = ["--cache-dir", str(work / "cache")]
    runtime = "--extra-arg=-I%s" % (REPO / "runtime" / "include")
    steps = Steps("protobuf-at-scale")
    names = ["protobuf's CMake database and its policy",
             "a warm check answers from the cache alone",
             "tu actions under Ninja and merge say what check -p says",
             "fix on twelve TUs; the internal entry point",
             "private nested templates, template names, the surface's exclude_files",
             "a header's definitions are stored once in the cache",
             "a policy that selects nothing gives protobuf's tree back"]
    if not (source / "src/google/protobuf/descriptor.cc").exists():
        for name in names:
            steps.skip(name, "protobuf 3.21.12 source not found at %s; run "
                       "scripts/fetch-debian-source.sh protobuf "
                       "3.21.12-3+deb12u1" % source)
        return steps.finish(args.junit)
    state = {}

    def prepare():
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        shutil.copytree(source, src, symlinks=True)
        state["pristine"] = work / "pristine"
        shutil.copytree(src, state["pristine"], symlinks=True)
        (src / ".apistamp.yaml").write_text(RULES)
        sh(["cmake", "-S", str(src), "-B", str(build), "-G", "Ninja",
            "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON", "-Dprotobuf_BUILD_TESTS=OFF"])
        commands = json.loads((build / "compile_commands.json").read_text())
        sub.mkdir()
        wanted = {str(src / "src/google/protobuf" / f) for f in SUBSET}
        subset = [c for c in commands if c["file"] in wanted]
        # Some sources are compiled twice (libprotobuf, libprotobuf-lite).
        if {c["file"] for c in subset} != wanted:
            raise RuntimeError("the subset's TUs are not all in the database")
        (sub / "compile_commands.json").write_text(json.dumps(subset))
        print("  %d compile commands" % len(commands))

    def warm():
        cold = sh([apistamp, "check", "-p", str(build), "-j%d" % args.jobs,
                   *cache], expect=1)
        summary = re.search(r"apistamp: (\d+) TUs, (\d+) definitions selected",
                            cold)
        if not summary or int(summary.group(2)) < 1000:
            raise RuntimeError("expected over 1000 definitions selected:\n" +
                               cold[-1500:])
        state["tus"] = int(summary.group(1))
        again = sh([apistamp, "check", "-p", str(build), *cache], expect=1)
        hits = "cache: %d hits, 0 misses" % state["tus"]
        if hits not in again:
            raise RuntimeError("expected %r:\n%s" % (hits, again[-800:]))
        print("  %s TUs, %s selected; %s" % (summary.group(1),
                                             summary.group(2), hits))
        state["check"] = sh([apistamp, "check", "--format=json", "-p",
                             str(build), *cache], expect=1,
                            stderr_to_stdout=False, cwd=str(src))

    def merge():
        ninja = work / "ninja"
        ninja.mkdir()
        sh([apistamp, "ninja", "-p", str(build), "-o", str(ninja / "build.ninja")],
           cwd=str(src))
        sh(["ninja", "-C", str(ninja), "-j%d" % args.jobs], cwd=str(src))
        # merge alone, in a process of its own: its peak RSS.
        peak_file = work / "merge-peak-kb"
        merged = sh([sys.executable, "-c", MEASURED, str(peak_file), apistamp,
                     "merge", "--format=json", "-p", str(build),
                     str(ninja / "apistamp-results")], expect=1,
                    stderr_to_stdout=False, cwd=str(src))
        if merged != state["check"]:
            raise RuntimeError("merge's JSON differs from check -p's")
        size = sum(p.stat().st_size for p in
                   (ninja / "apistamp-results").rglob("*.json"))
        print("  merge of %.1f MB of results: peak RSS %.0f MB" % (
            size / 2**20, int(peak_file.read_text()) / 1024))

    def fix():
        out = sh([apistamp, "fix", "-p", str(sub), runtime, *cache])
        placed = re.search(r"inserted (\d+)", out)
        if not placed or int(placed.group(1)) < 300:
            raise RuntimeError("expected over 300 events placed:\n" + out[-1500:])
        sh([apistamp, "check", "-p", str(sub), runtime, *cache])
        reflection = (src / "src/google/protobuf/"
                      "generated_message_reflection.cc").read_text()
        marker = 'APISTAMP_LIBRARY_INTERNAL("'
        body = reflection[reflection.index("void AddDescriptorsImpl("):]
        if marker not in body[:body.index("\n}\n")]:
            raise RuntimeError("AddDescriptorsImpl has no internal marker")
        catalog = json.loads(sh([apistamp, "catalog", "--format=json", "-p",
                                 str(sub), runtime, *cache],
                                stderr_to_stdout=False))
        if any(row["rule"] == "startup" for row in catalog):
            raise RuntimeError("the internal entry point has a catalog row")
        # B4: SimpleDescriptorDatabase's private DescriptorIndex<Value>.
        private = [row["name"] for row in catalog
                   if "DescriptorIndex" in row["name"]]
        if private:
            raise RuntimeError("members of a private nested class template "
                               "are selected: %s" % private[:3])
        print("  placed %s events; the catalog has %d rows" % (
            placed.group(1), len(catalog)))

    def surface():
        def unselected(rules_text):
            (src / ".apistamp.yaml").write_text(rules_text)
            return json.loads(sh([apistamp, "catalog", "--unselected",
                                  "--format=json", "-p", str(sub), runtime,
                                  "--no-cache"], stderr_to_stdout=False))
        rows = unselected(RULES)
        names_ = [row["name"] for row in rows]
        if any("DescriptorIndex" in n for n in names_):
            raise RuntimeError("members of the private DescriptorIndex are "
                               "listed: %s" % [n for n in names_
                                               if "DescriptorIndex" in n][:3])
        if any("type-parameter" in n for n in names_):
            raise RuntimeError("a name with type-parameter: %s" % [
                n for n in names_ if "type-parameter" in n][:3])
        narrowed = unselected(RULES.replace(
            "  exclude_namespaces: [internal]\n",
            "  exclude_namespaces: [internal]\n"
            "  exclude_files: [\"src/google/protobuf/**/*.h\"]\n"))
        (src / ".apistamp.yaml").write_text(RULES)
        if len(narrowed) >= len(rows) or any(
                row["file"].endswith(".h") for row in narrowed):
            raise RuntimeError("exclude_files: %d rows, before %d" % (
                len(narrowed), len(rows)))
        print("  catalog --unselected: %d rows, %d without inline definitions "
              "in headers" % (len(rows), len(narrowed)))

    def shared_runs():
        (src / ".apistamp.yaml").write_text(BROAD)
        store = work / "broad-cache"
        shutil.rmtree(store, ignore_errors=True)
        flags = ["--format=json", "-p", str(sub), runtime,
                 "--cache-dir=%s" % store]
        try:
            cold = sh([apistamp, "check", *flags], expect=None,
                      stderr_to_stdout=False)
            again = sh([apistamp, "check", "-p", str(sub), runtime,
                        "--cache-dir=%s" % store], expect=None)
            warm = sh([apistamp, "check", *flags], expect=None,
                      stderr_to_stdout=False)
        finally:
            (src / ".apistamp.yaml").write_text(RULES)
        if "cache: %d hits, 0 misses" % len(SUBSET) not in again:
            raise RuntimeError("expected every TU from the cache:\n" +
                               again[-800:])
        if warm != cold:
            raise RuntimeError("the warm check's JSON differs from the cold "
                               "one's")
        skipped = json.loads(cold)["summary"]["skipped"]
        entries = list(store.glob("*.json"))
        runs = list((store / "facts").glob("*.json"))
        named = {}
        for entry in entries:
            for name in re.findall(r'"shared":"([0-9a-f]{32})"',
                                   entry.read_text()):
                named[name] = named.get(name, 0) + 1
        if not runs or max(named.values(), default=0) < len(SUBSET) // 2:
            raise RuntimeError("expected headers' runs shared by the entries: "
                               "%d runs, named at most %d times" % (
                                   len(runs), max(named.values(), default=0)))
        size = lambda files: sum(f.stat().st_size for f in files) / 2**20
        print("  %d definitions skipped; %d entries %.1f MB, %d shared runs "
              "%.1f MB (one named by %d entries)" % (
                  skipped, len(entries), size(entries), len(runs), size(runs),
                  max(named.values())))

    def round_trip():
        (src / ".apistamp.yaml").write_text(NONE)
        sh([apistamp, "fix", "-p", str(sub), runtime, *cache])
        (src / ".apistamp.yaml").unlink()
        same_tree(state["pristine"], src)

    for name, function in zip(names, (prepare, warm, merge, fix, surface,
                                      shared_runs, round_trip)):
        steps.run(name, function)
    return steps.finish(args.junit)


if __name__ == "__main__":
    raise SystemExit(main())
