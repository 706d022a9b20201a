#!/usr/bin/env python3
"""Runs one command N times at once; prints whether all exited alike with
identical stdout. Usage: run-parallel.py N command...
"""
import subprocess
import sys

count, command = int(sys.argv[1]), sys.argv[2:]
runs = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        for _ in range(count)]
results = [(run.communicate()[0], run.returncode) for run in runs]
codes = sorted({code for _, code in results})
same = len({out for out, _ in results}) == 1
print("%d runs: exit codes %s, stdout %s" % (
    count, ",".join(map(str, codes)), "identical" if same else "DIFFERENT"))
