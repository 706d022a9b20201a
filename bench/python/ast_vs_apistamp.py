#!/usr/bin/env python3
"""CPython's `ast.parse` against a command (apistamp check) on the same .py files.

The yardstick for apistamp's Python front end: how much CPU it spends on a
set of files against what CPython's own parser spends to read and parse
them. The ast side runs in this process: for each of --runs runs, every file
is read (bytes) and parsed with `ast.parse`; the best run's CPU time
(time.process_time) is reported, with its wall time. The command side runs
--cmd with the files appended, --runs times, and takes the best CPU time
(user + system) of the child from resource.getrusage(RUSAGE_CHILDREN); the
interpreter's own start-up (`python3 -c pass`, same measure) is printed
beside it for scale. Prints the file count, bytes, both times and the ratio.

    /usr/bin/python3 bench/python/ast_vs_apistamp.py [--root DIR | --files-from LIST]
        [--runs 5] [--cmd "build/bin/apistamp check -j1 --no-cache --rules R --root DIR"]

Without --cmd only the ast side is measured. Run it with the interpreter
whose grammar matters (Debian's /usr/bin/python3); files it cannot parse
are counted and left out of both sides.
"""
import argparse
import ast
import pathlib
import resource
import shlex
import subprocess
import sys
import time

DEFAULT_ROOT = "/var/cache/apistamp/pytorch-vision/vision-0.14.1/torchvision"


def child_cpu(args):
    """(CPU seconds of args as a child, wall seconds, exit code)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    done = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, done.returncode, done.stderr.decode(errors="replace")


def parse_all(files):
    """(CPU seconds, wall seconds) to read and parse every file once."""
    cpu, wall = time.process_time(), time.monotonic()
    for path in files:
        ast.parse(path.read_bytes(), filename=str(path))
    return time.process_time() - cpu, time.monotonic() - wall


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--root", default=DEFAULT_ROOT,
                       help="every .py under this directory (default: %(default)s)")
    group.add_argument("--files-from", help="a file listing the .py files, one a line")
    parser.add_argument("--runs", type=int, default=5, help="best of this many (default 5)")
    parser.add_argument("--cmd", help="the command to time; the files are appended")
    parser.add_argument("--ok-codes", default="0,1",
                        help="the command's accepted exit codes (default: 0,1: check "
                             "exits 1 when it reports)")
    args = parser.parse_args()
    if args.files_from:
        files = [pathlib.Path(line.strip()) for line in
                 pathlib.Path(args.files_from).read_text().splitlines() if line.strip()]
    else:
        root = pathlib.Path(args.root)
        if not root.is_dir():
            sys.exit("%s is not a directory (scripts/fetch-torchvision.sh fetches "
                     "the default)" % root)
        files = sorted(root.rglob("*.py"))
    parsable, refused = [], []
    for path in files:
        try:
            ast.parse(path.read_bytes(), filename=str(path))
            parsable.append(path)
        except SyntaxError:
            refused.append(path)
    total = sum(path.stat().st_size for path in parsable)
    print("python: %s (%s)" % (sys.executable, sys.version.split()[0]))
    print("files: %d, %d bytes%s" % (len(parsable), total,
          "; %d not parsable by this interpreter, left out" % len(refused) if refused else ""))
    if not parsable:
        sys.exit("no files")

    runs = [parse_all(parsable) for _ in range(max(1, args.runs))]
    ast_cpu, ast_wall = min(runs)
    print("ast.parse (read + parse, in-process), best of %d: %.3f s CPU, %.3f s wall; "
          "%.0f files/s, %.1f MB/s" % (len(runs), ast_cpu, ast_wall,
                                        len(parsable) / ast_cpu, total / ast_cpu / 1e6))
    startup = min(child_cpu([sys.executable, "-c", "pass"])[0] for _ in range(3))
    print("interpreter start-up (python3 -c pass, child CPU): %.3f s" % startup)
    if not args.cmd:
        return 0

    command = shlex.split(args.cmd) + [str(path) for path in parsable]
    ok = {int(code) for code in args.ok_codes.split(",")}
    measured = []
    for _ in range(max(1, args.runs)):
        cpu, wall, code, stderr = child_cpu(command)
        if code not in ok:
            sys.exit("%s exited %d:\n%s" % (args.cmd, code, stderr[-2000:]))
        measured.append((cpu, wall))
    cmd_cpu, cmd_wall = min(measured)
    print("command, best of %d: %.3f s CPU (child user+system), %.3f s wall; %.0f files/s"
          % (len(measured), cmd_cpu, cmd_wall, len(parsable) / cmd_cpu if cmd_cpu else 0))
    print("ratio command CPU / ast CPU: %.2f (with the interpreter's start-up added "
          "to ast: %.2f)" % (cmd_cpu / ast_cpu, cmd_cpu / (ast_cpu + startup)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
