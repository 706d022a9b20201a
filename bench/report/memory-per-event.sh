#!/bin/bash
# The report's memory per distinct event (issue 44, F12): peak RSS of
# `apistamp report` over logs whose every line names a new event, in a new
# job and process (the worst case: three new keys a line), against the same
# number of lines naming 100 events (memory flat), in JSON and text.
#
#   bench/report/memory-per-event.sh [APISTAMP...]   (default build/bin/apistamp)
set -euo pipefail
declare -A peak
root=$(cd "$(dirname "$0")/../.." && pwd)
bins=("$@")
((${#bins[@]})) || bins=("$root/build/bin/apistamp")
work=${TMPDIR:-/tmp}/apistamp-memory-per-event
rm -rf "$work" && mkdir -p "$work" && cd "$work"
printf '[{"event":"lib.a","file":"src/a.cpp","kind":"function","line":1,"name":"lib::a","rule":"r","status":"present"}]\n' > catalog.json
for n in 1000 100000 400000; do
  /usr/bin/python3 - "$n" <<'EOF'
import json, sys
n = int(sys.argv[1])
line = lambda i, e, day, pid, job: json.dumps({
    "event": "lib.e%d" % e, "time": "2026-11-%02dT08:00:00.000000Z" % day,
    "pid": pid, "host": "h", "exe": "/x", "rank": 0, "job_id": "j%d" % job}) + "\n"
with open("unique%d.jsonl" % n, "w") as f:
    f.writelines(line(i, i, 20, i, i) for i in range(n))
with open("repeated%d.jsonl" % n, "w") as f:
    f.writelines(line(i, i % 100, 1 + i % 28, i % 5000, i % 3000) for i in range(n))
EOF
done
printf '%-8s %-15s %-6s %8s %8s %7s\n' binary log format "log KB" "peak MB" "wall s"
for bin in "${bins[@]}"; do
  name=$(basename "$(dirname "$(dirname "$bin")")")
  for format in json text; do
    for log in unique1000 unique100000 unique400000 repeated400000; do
      /usr/bin/time -f '%M %e' -o rss "$bin" report --catalog catalog.json \
        --format=$format -o out.$format $log.jsonl
      read -r kb seconds < rss
      printf '%-8s %-15s %-6s %8d %8d %7s\n' "$name" $log $format \
        $(($(stat -c%s $log.jsonl) / 1024)) $((kb / 1024)) "$seconds"
      peak[$log]=$kb
    done
    echo "$name $format: $(((peak[unique400000] - peak[unique1000]) * 1024 / 399000)) bytes per distinct event"
  done
done
