#!/usr/bin/python3
"""Snapshot apistamp's observable output on real projects, to prove that a
refactoring changes none of it (scripts/compare-outputs.sh diffs two).

  scripts/snapshot-outputs.py --apistamp BIN --out DIR [--jobs 2] [--only NAME...]
                              [--scratch /tmp/apistamp-snapshot]

The projects are set up afresh on every run in the scratch directory, which
is deleted and re-created, always at the same absolute path (default
/tmp/apistamp-snapshot; DIR/scratch-path says which), so that paths in the
outputs compare equal between binaries and runs. Two snapshots must not run
at once with the same scratch directory (a lock file enforces it). The set-up
reuses the real-project tests' code (test/realworld/*.py):

  googletest  /usr/src/googletest, googletest_roundtrip.py's rules and CMake
              configuration (tests and samples on; compile database of 72 TUs)
  jsoncpp     1.9.5 from /var/cache/apistamp, jsoncpp_adoption.py's rules and
              options, configured with the runtime (as after adoption)
  pugixml     1.13 from /var/cache/apistamp, likewise (pugixml_adoption.py)
  torchvision 0.14.1 from /var/cache/apistamp/pytorch-vision, upstream's
              calls stripped, rules/torchvision.yaml, the compile database
              against /usr/include/torch (torchvision_policy.strip_calls)
  imagelib    examples/imagelib configured as scripts/demo.sh does

The runtime (runtime/ of this tree) is copied into the scratch directory, so
its include path is the same whatever the checkout.

Per project, each command's stdout, stderr and exit code go to one file,
DIR/<project>.<NN>-<command>.txt (its command line first, the binary shown as
`apistamp`; the binary also runs with argv[0] = "apistamp"). Files a command
writes (--export-fixes) are recorded in that file too, and `fix` is followed
by DIR/<project>.<NN>-fix.tree.diff: a unified diff (difflib, no timestamps)
of every source file fix changed against the pristine copy; the second fix
records the diff against the tree after the first one (empty when nothing
changed). Commands, in order (-jJOBS --color=never, --no-cache but for the
cache pair):

  check; check --format=json; check --format=sarif; check --verbose;
  check --export-fixes=F; diff; catalog; catalog --format=csv;
  catalog --format=json; explain (a definition a rule selects) and explain
  (one none selects); verify (imagelib: a copy with expect comments, one of
  them wrong; torchvision: the sources of test/lit/rules/torchvision-*.cpp,
  split; other projects have no expect comments: skipped); check --shard 1/2;
  check --shard 2/2; check --cache-dir=<scratch> twice (fills, then hits);
  report and report --format=json over a JSON-lines log written here (events
  in the catalog and some that are not, one malformed line); fix; check (exit
  0 expected); fix again (no change expected).

Cost (a run takes about 6 minutes on 2 busy cores): apart from the
first `check` and `fix`, every command analyses a subset of the TUs, given
as sources on the command line: googletest googlemock/src/gmock-all.cc (1
TU; its first `check` uses the subset too: all 72 TUs take 80 s), jsoncpp
src/lib_json/json_reader.cpp (its 3 configurations), torchvision
ops/nms.cpp and ops/cpu/nms_kernel.cpp; pugixml and imagelib every TU. The
first `check` and `fix` run on every TU (but googletest's check), so the
fix tree diff is the whole project's. `report` reads the catalog saved by
`catalog --format=json` (--catalog), but on imagelib where it computes the
catalog itself. `explain --name` parses every TU of the database, so it
runs on imagelib only; elsewhere both explains are <file>:<line> (lines
found by text in the pristine sources).

Normalised (and nothing else): in lines that start with `apistamp` (summary
lines), wall-time figures `in <number> s` become `in <T> s`. Cache hit
counts, paths, exit codes and everything else are recorded as printed.

Exit code: 0 when every command ran (whatever its exit code), 1 when the
set-up failed. DIR/timings.txt (not compared: excluded by compare-outputs.sh)
lists each command's wall time.
"""
import argparse
import difflib
import fcntl
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time

REPO = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "test" / "realworld"))

import adoption  # noqa: E402
import googletest_roundtrip  # noqa: E402
import jsoncpp_adoption  # noqa: E402
import pugixml_adoption  # noqa: E402
import torchvision_policy  # noqa: E402
from realworld import sh  # noqa: E402

