#!/usr/bin/env python3
"""Runs apistamp on every hostile rules file in test/hostile/rules/.

Each file starts with comment lines that say what to expect and how to build
the input:

    # expect-exit: 2                  the exit code (required)
    # expect-stderr: <text>           stderr contains <text> (repeatable)
    # expand: @X@ = "x" * 10000000    replace @X@ before running (repeatable)
    # encode: utf-16                  write the file in this encoding
    # known-bug: <text>               a tool bug makes this case fail: its
                                      failure says "KNOWN BUG: <text>"

For every case, `apistamp check` and then `apistamp fix` run with the file as
--rules on a tiny C++ source and a tiny Python module (pkg/m.py, for the
Python rules: python-*.yaml). Each must exit with the expected code, not by
a signal or a timeout, write no raw control bytes to stdout or stderr, and
leave the sources byte-identical. Prints one line per case and
"N passed, M failed"; exits 1 if any case failed. --junit FILE writes the
results as JUnit XML (the shape scripts/summarize-tests.py reads).
"""
import argparse
import ast
import os
import re
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

SOURCE = b"namespace lib { int f(int x) { return x + 1; } }\n"
PY_SOURCE = b"def f(x):\n    return x\n\n\nclass C:\n    def __init__(self):\n        pass\n"
COMMANDS = ("check", "fix")
# Bytes a terminal may act on: C0 controls but line feed, DEL, and the UTF-8
# encodings of C1 controls, bidirectional-text controls and U+2028/U+2029.
RAW_CONTROL = re.compile(
    rb"[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xd8\x9c|"
    rb"\xe2\x80[\x8e\x8f\xa8-\xae]|\xe2\x81[\xa6-\xa9]")
EXPAND = re.compile(r'^(\S+) = ("(?:[^"\\]|\\.)*") \* (\d+)$')


class Case:
    """One hostile rules file: its directives and the bytes to run."""

    def __init__(self, path):
        self.name = os.path.basename(path)
        self.expect_exit = None
        self.expect_stderr = []
        self.encoding = None
        self.known_bug = None
        expansions = []
        with open(path, "rb") as f:
            raw = f.read()
        text = raw[3:] if raw.startswith(b"\xef\xbb\xbf") else raw
        for line in text.split(b"\n"):
            if not line.startswith(b"#"):
                break
            key, _, value = line[1:].decode("utf-8", "replace").strip() \
                .partition(":")
            value = value.strip()
            if key == "expect-exit":
                self.expect_exit = int(value)
            elif key == "expect-stderr":
                self.expect_stderr.append(value)
            elif key == "expand":
                match = EXPAND.match(value)
                if not match:
                    raise ValueError("%s: bad expand: %s" % (self.name, value))
                expansions.append((match.group(1).encode(),
                                   ast.literal_eval(match.group(2)).encode()
                                   * int(match.group(3))))
            elif key == "encode":
                self.encoding = value
            elif key == "known-bug":
                self.known_bug = value
        if self.expect_exit is None:
            raise ValueError("%s: no '# expect-exit:' line" % self.name)
        for marker, replacement in expansions:
            raw = raw.replace(marker, replacement)
        if self.encoding:
            raw = raw.decode("utf-8").encode(self.encoding)
        self.content = raw


def run_case(apistamp, case, timeout):
    """Returns a list of problems, empty if the case passed."""
    problems = []
    with tempfile.TemporaryDirectory(prefix="apistamp-hostile-") as work:
        rules = os.path.join(work, case.name)
        source = os.path.join(work, "a.cpp")
        with open(rules, "wb") as f:
            f.write(case.content)
        with open(source, "wb") as f:
            f.write(SOURCE)
        module = os.path.join(work, "pkg", "m.py")
        os.mkdir(os.path.dirname(module))
        with open(module, "wb") as f:
            f.write(PY_SOURCE)
        for command in COMMANDS:
            args = [apistamp, command, "--rules", rules, source, module, "--",
                    "-std=c++17"]
            try:
                done = subprocess.run(args, cwd=work, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, timeout=timeout)
            except subprocess.TimeoutExpired:
                problems.append("%s: timed out after %d s" % (command, timeout))
                continue
            stderr = done.stderr.decode("utf-8", "backslashreplace")
            if done.returncode < 0:
                problems.append("%s: killed by signal %d" %
                                (command, -done.returncode))
            elif done.returncode != case.expect_exit:
                problems.append("%s: exit %d, expected %d" %
                                (command, done.returncode, case.expect_exit))
            for expected in case.expect_stderr:
                if expected not in stderr:
                    problems.append("%s: stderr lacks %r" % (command, expected))
            for stream, data in (("stdout", done.stdout),
                                 ("stderr", done.stderr)):
                found = RAW_CONTROL.search(data)
                if found:
                    problems.append("%s: raw control bytes %r in %s" %
                                    (command, found.group(0), stream))
            if problems:
                problems.append("%s stderr: %s" % (command, stderr[:500]))
            for path, original in ((source, SOURCE), (module, PY_SOURCE)):
                with open(path, "rb") as f:
                    if f.read() != original:
                        problems.append("%s: changed %s" % (
                            command, os.path.basename(path)))
    if problems and case.known_bug:
        problems.insert(0, "KNOWN BUG: " + case.known_bug)
    return problems


def write_junit(path, results):
    suite = ET.Element("testsuite", name="hostile-rules",
                       tests=str(len(results)),
                       failures=str(sum(1 for r in results if r[2])))
    for name, seconds, problems in results:
        case = ET.SubElement(suite, "testcase", classname="hostile-rules",
                             name=name, time="%.3f" % seconds)
        if problems:
            ET.SubElement(case, "failure", message="; ".join(problems)[:2000])
    ET.ElementTree(suite).write(path, encoding="utf-8", xml_declaration=True)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--apistamp", required=True, help="the binary to test")
    parser.add_argument("--corpus", default=os.path.join(here, "rules"),
                        help="directory of hostile rules files")
    parser.add_argument("--junit", help="write JUnit XML here")
    parser.add_argument("--timeout", type=int, default=60,
                        help="seconds per command")
    args = parser.parse_args()

    results = []
    for name in sorted(os.listdir(args.corpus)):
        if not name.endswith(".yaml"):
            continue
        start = time.monotonic()
        try:
            problems = run_case(os.path.abspath(args.apistamp),
                                Case(os.path.join(args.corpus, name)), args.timeout)
        except (ValueError, UnicodeError) as error:
            problems = ["bad corpus file: %s" % error]
        seconds = time.monotonic() - start
        results.append((name, seconds, problems))
        if problems:
            print("FAIL %s: %s" % (name, "; ".join(problems)), flush=True)
        else:
            print("PASS %s (%.1f s)" % (name, seconds), flush=True)
    failed = sum(1 for r in results if r[2])
    print("%d passed, %d failed" % (len(results) - failed, failed))
    if args.junit:
        write_junit(args.junit, results)
    return 1 if failed or not results else 0


if __name__ == "__main__":
    sys.exit(main())
