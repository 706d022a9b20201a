#!/usr/bin/env python3
"""`apistamp tu`/`merge`/`ninja` on real projects: check -p's bytes, at scale.

For googletest (its 70 TUs), jsoncpp and pugixml (the trees and compilation
databases the other real-project tests leave under build/realworld; each
copied uninstrumented, so that check has findings and fixes):

  - `apistamp ninja` writes a Ninja file; `ninja` runs one `tu` action per
    compile command and the merge: its report is `check -p --format=json`'s,
    byte for byte, and `merge` over the results gives check's text, SARIF
    and --export-fixes and diff's diff, byte for byte;
  - a second `ninja` has no work to do;
  - googletest: after one header is touched, exactly the TUs whose depfiles
    list it run again (Ninja's own record of them, `ninja -t deps`);
  - jsoncpp: the same tree at another path with another build directory
    gives the same result files, byte for byte; `merge --fix` there edits
    the tree as `fix -p` does in a third copy.

Times (check -p cold, Ninja's first build and its rerun) are printed for
docs/ci.md. A project whose tree is missing is skipped with the reason.
"""
import argparse
import os
import pathlib
import shutil
import subprocess
import sys
import time

from realworld import Steps, uninstrumented_tree
from preamble_equivalence import SCRUBBED, same

ENV = {k: v for k, v in os.environ.items() if k not in SCRUBBED}


