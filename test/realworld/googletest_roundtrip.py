#!/usr/bin/env python3
"""googletest round trip: instrument the real googletest tree, rebuild, test.

Copies /usr/src/googletest, writes a rules file selecting the externally
visible functions, methods and constructors in namespace `testing`, runs
`apistamp fix` with the compilation database of its CMake build, then checks:
a second fix changes nothing, `check` exits 0, the instrumented googletest with
its samples and its own tests builds against the apistamp runtime, every test
passes, events arrive through the JSON-lines sink, and `apistamp report` over
that log (joined with `apistamp catalog`) calls exactly the logged events
used: the APIs the tests call are used, APIs no test calls are never used.
Each step is a JUnit test case; figures go to stdout.
"""
import argparse
import collections
import hashlib
import json
import os
import pathlib
import re
import shutil
import sys
import time

from realworld import Steps, sh

# googletest installs its headers: the templates and inline members its
# include/ trees define stay unmeasured (public_header_edits: forbid, the
# default), on purpose, and each rule says so (allow_skipped).
RULES = """version: 1
include: <apistamp/api_usage.h>
rules:
  - id: testing-functions
    where: function
    namespace: "testing"
    files: &api ["googletest/src/**", "googletest/include/**",
                 "googlemock/src/**", "googlemock/include/**"]
    allow_skipped: true
  - id: testing-methods
    where: method
    namespace: "testing"
    files: *api
    allow_skipped: true
  - id: testing-main-classes
    where: constructor
    namespace: "testing"
    files: *api
    allow_skipped: true
"""


