#!/usr/bin/env python3
"""Stored preambles on real projects: the same bytes as a parse of every TU.

For googletest, jsoncpp, pugixml and torchvision (the trees and compilation
databases the other real-project tests leave under build/realworld; nothing
is fetched), each uninstrumented (so that check has findings, with fixes, to
print):

  (a) `check --no-preamble`, JSON parsing every TU (into a result cache of
      its own), then text from that cache (the reference: no preamble
      involved; a second cold parse for the text would cost a minute);
  (b) with APISTAMP_PREAMBLE_STORE=<a new directory> and --no-cache: every
      TU's preamble is built, and the report is the reference's;
  (c) again on that store: every TU is parsed on its preamble, none is
      built, none is parsed again without it (--verbose says
      so), and JSON and text are the reference's, byte for byte.

googletest and torchvision are checked on a subset of their TUs, named on
the command line: googletest's library sources (gtest-all.cc, whose include
prefix is the whole library, gmock-all.cc, gtest_main.cc, gmock_main.cc: 10
TUs with their configurations; named, its tests select nothing and are not
parsed), and 7 of torchvision's 52 (ops and image files that hold upstream's
calls, each on torch's headers). All of either costs minutes: googletest's
70 TUs 75 s for one cold run here, torchvision's 190 s.

Then a pre-commit session on pugixml: the tree fixed, a warm result cache
and store (`check src/pugixml.cpp`, which builds the preambles of its TUs),
one function body edited (its event call deleted), `check src/pugixml.cpp`
again: its TUs are parsed on their stored preambles, none is built, and the
output is a cold run's (which reports the deleted call).

Each step is a JUnit test case; a project whose tree is missing (its test
skipped or not run) is skipped with the reason.

--torchvision-work DIR --torchvision-cache CACHE (the test command's):
torchvision's stripped tree is made in DIR/src and DIR/build, as
torchvision_policy.py --work DIR makes it (the same paths and bytes), and
its reference (a) is parsed, cold as ever (CACHE is emptied first, and 0
hits is checked), into CACHE, which is kept: torchvision_policy.py
--cache-dir CACHE, run next, does not parse those 7 TUs again.
"""
import argparse
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time

from realworld import Steps, uninstrumented_tree
import torchvision_policy

GOOGLETEST_FILES = ["googletest/src/gtest-all.cc", "googletest/src/gtest_main.cc",
                    "googlemock/src/gmock-all.cc", "googlemock/src/gmock_main.cc"]
TORCHVISION_FILES = ["torchvision/csrc/ops/nms.cpp", "torchvision/csrc/ops/roi_align.cpp",
                     "torchvision/csrc/ops/ps_roi_pool.cpp",
                     "torchvision/csrc/ops/deform_conv2d.cpp",
                     "torchvision/csrc/io/image/cpu/decode_png.cpp",
                     "torchvision/csrc/io/image/cpu/encode_jpeg.cpp",
                     "torchvision/csrc/io/image/cpu/read_write_file.cpp"]
STORE_LINE = re.compile(r"apistamp: preamble store '[^']*': (\d+) TUs parsed on a "
                        r"preamble, (\d+) built by this run, (\d+) evicted"
                        r"(?:, (\d+) parsed again without one)?;")
# The variables that would change how a run uses the store.
SCRUBBED = ("APISTAMP_PREAMBLE_STORE", "APISTAMP_PREAMBLE", "APISTAMP_NO_SKIP_BODIES")


class Tree:
    """One project's uninstrumented tree and how check is run on it."""

    def __init__(self, name, src, args, files=(), subset="", cache=None):
        self.name, self.src, self.args = name, src, list(args)
        self.files, self.subset = [str(f) for f in files], subset
        # The reference's result cache, to keep (None: one of its own, deleted).
        self.cache = cache


