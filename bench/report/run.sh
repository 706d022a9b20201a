#!/usr/bin/env bash
# apistamp report vs wc -l (the I/O floor) vs jq, side by side in one run.
#
#   bench/report/run.sh [--apistamp build/bin/apistamp] [--data DIR]
#                       [--bytes 1200000000] [--runs 5] [--jq-files 1]
#
# Generates (once) synthetic runtime logs under DATA (default
# /tmp/apistamp-report-bench; never under the source tree): about BYTES of
# JSON lines in 8 files, 500 event names, 50 000 jobs, 14 days, and the
# catalog that places most of the events (bench/report/gen-logs.cpp). Then,
# interleaved, RUNS times each:
#   - page cache warm: `wc -l` over the files, `apistamp report --catalog
#     catalog.json -j2 --format=json` over them, and the same with -j1;
#   - page cache cold (the files evicted with posix_fadvise(DONTNEED) before
#     each run, nothing else's cache touched): `wc -l` and `report -j2`;
# and, once, jq doing the same grouping (distinct jobs per event, a line
# without job_id its process's own job) over the first JQ_FILES files only
# (jq reads ~10-30 MB/s: the whole set would take minutes), with report -j1
# over the same files for comparison; its per-GB time is extrapolated, and
# its counts are checked against report's.
# Wall time and peak RSS come from /usr/bin/time -f '%e %M' (the `time`
# package). Prints a Markdown table: median [min-max].
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
apistamp=$here/../../build/bin/apistamp
data=/tmp/apistamp-report-bench
bytes=1200000000
runs=5
jq_files=1
while (($#)); do
  case $1 in
    --apistamp) apistamp=$2; shift 2 ;;
    --data) data=$2; shift 2 ;;
    --bytes) bytes=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --jq-files) jq_files=$2; shift 2 ;;
    *) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
apistamp=$(cd "$(dirname "$apistamp")" && pwd)/$(basename "$apistamp")
[[ -x /usr/bin/time ]] || { echo "run.sh: /usr/bin/time missing (apt-get install time)" >&2; exit 1; }
command -v jq > /dev/null || { echo "run.sh: jq missing" >&2; exit 1; }

mkdir -p "$data"
if [[ ! -f $data/catalog.json || ! -f $data/.bytes-$bytes ]]; then
  rm -f "$data"/usage-*.jsonl "$data"/.bytes-*
  ${CXX:-c++} -O2 -std=c++17 -o "$data/gen-logs" "$here/gen-logs.cpp"
  echo "generating: $("$data/gen-logs" "$data" --bytes "$bytes")" >&2
  touch "$data/.bytes-$bytes"
fi
cd "$data"
files=(usage-*.jsonl)
jq_set=("${files[@]:0:$jq_files}")
total_bytes=$(cat "${files[@]}" | wc -c)
jq_bytes=$(cat "${jq_set[@]}" | wc -c)
total_lines=$(cat "${files[@]}" | wc -l)
results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT

evict() { # drops these files' pages from the page cache
  python3 -c 'import os, sys
for f in sys.argv[1:]:
    fd = os.open(f, os.O_RDONLY); os.fsync(fd)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED); os.close(fd)' "$@"
}
measure() { # measure NAME COMMAND...: appends "seconds KB cpu-seconds" to $results/NAME
  local name=$1; shift
  /usr/bin/time -o "$results/t" -f '%e %M %U %S' "$@" > "$results/out-$name" 2> "$results/err" \
    || { cat "$results/err" >&2; echo "run.sh: $name failed" >&2; exit 1; }
  awk '{print $1, $2, $3 + $4}' "$results/t" >> "$results/$name"
}
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
report=("$apistamp" report --catalog catalog.json --format=json)

cat "${files[@]}" > /dev/null # warm the cache
for ((i = 0; i < runs; ++i)); do
  measure wc-warm wc -l "${files[@]}"
  measure report-j2-warm "${report[@]}" -j2 "${files[@]}"
  measure report-j1-warm "${report[@]}" -j1 "${files[@]}"
  evict "${files[@]}"
  measure wc-cold wc -l "${files[@]}"
  evict "${files[@]}"
  measure report-j2-cold "${report[@]}" -j2 "${files[@]}"