WALL_TIME = re.compile(r"\bin \d+(?:\.\d+)? s\b")
# Fixed dates: the pristine commit of the adoption projects is the same on
# every run.
GIT_ENV = dict(os.environ, GIT_AUTHOR_DATE="2026-01-01T00:00:00Z",
               GIT_COMMITTER_DATE="2026-01-01T00:00:00Z")
SKIP_DIRS = {"build", ".git", ".apistamp-cache"}


def normalise(text):
    return "".join(WALL_TIME.sub("in <T> s", line) if line.startswith("apistamp") else line
                   for line in text.splitlines(keepends=True))


def snapshot_tree(root):
    """{relative path: bytes} of the sources (not build, .git, caches)."""
    files = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for name in sorted(filenames):
            path = pathlib.Path(dirpath) / name
            files[str(path.relative_to(root))] = path.read_bytes()
    return files


def tree_diff(before, after):
    out = []
    for rel in sorted(set(before) | set(after)):
        a, b = before.get(rel), after.get(rel)
        if a == b:
            continue
        a_lines = (a or b"").decode("utf-8", "replace").splitlines(keepends=True)
        b_lines = (b or b"").decode("utf-8", "replace").splitlines(keepends=True)
        out += difflib.unified_diff(a_lines, b_lines,
                                    "a/" + rel if a is not None else "/dev/null",
                                    "b/" + rel if b is not None else "/dev/null")
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
                   for line in out)


def jsonl(records):
    return "".join(json.dumps(r, sort_keys=True) + "\n" for r in records)


def log_lines(events, unknown):
    """A small JSON-lines log: two jobs and a process without a job use the
    given events; unknown events come from an old build; one line is cut."""
    records = []
    for i, event in enumerate(events):
        records.append({"event": event, "time": "2026-11-2%dT08:00:%02d.000000Z" % (i % 3, i),
                        "pid": 100 + i % 4, "host": "node%d" % (i % 2),
                        "exe": "/opt/app/bin/train", "rank": i % 4,
                        "job_id": ["81723", 77, None][i % 3]})
    for i, event in enumerate(unknown):
        records.append({"event": event, "time": "2026-11-19T00:00:0%d.000000Z" % i,
                        "pid": 4242, "host": "old", "exe": "/opt/old/bin/train",
                        "job_id": "81001"})
    return jsonl(records) + '{"event":"%s","time":"2026-11-2\n' % events[0]


class Project:
    name = ""
    subset = None          # sources for the repeated commands (None: all TUs)
    full_check = True      # the first check runs on every TU
    explain = []           # two argument lists: selected, not selected
    report_events = []     # events in the catalog, for the log
    report_unknown = []    # events no rule places
    report_own_catalog = False

    def setup(self, work, runtime):
        """Creates the tree under work; returns (cwd, base args, src)."""
        raise NotImplementedError

    def verify(self, work, runtime):
        """[(name, cwd, args)] verify runs, or [] (no expect comments)."""
        return []


class Googletest(Project):
    name = "googletest"
    subset = ["googlemock/src/gmock-all.cc"]
    full_check = False     # 72 TUs: 80 s; the full fix covers the tree
    # InitGoogleTest is selected; GetDefaultFilter is static (internal).
    explain = [["googletest/src/gtest.cc:6730"], ["googletest/src/gtest.cc:208"]]
    report_events = ["testing.InitGoogleTest", "testing.UnitTest.GetInstance",
                     "testing.AssertionSuccess", "testing.TempDir"]
    report_unknown = ["testing.RemovedLongAgo"]

    def setup(self, work, runtime):
        src, build = work / "src", work / "build"
        googletest_roundtrip.configure_googletest(src, build, runtime / "include",
                                                  "/nonexistent/libapistamp_runtime.a")
        return src, ["-p", str(build)], src


class Adopted(Project):
    adoption_project = None

    def setup(self, work, runtime):
        project = self.adoption_project
        src, build = work / "src", work / "src" / "build"
        if not (pathlib.Path(project.source) / "CMakeLists.txt").exists():
            raise RuntimeError("%s is missing (scripts/fetch-debian-source.sh)"
                               % project.source)
        adoption.copy_into_git(project, src, env=GIT_ENV)
        adoption.configure_project(project, src, build, runtime / "include",
                                   "/nonexistent/libapistamp_runtime.a")
        return src, [], src


