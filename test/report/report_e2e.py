#!/usr/bin/env python3
"""apistamp report end to end: real runtime logs, and the HTML page in a browser.

1. Instruments the bundled example (examples/imagelib) with `apistamp fix`,
   builds it against the runtime and saves `apistamp catalog --format=json`.
2. Launches its program as 8 ranks of one job, the way SLURM and torchrun
   do (8 processes, the same job variable, RANK 0..7, one shared
   APISTAMP_API_USAGE_LOG): the log has 8 lines per event, and the report
   counts 1 job, 8 processes. With SLURM_JOB_ID, with TORCHELASTIC_RUN_ID,
   and with APISTAMP_JOB_ID_ENV naming a variable of one's own (SLURM_JOB_ID,
   set differently in each rank then, must be ignored); without a job
   variable each process is its own job.
3. Renders the HTML report of three weeks of synthetic fleet logs over the
   example's events in headless chromium, in a network namespace with no
   network: the screenshot is not blank and shows the charts' colours; a copy
   of the page with a probe script appended (the product page is not
   changed) reports its tables, no resource loaded, no script error, and the
   order of the rows after clicking the 'jobs' and 'event' headers.

Each step is a JUnit test case. --screenshot FILE keeps the screenshot
(docs/report-screenshot.png is made this way).
"""
import argparse
import collections
import datetime
import html.parser
import json
import os
import pathlib
import random
import re
import shutil
import struct
import subprocess
import sys
import zlib

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "realworld"))
from realworld import Steps, sh  # noqa: E402

JOB_VARIABLES = ("SLURM_JOB_ID", "TORCHELASTIC_RUN_ID", "APISTAMP_JOB_ID_ENV",
                 "RANK", "LOCAL_RANK", "PYTORCH_API_USAGE_STDERR",
                 "APISTAMP_API_USAGE_LOG")


def clean_environment():
    """The test's own environment without any job or rank variable."""
    return {k: v for k, v in os.environ.items() if k not in JOB_VARIABLES}


def png_pixels(path):
    """(width, height, rows of RGB(A) bytes) of an 8-bit, non-interlaced PNG."""
    data = pathlib.Path(path).read_bytes()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise RuntimeError("%s is not a PNG" % path)
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    channels = {2: 3, 6: 4}.get(colour)
    if depth != 8 or channels is None or interlace:
        raise RuntimeError("unexpected PNG format %s" % (header,))
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        row = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if kind == 1:
            for i in range(channels, stride):
                row[i] = (row[i] + row[i - channels]) & 255
        elif kind == 2:
            row = bytearray((a + b) & 255 for a, b in zip(row, previous))
        elif kind == 3:
            for i in range(stride):
                left = row[i - channels] if i >= channels else 0
                row[i] = (row[i] + ((left + previous[i]) >> 1)) & 255
        elif kind == 4:
            for i in range(stride):
                a = row[i - channels] if i >= channels else 0
                b = previous[i]
                c = previous[i - channels] if i >= channels else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                row[i] = (row[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(row)
        previous = row
    return width, height, channels, rows


def write_compact_png(path, width, channels, rows):
    """rows as an RGB PNG, trailing white rows cut, 32 levels per channel
    below 232 (the eye does not see it, zlib does; the light tints of the
    backgrounds stay exact), each row Sub or Up filtered
    (whichever is smaller), zlib level 9: a docs-sized screenshot."""
    level = bytes(b if b >= 232 else (b + 4) // 8 * 8 + (b + 4) // 32 for b in range(256))
    rgb = [bytes(row).translate(level) if channels == 3 else
           bytes(b for i, b in enumerate(row) if i % 4 != 3).translate(level) for row in rows]
    white = b"\xff" * (width * 3)
    while len(rgb) > 1 and rgb[-1] == white and rgb[-2] == white:
        rgb.pop()
    raw, previous = bytearray(), bytes(width * 3)
    for row in rgb:
        sub = bytes((row[i] - (row[i - 3] if i >= 3 else 0)) & 255 for i in range(len(row)))
        up = bytes((a - b) & 255 for a, b in zip(row, previous))
        cost = lambda f: sum(b if b < 128 else 256 - b for b in f)
        raw += (b"\x01" + sub) if cost(sub) <= cost(up) else (b"\x02" + up)
        previous = row

    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff))
    pathlib.Path(path).write_bytes(
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, len(rgb), 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(bytes(raw), 9)) + chunk(b"IEND", b""))


