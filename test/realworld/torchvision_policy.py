#!/usr/bin/env python3
"""torchvision policy test: rules/torchvision.yaml against torchvision's own calls.

torchvision 0.14.1 places 18 C10_LOG_API_USAGE_ONCE calls by hand. This test
takes its source (fetched at set-up by scripts/fetch-torchvision.sh; skipped
with a message when it is absent), deletes every call, runs `apistamp fix` with
rules/torchvision.yaml over every C++ file that compiles here against Debian's
libtorch-dev 1.13, and compares the result with upstream: the same calls, with
the same event strings, in the same places, and nothing else changed. Files
that need what cannot be installed here (CUDA, nvjpeg, NVDEC) are listed as not
checked, with the upstream calls they hold. The instrumented files must still
compile. Prints precision and recall; each step is a JUnit test case.
Before the fix, `check` with the bodies no rule can select skipped must print
what it prints with every body parsed, on a third of the TUs (each kind).
Then, with one op's coverage removed from the rules (roi_align.cpp excluded
from the `ops` rule), `catalog --unselected` must list that op's public
functions, and nothing in a `detail` namespace or with a `_`-prefixed name.

--cache-dir DIR: the result cache of every run (default: a fresh one in the
build directory). The test command passes the one preamble_equivalence.py's
cold reference of 7 of the same stripped TUs (same paths, same bytes) filled
just before: those 7 are not parsed again by the first check here. Only
--no-preamble parses, bodies skipped, are in it, as the first check here
would store; the comparison with every body parsed is never served from it.
"""
import argparse
import concurrent.futures
import fnmatch
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time

from realworld import Steps, sh

DEFAULT_SOURCE = "/var/cache/apistamp/pytorch-vision/vision-0.14.1"
CALL = re.compile(r'^[ \t]*C10_LOG_API_USAGE_ONCE\(\s*"([^"]*)"\s*\);[ \t]*\n',
                  re.MULTILINE)
# Files whose active code needs a library that Debian 12 cannot provide here.
NOT_CHECKABLE = [
    ("torchvision/csrc/io/image/cuda/*", "needs CUDA and nvjpeg (NVJPEG_FOUND)"),
    ("torchvision/csrc/io/decoder/gpu/*", "needs CUDA and NVDEC"),
    ("torchvision/csrc/ops/cuda/*", "CUDA kernels"),
    ("*.cu", "CUDA source"),
]
COMPILE_FLAGS = ["-std=c++17", "-DJPEG_FOUND=1", "-DPNG_FOUND=1",
                 "-DNVJPEG_FOUND=0", "-isystem",
                 "/usr/include/torch/csrc/api/include"]


def calls_by_position(text):
    """[(position, event)], position = lines before the call that are not calls.

    Positions are line numbers in the text with every call deleted, so the
    calls of upstream's file and of apistamp's output compare directly.
    """
    calls, position = [], 0
    normal = CALL.sub(lambda m: "\0%s\n" % m.group(1), text)
    for line in normal.splitlines():
        if line.startswith("\0"):
            calls.append((position, line[1:]))
        else:
            position += 1
    return calls


def not_checkable_reason(relative):
    for pattern, reason in NOT_CHECKABLE:
        if fnmatch.fnmatch(relative, pattern):
            return reason
    return None


