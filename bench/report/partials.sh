#!/usr/bin/env bash
# report --emit-partial / --merge on the benchmark's logs cut into days:
# one partial per day, their merge against one pass over the days' logs
# (the reports must be byte for byte the same), and the merge's peak RSS
# against the lines behind it: the same fourteen partials merged once and
# four and eight times over (four and eight times the keys read, the same
# distinct keys).
#
#   bench/report/partials.sh [--apistamp build/bin/apistamp] [--logs DIR]
#                            [--data DIR]
#
# LOGS: a directory of gen-logs output (usage-*.jsonl, catalog.json;
# default /tmp/apistamp-report-shapes/runtime-generator, which
# bench/report/shapes.sh writes). The days go to DATA (default
# /tmp/apistamp-report-partials). CPU time and peak RSS from /usr/bin/time.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
apistamp=$here/../../build/bin/apistamp
logs=/tmp/apistamp-report-shapes/runtime-generator
data=/tmp/apistamp-report-partials
while (($#)); do
  case $1 in
    --apistamp) apistamp=$2; shift 2 ;;
    --logs) logs=$2; shift 2 ;;
    --data) data=$2; shift 2 ;;
    *) echo "partials.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
apistamp=$(cd "$(dirname "$apistamp")" && pwd)/$(basename "$apistamp")
mkdir -p "$data/days"
cp "$logs/catalog.json" "$data/"
if [[ ! -f $data/days/.done ]]; then
  # Each line to its day's file ("time":"YYYY-MM-DD...), in the logs' order.
  python3 - "$data/days" "$logs"/usage-*.jsonl <<'PY'
import sys
out, files = sys.argv[1], sys.argv[2:]
days = {}
for name in files:
    with open(name, "rb") as f:
        for line in f:
            i = line.index(b'"time":"') + 8
            day = line[i:i + 10].decode()
            if day not in days:
                days[day] = open(f"{out}/{day}.jsonl", "wb")
            days[day].write(line)
for f in days.values():
    f.close()
PY
  touch "$data/days/.done"
fi
cd "$data"
days=(days/*.jsonl)
t() { # t OUT COMMAND...: COMMAND's output to OUT; says its CPU time and peak RSS
  local out=$1; shift
  /usr/bin/time -f '%U %S %M' -o time.txt "$@" > "$out"
  awk '{printf "%.2f s CPU, %.0f MB peak RSS", $1 + $2, $3 / 1024}' time.txt
}
echo "${#days[@]} days, $(cat "${days[@]}" | wc -l) lines, $(cat "${days[@]}" | wc -c) bytes"
rm -f partials/*.partial; mkdir -p partials
emit_cpu=0 emit_rss=0
for d in "${days[@]}"; do
  /usr/bin/time -f '%U %S %M' -o time.txt "$apistamp" report --catalog catalog.json -j1 -q \
    --emit-partial "partials/$(basename "$d" .jsonl).partial" "$d"
  read -r u s m < time.txt
  emit_cpu=$(python3 -c "print(f'{$emit_cpu + $u + $s:.2f}')")
  ((m > emit_rss)) && emit_rss=$m
done
echo "emit, 14 days one by one (-j1): $emit_cpu s CPU in all, largest peak RSS $((emit_rss / 1024)) MB;" \
  "partials: $(du -cb partials/*.partial | tail -1 | cut -f1) bytes"
echo "one pass over the days' logs (-j1): $(t one.json "$apistamp" report --catalog catalog.json --format=json -j1 "${days[@]}")"
echo "merge of the 14 partials (-j1): $(t merged.json "$apistamp" report --catalog catalog.json --format=json -j1 --merge partials/*.partial)"
cmp one.json merged.json && echo "the two reports are byte for byte the same"
echo "merge of the 14 partials four times over (-j1): $(t merged4.json "$apistamp" report --catalog catalog.json --format=json -j1 \
  --merge partials/*.partial partials/*.partial partials/*.partial partials/*.partial)"
p=(partials/*.partial)
echo "merge of the 14 partials eight times over (-j1): $(t merged8.json "$apistamp" report --catalog catalog.json --format=json -j1 \
  --merge "${p[@]}" "${p[@]}" "${p[@]}" "${p[@]}" "${p[@]}" "${p[@]}" "${p[@]}" "${p[@]}")"
echo "roll-up of the 14 into one partial: $(t /dev/null "$apistamp" report -q --merge partials/*.partial --emit-partial rollup.partial);" \
  "$(stat -c %s rollup.partial) bytes"
python3 - <<'PY'
import json
r = json.load(open("merged.json"))
ev = r["events"] + r["unknown"] + [e for g in r["layers"] + r["other_libraries"] for e in g["events"]]
print(f"distinct keys: {sum(e['processes'] for e in ev)} (event, process), {sum(e['jobs'] for e in ev)} (event, job), "
      f"{sum(sum(e['trend']) for e in ev)} (event, day, job), {sum(e['hosts'] for e in ev)} (event, host)")
PY