class Jsoncpp(Adopted):
    name = "jsoncpp"
    subset = ["src/lib_json/json_reader.cpp"]
    adoption_project = jsoncpp_adoption.Jsoncpp()
    # Value::asInt is selected; the private Reader::skipSpaces is not.
    explain = [["src/lib_json/json_value.cpp:LINE_ASINT"],
               ["src/lib_json/json_reader.cpp:LINE_HELPER"]]
    report_events = ["Json.Reader.parse", "Json.Value.asInt", "Json.CharReaderBuilder"]
    report_unknown = ["Json.Value.isEmptyArray"]


class Pugixml(Adopted):
    name = "pugixml"
    adoption_project = pugixml_adoption.Pugixml()
    explain = [["src/pugixml.cpp:LINE_FIRST_CHILD"], ["src/pugixml.cpp:LINE_IMPL"]]
    report_events = ["pugi.xml_document", "pugi.xml_document.load_string",
                     "pugi.xml_node.first_child", "pugi.xpath_query"]
    report_unknown = ["pugi.xml_node.is_element"]


class Torchvision(Project):
    name = "torchvision"
    subset = ["torchvision/csrc/ops/nms.cpp", "torchvision/csrc/ops/cpu/nms_kernel.cpp"]
    explain = [["torchvision/csrc/ops/nms.cpp:LINE_NMS"],
               ["torchvision/csrc/ops/cpu/nms_kernel.cpp:LINE_KERNEL"]]
    report_events = ["torchvision.csrc.ops.nms.nms", "torchvision.csrc.vision.cuda_version"]
    report_unknown = ["torchvision.csrc.ops.removed"]

    def setup(self, work, runtime):
        source = pathlib.Path(torchvision_policy.DEFAULT_SOURCE)
        if not (source / "torchvision/csrc/vision.cpp").exists():
            raise RuntimeError("%s is missing (scripts/fetch-torchvision.sh)" % source)
        src, build = work / "src", work / "build"
        torchvision_policy.strip_calls(source, src, build)
        rules = work / "torchvision.yaml"
        shutil.copy(REPO / "rules" / "torchvision.yaml", rules)
        return src, ["--rules", str(rules), "--root", str(src), "-p", str(build)], src

    def verify(self, work, runtime):
        """The sources of the rule tests in test/lit/rules, split as
        %split-file --leading-lines does (line numbers kept)."""
        runs = []
        for test in sorted((REPO / "test/lit/rules").glob("torchvision-*.cpp")):
            root = work / "verify" / test.stem
            lines = test.read_text().splitlines(keepends=True)
            current, files = None, {}
            for number, line in enumerate(lines):
                match = re.match(r"^//--- (\S+)", line)
                if match:
                    current = match.group(1)
                    files[current] = ["\n"] * (number + 1)
                elif current:
                    files[current].append(line)
            for rel, text in files.items():
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                (root / rel).write_text("".join(text))
            runs.append(("verify-" + test.stem.replace("torchvision-", ""), root,
                         ["--rules", str(work / "torchvision.yaml"), "--root", str(root),
                          *sorted(str(root / rel) for rel in files if rel.endswith(".cpp")),
                          "--", "-std=c++17"]))
        return runs


IMAGELIB_EXPECT = [
    # (file, text of the definition's first line, comment); one wrong event
    # on purpose, and one expect-no-event on a selected definition.
    ("src/ops.cpp", "Image blur(", "// expect-event: imagelib.src.ops.blur"),
    ("src/ops.cpp", "Image threshold(", "// expect-event: imagelib.src.ops.thresh"),
    ("src/ops.cpp", "Image invert(", "// expect-no-event"),
    ("src/image.cpp", "double Image::mean(", "// expect-event: imagelib.Image.mean"),
    ("src/pipeline.cpp", "Pipeline::Pipeline(std::string Name) :", "// expect-event: imagelib.Pipeline"),
]


class Imagelib(Project):
    name = "imagelib"
    explain = [["--name", "imagelib::blur"], ["--name", "imagelib::Image::at"]]
    report_events = ["imagelib.src.ops.blur", "imagelib.Pipeline", "imagelib.Pipeline.run",
                     "imagelib.Image.mean", "imagelib.binarize"]
    report_unknown = ["imagelib.src.ops.sharpen"]
    report_own_catalog = True

    def setup(self, work, runtime):
        src, build = work / "src", work / "src" / "build"
        shutil.copytree(REPO / "examples" / "imagelib", src)
        sh(["cmake", "-S", src, "-B", build, "-G", "Ninja",
            "-DAPISTAMP_RUNTIME_DIR=%s" % runtime])
        return src, ["-p", str(build)], src

    def verify(self, work, runtime):
        root = work / "verify"
        shutil.copytree(REPO / "examples" / "imagelib", root)
        for rel, start, comment in IMAGELIB_EXPECT:
            path = root / rel
            lines = path.read_text().splitlines(keepends=True)
            hits = [i for i, line in enumerate(lines) if start in line]
            if len(hits) != 1:
                raise RuntimeError("%s: %r found %d times" % (rel, start, len(hits)))
            lines.insert(hits[0], comment + "\n")
            path.write_text("".join(lines))
        sh(["cmake", "-S", root, "-B", root / "build", "-G", "Ninja",
            "-DAPISTAMP_RUNTIME_DIR=%s" % runtime])
        return [("verify", root, ["-p", str(root / "build")])]