def chromium_command():
    """chromium headless, in a network namespace without network when possible."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if not browser:
        return None
    command = [browser, "--headless", "--no-sandbox", "--disable-gpu",
               "--hide-scrollbars", "--no-first-run", "--disable-extensions",
               "--disable-background-networking", "--disable-sync",
               # Belt and braces: no proxy, no name resolves.
               "--proxy-server=127.0.0.1:9", "--host-resolver-rules=MAP * ~NOTFOUND"]
    unshare = shutil.which("unshare")
    if unshare and subprocess.run([unshare, "-n", "true"],
                                  stderr=subprocess.DEVNULL).returncode == 0:
        command = [unshare, "-n"] + command
    return command


class Cells(html.parser.HTMLParser):
    """The text of <pre id="probe"> in a dumped DOM."""

    def __init__(self):
        super().__init__()
        self.inside, self.text = False, ""

    def handle_starttag(self, tag, attrs):
        self.inside = self.inside or (tag == "pre" and ("id", "probe") in attrs)

    def handle_endtag(self, tag):
        if tag == "pre":
            self.inside = False

    def handle_data(self, data):
        if self.inside:
            self.text += data


# Appended to the test's copy of the page, after the page's own script: what
# is on the page, what was loaded, and the row order after header clicks.
PROBE = r"""
<script>
(function(){
  function column(table, name){
    var heads=[].map.call(table.tHead.rows[0].cells,function(c){return c.textContent;});
    var i=heads.indexOf(name);
    return [].map.call(table.tBodies[0].rows,function(r){return r.cells[i].textContent;});
  }
  function click(table, name){
    [].forEach.call(table.tHead.rows[0].cells,function(c){if(c.textContent===name)c.click();});
  }
  var result={tables:{},errors:window.__probeErrors,
    resources:performance.getEntriesByType('resource').map(function(e){return e.name;}),
    external:document.querySelectorAll('[src],[href],link,iframe,img,object,embed').length,
    polylines:document.querySelectorAll('svg polyline').length,
    bars:[].map.call(document.querySelectorAll('#rules .bar span'),function(s){return s.style.width;}),
    cards:[].map.call(document.querySelectorAll('.card'),function(c){return c.textContent;})};
  [].forEach.call(document.querySelectorAll('table'),function(t){
    result.tables[t.id]=t.tBodies[0].rows.length;
  });
  var events=document.getElementById('events');
  result.initial={jobs:column(events,'jobs').map(Number),event:column(events,'event')};
  click(events,'jobs');
  result.jobsFirstClick={jobs:column(events,'jobs').map(Number),event:column(events,'event')};
  click(events,'jobs');
  result.jobsSecondClick=column(events,'jobs').map(Number);
  click(events,'event');
  result.eventFirstClick=column(events,'event');
  var pre=document.createElement('pre');
  pre.id='probe';
  pre.textContent=JSON.stringify(result);
  document.body.appendChild(pre);
})();
</script>
"""
ERROR_TRAP = ("<script>window.__probeErrors=[];window.addEventListener('error',"
              "function(e){window.__probeErrors.push(String(e.message));});</script>")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--apistamp", required=True)
    parser.add_argument("--runtime-dir", required=True, help="apistamp's runtime/")
    parser.add_argument("--example", default=str(
        pathlib.Path(__file__).resolve().parents[2] / "examples" / "imagelib"))
    parser.add_argument("--work", required=True)
    parser.add_argument("--junit", required=True)
    parser.add_argument("--screenshot", help="keep the screenshot here")
    parser.add_argument("--jobs", default="2")
    args = parser.parse_args()
    apistamp = os.path.abspath(args.apistamp)
    work = pathlib.Path(args.work).resolve()
    example, build = work / "imagelib", work / "imagelib" / "build"
    catalog = work / "catalog.json"
    demo = build / "imagelib_demo"
    steps = Steps("report-e2e", independent=True)
    figures = {}

    def report_json(*inputs):
        return json.loads(sh([apistamp, "report", "--catalog", catalog,
                              "--format=json", *inputs], stderr_to_stdout=False))

    def prepare():
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        shutil.copytree(args.example, example)
        sh(["cmake", "-S", example, "-B", build, "-G", "Ninja",
            "-DCMAKE_BUILD_TYPE=Release",
            "-DAPISTAMP_RUNTIME_DIR=" + os.path.abspath(args.runtime_dir)])
        sh([apistamp, "fix", "-q", "-j" + args.jobs, "-p", build])
        sh(["cmake", "--build", build, "-j", args.jobs])
        catalog.write_text(sh([apistamp, "catalog", "--format=json", "-p", build],
                              stderr_to_stdout=False))
        figures["example catalog"] = "%d events" % len(
            {e["event"] for e in json.loads(catalog.read_text())})

    def launch(name, ranks, environment):
        """ranks processes at once, environment(rank) added; returns the lines."""
        log = work / "ranks" / (name + ".jsonl")
        log.parent.mkdir(exist_ok=True)
        log.unlink(missing_ok=True)
        processes = []
        for rank in range(ranks):
            env = clean_environment()
            env.update(environment(rank), APISTAMP_API_USAGE_LOG=str(log))
            processes.append(subprocess.Popen([demo], env=env, stdout=subprocess.DEVNULL))
        if any(p.wait() for p in processes):
            raise RuntimeError("a rank failed")
        return log, [json.loads(line) for line in log.read_text().splitlines()]

    def one_job(name, environment, job_id):
        """8 ranks of one job: 8 lines per event, 1 job, 8 processes."""
        def step():
            log, lines = launch(name, 8, environment)
            per_event = collections.Counter(r["event"] for r in lines)
            problems = []
            if not per_event or set(per_event.values()) != {8}:
                problems.append("lines per event: %s, expected 8 each" % dict(per_event))
            if {r["job_id"] for r in lines} != {job_id}:
                problems.append("job_id %s, expected %r" % ({r["job_id"] for r in lines}, job_id))
            for event in per_event:
                ranks = sorted(r["rank"] for r in lines if r["event"] == event)
                if ranks != list(range(8)):
                    problems.append("%s: ranks %s, expected 0..7" % (event, ranks))
            report = report_json(log)
            rows = {e["event"]: e for e in report["events"]}
            if report["inputs"]["events"] != len(lines) or report["unknown"]:
                problems.append("inputs %s, unknown %s" % (report["inputs"], report["unknown"]))
            for event in per_event:
                row = rows.get(event, {})
                got = (row.get("status"), row.get("jobs"), row.get("processes"), row.get("hosts"))
                if got != ("used", 1, 8, 1):
                    problems.append("%s: status, jobs, processes, hosts = %s, "
                                    "expected used, 1, 8, 1" % (event, got))
            if problems:
                raise RuntimeError("\n".join(problems))
            figures[name] = "%d lines, %d events, each 8 lines, 1 job, 8 processes" % (
                len(lines), len(per_event))
        return step

    def torchrun_options_in_docs(accepted):
        """Every torchrun option the docs name (`--rdzv...`, `--log_dir`,
        `--redirects`, `--tee`, `--nproc...`, `--master...`: docs/,
        runtime/README.md) is one of `accepted`, torch 1.13's torchrun's
        (the docs said --rdzv-id and --log-dir, which it refuses)."""
        def step():
            root = pathlib.Path(__file__).resolve().parent.parent.parent
            named = {}
            for doc in [*sorted((root / "docs").glob("*.md")), root / "runtime" / "README.md"]:
                for option in re.findall(r"--(?:rdzv[-_]|log[-_]dir|redirects|tee\b|"
                                         r"nproc[-_]|master[-_])[a-z_-]*",
                                         doc.read_text()):
                    named.setdefault(option, doc.name)
            wrong = sorted("%s (%s)" % (o, doc) for o, doc in named.items() if o not in accepted)
            if not named or wrong:
                raise RuntimeError("torchrun refuses: %s" % (wrong or "no option named"))
            figures["torchrun options in the docs"] = ", ".join(sorted(named))
        return step

    def no_job_variable():
        """Without a job variable each process counts as its own job."""
        log, lines = launch("no-job", 8, lambda rank: {"RANK": str(rank)})
        report = report_json(log)
        used = [e for e in report["events"] if e["status"] == "used"]
        wrong = [(e["event"], e["jobs"], e["processes"]) for e in used
                 if (e["jobs"], e["processes"]) != (8, 8)]
        if not used or wrong or any(r["job_id"] is not None for r in lines):
            raise RuntimeError("expected 8 jobs and 8 processes per event: %s" % wrong)
        # All four launches together: 1 + 1 + 1 + 8 jobs, 32 processes.
        report = report_json(work / "ranks")
        wrong = [(e["event"], e["jobs"], e["processes"]) for e in report["events"]
                 if e["status"] == "used" and (e["jobs"], e["processes"]) != (11, 32)]
        if report["inputs"]["files"] != 4 or wrong:
            raise RuntimeError("the four launches together: %s files, %s; expected "
                               "11 jobs, 32 processes per event"
                               % (report["inputs"]["files"], wrong))

    def fleet_logs():
        """Three weeks of synthetic logs over the example's events: jobs
        that each use some events; two events no job uses; one event no rule
        places (a removed API); one malformed line."""
        events = sorted({e["event"] for e in json.loads(catalog.read_text())})
        rng = random.Random(14)
        unused = set(rng.sample(events, 2))
        popularity = {e: (0.0 if e in unused else rng.choice([0.9, 0.6, 0.3, 0.1, 0.03]))
                      for e in events}
        logs = work / "fleet"
        logs.mkdir(exist_ok=True)
        start = datetime.datetime(2026, 11, 2, tzinfo=datetime.timezone.utc)
        pid = 1000
        for day in range(21):
            lines = []
            jobs = 6 + (day * 5) % 9 + (0 if (start.weekday() + day) % 7 < 5 else -4)
            for job in range(jobs):
                job_id = "%d" % (700000 + day * 100 + job)
                ranks = rng.choice([1, 1, 2, 4, 8])
                host = "node%02d" % rng.randrange(16)
                chosen = [e for e in events if rng.random() < popularity[e]]
                if day >= 14 and "imagelib.Pipeline" in chosen:
                    chosen.remove("imagelib.Pipeline")  # a trend that falls
                if day < 10 and job == 0:
                    chosen.append("imagelib.src.ops.resize")  # gone from the code
                for rank in range(ranks):
                    pid += 1
                    moment = start + datetime.timedelta(days=day, seconds=600 * job + rank)
                    for event in chosen:
                        lines.append(json.dumps({
                            "event": event, "time": moment.strftime("%Y-%m-%dT%H:%M:%S.000000Z"),
                            "pid": pid, "host": host, "exe": "/opt/app/bin/train",
                            "rank": rank, "job_id": job_id}, separators=(",", ":")))
            if day == 20:
                lines.append('{"event":"imagelib.src.ops.blur","time":"2026-11-22T23:5')
            (logs / ("api-usage-%02d.jsonl" % day)).write_text("\n".join(lines) + "\n")
        return logs

    browser = chromium_command()
    page = work / "report.html"
    if browser:
        figures["browser"] = " ".join(browser[:3] if browser[0].endswith("unshare") else browser[:1]) + (
            ": in a network namespace without network" if browser[0].endswith("unshare")
            else ": unshare -n is not permitted here, the network is only kept out by a dead proxy")

    def render():
        logs = fleet_logs()
        sh([apistamp, "report", "--catalog", catalog, "--format=html", "-o", page,
            logs.relative_to(work)], cwd=work)
        shot = work / "report.png"
        shot.unlink(missing_ok=True)
        sh(browser + ["--screenshot=" + str(shot), "--window-size=1200,1700",
                      page.as_uri()], expect=None)
        if not shot.exists():
            raise RuntimeError("chromium wrote no screenshot")
        width, height, channels, rows = png_pixels(shot)
        colours = collections.Counter()
        for row in rows[::4]:
            for x in range(0, width * channels, channels * 2):
                colours[bytes(row[x:x + 3])] += 1
        total = sum(colours.values())
        white = colours.get(b"\xff\xff\xff", 0)
        expected = {"trend and bar blue": b"\x3b\x7d\xd8", "never-used rows": b"\xff\xf6\xf6",
                    "header cells": b"\xf3\xf5\xf9"}
        missing = [name for name, rgb in expected.items() if not colours.get(rgb)]
        figures["screenshot"] = "%dx%d, %d colours, %.0f%% white" % (
            width, height, len(colours), 100.0 * white / total)
        if (width, height) != (1200, 1700) or len(colours) < 50 or white > 0.97 * total or missing:
            raise RuntimeError("the screenshot looks blank or wrong: %s; missing %s"
                               % (figures["screenshot"], missing))
        if args.screenshot:
            write_compact_png(args.screenshot, width, channels, rows)

    def dom_and_sorting():
        report = report_json(work / "fleet")
        probe_page = work / "report-probe.html"
        text = page.read_text()
        text = text.replace("<head>", "<head>" + ERROR_TRAP, 1)
        text = text.replace("</body>", PROBE + "</body>", 1)
        probe_page.write_text(text)
        dom = sh(browser + ["--dump-dom", "--virtual-time-budget=2000", probe_page.as_uri()],
                 stderr_to_stdout=False)
        cells = Cells()
        cells.feed(dom)
        if not cells.text:
            raise RuntimeError("the probe did not run; the DOM:\n" + dom[:2000])
        got = json.loads(cells.text)
        statuses = collections.Counter(e["status"] for e in report["events"])
        problems = []
        expected_tables = {"rules": len(report["rules"]),
                           "modules": len({e["module"] for e in report["events"]}),
                           "never-used": statuses["never-used"],
                           "events": len(report["events"]),
                           "unknown": len(report["unknown"])}
        # Both languages' tables only when the catalog has both; the pairs'
        # when it has any.
        if len(report["languages"]) > 1:
            expected_tables["languages"] = len(report["languages"])
        if report["pairs"]:
            expected_tables["pairs"] = len(report["pairs"])
        if got["tables"] != expected_tables:
            problems.append("tables %s, expected %s" % (got["tables"], expected_tables))
        if got["errors"] or got["resources"] or got["external"]:
            problems.append("script errors %s, resources loaded %s, elements with "
                            "src/href %d" % (got["errors"], got["resources"], got["external"]))
        if got["polylines"] != min(8, statuses["used"]):
            problems.append("%d trend lines, expected %d" % (got["polylines"], min(8, statuses["used"])))
        if len(got["bars"]) != len(report["rules"]):
            problems.append("coverage bars %s" % got["bars"])
        by_jobs = [e["event"] for e in report["events"]]
        if got["initial"]["event"] != by_jobs:
            problems.append("initial order is not the report's (jobs, then name)")
        jobs = got["jobsFirstClick"]["jobs"]
        if jobs != sorted(jobs, reverse=True) or sorted(jobs) == jobs:
            problems.append("first click on jobs: %s, expected most jobs first" % jobs)
        if got["jobsSecondClick"] != sorted(jobs):
            problems.append("second click on jobs: %s, expected fewest first"
                            % got["jobsSecondClick"])
        expected_jobs = {e["event"]: e["jobs"] for e in report["events"]}
        if dict(zip(got["jobsFirstClick"]["event"], jobs)) != expected_jobs:
            problems.append("rows lost their cells while sorting")
        names = got["eventFirstClick"]
        if names != sorted(names, key=str.lower) or len(names) != len(by_jobs):
            problems.append("first click on event: %s, expected A to Z" % names)
        if problems:
            raise RuntimeError("\n".join(problems))
        figures["page"] = "tables %s, %d trend lines, sorted by jobs and by event" % (
            got["tables"], got["polylines"])

    steps.run("instrument, build and catalog the example", prepare)
    if steps.cases[-1][2] != "passed":
        for name in ("8 ranks with SLURM_JOB_ID", "8 ranks with TORCHELASTIC_RUN_ID",
                     "8 ranks with APISTAMP_JOB_ID_ENV", "8 ranks without a job variable",
                     "HTML report renders in headless chromium",
                     "HTML report: tables, no network, sorting"):
            steps.skip(name, "the example did not build")
        return steps.finish(args.junit)
    steps.run("8 ranks with SLURM_JOB_ID: 8 lines per event, 1 job",
              one_job("slurm", lambda rank: {"SLURM_JOB_ID": "81723", "RANK": str(rank),
                                             "LOCAL_RANK": str(rank % 4)}, "81723"))
    steps.run("8 ranks with TORCHELASTIC_RUN_ID: 8 lines per event, 1 job",
              one_job("torchrun", lambda rank: {
                  "TORCHELASTIC_RUN_ID": "5c6a0ec7-24b0-4bd8-a6f2-0d1e8c4d0c55",
                  "RANK": str(rank), "LOCAL_RANK": str(rank % 4)},
                  "5c6a0ec7-24b0-4bd8-a6f2-0d1e8c4d0c55"))
    docs_options = "the docs' torchrun options are options of Debian's torchrun"
    # One import of torch: its parser's options, or the reason to skip.
    parser = subprocess.run(
        ["/usr/bin/python3", "-c",
         "import torch.distributed.run as r\n"
         "print('\\n'.join(o for a in r.get_args_parser()._actions"
         " for o in a.option_strings))"],
        capture_output=True, text=True)
    if parser.returncode:
        steps.skip(docs_options, "/usr/bin/python3 cannot import torch.distributed.run")
    else:
        steps.run(docs_options, torchrun_options_in_docs(parser.stdout.split()))
    steps.run("8 ranks with APISTAMP_JOB_ID_ENV=MY_BATCH_ID (SLURM_JOB_ID differs "
              "per rank, ignored; rank from LOCAL_RANK)",
              one_job("custom", lambda rank: {
                  "APISTAMP_JOB_ID_ENV": "MY_BATCH_ID", "MY_BATCH_ID": "batch-7",
                  "SLURM_JOB_ID": str(1000 + rank), "LOCAL_RANK": str(rank)}, "batch-7"))
    steps.run("8 ranks without a job variable: 8 jobs; all launches: 11 jobs",
              no_job_variable)
    if not browser:
        steps.skip("HTML report renders in headless chromium", "chromium is not installed")
        steps.skip("HTML report: tables, no network, sorting", "chromium is not installed")
    else:
        steps.run("HTML report renders in headless chromium", render)
        steps.run("HTML report: tables, no network, sorting", dom_and_sorting)
    for key, value in figures.items():
        print("  %s: %s" % (key, value))
    return steps.finish(args.junit)


if __name__ == "__main__":
    sys.exit(main())
