#!/usr/bin/env python3
"""Runs a command, passes its output through, then prints 'exit code: N'.

lit's internal shell cannot test a specific exit status; this lets a test
check it with FileCheck. Always exits 0 itself.
"""
import subprocess
import sys

completed = subprocess.run(sys.argv[1:])
sys.stdout.flush()
print("exit code: %d" % completed.returncode, flush=True)