done
cat "${files[@]}" > /dev/null
# The same grouping in jq: distinct jobs per event.
jq_program='reduce inputs as $l ({};
  .[$l.event][if $l.job_id == null
              then "p\u0000\($l.host // "")\u0000\($l.pid)\u0000\($l.exe // "")"
              else "j\u0000\($l.job_id)" end] = true)
  | to_entries[] | "\(.key)\t\(.value | length)"'
measure jq-subset jq -n -r "$jq_program" "${jq_set[@]}"
mv "$results/out-jq-subset" "$results/jq.tsv"
measure report-subset "${report[@]}" -j1 "${jq_set[@]}"
python3 - "$results" <<'EOF'
import json, sys
d = sys.argv[1]
r = json.load(open(f"{d}/out-report-subset"))
ours = {e["event"]: e["jobs"] for e in r["events"] + r["unknown"] if e["jobs"]}
theirs = {}
for line in open(f"{d}/jq.tsv"):
    event, jobs = line.rstrip("\n").split("\t")
    theirs[event] = int(jobs)
if ours != theirs:
    sys.exit("run.sh: jq and apistamp report disagree on distinct jobs per event")
EOF

python3 - "$results" "$total_bytes" "$total_lines" "$jq_bytes" "${#files[@]}" "${#jq_set[@]}" \
  "$load_before" "$(cut -d' ' -f1-3 /proc/loadavg)" "$(nproc)" <<'EOF'
import statistics, sys
d, total, lines, jq_bytes, nfiles, njq = sys.argv[1], *map(int, sys.argv[2:7])
load_before, load_after, cores = sys.argv[7:]
cpu = {}
def load(name):
    rows = [tuple(map(float, l.split())) for l in open(f"{d}/{name}")]
    cpu[name] = [r[2] for r in rows]
    return [r[0] for r in rows], [r[1] / 1024 for r in rows]
def cell(xs, unit, fmt):
    return f"{fmt.format(statistics.median(xs))} {unit} [{fmt.format(min(xs))}–{fmt.format(max(xs))}]"
gb = total / 1e9
print(f"{nfiles} files, {total / 1e9:.2f} GB, {lines / 1e6:.2f} M lines; {cores} cores, "
      f"load average {load_before} before, {load_after} after\n")
print("| run | wall time: median [min–max] | GB/s | CPU (user+sys): median | peak RSS: median [min–max] |")
print("|---|---|---|---|---|")
med = {}
for name, label in [("wc-warm", "`wc -l`, page cache warm"),
                    ("report-j2-warm", "`apistamp report -j2`, warm"),
                    ("report-j1-warm", "`apistamp report -j1`, warm"),
                    ("wc-cold", "`wc -l`, page cache cold"),
                    ("report-j2-cold", "`apistamp report -j2`, cold")]:
    t, m = load(name)
    med[name] = statistics.median(t)
    print(f"| {label} | {cell(t, 's', '{:.2f}')} | {gb / med[name]:.2f} | "
          f"{statistics.median(cpu[name]):.2f} s | {cell(m, 'MB', '{:.0f}')} |")
for name, label in [("jq-subset", f"`jq` grouping, {njq} file(s), {jq_bytes / 1e6:.0f} MB"),
                    ("report-subset", f"`apistamp report -j1`, the same {njq} file(s)")]:
    t, m = load(name)
    med[name] = t[0]
    print(f"| {label} | {t[0]:.2f} s | {jq_bytes / 1e9 / t[0]:.3f} | {cpu[name][0]:.2f} s | {m[0]:.0f} MB |")
print()
print(f"- report -j2 / wc -l, warm: **{med['report-j2-warm'] / med['wc-warm']:.1f}×**")
print(f"- report -j2 / wc -l, cold: **{med['report-j2-cold'] / med['wc-cold']:.1f}×**")
print(f"- -j1 / -j2 (warm): {med['report-j1-warm'] / med['report-j2-warm']:.2f}×")
print(f"- jq, extrapolated to the {gb:.2f} GB: {med['jq-subset'] * total / jq_bytes:.0f} s "
      f"({med['jq-subset'] / med['report-subset']:.0f}× report -j1 on the same file(s)); "
      f"its counts equal report's")
EOF
