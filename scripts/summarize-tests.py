#!/usr/bin/env python3
"""Prints one summary line over JUnit XML files (GoogleTest, lit).

Exits 1 if any test failed or errored, or if no test ran at all.
"""
import sys
import xml.etree.ElementTree as ET

totals = {"passed": 0, "failed": 0, "skipped": 0}
per_file = []
for path in sys.argv[1:]:
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

ok = totals["failed"] == 0 and totals["passed"] > 0
print("SUMMARY: %s: %d passed, %d failed, %d skipped (%s)" % (
    "OK" if ok else "FAILED", totals["passed"], totals["failed"],
    totals["skipped"], ", ".join(per_file)))
sys.exit(0 if ok else 1)
