#!/usr/bin/env python3
"""Edit to verdict on one file: clang, apistamp (cold, first run, warm store), clangd-19.

    bench/preamble/run.py [--tree DIR] [--build DIR] [--apistamp BIN]
                          [--runs 5] [--json FILE] [--skip clang|apistamp|clangd]
    bench/preamble/run.py --from-json FILE

What issue 27's preamble store is for: after an edit to one function body,
how long until `apistamp check` gives its verdict on the file. Measured on
torchvision 0.14.1's ops/nms.cpp and ops/roi_align.cpp (--file), each run on
a scratch copy of the tree's torchvision/ directory with its own
compile_commands.json (the tree's database entries with the paths moved), so
the tree itself is never modified:

  clang        clang++-19 -fsyntax-only with the file's database command
  cold         apistamp check --no-cache [--no-preamble]
  cold-cache   apistamp check [--no-preamble] with an empty cache directory:
               a cold check as it ran before the store (the result cache
               written, no preamble), which the first run is compared with
  first        apistamp check with an empty cache directory (builds the
               preamble once the store exists)
  hit          the same again: the file unchanged, a result-cache hit
  body         after `(void)0;` is added to the body of the file's
               rule-selected function (on its line, so no line moves): the
               result cache is warm, the file changed
  add          the unchanged file plus a new public function in vision::ops:
               its missing-event finding must be in the output
  clangd-open  clangd-19: didOpen until the first publishDiagnostics
               (preamble and AST built)
  clangd-body  didChange with the body edit until publishDiagnostics of
               that version (clangd's main-file rebuild on its preamble)
  clangd-add   didChange with the added function, likewise

Runs are interleaved: each run does every scenario of every file, in an
order that rotates from run to run, with a fresh scratch copy (and a fresh
cache directory) per scenario group. Prints median [min-max] wall time, the
median CPU time (user + system of the process, every thread), the median
peak RSS, and the ratio of each to clang's median on the same file, and
how many cores other processes kept busy during each run (from /proc/stat:
on a shared machine, compare CPU times); --json FILE writes every sample,
--from-json FILE prints a saved run's tables again.

Wall, CPU and peak RSS for clang and apistamp come from wait4() on the
child (ru_maxrss, what /usr/bin/time reports). For clangd, one server per run:
the time from sending the notification to reading the diagnostics on its
stdout; CPU from /proc/PID/stat; peak RSS from VmHWM in /proc/PID/status,
reset (clear_refs 5) before each edit, so an edit's peak is what the server
holds (its in-memory preamble) plus what the rebuild adds, not the preamble
build's peak. clangd runs with --background-index=false --pch-storage=memory
-j=1 --clang-tidy=false, the database's command with clangd-19's own
clang++ as the driver, a .clangd turning off the standard library index
and no user config. Before each edit the script waits until the server is
idle (under 0.02 CPU s in 0.5 s: its indexing of the preamble and main
file done), and each didChange asks for diagnostics (wantDiagnostics: true,
clangd's extension), which skips the update debounce; the log is checked
to show that the edits reused the preamble.

The apistamp binary is copied to the work directory first (its resource
directory is compiled in), so that a rebuild during the benchmark cannot
mix two builds; if the binary is missing or still being written, this waits
(--wait seconds). `--no-preamble` is passed to the cold runs only when
`apistamp check --help` lists it, and a `--preamble...-dir=` option, if
listed, gets a fresh directory next to the cache; --apistamp-arg adds
anything else to every apistamp run. Stdlib only; run it under `nice` on a
shared machine.
"""
import argparse
import json
import os
import pathlib
import platform
import queue
import re
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

REPO = pathlib.Path(__file__).resolve().parents[2]


