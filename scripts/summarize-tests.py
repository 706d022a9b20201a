#!/usr/bin/env python3
"""Prints one summary line over JUnit XML files (GoogleTest, lit).

    summarize-tests.py [--status N] FILE.xml...

Exits 1 if any test failed or errored, or if no test ran at all. --status:
the test command's own status so far; if it is not 0 (a suite that crashed
before writing its results, a build that failed), the summary says FAILED
too, and why: a suite missing from the files must not read as OK.
"""
import sys
import xml.etree.ElementTree as ET

args = sys.argv[1:]
status = 0
if args[:1] == ["--status"]:
    status = int(args[1])
    args = args[2:]

totals = {"passed": 0, "failed": 0, "skipped": 0}
per_file = []
for path in args:
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    for case in ET.parse(path).getroot().iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            counts["failed"] += 1
        elif case.find("skipped") is not None or case.get("result") == "skipped":
            counts["skipped"] += 1
        else:
            counts["passed"] += 1
    for key in totals:
        totals[key] += counts[key]
    name = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    per_file.append("%s %d/%d" % (name, counts["passed"], sum(counts.values())))

ok = totals["failed"] == 0 and totals["passed"] > 0 and status == 0
print("SUMMARY: %s: %d passed, %d failed, %d skipped (%s)%s" % (
    "OK" if ok else "FAILED", totals["passed"], totals["failed"],
    totals["skipped"], ", ".join(per_file),
    "" if status == 0 else "; and a step failed outside these results "
    "(a build, or a suite that wrote none): see its output above"))
sys.exit(0 if ok else 1)