PROJECTS = [Googletest(), Jsoncpp(), Pugixml(), Torchvision(), Imagelib()]


def resolve_lines(project, src):
    """Explain targets named by a marker (LINE_...) get their line from the
    pristine sources, found by text: the same on every run."""
    markers = {
        "LINE_ASINT": ("src/lib_json/json_value.cpp", r"^Value::Int Value::asInt\(\) const"),
        "LINE_HELPER": ("src/lib_json/json_reader.cpp", r"^void Reader::skipSpaces\(\)"),
        "LINE_FIRST_CHILD": ("src/pugixml.cpp", r"^\tPUGI__FN xml_node xml_node::first_child\(\) const"),
        "LINE_IMPL": ("src/pugixml.cpp", r"^\tPUGI__FN bool strequal\("),
        "LINE_NMS": ("torchvision/csrc/ops/nms.cpp", r"^at::Tensor nms\("),
        "LINE_KERNEL": ("torchvision/csrc/ops/cpu/nms_kernel.cpp", r"^at::Tensor nms_kernel\("),
    }
    resolved = []
    for args in project.explain:
        out = []
        for arg in args:
            for marker, (rel, pattern) in markers.items():
                if arg.endswith(":" + marker):
                    lines = (src / rel).read_text().splitlines()
                    hits = [i + 1 for i, line in enumerate(lines) if re.match(pattern, line)]
                    if len(hits) != 1:
                        raise RuntimeError("%s: /%s/ matches %d lines" % (rel, pattern, len(hits)))
                    arg = "%s:%d" % (rel, hits[0])
            out.append(arg)
        resolved.append(out)
    return resolved


class Recorder:
    def __init__(self, apistamp, out, jobs, timings):
        self.apistamp, self.out, self.jobs, self.timings = apistamp, out, jobs, timings

    def run(self, project, label, cwd, args, files=()):
        """Runs apistamp args in cwd; writes DIR/<project>.<NN>-<label>.txt."""
        self.counter = getattr(self, "counter", 0) + 1
        start = time.monotonic()
        completed = subprocess.run(["apistamp", *map(str, args)], executable=self.apistamp,
                                   cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   stdin=subprocess.DEVNULL)
        seconds = time.monotonic() - start
        self.timings.write("%7.1f s  %s %s\n" % (seconds, project, label))
        self.timings.flush()
        print("  %-12s %-28s exit %d  %5.1f s" % (project, label, completed.returncode, seconds),
              flush=True)
        text = "$ cd %s\n$ apistamp %s\nexit code: %d\n--- stdout\n%s--- stderr\n%s" % (
            cwd, " ".join(map(str, args)), completed.returncode,
            normalise(completed.stdout.decode("utf-8", "replace")),
            normalise(completed.stderr.decode("utf-8", "replace")))
        for path in files:
            path = pathlib.Path(path)
            content = path.read_text(errors="replace") if path.exists() else "(not written)\n"
            text += "--- file %s\n%s" % (path, normalise(content))
        (self.out / ("%s.%02d-%s.txt" % (project, self.counter, label))).write_text(text)
        return completed

    def write(self, project, label, text):
        self.counter = getattr(self, "counter", 0) + 1
        (self.out / ("%s.%02d-%s" % (project, self.counter, label))).write_text(text)


