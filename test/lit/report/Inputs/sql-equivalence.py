#!/usr/bin/env python3
"""The warehouse SQL (docs/report-sql/) gives the same report as the logs.

Writes a varied log set (malformed lines of every kind, null, numeric and
64-bit job ids, null and missing hosts, several days, CRLF, blank lines, a
last line without a newline, a gzip file), loads it into SQLite with the
sqlite3 CLI (the raw lines, then docs/report-sql/sqlite-load.sql), runs
docs/report-sql/aggregates.sql exactly as the doc shows it, exports the CSV,
and checks that `apistamp report --format=json --aggregates` equals
`apistamp report --format=json` over the logs, the `inputs` object aside;
again with a --since/--until window (a WHERE on api_usage).

    sql-equivalence.py --apistamp BIN --source-dir DIR --work DIR
"""
import argparse
import gzip
import json
import os
import pathlib
import random
import subprocess
import sys


def lines_of_log(rng):
    """The log lines (text, no newline), valid and not."""
    events = ["lib.x", "lib.y", "lib.z", 'lib.q,"quoted"', "lib.caf\u00e9",
              "lib.unknown1", "lib.unknown2", "lib.w"]
    hosts = ["h1", "h2", "h3", None, ""]
    exes = ["/bin/a", "/bin/b", None]
    jobs = ["j1", "j2", "77", 77, 78, None, None, 9223372036854775813,
            "9223372036854775813", -0, 0, -5]
    out = []
    for i in range(600):
        day = 20 + rng.randrange(5)
        line = {"event": rng.choice(events),
                "time": f"2026-11-{day:02d}T{rng.randrange(24):02d}:"
                        f"{rng.randrange(60):02d}:00.{rng.randrange(10**6):06d}Z",
                "pid": rng.choice([10, 11, 12, 13, 1 << 40])}
        host = rng.choice(hosts + ["missing"])
        if host != "missing":
            line["host"] = host
        exe = rng.choice(exes + ["missing"])
        if exe != "missing":
            line["exe"] = exe
        line["rank"] = rng.choice([0, 1, None, "r"])
        job = rng.choice(jobs + ["missing"])
        if job != "missing":
            line["job_id"] = job
        if rng.random() < 0.1:
            line["metadata"] = {"k": "v", "n": [1, 2]}
        text = json.dumps(line, ensure_ascii=rng.random() < 0.5)
        if job == -0 and rng.random() < 0.5:
            text = text.replace('"job_id": 0', '"job_id": -0')
        out.append(text)
    # The same event, escaped: one event.
    out.append('{"event":"lib.caf\\u00e9","time":"2026-11-22T01:00:00Z","pid":5,'
               '"host":"h9","exe":"/bin/a","rank":null,"job_id":"j9"}')
    malformed = [
        "not json", "{", '{"event":"lib.x"', "[1,2]", '"a string"', "42",
        '{"event":"","time":"2026-11-20T00:00:00Z","pid":1}',
        '{"event":5,"time":"2026-11-20T00:00:00Z","pid":1}',
        '{"event":"lib.x","time":5,"pid":1}',
        # Times that are not ISO 8601 (YYYY-MM-DD[T...]).
        '{"event":"lib.x","time":"2026-11","pid":5,"host":"h9","job_id":"j9"}',
        '{"event":"lib.x","time":"yesterday","pid":5,"job_id":"j9"}',
        '{"event":"lib.x","time":"2026-11-20 00:00:00","pid":5,"job_id":"j9"}',
        # Times whose day is not a day of the calendar.
        '{"event":"lib.x","time":"2026-02-30T00:00:00Z","pid":5,"job_id":"j9"}',
        '{"event":"lib.x","time":"2000-00-37T00:00:00Z","pid":5,"job_id":"j9"}',
        '{"event":"lib.new","time":"0000-00-00","pid":5,"job_id":"j9"}',
        '{"event":"lib.x","time":"2026-11-20T00:00:00Z","pid":"1"}',
        '{"event":"lib.x","time":"2026-11-20T00:00:00Z","pid":1.0}',
        '{"event":"lib.x","time":"2026-11-20T00:00:00Z","pid":1e3}',
        '{"event":"lib.x","time":"2026-11-20T00:00:00Z","pid":9223372036854775808}',
        '{"event":"lib.x","time":"2026-11-20T00:00:00Z","pid":1,"host":7}',
        '{"event":"lib.x","time":"2026-11-20T00:00:00Z","pid":1,"exe":[]}',
        '{"event":"lib.x","time":"2026-11-20T00:00:00Z","pid":1,"job_id":1.5}',
        '{"event":"lib.x","time":"2026-11-20T00:00:00Z","pid":1,"job_id":true}',
        '{"event":"lib.x","time":"2026-11-20T00:00:00Z","pid":1,"job_id":{}}',
        '{"event":"lib.x","time":"2026-11-20T00:00:00Z","pid":1,"job_id":18446744073709551616}',
        '{"time":"2026-11-20T00:00:00Z","pid":1}',
        '{"event":"lib.x","pid":1}',
        '{"event":"lib.x","time":"2026-11-20T00:00:00Z"}',
        '{"event":"lib.x","time":"2026-11-20T00:00:00Z","pid":1,}',
        '{"event":"lib.x","time":"2026-11-20T00:00:00Z","pid":1,"host":"a\x01"}',
    ]
    for bad in malformed:
        out.insert(rng.randrange(len(out)), bad)
    for blank in ["", "   ", "\t"]:
        out.insert(rng.randrange(len(out)), blank)
    return out


