#!/usr/bin/env python3
"""apistamp check vs clang -fsyntax-only on the same TUs, side by side.

Takes a compilation database and runs, interleaved and repeated (--pairs,
at least 5): clang-19 -fsyntax-only over the TUs one after another with the
database's flags, and `apistamp check -j1 --no-cache` on the same TUs; then
`apistamp check -jN --no-cache`, `--no-skip-bodies`, and a warm re-run with
the cache. Reports the median and min-max wall time and peak RSS of each
(ru_maxrss of the child processes, as /usr/bin/time -v reports it), and the
ratios the performance targets are stated in. Prints a Markdown table.

    bench/compare.py --apistamp build/bin/apistamp -p BUILD [--filter GLOB]
                     [--rules FILE --root DIR] [--pairs 5] [--jobs 2]
"""
import argparse
import json
import os
import pathlib
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import time


def run_measured(args, cwd=None, expect_ok=(0, 1)):
    """Runs args; returns (wall seconds, peak RSS in MB of the child)."""
    start = time.monotonic()
    process = subprocess.Popen(args, cwd=cwd, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.monotonic() - start
    code = os.waitstatus_to_exitcode(status)
    stderr = process.stderr.read().decode(errors="replace")
    process.stderr.close()
    if code not in expect_ok:
        sys.exit("benchmark: %s exited %d:\n%s" % (shlex.join(args), code, stderr[-2000:]))
    return wall, usage.ru_maxrss / 1024.0


def syntax_only_command(entry):
    """The database's command with clang-19, -fsyntax-only and no output."""
    args = entry.get("arguments") or shlex.split(entry["command"])
    result, skip = ["clang++-19"], False
    for arg in args[1:]:
        if skip:
            skip = False
            continue
        if arg in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
            continue
        if arg in ("-c", "-MD", "-MMD") or arg.startswith("-o"):
            continue
        result.append(arg)
    return result + ["-fsyntax-only"]


class Series:
    def __init__(self):
        self.walls, self.rss = [], []

    def add(self, wall, rss):
        self.walls.append(wall)
        self.rss.append(rss)

    def median(self):
        return statistics.median(self.walls)

    def describe(self):
        return "%.2f s [%.2f–%.2f] | %.0f MB [%.0f–%.0f]" % (
            statistics.median(self.walls), min(self.walls), max(self.walls),
            statistics.median(self.rss), min(self.rss), max(self.rss))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--apistamp", required=True)
    parser.add_argument("-p", dest="build", required=True)
    parser.add_argument("--filter", default="*",
                        help="glob matched against the end of each TU's path, "
                        "component by component, e.g. 'csrc/ops/*.cpp' "
                        "(default: all)")
    parser.add_argument("--rules", help="rules file (default: .apistamp.yaml discovery)")
    parser.add_argument("--root")
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    parser.add_argument("--name", default="corpus")
    args = parser.parse_args()
    if args.pairs < 5:
        sys.exit("benchmark: use at least 5 pairs")

    entries = json.load(open(os.path.join(args.build, "compile_commands.json")))
    entries = [e for e in entries if pathlib.PurePath(
        os.path.join(e["directory"], e["file"])).match(args.filter)]
    if not entries:
        sys.exit("benchmark: no TU matches %s" % args.filter)
    # Named sources that no rule can select are skipped unparsed, which
    # clang's side does not do: the whole database runs as check -p.
    sources = ([] if args.filter == "*" else
               [os.path.join(e["directory"], e["file"]) for e in entries])
    apistamp = [os.path.abspath(args.apistamp), "check", "-p", args.build]
    if args.rules:
        apistamp += ["--rules", args.rules]
    if args.root:
        apistamp += ["--root", args.root]

    clang, single, parallel, every_body, warm = (Series() for _ in range(5))
    largest_tu = Series()  # clang's peak RSS on the TU that needs the most

    def run_clang():
        start = time.monotonic()
        peak = 0.0
        for entry in entries:
            _, rss = run_measured(syntax_only_command(entry), cwd=entry["directory"],
                                  expect_ok=(0,))
            peak = max(peak, rss)
        clang.add(time.monotonic() - start, peak)
        largest_tu.add(0.0, peak)

    def run_single():
        single.add(*run_measured(apistamp + ["--no-cache", "-j1"] + sources))

    for pair in range(args.pairs):
        # Alternate which goes first, so that neither always gets a warmer
        # page cache or CPU.
        for step in ((run_clang, run_single) if pair % 2 == 0 else (run_single, run_clang)):
            step()
        print("pair %d/%d: clang %.2f s, apistamp -j1 %.2f s" % (
            pair + 1, args.pairs, clang.walls[-1], single.walls[-1]), file=sys.stderr)

    with tempfile.TemporaryDirectory() as cache:
        cached = apistamp + ["--cache-dir", cache, "-j1"] + sources
        run_measured(cached)  # fills the cache
        for _ in range(args.pairs):
            parallel.add(*run_measured(apistamp + ["--no-cache", "-j%d" % args.jobs] + sources))
            every_body.add(*run_measured(apistamp + ["--no-cache", "--no-skip-bodies", "-j1"]
                                         + sources))
            warm.add(*run_measured(cached))

    print("### %s: %d TUs, %d interleaved pairs\n" % (args.name, len(entries), args.pairs))
    if sources:
        print("apistamp is given the %d sources by name: those no rule can select "
              "it skips unparsed; clang parses them.\n" % len(sources))
    print("Machine: %s, %d cores, Python %s; `%s`\n" % (
        platform.platform(), os.cpu_count(), platform.python_version(),
        shlex.join(["bench/compare.py"] + sys.argv[1:])))
    print("| run | wall time: median [min–max] | peak RSS: median [min–max] |")
    print("|---|---|---|")
    print("| `clang-19 -fsyntax-only`, TUs in sequence | %s |" % clang.describe())
    print("| `apistamp check -j1` | %s |" % single.describe())
    print("| `apistamp check -j1 --no-skip-bodies` | %s |" % every_body.describe())
    print("| `apistamp check -j%d` | %s |" % (args.jobs, parallel.describe()))
    print("| `apistamp check -j1`, warm cache | %s |" % warm.describe())
    print()
    print("- apistamp -j1 / clang: **%.2f** (median wall time)" % (single.median() / clang.median()))
    print("- -j1 / -j%d speed-up: **%.2f×**" % (args.jobs, single.median() / parallel.median()))
    print("- warm / cold (-j1): **%.1f%%**" % (100 * warm.median() / single.median()))
    print("- peak RSS, apistamp -j1 / clang on its largest TU: **%.2f**" % (
        statistics.median(single.rss) / statistics.median(largest_tu.rss)))


if __name__ == "__main__":
    main()
