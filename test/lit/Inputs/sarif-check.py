#!/usr/bin/env python3
"""Reads a SARIF log back: checks the fields SARIF 2.1.0 requires and that
rule ids and indices agree, then applies every fix to the files under
SRCROOT in place. Prints one summary line; exits 1 with a reason on a defect.

Usage: sarif-check.py LOG SRCROOT
"""
import json
import sys


def fail(message):
    print("sarif-check: " + message)
    sys.exit(1)


def need(obj, key, where):
    if not isinstance(obj, dict) or key not in obj:
        fail("%s lacks required '%s'" % (where, key))
    return obj[key]


log = json.load(open(sys.argv[1]))
root = sys.argv[2].rstrip("/")
if need(log, "version", "sarifLog") != "2.1.0":
    fail("version is not 2.1.0")
runs = need(log, "runs", "sarifLog")
if len(runs) != 1:
    fail("expected one run")
run = runs[0]
driver = need(need(run, "tool", "run"), "driver", "tool")
need(driver, "name", "driver")
rule_ids = [need(r, "id", "reportingDescriptor") for r in driver.get("rules", [])]
if len(set(rule_ids)) != len(rule_ids):
    fail("duplicate rule ids")
base = run.get("originalUriBaseIds", {}).get("SRCROOT", {}).get("uri", "")
if not base.startswith("file://") or not base.endswith("/"):
    fail("SRCROOT must be a file:// URI ending in '/'")

edits = {}  # path -> [(offset, length, text)]
fixes = 0
results = need(run, "results", "run")
for result in results:
    text = need(need(result, "message", "result"), "text", "message")
    if not text:
        fail("empty message")
    rule = result.get("ruleId")
    if rule not in rule_ids or rule_ids.index(rule) != result.get("ruleIndex"):
        fail("ruleId %r and ruleIndex %r disagree with the rules" % (rule, result.get("ruleIndex")))
    if result.get("level") not in ("error", "warning", "note"):
        fail("bad level %r" % result.get("level"))
    for location in result.get("locations", []):
        physical = need(location, "physicalLocation", "location")
        need(need(physical, "artifactLocation", "physicalLocation"), "uri", "artifactLocation")
        region = need(physical, "region", "physicalLocation")
        if need(region, "startLine", "region") < 1 or need(region, "startColumn", "region") < 1:
            fail("region before line 1, column 1")
    for fix in result.get("fixes", []):
        fixes += 1
        for change in need(fix, "artifactChanges", "fix"):
            artifact = need(change, "artifactLocation", "artifactChange")
            if artifact.get("uriBaseId") != "SRCROOT":
                fail("fix outside SRCROOT: %r" % artifact)
            path = root + "/" + need(artifact, "uri", "artifactLocation")
            for replacement in need(change, "replacements", "artifactChange"):
                region = need(replacement, "deletedRegion", "replacement")
                text = replacement.get("insertedContent", {}).get("text", "")
                edits.setdefault(path, []).append(
                    (region["byteOffset"], region["byteLength"], text))

for path, changes in edits.items():
    data = open(path, "rb").read()
    for offset, length, text in sorted(set(changes), reverse=True):
        data = data[:offset] + text.encode() + data[offset + length:]
    open(path, "wb").write(data)
print("sarif-check: %d results, %d rules, %d fixes applied to %d files"
      % (len(results), len(rule_ids), fixes, len(edits)))
