#!/usr/bin/env python3
"""Writes DAYS daily logs (DIR/day01.jsonl ...) for the partials' tests.

Jobs that run across midnight log on two days (their distinct count is not
the sum of the days'), ranks on several hosts, lines without a job_id,
integer job ids, lines in a collector's key order, an aliased old name,
another library's and an unknown event, a malformed line on some days,
and an event logged once on one day only. Deterministic: a fixed seed.
"""
import json
import os
import random
import sys

out, days = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 14
os.makedirs(out, exist_ok=True)
rng = random.Random(20261101)
events = ["lib.a", "lib.b", "lib.c", "lib.old_d", "lib.gone", "yaml.Node.as"]
for day in range(1, days + 1):
    lines = []
    stamp = "2026-11-%02d" % day
    for job in range(6):
        # Job "j<day>-5" runs past midnight: it logs on the next day too.
        job_ids = ["j%d-%d" % (day, job)]
        if job == 0 and day > 1:
            job_ids.append("j%d-5" % (day - 1))
        for job_id in job_ids:
            ranks = rng.randint(1, 4)
            for rank in range(ranks):
                host = "node%02d" % rng.randint(1, 5)
                pid = 1000 + rng.randint(0, 60000)
                for event in rng.sample(events[:4], rng.randint(1, 4)):
                    time = "%sT%02d:%02d:%02d.%06dZ" % (
                        stamp, rng.randint(0, 23), rng.randint(0, 59),
                        rng.randint(0, 59), rng.randint(0, 999999))
                    jid = int(job_id.split("-")[1]) * 1000 + day if job == 3 else job_id
                    if job == 4:
                        jid = None
                    line = {"event": event, "time": time, "pid": pid,
                            "host": host, "exe": "/usr/bin/python3",
                            "rank": rank, "job_id": jid}
                    if job == 2:
                        # A collector's shape: other order, spaces, more.
                        text = json.dumps({"@timestamp": time, "job_id": jid,
                                           "host": host, "event": event,
                                           "kubernetes": {"pod": "p-%d" % rank},
                                           "pid": pid, "time": time,
                                           "exe": "/usr/bin/python3"})
                    else:
                        text = json.dumps(line, separators=(",", ":"))
                    lines.append(text)
    if day % 3 == 0:
        lines.append('{"event":"lib.a","time":"%sT01:00:00Z","pid":"7"}' % stamp)
    if day % 4 == 1:
        lines.append('{"event":"lib.gone","time":"%sT02:00:00Z","pid":9,'
                     '"host":"old","exe":"/opt/old","job_id":"old-%d"}' % (stamp, day))
    if day % 5 == 2:
        lines.append('{"event":"yaml.Node.as","time":"%sT03:00:00Z","pid":9,'
                     '"host":"h","exe":"/bin/y","job_id":"y"}' % stamp)
    if day == 9:
        lines.append('{"event":"lib.rare","time":"%sT04:00:00Z","pid":1,'
                     '"host":"h","exe":"/bin/r","job_id":"r"}' % stamp)
    rng.shuffle(lines)
    with open(os.path.join(out, "day%02d.jsonl" % day), "w") as f:
        f.write("\n".join(lines) + "\n")