def write_logs(directory, rng):
    """Writes the logs; returns their texts (decompressed)."""
    lines = lines_of_log(rng)
    parts = [lines[:250], lines[250:500], lines[500:]]
    texts = []
    logs = directory / "logs"
    logs.mkdir(parents=True)
    for i, part in enumerate(parts):
        eol = "\r\n" if i == 1 else "\n"
        text = eol.join(part) + (eol if i != 2 else "")  # the last: no newline
        texts.append(text)
        if i == 0:
            (logs / "a.jsonl.gz").write_bytes(gzip.compress(text.encode()))
        else:
            (logs / f"{'bc'[i - 1]}.jsonl").write_bytes(text.encode())
    return texts


def sqlite_aggregates(work, texts, source_dir, window=None):
    """Runs the documented SQL on SQLite; returns the CSV's path."""
    sql_dir = source_dir / "docs" / "report-sql"
    raw = work / "raw.jsonl"
    # sqlite3 .import in ascii mode: one row per line, no quoting.
    raw.write_bytes("".join(t if t.endswith("\n") else t + "\n"
                            for t in texts).encode())
    name = "window" if window else "all"
    csv = work / f"aggregates-{name}.csv"
    script = [
        "CREATE TABLE api_usage_lines(line TEXT);",
        ".mode ascii",
        '.separator "\\037" "\\n"',
        f".import {raw} api_usage_lines",
        (sql_dir / "sqlite-load.sql").read_text(),
    ]
    if window:
        script.append(f"DELETE FROM api_usage WHERE NOT (time >= '{window[0]}' "
                      f"AND time < '{window[1]}');")
    script += [".headers on", ".mode csv", f".once {csv}",
               (sql_dir / "aggregates.sql").read_text()]
    run = subprocess.run(["sqlite3", "-bail", str(work / f"{name}.db")],
                         input="\n".join(script), text=True,
                         capture_output=True)
    if run.returncode != 0 or run.stderr:
        sys.exit(f"sqlite3 failed ({run.returncode}):\n{run.stderr}")
    return csv


