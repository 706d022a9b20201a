#!/usr/bin/env python3
"""Fails if a file holds a byte a terminal or a CI log may act on.

Usage: no-raw-controls.py FILE...  Line feeds separate lines and are fine;
any other C0 control (tab and carriage return included), DEL, the UTF-8 of
a C1 control, a bidirectional-text control or U+2028/U+2029, and bytes that
are not valid UTF-8 are reported with their line, and the exit status is 1.
"""
import re
import sys

RAW_CONTROL = re.compile(
    rb"[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xd8\x9c|"
    rb"\xe2\x80[\x8e\x8f\xa8-\xae]|\xe2\x81[\xa6-\xa9]")

problems = []
for path in sys.argv[1:]:
    with open(path, "rb") as f:
        for number, line in enumerate(f.read().split(b"\n"), 1):
            found = RAW_CONTROL.search(line)
            if found:
                problems.append("%s:%d: raw %r in %r" %
                                (path, number, found.group(0), line))
            try:
                line.decode("utf-8")
            except UnicodeDecodeError as e:
                problems.append("%s:%d: not UTF-8 (%s) in %r" %
                                (path, number, e.reason, line))
for problem in problems:
    print(problem)
sys.exit(1 if problems else 0)