def tree_digest(root):
    digest = hashlib.sha256()
    for path in sorted(pathlib.Path(root).rglob("*")):
        if path.is_file():
            digest.update(str(path.relative_to(root)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def configure_googletest(source, build_dir, runtime_include, runtime_lib):
    """Copies /usr/src/googletest to source with RULES, configures build_dir
    (tests and samples on, the runtime's include and library added)."""
    shutil.copytree("/usr/src/googletest", source)
    (source / ".apistamp.yaml").write_text(RULES)
    sh(["cmake", "-S", source, "-B", build_dir, "-G", "Ninja",
        # Unoptimised: the build is what is tested, not its speed (64 s
        # against Release's 157 s for googletest's tests on 2 cores).
        "-DCMAKE_BUILD_TYPE=", "-Dgtest_build_tests=ON",
        "-Dgtest_build_samples=ON", "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON",
        "-DCMAKE_CXX_FLAGS=-O0 -I" + str(runtime_include),
        "-DCMAKE_CXX_STANDARD_LIBRARIES=%s -lpthread" % runtime_lib])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--apistamp", required=True)
    parser.add_argument("--runtime-include", required=True)
    parser.add_argument("--runtime-lib", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--junit", required=True)
    parser.add_argument("--jobs", default="2")
    args = parser.parse_args()
    for name in ("apistamp", "runtime_include", "runtime_lib", "junit"):
        setattr(args, name, os.path.abspath(getattr(args, name)))

    work = pathlib.Path(args.work).resolve()
    src, build = work / "src", work / "build"
    shard_src, fixes = work / "shards-src", work / "shard-fixes"
    events = work / "events.jsonl"
    steps = Steps("googletest-roundtrip")
    figures = {}

    def configure(source, build_dir):
        configure_googletest(source, build_dir, args.runtime_include,
                             args.runtime_lib)

    def prepare():
        if not pathlib.Path("/usr/src/googletest/CMakeLists.txt").exists():
            raise RuntimeError("/usr/src/googletest is missing (apt-get install googletest)")
        shutil.rmtree(work, ignore_errors=True)
        configure(src, build)

    def shards_export_fixes():
        """3 shards' exported fixes of the uninstrumented tree (the cache
        check filled decides what needs no edit; the TUs whose sites edit are
        parsed again, as for any write), kept with a copy of that tree for
        shards_equal_full_fix."""
        shutil.copytree(src, shard_src)
        fixes.mkdir()
        for shard in (1, 2, 3):
            sh([args.apistamp, "check", "-j" + args.jobs, "--shard", "%d/3" % shard,
                "--export-fixes", fixes / ("%d.yaml" % shard), "-p", build],
               expect=(0, 1))  # 0: no findings in it

    def shards_equal_full_fix():
        """The 3 shards' fixes, moved to the copy and merged by
        clang-apply-replacements, give the tree that one full fix gave."""
        for exported in sorted(fixes.glob("*.yaml")):
            text = exported.read_text()
            if str(src) + "/" not in text and "FilePath" in text:
                raise RuntimeError("%s names no file of %s" % (exported, src))
            exported.write_text(text.replace(str(src) + "/", str(shard_src) + "/"))
        sh(["clang-apply-replacements-19", fixes])
        if tree_digest(shard_src) != tree_digest(src):
            raise RuntimeError("the merged shard fixes differ from the full fix")

    def same_report_every_way():
        """-j2, every body parsed, and from the cache: byte-identical
        reports; -j1 the same as -j2 on a third of the TUs (a shard: -j1
        parses one TU after another, the slowest run here)."""
        outputs = {}
        # The first run fills the cache (the build directory is new), the
        # last one reads it.
        for name, extra in (("-j2", ["-j2"]),
                            ("-j2 --no-skip-bodies --no-cache",
                             ["-j2", "--no-skip-bodies", "--no-cache"]),
                            ("-j2 warm cache", ["-j2"])):
            start = time.monotonic()
            outputs[name] = sh([args.apistamp, "check", "--format=json",
                                "--verbose", *extra, "-p", build],
                               expect=1, stderr_to_stdout=False)
            figures["check %s wall time (s)" % name] = round(
                time.monotonic() - start, 1)
        if len(set(outputs.values())) != 1:
            raise RuntimeError("reports differ: " + ", ".join(
                "%s %d bytes" % (name, len(text)) for name, text in outputs.items()))
        report = json.loads(outputs["-j2"])
        figures["identical reports"] = "%d bytes, %d findings" % (
            len(outputs["-j2"]), len(report["findings"]))
        # The shard's TUs parsed again one after another, and taken from the
        # cache that -j2 filled.
        shard = {}
        for name, extra in (("-j1 --no-cache", ["-j1", "--no-cache"]),
                            ("-j2 warm cache", ["-j2"])):
            start = time.monotonic()
            shard[name] = sh([args.apistamp, "check", "--format=json",
                              "--verbose", "--shard", "1/3", *extra, "-p",
                              build], expect=(0, 1), stderr_to_stdout=False)
            figures["check --shard 1/3 %s wall time (s)" % name] = round(
                time.monotonic() - start, 1)
        if len(set(shard.values())) != 1:
            raise RuntimeError("the shard's reports differ: " + ", ".join(
                "%s %d bytes" % (name, len(text)) for name, text in shard.items()))
        tus = json.loads(shard["-j1 --no-cache"])["summary"]["tus"]
        if not 0 < tus < report["summary"]["tus"]:
            raise RuntimeError("the shard has %d of the %d TUs" % (
                tus, report["summary"]["tus"]))
        figures["the shard's TUs"] = tus

    def fix():
        start = time.monotonic()
        output = sh([args.apistamp, "fix", "-j" + args.jobs, "-p", build])
        figures["fix wall time (s), the cache filled by check"] = round(time.monotonic() - start, 1)
        figures["fix"] = re.search(r"apistamp: inserted .*", output).group(0)
        inserted = int(re.search(r"inserted (\d+)", output).group(1))
        if inserted < 100:
            raise RuntimeError("only %d insertions:\n%s" % (inserted, output))

    def fix_again():
        before = tree_digest(src)
        output = sh([args.apistamp, "fix", "-j" + args.jobs, "-p", build])
        if "inserted 0, corrected 0" not in output or tree_digest(src) != before:
            raise RuntimeError("second fix changed something:\n" + output)

    def check():
        output = sh([args.apistamp, "check", "--verbose", "-j" + args.jobs,
                     "-p", build], expect=0)
        figures["check"] = re.search(r"apistamp: \d+ TUs, .*", output).group(0)
        reasons = collections.Counter(
            m.group(1).split(":")[0].split(" (")[0].strip()
            for m in re.finditer(r"note: skipped \S+: ([^\[]+)\[", output))
        figures["skipped by reason"] = dict(reasons)

    def build_it():
        start = time.monotonic()
        sh(["cmake", "--build", build, "-j", args.jobs])
        figures["build wall time (s)"] = round(time.monotonic() - start, 1)

    def run_tests():
        env = dict(os.environ, APISTAMP_API_USAGE_LOG=str(events))
        events.unlink(missing_ok=True)
        output = sh(["ctest", "--test-dir", build, "-j", args.jobs,
                     "--output-on-failure"], env=env)
        figures["googletest tests"] = re.search(
            r"\d+% tests passed.*", output).group(0)

    def events_arrived():
        lines = events.read_text().splitlines() if events.exists() else []
        records = [json.loads(line) for line in lines]
        names = {r["event"] for r in records}
        if not records or not all(n.startswith("testing.") for n in names):
            raise RuntimeError("expected testing.* events in %s, got %d lines"
                               % (events, len(lines)))
        for key in ("event", "time", "pid", "host", "exe"):
            if any(key not in r for r in records):
                raise RuntimeError("a JSON line lacks '%s'" % key)
        figures["events"] = "%d lines, %d distinct events, %d processes" % (
            len(records), len(names), len({r["pid"] for r in records}))

    def save_catalog():
        """The catalog of the instrumented tree, for the report; now, while
        the cache check filled is valid (after the build it is not: 20 s)."""
        (work / "catalog.json").write_text(sh(
            [args.apistamp, "catalog", "--format=json", "-j" + args.jobs, "-p", build],
            stderr_to_stdout=False))

    def report():
        """apistamp report over the tests' log: what the tests reached is
        used, the rest of the catalog is never used, nothing is unknown."""
        catalog = work / "catalog.json"
        entries = json.loads(catalog.read_text())
        placed = {e["event"] for e in entries}
        # An event only skipped or suppressed definitions place cannot be
        # logged: "not measured", never "never used" (issue 24, item 26).
        measured = {e["event"] for e in entries
                    if e["status"] not in ("skipped", "suppressed")}
        start = time.monotonic()
        result = json.loads(sh([args.apistamp, "report", "--catalog", catalog,
                                "--format=json", events],
                               stderr_to_stdout=False))
        figures["report wall time (s)"] = round(time.monotonic() - start, 2)
        records = [json.loads(line) for line in events.read_text().splitlines()]
        logged = {r["event"] for r in records}
        rows = {e["event"]: e for e in result["events"]}
        used = {name for name, e in rows.items() if e["status"] == "used"}
        never = {name for name, e in rows.items() if e["status"] == "never-used"}
        unmeasured = {name for name, e in rows.items()
                      if e["status"] == "not-measured"}
        problems = []
        if result["inputs"]["events"] != len(records) or result["inputs"]["malformed"]:
            problems.append("inputs %s, expected %d events and none malformed"
                            % (result["inputs"], len(records)))
        if result["unknown"]:
            problems.append("unknown events (logged, in no rule): %s"
                            % [u["event"] for u in result["unknown"]][:10])
        if set(rows) != placed:
            problems.append("the report's events are not the catalog's")
        if used != logged:
            problems.append("used is not what the log shows: %s"
                            % sorted(used ^ logged)[:10])
        if never != measured - logged:
            problems.append("never-used is not the measured catalog minus the "
                            "log: %s" % sorted(never ^ (measured - logged))[:10])
        if unmeasured != placed - measured - logged:
            problems.append("not-measured is not the unmeasurable catalog "
                            "minus the log: %s"
                            % sorted(unmeasured ^ (placed - measured - logged))[:10])
        # By hand: the tests certainly call these; each of their processes
        # is its own job (no job id in the environment).
        for name in ("testing.InitGoogleTest", "testing.UnitTest.GetInstance",
                     "testing.AssertionSuccess"):
            processes = {(r["host"], r["pid"], r["exe"]) for r in records
                         if r["event"] == name}
            row = rows.get(name, {})
            if (row.get("status") != "used" or row.get("processes") != len(processes)
                    or row.get("jobs") != len(processes)):
                problems.append("%s: %s, expected used in %d processes and jobs"
                                % (name, row, len(processes)))
        # ... and no test built here calls these: googlemock's own tests are
        # not built (gmock_build_tests is off), GetTestCase is the deprecated
        # spelling of GetTestSuite. The grep proves it for this googletest.
        for name in ("testing.InitGoogleMock", "testing.Mock.AllowLeak",
                     "testing.UnitTest.GetTestCase"):
            word = name.rsplit(".", 1)[1]
            callers = [str(f.relative_to(src)) for d in ("googletest/test", "googletest/samples")
                       for f in sorted((src / d).rglob("*"))
                       if f.is_file() and re.search(r"\b%s\b" % word, f.read_text(errors="replace"))]
            if callers:
                problems.append("%s has callers in the tests, pick another: %s"
                                % (name, callers))
            if rows.get(name, {}).get("status") != "never-used":
                problems.append("%s: %s, expected never-used" % (name, rows.get(name)))
        if problems:
            raise RuntimeError("\n".join(problems))
        figures["report"] = "%d events placed: %d used, %d never used, 0 unknown" % (
            len(rows), len(used), len(never))

    steps.run("copy and configure googletest", prepare)
    steps.run("check -j2, --no-skip-bodies and cached print identical reports; "
              "-j1 too, on a shard",
              same_report_every_way)
    steps.run("3 shards export their fixes", shards_export_fixes)
    steps.run("apistamp fix", fix)
    steps.run("second fix changes nothing", fix_again)
    steps.run("check exits 0", check)
    steps.run("catalog of the instrumented tree", save_catalog)
    steps.run("3 shards' merged fixes equal the full fix", shards_equal_full_fix)
    steps.run("instrumented googletest and samples build", build_it)
    steps.run("googletest's own tests and samples pass", run_tests)
    steps.run("events arrive through the JSON-lines sink", events_arrived)
    steps.run("report: logged events used, untested APIs never used", report)
    steps.write_junit(args.junit)
    for key, value in figures.items():
        print("  %s: %s" % (key, value))
    return 1 if steps.failed else 0


if __name__ == "__main__":
    sys.exit(main())