def run(apistamp, args, cwd, store=None):
    """(exit code, stdout, stderr) of apistamp args; store: the
    APISTAMP_PREAMBLE_STORE to force."""
    env = {k: v for k, v in os.environ.items() if k not in SCRUBBED}
    if store:
        env["APISTAMP_PREAMBLE_STORE"] = str(store)
    done = subprocess.run([apistamp, *args], cwd=cwd, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    if done.returncode not in (0, 1) or "Stack dump" in done.stderr:
        raise RuntimeError("apistamp %s exited %d:\n%s" % (
            " ".join(map(str, args)), done.returncode, done.stderr[-3000:]))
    return done.returncode, done.stdout, done.stderr


def store_figures(stderr):
    """(parsed on a preamble, built, evicted, parsed again) from --verbose."""
    found = STORE_LINE.findall(stderr)
    if len(found) != 1:
        raise RuntimeError("expected one 'preamble store' line:\n" + stderr[-3000:])
    return tuple(int(n or 0) for n in found[0])


def first_difference(a, b):
    for number, (x, y) in enumerate(zip(a.splitlines(), b.splitlines()), 1):
        if x != y:
            return "line %d:\n  - %s\n  + %s" % (number, x[:300], y[:300])
    return "one is a prefix of the other (%d and %d bytes)" % (len(a), len(b))


def same(what, reference, output):
    if output != reference:
        raise RuntimeError("%s differs from the reference at %s"
                           % (what, first_difference(reference, output)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--apistamp", required=True)
    parser.add_argument("--rules", required=True, help="rules/torchvision.yaml")
    parser.add_argument("--realworld", required=True,
                        help="the other real-project tests' work directories (build/realworld)")
    parser.add_argument("--work", required=True)
    parser.add_argument("--junit", required=True)
    parser.add_argument("--jobs", default="2")
    parser.add_argument("--torchvision-source", default=torchvision_policy.DEFAULT_SOURCE)
    parser.add_argument("--torchvision-work",
                        help="make torchvision's tree here, as torchvision_policy.py --work "
                             "does (default: WORK/torchvision)")
    parser.add_argument("--torchvision-cache",
                        help="the torchvision reference's result cache, emptied first and "
                             "kept (torchvision_policy.py --cache-dir)")
    args = parser.parse_args()
    apistamp = os.path.abspath(args.apistamp)
    rules = os.path.abspath(args.rules)
    realworld = pathlib.Path(args.realworld).resolve()
    work = pathlib.Path(args.work).resolve()
    steps = Steps("preamble-equivalence", independent=True)
    figures = {}
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)

    # --- the trees: each a fresh, uninstrumented copy -------------------

    def googletest():
        made = uninstrumented_tree(realworld, "googletest", work / "googletest")
        if isinstance(made, str):
            return made
        src, build = made
        return Tree("googletest", src, ["-p", str(build)], [src / f for f in GOOGLETEST_FILES],
                    "its library sources")

    def adopted(name):
        made = uninstrumented_tree(realworld, name, work / name)
        if isinstance(made, str):
            return made
        return Tree(name, made[0], [])  # compile_commands: src/build

    def torchvision():
        source = pathlib.Path(args.torchvision_source)
        if not (source / "torchvision/csrc/vision.cpp").exists():
            return "torchvision's source is missing at %s (scripts/fetch-torchvision.sh)" % source
        where = pathlib.Path(args.torchvision_work or work / "torchvision").resolve()
        src, build = where / "src", where / "build"
        for made in (src, build):
            shutil.rmtree(made, ignore_errors=True)
        torchvision_policy.strip_calls(source, src, build)
        cache = None
        if args.torchvision_cache:
            cache = pathlib.Path(args.torchvision_cache).resolve()
            shutil.rmtree(cache, ignore_errors=True)
        return Tree("torchvision", src, ["--rules", rules, "--root", str(src), "-p", str(build)],
                    [src / f for f in TORCHVISION_FILES], "7 of its 52 TUs, the ops and image files",
                    cache)

    makers = [("googletest", googletest),
              ("jsoncpp", lambda: adopted("jsoncpp")),
              ("pugixml", lambda: adopted("pugixml")),
              ("torchvision", torchvision)]

    # --- (a), (b), (c) --------------------------------------------------

    def equivalence(tree):
        common = ["check", "--verbose", "--color=never", "-j" + args.jobs, *tree.args]
        json_args = common[:1] + ["--format=json"] + common[1:] + tree.files
        text_args = common + tree.files
        reference_cache = tree.cache or work / tree.name / "reference-cache"
        cold = ["--no-preamble", "--cache-dir", str(reference_cache)]
        times = {}

        def timed(name, call):
            start = time.monotonic()
            result = call()
            times[name] = time.monotonic() - start
            return result
        ref_code, ref_json, err = timed("a json", lambda: run(apistamp, json_args + cold,
                                                              tree.src))
        if not re.search(r"cache: 0 hits", err):
            raise RuntimeError("the reference read a result cache:\n" + err[-2000:])
        text_code, ref_text, err = timed("a text", lambda: run(apistamp, text_args + cold,
                                                               tree.src))
        if not re.search(r"cache: \d+ hits, 0 misses", err) or text_code != ref_code:
            raise RuntimeError("the text reference (exit %d) is not the JSON's (exit %d) from "
                               "the result cache:\n%s" % (text_code, ref_code, err[-2000:]))
        report = json.loads(ref_json)
        if not report["findings"] or not report["summary"]["tus"]:
            raise RuntimeError("the reference has no findings or no TU: nothing to compare")
        store = work / tree.name / "preambles"
        code, out, err = timed("b json", lambda: run(apistamp, json_args + ["--no-cache"],
                                                     tree.src, store))
        same("(b) the run that builds the store: JSON", ref_json, out)
        used, built, evicted, again = store_figures(err)
        if ("could not be stored" in err or evicted or again or built != used
                or used != report["summary"]["tus"]):
            raise RuntimeError("(b): of %d TUs, %d on a preamble, %d built, %d evicted, %d "
                               "parsed again:\n%s" % (report["summary"]["tus"], used, built,
                                                      evicted, again, err[-2000:]))
        for name, call_args, reference in (("c json", json_args, ref_json),
                                           ("c text", text_args, ref_text)):
            code_c, out, err = timed(name, lambda: run(apistamp, call_args + ["--no-cache"],
                                                       tree.src, store))
            same("(c) %s on the stored preambles" % name[2:], reference, out)
            if code_c != ref_code:
                raise RuntimeError("(c) %s: exit %d, the reference %d" % (name, code_c, ref_code))
            figures_c = store_figures(err)
            if figures_c != (built, 0, 0, 0):
                raise RuntimeError("(c) %s: expected %d TUs on a preamble, 0 built, 0 evicted, "
                                   "none again; got %s:\n%s" % (name, built, figures_c,
                                                                err[-2000:]))
        if code != ref_code:
            raise RuntimeError("(b): exit %d, the reference %d" % (code, ref_code))
        figures[tree.name] = (
            "%d TUs%s, %d on a preamble; %d findings, JSON %d bytes, text %d bytes; "
            "store %.1f MiB; s: %s" % (
                report["summary"]["tus"],
                " (%s)" % tree.subset if tree.subset else "", built,
                len(report["findings"]), len(ref_json), len(ref_text),
                sum(p.stat().st_size for p in store.iterdir()) / 1048576.0,
                ", ".join("%s %.1f" % kv for kv in times.items())))
        shutil.rmtree(store)
        if not tree.cache:
            shutil.rmtree(reference_cache)

    trees = {}
    for name, maker in makers:
        step = "%s: check without a store, building it, on it: the same bytes" % name
        try:
            made = maker()
        except Exception as error:  # the copy failed: this step fails
            steps.run(step, lambda e=error: (_ for _ in ()).throw(e))
            continue
        if isinstance(made, str):
            steps.skip(step, made)
            continue
        trees[name] = made
        steps.run(step, lambda t=made: equivalence(t))

    # --- a pre-commit session on pugixml --------------------------------

    def pre_commit():
        tree = trees["pugixml"]
        src = tree.src
        cache = work / "pugixml/cache"
        target = "src/pugixml.cpp"
        done = subprocess.run([apistamp, "fix", "--no-cache", "--no-preamble",
                               "-j" + args.jobs, target], cwd=src, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True,
                              env={k: v for k, v in os.environ.items() if k not in SCRUBBED})
        if done.returncode != 0:
            raise RuntimeError("fix: " + done.stdout[-3000:])
        check = ["check", "--verbose", "--color=never", "-j" + args.jobs]
        warm = ["--cache-dir", str(cache)]
        # Warm: the named file's TUs get their preambles built (auto), the
        # result cache its results.
        code, clean, err = run(apistamp, check + warm + [target], src)
        used, built, _, _ = store_figures(err)
        if code != 0 or not built or used != built:
            raise RuntimeError("warming: exit %d, %d built, %d on a preamble:\n%s"
                               % (code, built, used, err[-2000:]))
        path = src / target
        text = path.read_text()
        call = '\t\tC10_LOG_API_USAGE_ONCE("pugi.xml_node.empty");\n'
        if text.count(call) != 1:
            raise RuntimeError("%s: the event call of xml_node::empty is not there once" % target)
        path.write_text(text.replace(call, ""))
        start = time.monotonic()
        code, out, err = run(apistamp, check + warm + [target], src)
        warm_seconds = time.monotonic() - start
        figures_warm = store_figures(err)
        if figures_warm != (built, 0, 0, 0):
            raise RuntimeError("after the edit: expected %d TUs on a preamble, 0 built; got "
                               "%s:\n%s" % (built, figures_warm, err[-2000:]))
        if not re.search(r"cache: \d+ hits, [1-9]\d* misses", err):
            raise RuntimeError("the result cache was not missed after the edit:\n" + err[-2000:])
        start = time.monotonic()
        cold_code, cold, _ = run(apistamp, check + ["--no-cache", "--no-preamble", target], src)
        cold_seconds = time.monotonic() - start
        same("check after the edit, warm store and cache", cold, out)
        if code != cold_code or cold_code != 1 or "'pugi.xml_node.empty'" not in cold or cold == clean:
            raise RuntimeError("the edit should make check report pugi.xml_node.empty, exit 1; "
                               "warm exit %d, cold exit %d:\n%s" % (code, cold_code, cold[-2000:]))
        # The JSON of the same state: from the result cache the text run filled.
        _, out, _ = run(apistamp, ["check", "--format=json"] + check[1:] + warm + [target], src)
        _, cold, _ = run(apistamp, ["check", "--format=json"] + check[1:]
                         + ["--no-cache", "--no-preamble", target], src)
        same("check --format=json after the edit, warm", cold, out)
        figures["pre-commit (pugixml)"] = (
            "%d TUs of %s on their stored preambles; warm %.1f s, cold %.1f s"
            % (built, target, warm_seconds, cold_seconds))

    name = "pugixml pre-commit: a body edited, warm store and cache give the cold answer"
    if "pugixml" in trees:
        steps.run(name, pre_commit)
    else:
        steps.skip(name, "no pugixml tree")
    steps.write_junit(args.junit)
    for key, value in figures.items():
        print("  %s: %s" % (key, value))
    return 1 if steps.failed else 0


if __name__ == "__main__":
    sys.exit(main())