def run(args, cwd, expect=(0, 1)):
    done = subprocess.run([str(a) for a in args], cwd=cwd, env=ENV, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    if done.returncode not in expect:
        raise RuntimeError("%s exited %d:\n%s%s" % (" ".join(map(str, args)), done.returncode,
                                                   done.stdout[-2000:], done.stderr[-3000:]))
    return done


def same_tree(a, b, skip=("build",)):
    """Every file under a has the same bytes under b (and the other way)."""
    def files(root):
        return sorted(p.relative_to(root) for p in root.rglob("*")
                      if p.is_file() and p.relative_to(root).parts[0] not in skip
                      and ".apistamp-cache" not in p.parts)
    fa, fb = files(a), files(b)
    if fa != fb:
        raise RuntimeError("%s and %s hold other files: %s" % (
            a, b, sorted(set(map(str, fa)) ^ set(map(str, fb)))[:10]))
    for f in fa:
        if (a / f).read_bytes() != (b / f).read_bytes():
            raise RuntimeError("%s differs from %s" % (a / f, b / f))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--apistamp", required=True)
    parser.add_argument("--realworld", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--junit", required=True)
    parser.add_argument("--jobs", default="2")
    args = parser.parse_args()
    apistamp = os.path.abspath(args.apistamp)
    realworld = pathlib.Path(args.realworld).resolve()
    work = pathlib.Path(args.work).resolve()
    steps = Steps("tu-merge", independent=True)
    figures = {}
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    if not shutil.which("ninja"):
        steps.skip("tu and merge on real projects", "no ninja on PATH")
        steps.write_junit(args.junit)
        return 0

    def at_scale(name, src, build):
        """The Ninja file's build equals check -p; a rerun does nothing."""
        out = src.parent / "ninja"
        common = ["-j" + args.jobs, "--color=never", "-p", build]
        cache = ["--cache-dir", src.parent / "reference-cache"]
        run([apistamp, "ninja", "-p", build, "-o", out / "build.ninja"], cwd=src)
        start = time.monotonic()
        first = run(["ninja", "-C", out, "-j" + args.jobs], cwd=src, expect=(0,))
        figures[name + " ninja, first build"] = time.monotonic() - start
        actions = first.stdout.count("apistamp tu ")
        tus = len(list((out / "apistamp-results").rglob("*.json")))
        if actions != tus or tus == 0:
            raise RuntimeError("%d tu actions ran for %d results" % (actions, tus))
        # check, cold, from the Ninja file's directory, as merge runs there.
        start = time.monotonic()
        reference = run([apistamp, "check", "--format=json", "--no-preamble"] + common + cache,
                        cwd=out)
        figures[name + " check -p (cold, -j%s)" % args.jobs] = time.monotonic() - start
        same("%s: ninja's merged report vs check -p" % name, reference.stdout,
             (out / "apistamp-check.json").read_text())
        results = out / "apistamp-results"
        # The exported fixes once, with the text (each export parses the TUs
        # whose sites edit again: the same fixes in any format).
        for fmt in ("text", "sarif"):
            fixes = {who: out / ("%s-%s.yaml" % (who, fmt)) for who in ("check", "merge")}
            export = {who: ["--export-fixes", path] if fmt == "text" else []
                      for who, path in fixes.items()}
            check = run([apistamp, "check", "--format=" + fmt, "--no-preamble"]
                        + export["check"] + common + cache, cwd=out)
            merged = run([apistamp, "merge", "--format=" + fmt] + export["merge"]
                         + common + [results], cwd=out)
            same("%s: merge --format=%s" % (name, fmt), check.stdout, merged.stdout)
            if check.returncode != merged.returncode:
                raise RuntimeError("exit %d vs %d" % (check.returncode, merged.returncode))
            if export["check"]:
                same("%s: --export-fixes" % name, fixes["check"].read_text(),
                     fixes["merge"].read_text())
        diff = run([apistamp, "diff", "--no-preamble"] + common + cache, cwd=out)
        merged = run([apistamp, "merge", "--diff"] + common + [results], cwd=out)
        same("%s: merge --diff" % name, diff.stdout, merged.stdout)
        if not diff.stdout:
            raise RuntimeError("no diff: the tree should be uninstrumented")
        start = time.monotonic()
        again = run(["ninja", "-C", out, "-j" + args.jobs], cwd=src, expect=(0,))
        figures[name + " ninja, rerun"] = time.monotonic() - start
        if "no work to do" not in again.stdout:
            raise RuntimeError("the second build did work:\n" + again.stdout[-2000:])
        return out

    def touched_header(out, src):
        deps = run(["ninja", "-C", out, "-t", "deps"], cwd=src).stdout
        header = str(src / "googletest/samples/sample3-inl.h")
        readers, target = set(), None
        for line in deps.splitlines():
            if line and not line.startswith(" "):
                target = line.split(":")[0]
            elif line.strip() == header:
                readers.add(target)
        if not readers:
            raise RuntimeError("no depfile lists " + header)
        os.utime(header)
        rerun = run(["ninja", "-C", out, "-j" + args.jobs, "-v"], cwd=src, expect=(0,))
        ran = {line.split(" -o ")[1].split()[0] for line in rerun.stdout.splitlines()
               if " tu " in line and " -o " in line}
        if ran != readers:
            raise RuntimeError("touching %s reran %s, its readers are %s" % (
                header, sorted(ran), sorted(readers)))
        figures["googletest: TUs rerun after touching sample3-inl.h"] = len(ran)

    def elsewhere(out, name):
        """The same tree at another path, another build directory name: the
        same result bytes; merge --fix there is fix -p's edit."""
        where = work / (name + "-elsewhere")
        made = uninstrumented_tree(realworld, name, where, build_name="out-of-tree")
        if isinstance(made, str):
            raise RuntimeError(made)
        src, build = made
        other = where / "ninja"
        run([apistamp, "ninja", "-p", build, "-o", other / "build.ninja"], cwd=src)
        run(["ninja", "-C", other, "-j" + args.jobs], cwd=src, expect=(0,))
        same_tree(out / "apistamp-results", other / "apistamp-results")
        third = uninstrumented_tree(realworld, name, work / (name + "-fix"))
        run([apistamp, "fix", "--no-cache", "--no-preamble", "-j" + args.jobs, "-p",
             third[1]], cwd=third[0], expect=(0,))
        run([apistamp, "merge", "--fix", "-p", build, other / "apistamp-results"], cwd=src,
            expect=(0,))
        same_tree(src, third[0], skip=("build", "out-of-tree", ".apistamp-cache"))
        check = run([apistamp, "check", "--no-cache", "-p", build], cwd=src)
        if check.returncode != 0:
            raise RuntimeError("check after merge --fix: exit %d\n%s" % (
                check.returncode, check.stdout[-2000:]))

    for name in ("googletest", "jsoncpp", "pugixml"):
        step = "%s: ninja's tu actions and merge equal check -p, a rerun does nothing" % name
        made = uninstrumented_tree(realworld, name, work / name)
        if isinstance(made, str):
            steps.skip(step, made)
            continue
        src, build = made
        out = steps.run(step, lambda: at_scale(name, src, build))
        if name == "googletest":
            step = "googletest: touching a header reruns exactly the TUs that read it"
            if out:
                steps.run(step, lambda: touched_header(out, src))
            else:
                steps.skip(step, "the build failed")
        if name == "jsoncpp":
            step = "jsoncpp: another checkout and build dir give the same results; merge --fix is fix -p"
            if out:
                steps.run(step, lambda: elsewhere(out, "jsoncpp"))
            else:
                steps.skip(step, "the build failed")
    steps.write_junit(args.junit)
    for key, value in figures.items():
        print("  %s: %s" % (key, "%.1f s" % value if isinstance(value, float) else value))
    failed = sum(1 for case in steps.cases if case[2] == "failed")
    print("%d passed, %d failed" % (sum(1 for c in steps.cases if c[2] == "passed"), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