def checkouts():
    """This checkout, then the main one when this is a git worktree (whose
    build/ is usually the main checkout's)."""
    result = [REPO]
    try:
        common = subprocess.run(["git", "rev-parse", "--path-format=absolute",
                                 "--git-common-dir"], cwd=REPO, capture_output=True,
                                text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        common = ""
    if common and pathlib.Path(common).name == ".git":
        main = pathlib.Path(common).parent
        if main.resolve() != REPO:
            result.append(main)
    return result


DEFAULT_TREES = [c / "build/realworld" / name / "src" for c in checkouts()
                 for name in ("torchvision", "torchvision-e2e")]
DEFAULT_FILES = ["torchvision/csrc/ops/nms.cpp", "torchvision/csrc/ops/roi_align.cpp"]
ADDED_NAME = "apistamp_bench_added"
TICKS = os.sysconf("SC_CLK_TCK")

SCENARIOS = [
    ("clang", "`clang++-19 -fsyntax-only`"),
    ("cold", "apistamp `check`, cold (`--no-cache%s`)"),
    ("cold-cache", "apistamp `check`, cold, empty cache dir (`%s`)"),
    ("first", "apistamp `check`, first run (empty cache dir)"),
    ("hit", "apistamp `check`, file unchanged (result cache hit)"),
    ("body", "apistamp `check` after a body edit (warm cache)"),
    ("add", "apistamp `check` after adding a public function (warm cache)"),
    ("clangd-open", "clangd-19: open (preamble + AST)"),
    ("clangd-body", "clangd-19: body edit (AST on the preamble)"),
    ("clangd-add", "clangd-19: function added (AST on the preamble)"),
]


def fail(message):
    sys.exit("bench/preamble: " + message)


# --- measured child processes -----------------------------------------------

def run_measured(args, cwd, timeout, expect=(0,)):
    """Runs args; returns dict(wall, cpu, rss MB, code, stdout)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.monotonic()
        process = subprocess.Popen(args, cwd=cwd, stdout=out, stderr=err,
                                   stdin=subprocess.DEVNULL)
        timer = threading.Timer(timeout, process.kill)
        timer.start()
        try:
            _, status, usage = os.wait4(process.pid, 0)
        finally:
            timer.cancel()
        wall = time.monotonic() - start
        process.returncode = code = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode(errors="replace")
        stderr = err.read().decode(errors="replace")
    if wall >= timeout:
        fail("%s: killed after %d s (--timeout)" % (shlex.join(args), timeout))
    if code not in expect:
        fail("%s exited %d (expected %s):\n%s" % (shlex.join(args), code, expect,
                                                  (stderr or stdout)[-3000:]))
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime,
            "rss": usage.ru_maxrss / 1024.0, "code": code, "stdout": stdout}


def syntax_only_command(entry, clang):
    """The database's command with clang++-19, -fsyntax-only and no output
    (as bench/compare.py does)."""
    args = entry.get("arguments") or shlex.split(entry["command"])
    result, skip = [clang], False
    for arg in args[1:]:
        if skip:
            skip = False
            continue
        if arg in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
            continue
        if arg in ("-c", "-MD", "-MMD") or arg.startswith("-o"):
            continue
        result.append(arg)
    return result + ["-fsyntax-only"]


# --- the scratch tree and the edits ---------------------------------------------

def retarget(value, old, new):
    """value with the tree's path replaced by the scratch copy's."""
    if value == old:
        return new
    if value.startswith(old + "/"):
        return new + value[len(old):]
    if "=" in value and not value.startswith("/"):  # -I=..., --sysroot=...
        key, _, rest = value.partition("=")
        return key + "=" + retarget(rest, old, new)
    if value.startswith("-I") or value.startswith("-isystem") or value.startswith("-iquote"):
        for flag in ("-isystem", "-iquote", "-I"):
            if value.startswith(flag):
                return flag + retarget(value[len(flag):], old, new)
    return value


class Scratch:
    """A copy of the tree's torchvision/ under a fresh directory, with
    root/build/compile_commands.json for the measured files."""

    def __init__(self, work, tree, entries):
        self.dir = pathlib.Path(tempfile.mkdtemp(prefix="scratch-", dir=work))
        self.root = self.dir / "src"
        self.build = self.dir / "build"
        self.root.mkdir()
        self.build.mkdir()
        shutil.copytree(tree / "torchvision", self.root / "torchvision", symlinks=True)
        old, new = str(tree), str(self.root)
        self.entries = {}
        for relative, entry in entries.items():
            moved = dict(entry)
            moved["directory"] = retarget(entry["directory"], old, new)
            moved["file"] = retarget(entry["file"], old, new)
            if "arguments" in entry:
                moved["arguments"] = [retarget(a, old, new) for a in entry["arguments"]]
            else:
                moved["command"] = shlex.join(retarget(a, old, new)
                                              for a in shlex.split(entry["command"]))
            self.entries[relative] = moved
        (self.build / "compile_commands.json").write_text(
            json.dumps(list(self.entries.values()), indent=1))

    def path(self, relative):
        return self.root / relative

    def remove(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def body_edit(text):
    """`(void)0;` added to the body of the file's first function in
    vision::ops: after its C10_LOG_API_USAGE_ONCE call when it has one (the
    policy's call stays the first statement), else after its opening brace;
    on the same line, so that no line moves."""
    call = re.search(r"C10_LOG_API_USAGE_ONCE\([^;]*\);", text)
    if call:
        return text[:call.end()] + " (void)0;" + text[call.end():]
    ops = re.search(r"^namespace ops \{\n", text, re.MULTILINE)
    brace = text.find("{", ops.end()) if ops else -1
    if brace < 0:
        raise ValueError("no function body to edit")
    return text[:brace + 1] + " (void)0;" + text[brace + 1:]


def add_function(text):
    """A new public function right after `namespace ops {`."""
    ops = re.search(r"^namespace ops \{\n", text, re.MULTILINE)
    if not ops:
        raise ValueError("no `namespace ops {` line to add a function after")
    added = "at::Tensor %s(const at::Tensor& t) {\n  return t;\n}\n\n" % ADDED_NAME
    return text[:ops.end()] + added + text[ops.end():]


# --- apistamp -------------------------------------------------------------------

def wait_for_binary(path, wait):
    """Waits until path exists, has not changed for 5 s and answers
    `check --help`; returns the help text."""
    deadline = time.monotonic() + wait
    while True:
        problem = None
        try:
            before = os.stat(path)
            age = time.time() - before.st_mtime
            if age < 5:
                problem = "written %.0f s ago" % age
            else:
                result = subprocess.run([path, "check", "--help"], capture_output=True,
                                        text=True, timeout=60)
                if result.returncode == 0 and os.stat(path).st_mtime == before.st_mtime:
                    return result.stdout + result.stderr
                problem = "`check --help` exited %d" % result.returncode
        except (OSError, subprocess.SubprocessError) as error:
            problem = str(error)
        if time.monotonic() > deadline:
            fail("%s is not usable (%s); is it being rebuilt? (--wait)" % (path, problem))
        print("waiting for %s: %s" % (path, problem), file=sys.stderr, flush=True)
        time.sleep(10)


class Apistamp:
    def __init__(self, binary, rules, help_text, extra, timeout):
        self.binary, self.rules, self.extra, self.timeout = binary, rules, extra, timeout
        self.no_preamble = "--no-preamble" in help_text
        option = re.search(r"(--preamble[-\w]*dir)=<", help_text)
        self.preamble_dir_option = option.group(1) if option else None

    def check(self, scratch, relative, cache=None, preamble=True):
        """One `check --format=json` of the file; cache None: cold."""
        args = [self.binary, "check", "-j1", "--format=json", "-p", str(scratch.build),
                "--rules", str(self.rules), "--root", str(scratch.root)]
        if (cache is None or not preamble) and self.no_preamble:
            args.append("--no-preamble")
        if cache is None:
            args.append("--no-cache")
        else:
            args.append("--cache-dir=" + str(cache))
            if self.preamble_dir_option:
                args.append("%s=%s-preambles" % (self.preamble_dir_option, cache))
        result = run_measured(args + self.extra + [str(scratch.path(relative))],
                              cwd=scratch.root, timeout=self.timeout, expect=(0, 1))
        try:
            report = json.loads(result["stdout"])
        except ValueError:
            fail("%s: no JSON report:\n%s" % (shlex.join(args), result["stdout"][-2000:]))
        if report["summary"].get("parse_failures"):
            fail("%s: %s failed to parse" % (shlex.join(args), relative))
        result["findings"] = sorted((f.get("name", ""), f.get("status", ""), f.get("event", ""))
                                    for f in report["findings"])
        del result["stdout"]
        return result


# --- clangd over LSP ----------------------------------------------------------

def proc_status(pid, field):
    """VmHWM / VmRSS of pid in MB."""
    with open("/proc/%d/status" % pid) as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def proc_cpu(pid):
    """User + system seconds of pid, every thread."""
    with open("/proc/%d/stat" % pid) as stat:
        fields = stat.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


class Clangd:
    """One clangd-19 server on a scratch tree; messages read on a thread,
    stamped with their arrival time."""

    FLAGS = ["--background-index=false", "--pch-storage=memory", "-j=1",
             "--clang-tidy=false", "--log=info"]

    def __init__(self, binary, scratch, timeout):
        """Its own database (the scratch one with clangd-19's clang++ as the
        driver: clangd takes the installation from argv[0], and `clang++` is
        clang 14's here) and config: the project's .clangd turns off the
        standard library's index, which clangd 19 builds on a thread after
        the first preamble (not part of a parse); no user config."""
        self.timeout = timeout
        self.log_path = scratch.dir / "clangd.log"
        self.log = open(self.log_path, "wb")
        database = scratch.dir / "clangd-build"
        database.mkdir()
        driver = str(pathlib.Path(binary).resolve().parent / "clang++")
        entries = []
        for entry in scratch.entries.values():
            entry = dict(entry)
            if "arguments" in entry:
                entry["arguments"] = [driver] + entry["arguments"][1:]
            else:
                entry["command"] = shlex.join([driver] + shlex.split(entry["command"])[1:])
            entries.append(entry)
        (database / "compile_commands.json").write_text(json.dumps(entries, indent=1))
        (scratch.root / ".clangd").write_text("Index:\n  StandardLibrary: No\n")
        environment = dict(os.environ, XDG_CONFIG_HOME=str(scratch.dir / "xdg"))
        self.started = time.monotonic()
        self.process = subprocess.Popen(
            [binary, "--compile-commands-dir=" + str(database)] + self.FLAGS,
            cwd=scratch.root, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=self.log, env=environment)
        self.messages = queue.Queue()
        self.next_id = 0
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.can_reset_peak = True

    def _read(self):
        stream = self.process.stdout
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    self.messages.put((time.monotonic(), None))
                    return
                line = line.strip()
                if not line:
                    break
                name, _, value = line.partition(b":")
                if name.lower() == b"content-length":
                    length = int(value)
            if length is None:
                continue
            body = stream.read(length)
            try:
                message = json.loads(body)
            except ValueError:
                message = {"unreadable": body[:200].decode(errors="replace")}
            self.messages.put((time.monotonic(), message))

    def send(self, message):
        message["jsonrpc"] = "2.0"
        body = json.dumps(message).encode()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def wait_for(self, accept, what):
        """The first message accept() takes: (arrival time, message)."""
        deadline = time.monotonic() + self.timeout
        while True:
            left = deadline - time.monotonic()
            try:
                stamp, message = self.messages.get(timeout=max(left, 0.01))
            except queue.Empty:
                self.kill()
                fail("clangd: no %s within %d s (--timeout); log: %s"
                     % (what, self.timeout, self.log_path))
            if message is None:
                fail("clangd exited while waiting for %s; log: %s:\n%s"
                     % (what, self.log_path, self.log_tail()))
            if "unreadable" in message:
                self.kill()
                fail("clangd wrote something that is not JSON: %r" % message["unreadable"])
            if "method" in message and "id" in message:  # a request to us
                self.send({"id": message["id"], "result": None})
                continue
            if accept(message):
                return stamp, message

    def request(self, method, params):
        self.next_id += 1
        ident = self.next_id
        self.send({"id": ident, "method": method, "params": params})
        _, message = self.wait_for(lambda m: m.get("id") == ident and "method" not in m,
                                   "reply to " + method)
        if "error" in message:
            fail("clangd: %s: %s" % (method, message["error"]))
        return message.get("result")

    def diagnostics(self, uri, version, send):
        """send() the notification; returns (seconds to the diagnostics of
        version, the diagnostics, CPU seconds, peak RSS MB meanwhile)."""
        pid = self.process.pid
        cpu = proc_cpu(pid)
        start = time.monotonic()
        send()
        stamp, message = self.wait_for(
            lambda m: (m.get("method") == "textDocument/publishDiagnostics"
                       and m["params"]["uri"] == uri
                       and m["params"].get("version") == version),
            "diagnostics for version %d" % version)
        return (stamp - start, message["params"]["diagnostics"], proc_cpu(pid) - cpu,
                proc_status(pid, "VmHWM"))

    def quiesce(self, quiet=0.02, window=0.5):
        """Waits until the server uses less than `quiet` CPU seconds in
        `window` (the main file's and the preamble's indexing done);
        returns how long that took."""
        start = time.monotonic()
        cpu = proc_cpu(self.process.pid)
        while True:
            time.sleep(window)
            now = proc_cpu(self.process.pid)
            if now - cpu < quiet:
                return time.monotonic() - start
            cpu = now
            if time.monotonic() - start > self.timeout:
                self.kill()
                fail("clangd: still busy %d s after the diagnostics (--timeout); log: %s"
                     % (self.timeout, self.log_path))

    def reset_peak(self):
        """Resets VmHWM to the current RSS (Linux 4.0+)."""
        try:
            with open("/proc/%d/clear_refs" % self.process.pid, "w") as refs:
                refs.write("5")
        except OSError:
            self.can_reset_peak = False

    def preambles_built(self):
        self.log.flush()
        return self.log_path.read_bytes().count(b"Built preamble")

    def log_tail(self):
        self.log.flush()
        return self.log_path.read_bytes()[-3000:].decode(errors="replace")

    def close(self):
        """shutdown and exit; killed when that does not end it in 30 s."""
        if self.process.poll() is None:
            self.timeout = 30
            try:
                self.request("shutdown", None)
                self.send({"method": "exit"})
                self.process.wait(timeout=30)
            except (OSError, SystemExit, subprocess.TimeoutExpired):
                pass
        self.kill()
        self.log.close()

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def clangd_session(binary, scratch, relative, timeout):
    """open, body edit, added function: {scenario: sample}, and problems."""
    path = scratch.path(relative)
    uri = path.as_uri()
    text = path.read_text()
    server = Clangd(binary, scratch, timeout)
    samples, problems, settled = {}, [], {}
    try:
        server.request("initialize", {
            "processId": os.getpid(), "rootUri": scratch.root.as_uri(),
            "capabilities": {"textDocument": {"publishDiagnostics": {"versionSupport": True}}}})
        server.send({"method": "initialized", "params": {}})
        wall, diagnostics, cpu, peak = server.diagnostics(uri, 1, lambda: server.send({
            "method": "textDocument/didOpen",
            "params": {"textDocument": {"uri": uri, "languageId": "cpp", "version": 1,
                                        "text": text}}}))
        samples["clangd-open"] = {"wall": wall, "cpu": cpu, "rss": peak,
                                  "since_start": time.monotonic() - server.started}
        errors = [d["message"] for d in diagnostics if d.get("severity") == 1]
        if errors:
            problems.append("clangd reports %d errors in %s, e.g. %s"
                            % (len(errors), relative, errors[0]))
        for version, (name, edited) in enumerate(
                (("clangd-body", body_edit(text)), ("clangd-add", add_function(text))), 2):
            settled[name] = server.quiesce()
            server.reset_peak()

            def change(version=version, edited=edited):
                server.send({"method": "textDocument/didChange", "params": {
                    "textDocument": {"uri": uri, "version": version},
                    "contentChanges": [{"text": edited}], "wantDiagnostics": True}})
            wall, diagnostics, cpu, peak = server.diagnostics(uri, version, change)
            samples[name] = {"wall": wall, "cpu": cpu, "rss": peak,
                             "settled_before": settled[name]}
        built = server.preambles_built()
        if built != 1:
            problems.append("clangd built its preamble %d times for %s (expected once: "
                            "the edits should reuse it)" % (built, relative))
        if not server.can_reset_peak:
            problems.append("could not reset clangd's VmHWM: its edit peaks are the "
                            "session's")
    finally:
        server.close()
    return samples, problems


def busy_cpu():
    """(every CPU's busy seconds since boot, this process's and its reaped
    children's CPU seconds): their differences over an interval give what
    other processes used meanwhile."""
    with open("/proc/stat") as stat:
        fields = [int(x) for x in stat.readline().split()[1:]]
    busy = sum(fields[:8]) - fields[3] - fields[4]  # all but idle and iowait
    ours = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        ours += usage.ru_utime + usage.ru_stime
    return busy / TICKS, ours


# --- the benchmark --------------------------------------------------------------

def find_tree(args):
    candidates = [pathlib.Path(args.tree)] if args.tree else DEFAULT_TREES
    for tree in candidates:
        tree = tree.resolve()
        build = pathlib.Path(args.build).resolve() if args.build else tree.parent / "build"
        database = build / "compile_commands.json"
        if all((tree / f).is_file() for f in args.file) and database.is_file():
            return tree, database
    fail("no torchvision tree with %s and a ../build/compile_commands.json among %s; "
         "run test/realworld/torchvision_policy.py (scripts/test.sh) first, or pass "
         "--tree and --build" % (", ".join(args.file), ", ".join(map(str, candidates))))


def describe(values, unit="%.2f"):
    return (unit + " [" + unit + "-" + unit + "]") % (
        statistics.median(values), min(values), max(values))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tree", help="the source root holding torchvision/ (default: "
                        "build/realworld/torchvision/src, else torchvision-e2e/src, of this "
                        "checkout or, from a worktree, the main one)")
    parser.add_argument("--build", help="directory of the tree's compile_commands.json "
                        "(default: TREE/../build)")
    parser.add_argument("--file", action="append", help="file under the tree, repeatable "
                        "(default: %s)" % " ".join(DEFAULT_FILES))
    parser.add_argument("--apistamp", help="default: build/bin/apistamp, else "
                        "build/tool/apistamp, as --tree")
    parser.add_argument("--apistamp-arg", action="append", default=[],
                        help="added to every apistamp check, repeatable; an option as --apistamp-arg=--name")
    parser.add_argument("--rules", default=str(REPO / "rules/torchvision.yaml"))
    parser.add_argument("--clang", default="clang++-19")
    parser.add_argument("--clangd", default="/usr/lib/llvm-19/bin/clangd")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--timeout", type=int, default=600, help="per step, seconds")
    parser.add_argument("--wait", type=int, default=1800,
                        help="how long to wait for an apistamp binary being rebuilt")
    parser.add_argument("--skip", action="append", default=[],
                        choices=["clang", "apistamp", "clangd"])
    parser.add_argument("--json", help="write every sample to this file ('-': stdout)")
    parser.add_argument("--from-json", help="print the tables of an earlier run's --json")
    args = parser.parse_args()
    if args.from_json:
        report(json.loads(pathlib.Path(args.from_json).read_text()))
        return
    args.file = args.file or DEFAULT_FILES
    if args.runs < 1:
        fail("--runs must be at least 1")

    tree, database = find_tree(args)
    entries = {}
    for entry in json.loads(database.read_text()):
        full = os.path.normpath(os.path.join(entry["directory"], entry["file"]))
        for relative in args.file:
            if full == str(tree / relative) and relative not in entries:
                entries[relative] = entry
    missing = [f for f in args.file if f not in entries]
    if missing:
        fail("%s has no command for %s" % (database, ", ".join(missing)))
    rules = pathlib.Path(args.rules).resolve()
    if not rules.is_file():
        fail("no rules file %s" % rules)

    versions = {}
    if "clang" not in args.skip:
        clang = shutil.which(args.clang)
        if not clang:
            fail("%s not found (apt-get install clang-19)" % args.clang)
        versions["clang"] = subprocess.run([clang, "--version"], capture_output=True,
                                           text=True).stdout.splitlines()[0]
    if "clangd" not in args.skip:
        if not os.access(args.clangd, os.X_OK):
            fail("%s not found: apt-get install -y clangd-19 (/usr/bin/clangd is clangd-14)"
                 % args.clangd)
        version = subprocess.run([args.clangd, "--version"], capture_output=True,
                                 text=True).stdout
        if "version 19." not in version:
            fail("%s is not clangd 19: %s" % (args.clangd, version.strip()))
        versions["clangd"] = version.splitlines()[0]

    apistamp = None
    if "apistamp" not in args.skip:
        candidates = [c / "build" / d / "apistamp" for c in checkouts() for d in ("bin", "tool")]
        source = args.apistamp or next((str(p) for p in candidates if p.exists()),
                                       str(candidates[0]))
        source = os.path.abspath(source)
        wait_for_binary(source, args.wait)
    work = pathlib.Path(tempfile.mkdtemp(prefix="apistamp-preamble-bench-"))
    if "apistamp" not in args.skip:
        binary = str(work / "apistamp")
        try:
            shutil.copy2(source, binary)
            help_text = wait_for_binary(binary, 0)
        except BaseException:
            shutil.rmtree(work, ignore_errors=True)
            raise
        apistamp = Apistamp(binary, rules, help_text, args.apistamp_arg, args.timeout)
        stat = os.stat(source)
        versions["apistamp"] = "%s (%d bytes, %s)%s" % (
            source, stat.st_size, time.strftime("%Y-%m-%d %H:%M", time.localtime(stat.st_mtime)),
            "" if apistamp.no_preamble else "; no --no-preamble: no preamble store")

    samples = {f: {name: [] for name, _ in SCENARIOS} for f in args.file}
    findings = {f: {} for f in args.file}
    problems = []
    load = [os.getloadavg()]
    others = []  # per run: cores other processes kept busy, on average

    def add(relative, name, sample):
        samples[relative][name].append({k: round(v, 4) for k, v in sample.items()
                                        if isinstance(v, (int, float))})

    def same(relative, name, got):
        """The findings of every run of a scenario are the same."""
        expected = findings[relative].setdefault(name, got)
        if got != expected:
            fail("%s: %s's findings differ between runs:\n%s\n%s"
                 % (relative, name, expected, got))

    def group_clang(relative):
        scratch = Scratch(work, tree, entries)
        try:
            entry = scratch.entries[relative]
            add(relative, "clang", run_measured(syntax_only_command(entry, args.clang),
                                                cwd=entry["directory"], timeout=args.timeout))
        finally:
            scratch.remove()

    def group_cold(relative):
        scratch = Scratch(work, tree, entries)
        try:
            result = apistamp.check(scratch, relative)
            same(relative, "cold", result["findings"])
            add(relative, "cold", result)
            result = apistamp.check(scratch, relative, scratch.dir / "cold-cache",
                                    preamble=False)
            same(relative, "cold-cache", result["findings"])
            add(relative, "cold-cache", result)
        finally:
            scratch.remove()

    def group_store(relative):
        scratch = Scratch(work, tree, entries)
        try:
            cache = scratch.dir / "cache"
            path = scratch.path(relative)
            original = path.read_text()
            first = apistamp.check(scratch, relative, cache)
            hit = apistamp.check(scratch, relative, cache)
            path.write_text(body_edit(original))
            body = apistamp.check(scratch, relative, cache)
            path.write_text(add_function(original))
            added = apistamp.check(scratch, relative, cache)
            for name, result in (("first", first), ("hit", hit), ("body", body),
                                 ("add", added)):
                same(relative, name, result["findings"])
                add(relative, name, result)
            if body["findings"] != first["findings"]:
                fail("%s: the body edit changed the findings:\n%s\n%s"
                     % (relative, first["findings"], body["findings"]))
            new = [f for f in added["findings"] if f[0].endswith("::" + ADDED_NAME)]
            if not new or new[0][1] != "missing" or added["code"] != 1:
                fail("%s: no missing-event finding for the added %s (exit %d): %s"
                     % (relative, ADDED_NAME, added["code"], added["findings"]))
            if sorted(set(added["findings"]) - set(new)) != first["findings"]:
                fail("%s: adding a function changed the other findings" % relative)
        finally:
            scratch.remove()

    def group_clangd(relative):
        scratch = Scratch(work, tree, entries)
        try:
            session, trouble = clangd_session(args.clangd, scratch, relative, args.timeout)
            for name, sample in session.items():
                add(relative, name, sample)
            for problem in trouble:
                if problem not in problems:
                    problems.append(problem)
                    print("note: " + problem, file=sys.stderr)
        finally:
            scratch.remove()

    groups = []
    if "clang" not in args.skip:
        groups.append(("clang", group_clang))
    if apistamp:
        groups += [("cold", group_cold), ("store", group_store)]
    if "clangd" not in args.skip:
        groups.append(("clangd", group_clangd))
    if not groups:
        fail("everything skipped")

    started = time.monotonic()
    try:
        for run in range(args.runs):
            run_start, (busy_start, ours_start) = time.monotonic(), busy_cpu()
            for relative in args.file:
                shift = run % len(groups)
                for label, group in groups[shift:] + groups[:shift]:
                    step = time.monotonic()
                    group(relative)
                    print("run %d/%d %s %s: %.1f s" % (run + 1, args.runs, relative, label,
                                                      time.monotonic() - step),
                          file=sys.stderr, flush=True)
            load.append(os.getloadavg())
            busy_end, ours_end = busy_cpu()
            others.append(max(0.0, (busy_end - busy_start) - (ours_end - ours_start))
                          / (time.monotonic() - run_start))
    finally:
        shutil.rmtree(work, ignore_errors=True)

    # --- output ---
    document = {"command": shlex.join(["bench/preamble/run.py"] + sys.argv[1:]),
                "machine": "%s, %d cores, Python %s" % (
                    platform.platform(), os.cpu_count(), platform.python_version()),
                "seconds": round(time.monotonic() - started),
                "tree": str(tree), "database": str(database), "files": args.file,
                "runs": args.runs, "versions": versions,
                "no_preamble_option": bool(apistamp and apistamp.no_preamble),
                "load_average": load, "other_processes_cores": others,
                "problems": problems,
                "findings": {f: {k: [list(x) for x in v] for k, v in d.items()}
                             for f, d in findings.items()},
                "samples": samples}
    document["median"] = report(document)
    if args.json:
        text = json.dumps(document, indent=1)
        if args.json == "-":
            print(text)
        else:
            pathlib.Path(args.json).write_text(text + "\n")


def report(document):
    """Prints the Markdown tables of a run (or of its --json); returns the
    medians and ratios."""
    print("Command: `%s`; %d interleaved runs in %d s on %s; load average (1 min) at the "
          "start and after each run: %s; cores kept busy by other processes, per run: %s"
          % (document["command"], document["runs"], document["seconds"], document["machine"],
             " ".join("%.2f" % l[0] for l in document["load_average"]),
             " ".join("%.2f" % o for o in document["other_processes_cores"])))
    for tool, version in document["versions"].items():
        print("- %s: %s" % (tool, version))
    summary = {}
    for relative in document["files"]:
        samples = document["samples"][relative]
        print("\n#### %s\n" % relative)
        print("| run | wall s, median [min-max] | CPU s, median | peak RSS MB, median "
              "| wall / clang | CPU / clang | RSS / clang |")
        print("|---|---|---|---|---|---|---|")
        summary[relative] = {}
        base = None
        for name, label in SCENARIOS:
            series = samples.get(name, [])
            if not series:
                continue
            if name == "cold":
                label = label % (" --no-preamble" if document["no_preamble_option"] else "")
            if name == "cold-cache":
                label = label % ("--no-preamble" if document["no_preamble_option"] else "")
            walls = [x["wall"] for x in series]
            median = {key: statistics.median(x[key] for x in series)
                      for key in ("wall", "cpu", "rss")}
            if name == "clang":
                base = median
            ratios = {key + "_ratio": median[key] / base[key] if base else None
                      for key in ("wall", "cpu", "rss")}
            summary[relative][name] = dict(median, **ratios)
            print("| %s | %s | %.2f | %.0f | %s |" % (
                label, describe(walls), median["cpu"], median["rss"],
                " | ".join("%.3f" % ratios[k + "_ratio"] if base else ""
                           for k in ("wall", "cpu", "rss"))))
        first = summary[relative].get("first")
        for cold in ("cold", "cold-cache"):
            if first and cold in summary[relative]:
                print("\nFirst run / %s: wall %.2f×, CPU %.2f×" % (
                    cold, first["wall"] / summary[relative][cold]["wall"],
                    first["cpu"] / summary[relative][cold]["cpu"]), end="")
        print()
    for problem in document["problems"]:
        print("\nNote: " + problem)
    return summary

if __name__ == "__main__":
    main()