def strip_calls(source, src, build):
    """Copies source's torchvision/ to src with every call deleted, writes
    build/compile_commands.json for the checkable .cpp files; returns
    (upstream calls by file, checked files, unchecked files with reasons)."""
    build.mkdir(parents=True)
    shutil.copytree(source / "torchvision", src / "torchvision")
    upstream, checked, unchecked = {}, [], {}
    for path in sorted((src / "torchvision/csrc").rglob("*")):
        if path.suffix not in (".cpp", ".h", ".cu"):
            continue
        relative = str(path.relative_to(src))
        text = path.read_text()
        calls = calls_by_position(text)
        if calls:
            upstream[relative] = calls
            path.write_text(CALL.sub("", text))
        if text.count("C10_LOG_API_USAGE_ONCE") != len(calls):
            raise RuntimeError("%s: a call this test cannot parse" % relative)
        reason = not_checkable_reason(relative)
        if reason:
            unchecked[relative] = reason
        elif path.suffix == ".cpp":
            checked.append(relative)
    commands = [{"directory": str(src), "file": str(src / f),
                 "arguments": ["clang++", *COMPILE_FLAGS, "-I", str(src),
                               "-c", str(src / f)]} for f in checked]
    (build / "compile_commands.json").write_text(json.dumps(commands, indent=1))
    return upstream, checked, unchecked


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--apistamp", required=True)
    parser.add_argument("--rules", required=True)
    parser.add_argument("--source", default=DEFAULT_SOURCE)
    parser.add_argument("--work", required=True)
    parser.add_argument("--junit", required=True)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--cache-dir",
                        help="the result cache (default: build/.apistamp-cache, made anew)")
    args = parser.parse_args()
    for name in ("apistamp", "rules", "junit"):
        setattr(args, name, os.path.abspath(getattr(args, name)))
    work = pathlib.Path(args.work).resolve()
    source = pathlib.Path(args.source)
    src, build = work / "src", work / "build"
    steps = Steps("torchvision-policy")
    state = {}
    # Every run's result cache: the shared one, or the default in build/.
    cache = ["--cache-dir", os.path.abspath(args.cache_dir)] if args.cache_dir else []

    step_names = ["strip upstream's calls",
                  "skipping bodies no rule can select changes no result",
                  "apistamp fix",
                  "same calls as upstream, nothing extra", "check exits 0",
                  "instrumented files compile",
                  "public API no rule covers: one op's rule removed"]
    if not (source / "torchvision/csrc/vision.cpp").exists():
        reason = ("torchvision 0.14.1 source not found at %s; run "
                  "scripts/fetch-torchvision.sh (needs deb.debian.org)" % source)
        for name in step_names:
            steps.skip(name, reason)
        steps.write_junit(args.junit)
        return 0

    def strip():
        shutil.rmtree(work, ignore_errors=True)
        upstream, checked, unchecked = strip_calls(source, src, build)
        state.update(upstream=upstream, checked=checked, unchecked=unchecked)
        total = sum(len(c) for c in upstream.values())
        print("  upstream calls: %d in %d files; %d C++ TUs checked"
              % (total, len(upstream), len(checked)))
        if total != 18:
            raise RuntimeError("expected torchvision 0.14.1's 18 calls, found %d"
                               % total)

    def same_with_every_body():
        # Every TU with bodies skipped (this fills the result cache that fix
        # and check use), then a third of them both ways: the first TU of each
        # directory and every third after it, so that each kind of TU (the
        # decoder, the image codecs, the op registrations, the CPU, autograd,
        # autocast and quantized kernels, vision.cpp) is parsed whole. (All
        # 52 with every body parsed took 127 of this section's 266 s.)
        check = [args.apistamp, "check", "--format=json", "--verbose",
                 "--rules", args.rules, "--root", src, "-j%d" % args.jobs, "-p", build,
                 *cache]
        start = time.monotonic()
        done = subprocess.run(check, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
        if done.returncode != 1:
            raise RuntimeError("check exited %d, expected 1:\n%s"
                               % (done.returncode, done.stderr[-3000:]))
        print("  check (bodies skipped), all %d TUs: %.1f s; %s"
              % (len(state["checked"]), time.monotonic() - start,
                 "; ".join(line.strip() for line in done.stderr.splitlines()
                           if "cache:" in line)))
        by_directory = {}
        for relative in sorted(state["checked"]):
            by_directory.setdefault(os.path.dirname(relative), []).append(relative)
        sample = [str(src / relative) for files in by_directory.values()
                  for relative in files[::3]]
        reports = []
        for extra in ([], ["--no-skip-bodies"]):
            start = time.monotonic()
            reports.append(sh(check + extra + sample, expect=1, stderr_to_stdout=False))
            print("  check %s, %d TUs: %.1f s" % (" ".join(extra) or "(bodies skipped)",
                                                 len(sample), time.monotonic() - start))
        if reports[0] != reports[1]:
            raise RuntimeError("reports differ with --no-skip-bodies")

    def fix():
        start = time.monotonic()
        output = sh([args.apistamp, "fix", "--rules", args.rules, "--root", src,
                     "-j%d" % args.jobs, "-p", build, *cache])
        state["fix seconds"] = time.monotonic() - start
        print("  " + output.strip().splitlines()[-1])
        state["fix output"] = output

    def compare():
        upstream, ours = [], []
        changed = []
        for relative, reason in sorted(state["unchecked"].items()):
            for position, event in state["upstream"].get(relative, []):
                print("  not checked: %s (%s): upstream logs %s"
                      % (relative, reason, event))
        for path in sorted((src / "torchvision/csrc").rglob("*")):
            relative = str(path.relative_to(src))
            if path.suffix not in (".cpp", ".h") or relative in state["unchecked"]:
                continue
            text = path.read_text()
            stripped = CALL.sub("", text)
            original = (source / relative).read_text()
            if stripped != CALL.sub("", original):
                raise RuntimeError("%s: apistamp changed more than calls" % relative)
            if text != stripped:
                changed.append(relative)
            upstream += [(relative, *c) for c in calls_by_position(original)]
            ours += [(relative, *c) for c in calls_by_position(text)]
        matched = set(upstream) & set(ours)
        precision = len(matched) / len(ours) if ours else 0.0
        recall = len(matched) / len(upstream) if upstream else 0.0
        state["changed"] = changed
        print("  checked upstream calls: %d; inserted: %d; matching: %d"
              % (len(upstream), len(ours), len(matched)))
        print("  precision %.1f%%, recall %.1f%%" % (100 * precision, 100 * recall))
        problems = ["  extra: %s:%d %s" % c for c in sorted(set(ours) - matched)]
        problems += ["  missed: %s:%d %s" % c for c in sorted(set(upstream) - matched)]
        if problems or not upstream:
            raise RuntimeError("differs from upstream (line = position with "
                               "calls deleted):\n" + "\n".join(problems))

    def check():
        sh([args.apistamp, "check", "--rules", args.rules, "--root", src,
            "-j%d" % args.jobs, "-p", build, *cache], expect=0)

    def compile_changed():
        def syntax_check(relative):
            """The compiler's verdict on one file: its exit code decides."""
            try:
                sh(["clang++-19", "-fsyntax-only", *COMPILE_FLAGS, "-I", str(src),
                    str(src / relative)])
                return None
            except RuntimeError as error:
                return str(error)
        failures = []
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            failures = [f for f in pool.map(syntax_check, state["changed"]) if f]
        print("  %d instrumented files compile" % (len(state["changed"]) - len(failures)))
        if failures or not state["changed"]:
            raise RuntimeError("\n".join(failures)[-3000:] or "nothing was instrumented")

    def unselected():
        rules = pathlib.Path(args.rules).read_text()
        ops_rule = ('    files: "torchvision/csrc/ops/*.cpp"\n'
                    '    namespace: "vision::ops"\n')
        if ops_rule not in rules:
            raise RuntimeError("the ops rule of %s has changed" % args.rules)
        narrowed = work / "roi-align-uncovered.yaml"
        narrowed.write_text(rules.replace(
            ops_rule, ops_rule + '    exclude_files: '
            '["torchvision/csrc/ops/roi_align.cpp"]\n'))
        start = time.monotonic()
        listed = json.loads(sh([args.apistamp, "catalog", "--unselected",
                                "--format=json", "--rules", str(narrowed),
                                "--root", src, "-j%d" % args.jobs, "-p", build,
                                *cache],
                               stderr_to_stdout=False))
        print("  catalog --unselected: %.1f s, %d public definitions no rule "
              "selects" % (time.monotonic() - start, len(listed)))
        # A whole-project run covers the Python package too: its public
        # definitions no rule selects (the model builders, the Weights
        # enums, the backends) are listed with them; this step is about
        # the C++ surface.
        python = [e for e in listed if e["file"].endswith(".py")]
        listed = [e for e in listed if not e["file"].endswith(".py")]
        print("  of them Python: %d (not judged here)" % len(python))
        names = sorted(entry["name"] for entry in listed)
        for name in names:
            print("    " + name)
        # The bundled policy covers the rest of its surface (decode_image is
        # left out on purpose): the op is all that is listed.
        if names != ["vision::ops::roi_align"]:
            raise RuntimeError("expected vision::ops::roi_align alone, "
                               "listed: %s" % names)
        private = [n for n in names
                   if any(part in ("detail", "internal") or part.startswith("_")
                          for part in n.split("::"))]
        if private:
            raise RuntimeError("private definitions listed: %s" % private)
        entry = next(e for e in listed if e["name"] == "vision::ops::roi_align")
        if entry["header"] != "torchvision/csrc/ops/roi_align.h":
            raise RuntimeError("roi_align's header: %s" % entry["header"])
        print("  roi_align: " + "; ".join("%s: %s" % (r["rule"], r["rejection"])
                                          for r in entry["rules"]))

    for name, function in zip(step_names, (strip, same_with_every_body, fix,
                                           compare, check, compile_changed,
                                           unselected)):
        steps.run(name, function)
    steps.write_junit(args.junit)
    return 1 if steps.failed else 0


if __name__ == "__main__":
    sys.exit(main())
