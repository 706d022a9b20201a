#!/usr/bin/env bash
# Runs `apistamp report` (and the catalog it reads) with two binaries over the
# same inputs and compares their outputs byte for byte: stdout, stderr and the
# exit code of every run. For reshapes that must not change behaviour.
#
#   scripts/compare-report-outputs.sh BASELINE_BIN NEW_BIN [WORK_DIR]
#
# The inputs: the catalog of examples/imagelib (as `apistamp catalog
# --format=json` writes it; both binaries' catalogs compared too) and a
# hand-written one whose names need CSV and Markdown quoting; JSON-lines logs
# (deterministic, from the generator below) that span days and, in another
# set, months (a weekly trend), plain, gzip and zstd, in files, directories
# and on stdin; hostile ones (bad lines, a truncated last line, CRLF, blank
# lines, truncated and corrupt gzip and zstd, a missing file, a directory);
# a plain log of about 40 MB that is read in parts (-j1, -j2, -j3); warehouse
# aggregates, good and bad; catalogs that are not. Every --format with every
# --by, with and without --verbose, and --since/--until windows.
# Exit 0 when every output is identical, 1 otherwise (the differing runs are
# listed, their outputs left in WORK_DIR).
set -uo pipefail

if [[ $# -lt 2 ]]; then
  echo "usage: $0 BASELINE_BIN NEW_BIN [WORK_DIR]" >&2
  exit 2
fi
base=$(realpath "$1")
new=$(realpath "$2")
repo=$(cd "$(dirname "$0")/.." && pwd)
work=${3:-$(mktemp -d /tmp/compare-report.XXXXXX)}
mkdir -p "$work"
work=$(realpath "$work")
in=$work/inputs
rm -rf "$in" "$work/out"
mkdir -p "$in" "$work/out"
echo "work directory: $work"

# The catalog of the example, by both binaries (it runs the TU workers).
ex=$work/imagelib
rm -rf "$ex" && cp -r "$repo/examples/imagelib" "$ex"
if cmake -S "$ex" -B "$ex/build" -G Ninja \
  -DAPISTAMP_RUNTIME_DIR="$repo/runtime" > "$work/cmake.log" 2>&1; then
  for bin in base new; do
    (cd "$ex" && "${!bin}" catalog -p build --format=json -j2 \
      > "$work/out/catalog.$bin.out" 2> "$work/out/catalog.$bin.err")
    echo "$?" > "$work/out/catalog.$bin.rc"
  done
  cp "$work/out/catalog.base.out" "$in/imagelib-catalog.json"
else
  echo "warning: examples/imagelib does not configure (see $work/cmake.log);" \
    "the hand-written catalog only" >&2
fi

python3 - "$in" <<'PY'
import gzip, json, os, random, subprocess, sys

out = sys.argv[1]
rng = random.Random(23)

def catalog_events(path):
    try:
        return sorted({e["event"] for e in json.load(open(path))})
    except (OSError, ValueError):
        return []

# A catalog whose rules and files need quoting in CSV and Markdown.
odd = [
    {"event": "lib.x", "rule": "api", "file": "src/a.cpp", "line": 3,
     "kind": "function", "status": "present", "name": "lib::x"},
    {"event": "lib.x", "rule": "api", "file": "src/a.cpp", "line": 1,
     "kind": "function", "status": "present", "name": "lib::x"},
    {"event": "lib.y", "rule": "api", "file": "src/b,c.cpp", "line": 9,
     "kind": "function", "status": "present", "name": "lib::y"},
    {"event": "lib.\"q\"", "rule": "rule,\"quoted\"", "file": "src/|pipe*_.cpp",
     "line": 4, "kind": "constructor", "status": "present", "name": "q"},
    {"event": "lib.never", "rule": "ctors", "file": "src/z.cpp", "line": 2,
     "kind": "constructor", "status": "present", "name": "never"},
    {"event": "lib.<html>&", "rule": "api", "file": "", "line": 0,
     "kind": "", "status": "present", "name": "h"},
]
json.dump(odd, open(os.path.join(out, "odd-catalog.json"), "w"))

events = catalog_events(os.path.join(out, "imagelib-catalog.json"))
used = events[: max(1, len(events) * 2 // 3)]  # the rest: never used
used += ["lib.x", "lib.y", "lib.\"q\"", "lib.<html>&"]
unknown = ["lib.typo", "lib.a,b", "lib.`tick`|x", "lib.unicode.é"]

def line(event, time, pid, host, exe, rank, job):
    return json.dumps({"event": event, "time": time, "pid": pid, "host": host,
                       "exe": exe, "rank": rank, "job_id": job},
                      separators=(",", ":"), ensure_ascii=False) + "\n"

def day(d, month=11):
    # d days after 2026-<month>-01 (days past 28 roll over into next months).
    import datetime
    t = datetime.date(2026, month, 1) + datetime.timedelta(days=d)
    return t.isoformat()

def job_lines(job, start_day, span_days, month=11):
    lines = []
    procs = rng.randint(1, 6)
    for p in range(procs):
        pid = 1000 + rng.randint(0, 50000)
        host = "node%03d" % rng.randint(0, 20)
        rank = p if job is not None else None
        d = start_day + rng.randint(0, span_days)
        for e in rng.sample(used + unknown, rng.randint(1, 8)):
            t = "%sT%02d:%02d:%02d.%06dZ" % (day(d, month), rng.randint(0, 23),
                                              rng.randint(0, 59),
                                              rng.randint(0, 59),
                                              rng.randint(0, 999999))
            lines.append(line(e, t, pid, host, "/usr/bin/app%d" % (pid % 3),
                              rank, job))
    return lines

def write(path, lines, compress=None):
    data = "".join(lines).encode()
    if compress == "gz":
        data = gzip.compress(data)
    elif compress == "zst":
        data = subprocess.run(["zstd", "-q", "-c"], input=data,
                              stdout=subprocess.PIPE, check=True).stdout
    os.makedirs(os.path.dirname(path), exist_ok=True)
    open(path, "wb").write(data)

# Days: a few weeks of November.
d = os.path.join(out, "days")
for f in range(4):
    lines = []
    for j in range(40):
        job = None if j % 10 == 0 else "job-%d-%d" % (f, j)
        lines += job_lines(job, rng.randint(0, 20), 2)
    comp = [None, "gz", "zst", None][f]
    name = "part%d.jsonl" % f + {None: "", "gz": ".gz", "zst": ".zst"}[comp]
    write(os.path.join(d, "sub" if f == 3 else "", name), lines, comp)
write(os.path.join(d, "notes.txt"), ["not a log\n"])

# Months: a weekly trend.
m = os.path.join(out, "months")
for f in range(2):
    lines = []
    for j in range(60):
        lines += job_lines("long-%d-%d" % (f, j), rng.randint(0, 200), 3, 1)
    write(os.path.join(m, "m%d.jsonl" % f), lines)

# Hostile lines, in one file.
good = job_lines("h-1", 3, 1)
hostile = good[:5] + [
    "\n", "   \t\n", "not json at all\n", "[1,2,3]\n",
    '{"event":7,"time":"2026-11-20T10:00:00Z","pid":1}\n',
    '{"event":"lib.x","pid":1}\n',
    '{"event":"lib.x","time":"2026-11-20T10:00:00Z","pid":1.5}\n',
    '{"event":"lib.x","time":"2026-11-20T10:00:00Z","pid":1,"host":3}\n',
    '{"event":"lib.x","time":"yesterday","pid":1}\n',
    '{"event":"lib.x","time":"2026-11-20T10:00:00Z","pid":1,"job_id":{"a":1}}\n',
    '{"event":"lib.x","time":"2026-11-20T10:00:00Z","pid":1,"job_id":"j"} trailing\n',
    good[5].rstrip("\n") + "\r\n",
    '{"event":"lib.y","time":"2026-11-21T10:00:00Z","pid":2,"host":"h","exe":"e","rank":null,"job_id":7}\n',
] + good[6:] + ['{"event":"lib.x","time":"2026-11-2']
h = os.path.join(out, "hostile")
write(os.path.join(h, "lines.jsonl"), hostile)
full = "".join(job_lines("gz-%d" % j, 1, 5)[0] for j in range(3000)).encode()
gz = gzip.compress(full)
open(os.path.join(h, "truncated.jsonl.gz"), "wb").write(gz[: len(gz) // 2])
open(os.path.join(h, "corrupt.jsonl.gz"), "wb").write(
    b"\x1f\x8b\x08\x00garbage-not-deflate")
zs = subprocess.run(["zstd", "-q", "-c"], input=full, stdout=subprocess.PIPE,
                    check=True).stdout
open(os.path.join(h, "truncated.jsonl.zst"), "wb").write(zs[: len(zs) // 2])
open(os.path.join(h, "corrupt.jsonl.zst"), "wb").write(
    b"\x28\xb5\x2f\xfd" + bytes(range(200)))
open(os.path.join(h, "empty.jsonl"), "wb").close()

# A large plain log, read in parts of 16 MiB.
with open(os.path.join(out, "large.jsonl"), "w") as big:
    size, j = 0, 0
    while size < 40 << 20:
        chunk = "".join(job_lines("big-%d" % j, j % 25, 1))
        if j % 5000 == 4999:
            chunk += "bad line in the large file\n"
        big.write(chunk)
        size += len(chunk.encode())
        j += 1

# Warehouse aggregates (docs/report-sql.md).
agg = ["event,day,jobs,processes,hosts,first_seen,last_seen\n"]
for i, e in enumerate(used[:6] + ["lib.a,b"]):
    q = '"%s"' % e.replace('"', '""') if ("," in e or '"' in e) else e
    agg.append("%s,,%d,%d,%d,2026-11-02T00:00:00Z,2026-11-%02dT00:00:00Z\n"
               % (q, 10 + i, 30 + i, 3 + i, 10 + i))
    for dd in range(3):
        agg.append("%s,2026-11-%02d,%d,0,0,,\r\n" % (q, 2 + dd * 3, i + dd))
open(os.path.join(out, "aggregates.csv"), "w").write("".join(agg))
open(os.path.join(out, "bad-header.csv"), "w").write("event,jobs\nlib.x,3\n")
open(os.path.join(out, "bad-row.csv"), "w").write(
    agg[0] + "lib.x,,three,1,1,,\n")
open(os.path.join(out, "not-json.json"), "w").write("{ nope")
open(os.path.join(out, "not-array.json"), "w").write('{"event":"x"}')
open(os.path.join(out, "no-event.json"), "w").write('[{"rule":"r"}]')
PY

runs=0
diffs=0
# run NAME ARGS...: one report by both binaries (in $in), compared.
run() {
  local name=$1
  shift
  local bin
  for bin in base new; do
    (cd "$in" && "${!bin}" report "$@" \
      > "$work/out/$name.$bin.out" 2> "$work/out/$name.$bin.err" < "$stdin")
    echo "$?" > "$work/out/$name.$bin.rc"
  done
  runs=$((runs + 1))
  local part
  for part in out err rc; do
    if ! cmp -s "$work/out/$name.base.$part" "$work/out/$name.new.$part"; then
      echo "DIFFERENT: $name ($part): report $*"
      diffs=$((diffs + 1))
      return
    fi
  done
  rm -f "$work/out/$name".*
}
stdin=/dev/null

catalogs=(odd-catalog.json)
[[ -f $in/imagelib-catalog.json ]] && catalogs+=(imagelib-catalog.json)
for cat in "${catalogs[@]}"; do
  c=${cat%.json}
  for format in text csv json markdown html; do
    for by in event rule file; do
      for verbose in "" --verbose; do
        v=${verbose:+-v}
        run "$c.days.$format.$by$v" --catalog "$cat" --format=$format \
          --by=$by $verbose days
        run "$c.months.$format.$by$v" --catalog "$cat" --format=$format \
          --by=$by $verbose months
        run "$c.hostile.$format.$by$v" --catalog "$cat" --format=$format \
          --by=$by $verbose hostile missing.jsonl days/part1.jsonl.gz
        run "$c.agg.$format.$by$v" --catalog "$cat" --format=$format \
          --by=$by $verbose --aggregates aggregates.csv
        run "$c.window.$format.$by$v" --catalog "$cat" --format=$format \
          --by=$by $verbose --since 2026-11-05 --until 2026-11-12T12 days \
          months hostile
      done
    done
  done
  for j in 1 2 3; do
    for format in text json; do
      run "$c.large.j$j.$format" --catalog "$cat" --format=$format \
        --verbose -j$j large.jsonl days hostile
    done
  done
  run "$c.large.window" --catalog "$cat" --format=csv -j2 \
    --since 2026-11-03 --until 2026-11-20 large.jsonl
  stdin=$in/days/part0.jsonl
  run "$c.stdin" --catalog "$cat" --verbose - hostile/lines.jsonl
  stdin=/dev/null
  for bad in bad-header.csv bad-row.csv missing.csv; do
    run "$c.agg.$bad" --catalog "$cat" --aggregates "$bad"
  done
  run "$c.agg-and-logs" --catalog "$cat" --aggregates aggregates.csv days
  run "$c.no-input" --catalog "$cat"
  run "$c.none-readable" --catalog "$cat" missing.jsonl nothing/
  run "$c.bad-format" --catalog "$cat" --format=xml days
  run "$c.bad-by" --catalog "$cat" --by=host days
done
for bad in not-json.json not-array.json no-event.json missing.json; do
  run "catalog.$bad" --catalog "$bad" days
done

if [[ -f $work/out/catalog.base.rc ]]; then
  for part in out err rc; do
    runs=$((runs + 1))
    if ! cmp -s "$work/out/catalog.base.$part" "$work/out/catalog.new.$part"; then
      echo "DIFFERENT: apistamp catalog on examples/imagelib ($part)"
      diffs=$((diffs + 1))
    fi
  done
fi

echo "$runs comparisons, $diffs different"
[[ $diffs == 0 ]]
