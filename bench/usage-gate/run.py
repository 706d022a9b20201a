#!/usr/bin/env python3
"""What check --usage costs on top of check: interleaved runs, median.

    bench/usage-gate/run.py --tree DIR [--apistamp build/bin/apistamp]
                            [--events 100000] [--days 14] [--runs 5]

DIR is a project apistamp has been set up in (a .apistamp.yaml whose
compile_commands names its build; e.g. build/realworld/pugixml/src after the
pugixml adoption test), whose catalog gives the placed events. Generates
under /tmp/apistamp-gate-bench: a JSON report and aggregates CSV holding
every placed event plus EVENTS others of the same library, DAYS days each
(trend per day), and times, interleaved, RUNS times each with a warm cache:
`check`, `check --usage report.json`, `check --usage aggregates.csv`.
Wall time and peak RSS from /usr/bin/time; prints a Markdown table.
"""
import argparse
import json
import os
import pathlib
import statistics
import subprocess

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--tree", required=True)
parser.add_argument("--apistamp", default=os.path.join(os.path.dirname(__file__), "../../build/bin/apistamp"))
parser.add_argument("--events", type=int, default=100000)
parser.add_argument("--days", type=int, default=14)
parser.add_argument("--runs", type=int, default=5)
args = parser.parse_args()
apistamp = os.path.abspath(args.apistamp)
tree = pathlib.Path(args.tree).resolve()
data = pathlib.Path("/tmp/apistamp-gate-bench")
data.mkdir(exist_ok=True)

catalog = json.loads(subprocess.run([apistamp, "catalog", "--format=json"], cwd=tree,
                                    capture_output=True, text=True, check=True).stdout)
placed = sorted({r["event"] for r in catalog})
library = placed[0].split(".")[0]
# Other libraries' events (a warehouse holds every library's): read, never
# removals, so the output is the same as check's but for the notes.
names = placed + ["lib%03d.synthetic_%06d" % (i % 500, i) for i in range(args.events)]
days = ["2026-11-%02d" % (1 + d) for d in range(args.days)]
rows = []
csv = ["event,day,jobs,processes,hosts,first_seen,last_seen"]
for i, name in enumerate(names):
    jobs = i % 50
    first, last = days[0] + "T00:00:00Z", days[-1] + "T00:00:00Z"
    rows.append({"event": name, "status": "used", "rule": "r", "file": "f", "line": 1,
                 "kind": "function", "jobs": jobs, "processes": jobs, "hosts": 1,
                 "first_seen": first, "last_seen": last,
                 "trend": [jobs // args.days] * args.days})
    csv.append("%s,,%d,%d,1,%s,%s" % (name, jobs, jobs, first, last))
    csv.extend("%s,%s,%d,%d,1,," % (name, d, jobs // args.days, jobs // args.days) for d in days)
# As report writes it: the catalog's events, and the others by library.
libraries = {}
for row in rows[len(placed):]:
    row = {k: v for k, v in row.items() if k not in ("status", "rule", "file", "line", "kind")}
    libraries.setdefault(row["event"].split(".")[0], []).append(row)
report = {"version": 1, "inputs": {}, "trend": {"unit": "day", "periods": days},
          "events": rows[:len(placed)], "unknown": [], "layers": [],
          "other_libraries": [{"library": k, "events": v} for k, v in sorted(libraries.items())],
          "rules": []}
(data / "report.json").write_text(json.dumps(report))
(data / "aggregates.csv").write_text("\n".join(csv) + "\n")

subprocess.run([apistamp, "check", "-q"], cwd=tree, capture_output=True)  # warm the cache
cases = [("check", []), ("check --usage report.json", ["--usage", str(data / "report.json")]),
         ("check --usage aggregates.csv", ["--usage", str(data / "aggregates.csv")])]
times = {name: [] for name, _ in cases}
rss = {name: [] for name, _ in cases}
for _ in range(args.runs):
    for name, extra in cases:
        p = subprocess.run(["/usr/bin/time", "-f", "%e %M", apistamp, "check", "-q"] + extra,
                           cwd=tree, capture_output=True, text=True)
        wall, kb = p.stderr.strip().splitlines()[-1].split()
        times[name].append(float(wall))
        rss[name].append(int(kb) / 1024)
sizes = {"report.json": (data / "report.json").stat().st_size,
         "aggregates.csv": (data / "aggregates.csv").stat().st_size}
print("%d placed events + %d others, %d days; report.json %.1f MB, aggregates.csv %.1f MB; %d runs"
      % (len(placed), args.events, args.days, sizes["report.json"] / 1e6,
         sizes["aggregates.csv"] / 1e6, args.runs))
print("| command | wall s, median [min-max] | peak RSS MB, median |")
print("|---|---|---|")
for name, _ in cases:
    t = times[name]
    print("| `%s` | %.2f [%.2f-%.2f] | %.0f |" % (name, statistics.median(t), min(t), max(t),
                                                 statistics.median(rss[name])))
