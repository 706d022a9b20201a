#!/usr/bin/env python3
"""The log reader's fuzzer in the test command: every seed, then a fixed
number of inputs mutated from them (a fixed seed: the same inputs every
run), and a check that a difference stops it. A failure names the input
libFuzzer wrote and the command that replays it.

  test/fuzz/run_fuzzer.py --fuzzer build/bin/apistamp-log-fuzzer \\
      --seeds test/fuzz/log-reader-seeds --work build/fuzz --junit out.xml
"""
import argparse
import os
import pathlib
import shutil
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "realworld"))
from realworld import Steps  # noqa: E402

MAX_LEN = 20000


def fuzz(fuzzer, work, *args, env=None):
    """Runs the fuzzer in work (where it writes a failing input); returns
    (exit code, output)."""
    done = subprocess.run([fuzzer, "-max_len=%d" % MAX_LEN,
                           "-artifact_prefix=%s/" % work, *map(str, args)],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, errors="replace", env=env)
    return done.returncode, done.stdout


def failure(fuzzer, output):
    """What a failed run says: its report, and how to replay its input."""
    found = [line.split()[-1] for line in output.splitlines()
             if "Test unit written to" in line]
    replay = ("\nreplay: %s %s" % (fuzzer, found[0])) if found else ""
    lines = [line for line in output.splitlines() if not line.startswith("#")]
    return "\n".join(lines[-40:]) + replay


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fuzzer", required=True)
    parser.add_argument("--seeds", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--runs", type=int, default=4000,
                        help="inputs mutated from the seeds")
    parser.add_argument("--junit")
    args = parser.parse_args()
    steps = Steps("log-reader-fuzzer", independent=True)
    fuzzer = os.path.abspath(args.fuzzer)
    if not os.access(fuzzer, os.X_OK):
        steps.skip("log reader fuzzer", "%s was not built (libFuzzer needs clang)"
                   % args.fuzzer)
        return steps.finish(args.junit)
    work = pathlib.Path(args.work).resolve()
    shutil.rmtree(work, ignore_errors=True)
    corpus = work / "corpus"
    shutil.copytree(args.seeds, corpus)
    seeds = len(os.listdir(corpus))

    def replay_seeds():
        code, output = fuzz(fuzzer, work, "-runs=0", corpus)
        if code != 0 or "INITED" not in output:
            raise RuntimeError(failure(fuzzer, output))

    def mutated():
        code, output = fuzz(fuzzer, work, "-seed=1", "-runs=%d" % args.runs,
                            corpus)
        done = [line for line in output.splitlines()
                if line.startswith("Done %d runs" % args.runs)]
        if code != 0 or not done:
            raise RuntimeError(failure(fuzzer, output))

    def difference_stops_it():
        env = dict(os.environ, APISTAMP_FUZZ_SELF_CHECK="1")
        code, output = fuzz(fuzzer, work / "self-check", "-runs=0",
                            pathlib.Path(args.seeds) / "runtime-0-0", env=env)
        if code == 0 or "the counts differ from the validating parser's" not in output:
            raise RuntimeError("a difference did not stop the fuzzer (exit %d):\n%s"
                               % (code, output[-3000:]))

    (work / "self-check").mkdir()
    steps.run("the %d seeds: the fast paths count what the validating parser does"
              % seeds, replay_seeds)
    steps.run("%d inputs mutated from them (seed 1), whole and in pieces"
              % args.runs, mutated)
    steps.run("a difference stops the fuzzer", difference_stops_it)
    return steps.finish(args.junit)


if __name__ == "__main__":
    sys.exit(main())