def duckdb_aggregates(work, texts, source_dir, node_dir, window=None):
    """Runs the documented SQL on DuckDB (its Node.js client, installed by
    scripts/fetch-duckdb.sh in NODE_DIR); returns the CSV's path."""
    sql_dir = source_dir / "docs" / "report-sql"
    raw = work / "raw-duckdb.jsonl"
    raw.write_bytes("".join(t if t.endswith("\n") else t + "\n"
                            for t in texts).encode())
    name = "window" if window else "all"
    csv = work / f"duckdb-aggregates-{name}.csv"
    runner = pathlib.Path(__file__).parent / "duckdb-aggregates.cjs"
    run = subprocess.run(["node", str(runner), str(node_dir), str(raw),
                          str(sql_dir / "duckdb-load.sql"),
                          str(sql_dir / "aggregates.sql"), str(csv),
                          *(window or [])], text=True, capture_output=True)
    if run.returncode != 0 or run.stderr:
        sys.exit(f"duckdb failed ({run.returncode}):\n{run.stderr}")
    return csv


def report(apistamp, work, *args):
    run = subprocess.run([apistamp, "report", "--format=json", "--catalog",
                          str(work / "catalog.json"), *args],
                         capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"apistamp report {' '.join(args)} failed:\n{run.stderr}")
    return json.loads(run.stdout)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--apistamp", required=True)
    parser.add_argument("--source-dir", required=True, type=pathlib.Path)
    parser.add_argument("--work", required=True, type=pathlib.Path)
    parser.add_argument("--duckdb", type=pathlib.Path, metavar="NODE_DIR",
                        help="run the SQL on DuckDB, not SQLite")
    args = parser.parse_args()
    work = args.work
    work.mkdir(parents=True, exist_ok=True)

    # The doc shows the aggregation SQL as it is in the file.
    doc = (args.source_dir / "docs" / "report-sql.md").read_text()
    for name in ["aggregates.sql", "sqlite-load.sql", "duckdb-load.sql"]:
        sql = (args.source_dir / "docs" / "report-sql" / name).read_text()
        if sql.strip() not in doc:
            sys.exit(f"docs/report-sql.md does not show docs/report-sql/{name}"
                     " as it is")

    (work / "catalog.json").write_text(json.dumps([
        {"event": e, "rule": "api", "file": "src/a.cpp", "line": i + 1,
         "kind": "function", "status": "present", "name": "f"}
        for i, e in enumerate(["lib.x", "lib.y", "lib.z", 'lib.q,"quoted"',
                               "lib.caf\u00e9", "lib.never"])]))
    texts = write_logs(work, random.Random(14))
    failures = 0
    for window in [None, ("2026-11-21", "2026-11-23T12")]:
        if args.duckdb:
            csv = duckdb_aggregates(work, texts, args.source_dir, args.duckdb,
                                    window)
        else:
            csv = sqlite_aggregates(work, texts, args.source_dir, window)
        since = ["--since", window[0], "--until", window[1]] if window else []
        # A layer (docs/report.md) sorts the same counts on both paths.
        layer = ["--layer", "legacy=lib.unknown*"]
        from_logs = report(args.apistamp, work, *since, *layer,
                           str(work / "logs"))
        from_sql = report(args.apistamp, work, *layer, "--aggregates",
                          str(csv))
        inputs = from_logs.pop("inputs")
        from_sql.pop("inputs")
        label = f"window {window[0]}..{window[1]}" if window else "all"
        if from_logs != from_sql:
            failures += 1
            for key in from_logs:
                if from_logs[key] != from_sql.get(key):
                    print(f"{label}: '{key}' differs:\n  logs: "
                          f"{json.dumps(from_logs[key])[:2000]}\n  sql:  "
                          f"{json.dumps(from_sql.get(key))[:2000]}")
        else:
            used = sum(e["jobs"] > 0 for e in from_logs["events"])
            print(f"{label}: equal: {len(from_logs['events'])} events "
                  f"({used} used), {len(from_logs['unknown'])} unknown, "
                  f"{sum(len(g['events']) for g in from_logs['layers'])} "
                  f"of a layer, "
                  f"{len(from_logs['trend']['periods'])} periods; "
                  f"{inputs['events']} event lines, {inputs['malformed']} "
                  f"malformed, {inputs['outside_window']} outside the window")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
