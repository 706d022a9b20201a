#!/usr/bin/env python3
"""Runs `apistamp fix` on two sources that share a header at the same time,
as two pre-commit batches would, for several rounds on fresh copies of a
tree. Prints one line per problem and a summary; exits 1 on any problem.

Usage: concurrent-fix.py APISTAMP TEMPLATE_DIR WORK_DIR ROUNDS
"""
import pathlib
import shutil
import subprocess
import sys

apistamp, template, work, rounds = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3]), int(sys.argv[4])
problems = 0
for round_ in range(rounds):
    tree = work / ("round%d" % round_)
    shutil.rmtree(tree, ignore_errors=True)
    shutil.copytree(template, tree)
    runs = [subprocess.Popen([apistamp, "fix", "--rules", "rules.yaml", source,
                              "--", "-std=c++17"], cwd=tree,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            for source in ("a.cpp", "b.cpp")]
    for run in runs:
        output, _ = run.communicate()
        if run.returncode != 0:
            problems += 1
            print("round %d: exit %d: %s" % (round_, run.returncode, output.strip()))
    shared = (tree / "shared.h").read_text()
    if shared.count('LOG("lib.shared")') != 1:
        problems += 1
        print("round %d: shared.h has %d calls:\n%s" % (round_, shared.count('LOG("lib.shared")'), shared))
    for name in ("a", "b"):
        if 'LOG("lib.%s")' % name not in (tree / (name + ".cpp")).read_text():
            problems += 1
            print("round %d: %s.cpp not instrumented" % (round_, name))
print("%d rounds, %d problems" % (rounds, problems))
sys.exit(1 if problems else 0)
