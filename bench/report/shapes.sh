#!/usr/bin/env bash
# apistamp report over the same lines in four shapes and orders: the
# runtime's own lines in the generator's order (a job's lines together, in
# time order), the same lines as a log collector forwards them (other key
# order, spaces, "@timestamp", nested objects: gen-logs --shape collector),
# and both shuffled (every line in a random file at a random place: gen-logs
# --order shuffled). CPU time (user+sys) is what counts: the machine is
# shared, and wall time moves with the other tenants.
#
#   bench/report/shapes.sh [--apistamp build/bin/apistamp] [--data DIR]
#                          [--bytes 600000000] [--runs 5] [VARIANT...]
#
# A VARIANT is SHAPE-ORDER: a gen-logs --shape (runtime, collector, or the
# collector's lighter forms reordered and timestamp) and --order
# (generator, shuffled); by default runtime-generator collector-generator
# runtime-shuffled collector-shuffled. The first is the one the others are
# compared with. Generates (once) each set under DATA (default
# /tmp/apistamp-report-shapes), then runs `apistamp report --catalog
# catalog.json --format=json -j1` and `-j2` over each, interleaved, RUNS
# times, each set read into the page cache just before its run (and
# checked to be there, with fincore); checks that the reports are
# byte for byte the same; prints a Markdown table: medians, each
# variant's CPU time over the first's, and that ratio taken in each round
# (the runs of a round are next to each other), its median and range.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
apistamp=$here/../../build/bin/apistamp
data=/tmp/apistamp-report-shapes
bytes=600000000
runs=5
variants=()
while (($#)); do
  case $1 in
    --apistamp) apistamp=$2; shift 2 ;;
    --data) data=$2; shift 2 ;;
    --bytes) bytes=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    -*) echo "shapes.sh: unknown argument $1" >&2; exit 2 ;;
    *-generator|*-shuffled) variants+=("$1"); shift ;;
    *) echo "shapes.sh: $1 is not SHAPE-ORDER" >&2; exit 2 ;;
  esac
done
((${#variants[@]})) || variants=(runtime-generator collector-generator runtime-shuffled collector-shuffled)
apistamp=$(cd "$(dirname "$apistamp")" && pwd)/$(basename "$apistamp")
mkdir -p "$data"
if [[ ! -f $data/.bytes-$bytes ]]; then
  rm -rf "$data"/*-generator "$data"/*-shuffled "$data"/.bytes-* "$data/gen-logs"
  touch "$data/.bytes-$bytes"
fi
for v in "${variants[@]}"; do
  [[ -f $data/$v/catalog.json ]] && continue # gen-logs writes it last
  [[ -x $data/gen-logs ]] || ${CXX:-c++} -O2 -std=c++17 -o "$data/gen-logs" "$here/gen-logs.cpp"
  rm -rf "${data:?}/$v"
  mkdir -p "$data/$v"
  echo "generating $v: $("$data/gen-logs" "$data/$v" --bytes "$bytes" \
    --shape "${v%-*}" --order "${v#*-}")" >&2
done
results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT
measure() { # measure NAME DIR COMMAND...: appends "seconds KB cpu-seconds"
  local name=$1 dir=$2; shift 2
  # wait4's rusage, to the microsecond (/usr/bin/time prints 10 ms steps,
  # 2% of a run here); the runner's own start-up is not the child's.
  (cd "$dir" && python3 -c '
import os, subprocess, sys, time
out, err, command = sys.argv[1], sys.argv[2], sys.argv[3:]
start = time.monotonic()
with open(out, "wb") as o, open(err, "wb") as e:
    child = subprocess.Popen(command, stdout=o, stderr=e)
_, status, usage = os.wait4(child.pid, 0)
wall = time.monotonic() - start
print(f"{wall:.6f} {usage.ru_maxrss} {usage.ru_utime + usage.ru_stime:.6f}")
sys.exit(os.waitstatus_to_exitcode(status) != 0)
' "$results/out-$name" "$results/err" "$@" >> "$results/$name") \
    || { cat "$results/err" >&2; echo "shapes.sh: $name failed" >&2; exit 1; }
}
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
not_cached=0
for ((i = 0; i < runs; ++i)); do
  for v in "${variants[@]}"; do
    for j in 1 2; do
      # Read the set into the page cache before every run, not once: a VM
      # may keep less page cache than all the sets (one here kept ~3.3 GB
      # of 24 GB), and a run that reads from the disk measures the disk.
      cat "$data/$v"/usage-*.jsonl > /dev/null
      if command -v fincore > /dev/null; then
        not_cached=$((not_cached + $(fincore -b -n -o RES,SIZE "$data/$v"/usage-*.jsonl |
          awk '{res += $1; size += $2} END {print (res < 0.99 * size) ? 1 : 0}')))
      fi
      measure "$v-j$j" "$data/$v" "$apistamp" report --catalog catalog.json \
        --format=json -j$j usage-00.jsonl usage-01.jsonl usage-02.jsonl \
        usage-03.jsonl usage-04.jsonl usage-05.jsonl usage-06.jsonl usage-07.jsonl
    done
  done
done
for v in "${variants[@]:1}"; do
  cmp -s "$results/out-${variants[0]}-j1" "$results/out-$v-j1" \
    || { echo "shapes.sh: the report of $v differs from ${variants[0]}'s" >&2; exit 1; }
done
((not_cached == 0)) || echo "shapes.sh: $not_cached runs started with files not all in the page cache: too little memory for a set?" >&2
python3 - "$results" "$data" "$load_before" "$(cut -d' ' -f1-3 /proc/loadavg)" "${variants[@]}" <<'PY'
import os, statistics, sys
d, data, before, after, *variants = sys.argv[1:]
def rows(name):
    return [tuple(map(float, l.split())) for l in open(f"{d}/{name}")]
base = {}
print(f"load average {before} before, {after} after; the reports are byte for byte the same\n")
print(f"| lines | -j | bytes | CPU (user+sys): median [min–max] | × {variants[0]} | "
      f"× in each round: median [min–max] | wall: median | peak RSS |")
print("|---|---|---|---|---|---|---|---|")
for v in variants:
    size = sum(os.path.getsize(os.path.join(data, v, f)) for f in os.listdir(os.path.join(data, v)) if f.endswith(".jsonl"))
    for j in (1, 2):
        r = rows(f"{v}-j{j}")
        cpu = [x[2] for x in r]
        med = statistics.median(cpu)
        base.setdefault(j, (med, cpu))
        # A round runs every set next to the others: its own ratio does not
        # move with the machine's state from round to round.
        paired = sorted(c / b for c, b in zip(cpu, base[j][1]))
        print(f"| {v} | {j} | {size / 1e9:.2f} GB | {med:.3f} s [{min(cpu):.3f}–{max(cpu):.3f}] | "
              f"**{med / base[j][0]:.2f}×** | {statistics.median(paired):.2f}× "
              f"[{paired[0]:.2f}–{paired[-1]:.2f}] | {statistics.median(x[0] for x in r):.2f} s | "
              f"{statistics.median(x[1] for x in r) / 1024:.0f} MB |")
PY
