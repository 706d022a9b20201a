"""Prints a report's JSON (apistamp report --format=json) line by line."""
import json
import sys

r = json.load(open(sys.argv[1]))
print("version", r["version"])
i = r["inputs"]
print("inputs files=%d lines=%d events=%d malformed=%d" %
      (i["files"], i["lines"], i["events"], i["malformed"]))
for e in r["events"]:
    print("event %s %s %s %s:%d %s jobs=%d processes=%d hosts=%d %s..%s trend=%s" %
          (e["event"].split(",")[0], e["status"], e["rule"], e["file"], e["line"],
           e["kind"], e["jobs"], e["processes"], e["hosts"], e["first_seen"],
           e["last_seen"], e["trend"]))
for e in r["unknown"]:
    print("unknown %s jobs=%d processes=%d hosts=%d" %
          (e["event"], e["jobs"], e["processes"], e["hosts"]))
for layer in r.get("layers", []):
    print("layer %s globs=%s" % (layer["layer"], layer["globs"]))
    for e in layer["events"]:
        print("  %s jobs=%d processes=%d hosts=%d %s..%s trend=%s" %
              (e["event"], e["jobs"], e["processes"], e["hosts"],
               e["first_seen"], e["last_seen"], e["trend"]))
for library in r.get("other_libraries", []):
    print("library %s" % library["library"])
    for e in library["events"]:
        print("  %s jobs=%d processes=%d hosts=%d" %
              (e["event"], e["jobs"], e["processes"], e["hosts"]))
for rule in r["rules"]:
    print("rule %s events=%d used=%d" % (rule["id"], rule["events"], rule["used"]))
print("trend", r["trend"]["unit"], r["trend"]["periods"])
for p in i["problems"]:
    print("problem %s malformed=%d first=%s" %
          (p["file"], p["malformed"], [(f["line"], f["problem"]) for f in p["first"]]))
for s in i.get("stderr_logs", []):
    print("stderr %s job=%s events=%d ignored=%d malformed=%d first=%s" %
          (s["file"], s["job_id"], s["events"], s["ignored"], s["malformed"],
           [(f["line"], f["problem"]) for f in s["first"]]))