def snapshot_project(project, rec, scratch, runtime):
    work = scratch / project.name
    cwd, base, src = project.setup(work, runtime)
    explains = resolve_lines(project, src)
    pristine = snapshot_tree(src)
    verifies = project.verify(work, runtime)
    j = ["-j%d" % rec.jobs, "--color=never"]
    subset = project.subset or []
    nc = [*j, "--no-cache", *base]
    name = project.name
    rec.counter = 0

    rec.run(name, "check", cwd, ["check", *nc, *([] if project.full_check else subset)])
    rec.run(name, "check-json", cwd, ["check", "--format=json", *nc, *subset])
    rec.run(name, "check-sarif", cwd, ["check", "--format=sarif", *nc, *subset])
    rec.run(name, "check-verbose", cwd, ["check", "--verbose", *nc, *subset])
    fixes = work / "export-fixes.yaml"
    rec.run(name, "check-export-fixes", cwd,
            ["check", "--export-fixes=%s" % fixes, *nc, *subset], files=[fixes])
    rec.run(name, "diff", cwd, ["diff", *nc, *subset])
    rec.run(name, "catalog", cwd, ["catalog", *nc, *subset])
    rec.run(name, "catalog-csv", cwd, ["catalog", "--format=csv", *nc, *subset])
    catalog = rec.run(name, "catalog-json", cwd, ["catalog", "--format=json", *nc, *subset])
    (work / "catalog.json").write_bytes(catalog.stdout)
    for label, args in zip(("explain-selected", "explain-not-selected"), explains):
        rec.run(name, label, cwd, ["explain", *j, *base, *args])  # no --no-cache option
    for label, vcwd, args in verifies:
        rec.run(name, label, vcwd, ["verify", *j, "--no-cache", *args])
    for shard in ("1/2", "2/2"):
        rec.run(name, "check-shard-" + shard.replace("/", "of"), cwd,
                ["check", "--shard", shard, *nc, *subset])
    cache = work / "cache"
    for label in ("check-cache-fill", "check-cache-hit"):
        rec.run(name, label, cwd, ["check", "--verbose", *j, "--cache-dir=%s" % cache,
                                   *base, *subset])
    log = work / "usage.jsonl"
    log.write_text(log_lines(project.report_events, project.report_unknown))
    source = [] if project.report_own_catalog else ["--catalog", str(work / "catalog.json")]
    rec.run(name, "report", cwd, ["report", *j, "--no-cache", *base, *source, str(log)])
    rec.run(name, "report-json", cwd, ["report", "--format=json", *j, "--no-cache", *base,
                                       *source, str(log)])
    # fix on every TU (the tree diff is the project's), then check and fix
    # again on the subset.
    rec.run(name, "fix", cwd, ["fix", *nc])
    fixed = snapshot_tree(src)
    rec.write(name, "fix.tree.diff", tree_diff(pristine, fixed))
    rec.run(name, "check-after-fix", cwd, ["check", *nc, *subset])
    rec.run(name, "fix-again", cwd, ["fix", *nc, *subset])
    rec.write(name, "fix-again.tree.diff", tree_diff(fixed, snapshot_tree(src)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--apistamp", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", nargs="+", choices=[p.name for p in PROJECTS])
    parser.add_argument("--scratch", default="/tmp/apistamp-snapshot",
                        help="set-up directory, deleted and re-created (default: %(default)s)")
    args = parser.parse_args()
    apistamp = os.path.abspath(args.apistamp)
    out = pathlib.Path(args.out).resolve()
    scratch = pathlib.Path(args.scratch).resolve()
    if out == scratch or scratch in out.parents:
        parser.error("--out must not be inside --scratch")
    scratch.parent.mkdir(parents=True, exist_ok=True)
    lock = open(str(scratch) + ".lock", "w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        sys.exit("%s is in use by another snapshot (%s.lock)" % (scratch, scratch))
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir()
    runtime = scratch / "runtime"
    shutil.copytree(REPO / "runtime", runtime,
                    ignore=shutil.ignore_patterns("bench", "test"))
    (out / "scratch-path").write_text("%s\n" % scratch)
    rec = Recorder(apistamp, out, args.jobs, open(out / "timings.txt", "w"))
    start = time.monotonic()
    failed = False
    for project in PROJECTS:
        if args.only and project.name not in args.only:
            continue
        print("== %s" % project.name, flush=True)
        try:
            snapshot_project(project, rec, scratch, runtime)
        except Exception as error:  # a set-up failure: recorded, and exit 1
            failed = True
            print("FAILED %s: %s" % (project.name, error), flush=True)
            (out / ("%s.SETUP-FAILED.txt" % project.name)).write_text(str(error) + "\n")
    rec.timings.write("%7.1f s  total\n" % (time.monotonic() - start))
    rec.timings.close()
    print("snapshot in %s (%.0f s)" % (out, time.monotonic() - start))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
