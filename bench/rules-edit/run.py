#!/usr/bin/env python3
"""What a rules edit costs: a cold `check` vs a `check` after one rule's
exclude_names changed, on the same cache.

    bench/rules-edit/run.py [--apistamp build/bin/apistamp]
        [--tree build/realworld/googletest/src]
        [-p build/realworld/googletest/build] [--jobs 2] [--runs 3]
        [--baseline OTHER_APISTAMP]

TREE is a project with a .apistamp.yaml (the googletest round trip's, left
by scripts/test.sh); its build's compile_commands.json is read, nothing in
either is written. Two rules files are made from the tree's under
/tmp/apistamp-rules-edit-bench, the second with one more name in one rule's
exclude_names. Each run: the cache emptied, `check --rules first.yaml`
(cold: every TU parsed, the cache filled), then `check --rules second.yaml`
(the edit), then `check --rules second.yaml` again (warm: the entries are
still the cold run's, so its hits are re-decided too). Once, the edit's
output is compared byte for byte with `check --no-cache` under the same
rules. With --baseline, the edit is timed with that binary too (before the
cache decided rules edits on its facts: every TU parsed again). Wall time
median [min-max]; peak RSS of one more cold run and edit; prints a
Markdown table.
"""
import argparse
import os
import pathlib
import platform
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
parser.add_argument("--apistamp", default=str(ROOT / "build/bin/apistamp"))
parser.add_argument("--tree", default=str(ROOT / "build/realworld/googletest/src"))
parser.add_argument("-p", dest="build", default=str(ROOT / "build/realworld/googletest/build"))
parser.add_argument("--jobs", type=int, default=2)
parser.add_argument("--runs", type=int, default=3)
parser.add_argument("--baseline", help="another apistamp binary to time the edit with")
args = parser.parse_args()
tree = pathlib.Path(args.tree).resolve()
build = pathlib.Path(args.build).resolve()
work = pathlib.Path("/tmp/apistamp-rules-edit-bench")
shutil.rmtree(work, ignore_errors=True)
work.mkdir()

rules = (tree / ".apistamp.yaml").read_text()
# One rule's exclude_names (the first rule's): one name in the first file,
# and, in the second, a pattern that excludes functions googletest's rules
# select (InitGoogleTest, InitGoogleMock): their events become stale.
match = re.search(r"^  - id: (\S+)\n", rules, re.M)
if not match:
    sys.exit("no rule in %s" % (tree / ".apistamp.yaml"))
at = match.end()
first = rules[:at] + '    exclude_names: ["Print"]\n' + rules[at:]
second = rules[:at] + '    exclude_names: ["Print", "InitGoogle.*"]\n' + rules[at:]
(work / "first.yaml").write_text(first)
(work / "second.yaml").write_text(second)
cache = work / "cache"


def check(apistamp, rules_file, *extra):
    """Runs check; returns (wall s, stdout bytes, stderr)."""
    command = [apistamp, "check", "-j%d" % args.jobs, "-p", str(build),
               "--rules", str(work / rules_file), "--root", str(tree),
               "--cache-dir", str(cache), *extra]
    start = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = process.communicate()
    wall = time.monotonic() - start
    if process.returncode not in (0, 1):
        sys.exit("%s exited %d:\n%s" % (shlex.join(command), process.returncode,
                                         err.decode(errors="replace")[-2000:]))
    return wall, out, err.decode(errors="replace")


def peak_rss(command):
    """Peak RSS in MB of one more run of command (GNU time)."""
    done = subprocess.run(["/usr/bin/time", "-f", "%M"] + command, capture_output=True, text=True)
    return int(done.stderr.strip().splitlines()[-1]) / 1024


def summary(stderr):
    lines = [l for l in stderr.splitlines() if "cache:" in l]
    return lines[-1] if lines else "(no summary)"


series = {"cold": [], "edit": [], "warm": []}
if args.baseline:
    series["edit, --baseline"] = []
notes = {}
for run in range(args.runs):
    shutil.rmtree(cache, ignore_errors=True)
    wall, cold_out, err = check(args.apistamp, "first.yaml")
    series["cold"].append(wall)
    notes["cold"] = summary(err)
    wall, edit_out, err = check(args.apistamp, "second.yaml")
    series["edit"].append(wall)
    notes["edit"] = summary(err)
    if "re-decided" not in err or " 0 misses" not in err:
        sys.exit("the edit was not decided on the cached facts: " + summary(err))
    wall, _, err = check(args.apistamp, "second.yaml")
    series["warm"].append(wall)
    notes["warm"] = summary(err)
    if args.baseline:
        shutil.rmtree(cache, ignore_errors=True)
        check(args.baseline, "first.yaml")
        wall, _, err = check(args.baseline, "second.yaml")
        series["edit, --baseline"].append(wall)
        notes["edit, --baseline"] = summary(err)
    if run == 0:
        _, fresh_out, _ = check(args.apistamp, "second.yaml", "--no-cache")
        if fresh_out != edit_out:
            (work / "edit.txt").write_bytes(edit_out)
            (work / "no-cache.txt").write_bytes(fresh_out)
            sys.exit("the edit's output differs from --no-cache's: diff %s %s"
                     % (work / "no-cache.txt", work / "edit.txt"))
        same = "%d bytes, %d findings" % (len(edit_out), edit_out.count(b": warning: ") + edit_out.count(b": error: "))
        changed = cold_out != edit_out

base = [args.apistamp, "check", "-j%d" % args.jobs, "-p", str(build), "--root", str(tree),
        "--cache-dir", str(cache)]
shutil.rmtree(cache, ignore_errors=True)
rss = {"cold": peak_rss(base + ["--rules", str(work / "first.yaml")])}
rss["edit"] = peak_rss(base + ["--rules", str(work / "second.yaml")])

print("Machine: %s, %d cores, Python %s" % (platform.platform(), os.cpu_count(), platform.python_version()))
print("Command: `%s`" % shlex.join([sys.argv[0]] + sys.argv[1:]))
print()
print("| run | wall time: median [min–max] | cache |")
print("|---|---|---|")
for name, walls in series.items():
    print("| `check -j%d`, %s | %.2f s [%.2f–%.2f] | %s |" % (
        args.jobs, name, statistics.median(walls), min(walls), max(walls),
        notes[name].split("cache: ", 1)[-1]))
print()
cold = statistics.median(series["cold"])
print("- edit / cold: **%.3f** (%.2f s / %.2f s, medians of %d)" % (
    statistics.median(series["edit"]) / cold, statistics.median(series["edit"]), cold, args.runs))
if args.baseline:
    print("- edit with --baseline / cold: %.3f" % (statistics.median(series["edit, --baseline"]) / cold))
print("- the edit's output is byte for byte `--no-cache`'s under the same rules (%s); "
      "it %s the cold run's" % (same, "differs from" if changed else "is the same as"))
print("- peak RSS: cold %.0f MB, edit %.0f MB" % (rss["cold"], rss["edit"]))
