#!/usr/bin/env python3
"""Compares the CPU time of `apistamp report -j1` between builds, on sets of
logs that bench/report/shapes.sh generated, interleaved round by round.

Each round reads every set into the page cache, then runs each binary once
on it; a run's CPU is its user + sys time from wait4's rusage (microseconds,
not /usr/bin/time's hundredths). Prints, per binary, the minimum and median
CPU of each set and the last set's over the first's (the ratio the collector
bound is about): of the minima, of the medians, and the median (and range) of
each round's ratio, whose two runs ran next to each other.

With --floor, each round also runs touch-floor (built once into --data,
with report's LogMapping) on each set: the CPU of bringing its bytes in
through that mapping as report does, before any parsing. Each binary's ratio
is then also given above that floor: (last - its floor) / (first - its
floor), of the medians.

  bench/report/compare-binaries.py --rounds 12 [--floor] \\
      base=/tmp/old/bin/apistamp new=build/bin/apistamp
"""
import argparse
import glob
import os
import statistics
import subprocess
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--data", default="/tmp/apistamp-report-shapes")
    parser.add_argument("--sets", default="runtime-generator,collector-generator",
                        help="SHAPE-ORDER sets of --data, comma-separated; "
                        "the ratio is the last's over the first's")
    parser.add_argument("--floor", action="store_true",
                        help="also measure touch-floor on each set")
    parser.add_argument("binaries", nargs="+", metavar="NAME=APISTAMP")
    args = parser.parse_args()
    binaries = []
    for spec in args.binaries:
        name, sep, path = spec.partition("=")
        if not sep or not os.access(path, os.X_OK):
            sys.exit(f"compare-binaries.py: {spec} is not NAME=EXECUTABLE")
        binaries.append((name, os.path.abspath(path)))
    sets = args.sets.split(",")
    logs = {}
    for s in sets:
        logs[s] = sorted(glob.glob(os.path.join(args.data, s, "usage-*.jsonl")))
        if not logs[s] or not os.path.exists(os.path.join(args.data, s, "catalog.json")):
            sys.exit(f"compare-binaries.py: no logs of {s} in {args.data}: "
                     f"run bench/report/shapes.sh --runs 1 {s}")
    floor = None
    if args.floor:
        here = os.path.dirname(os.path.abspath(__file__))
        usage = os.path.join(here, "..", "..", "tool", "lib", "usage")
        floor = os.path.join(args.data, "touch-floor")
        subprocess.run([os.environ.get("CXX", "c++"), "-O2", "-std=c++17",
                        "-I", usage, "-o", floor,
                        os.path.join(here, "touch-floor.cpp"),
                        os.path.join(usage, "LogMapping.cpp"), "-lpthread"],
                       check=True)
    runs = [(n, [p, "report", "--catalog", "catalog.json", "--format=json", "-j1"])
            for n, p in binaries]
    if floor:
        runs.append(("floor", [floor]))
    cpu = {(n, s): [] for n, _ in runs for s in sets}
    for _ in range(args.rounds):
        for s in sets:
            for log in logs[s]:
                with open(log, "rb") as f:
                    while f.read(1 << 24):
                        pass
            for name, command in runs:
                process = subprocess.Popen(
                    command + [os.path.basename(log) for log in logs[s]],
                    cwd=os.path.join(args.data, s),
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                _, status, usage = os.wait4(process.pid, 0)
                if status != 0:
                    sys.exit(f"compare-binaries.py: {name} failed on {s}")
                cpu[(name, s)].append((usage.ru_utime + usage.ru_stime) * 1000)
    for name, _ in runs:
        cells = [f"{s}: min {min(cpu[(name, s)]):.1f} ms, median "
                 f"{statistics.median(cpu[(name, s)]):.1f}" for s in sets]
        if len(sets) > 1:
            first, last = cpu[(name, sets[0])], cpu[(name, sets[-1])]
            # Each round's two runs are next to each other: their ratio
            # does not move with the machine's state from round to round.
            paired = sorted(l / f for f, l in zip(first, last))
            cells.append(f"x min {min(last) / min(first):.3f}, median "
                         f"{statistics.median(last) / statistics.median(first):.3f}, "
                         f"paired median {statistics.median(paired):.3f} "
                         f"[{paired[0]:.3f}, {paired[-1]:.3f}]")
            if floor and name != "floor":
                med = statistics.median
                above = ((med(last) - med(cpu[("floor", sets[-1])])) /
                         (med(first) - med(cpu[("floor", sets[0])])))
                cells.append(f"x above the floor {above:.3f}")
        print(f"{name} | " + " | ".join(cells))


if __name__ == "__main__":
    main()
