#!/usr/bin/env python3
"""The fuzzers in the test command (test/fuzz): for each, its seeds, then a
fixed number of inputs mutated from them (a fixed seed: the same inputs
every run), and a check that a failed property stops it. A failure names
the input libFuzzer wrote and the command that replays it.

  test/fuzz/run_fuzzer.py --bin build/bin --work build/fuzz --junit out.xml

--runs N mutates N inputs for every fuzzer instead of its own count (the
quick tier's smoke run: scripts/test.sh --quick); the seeds and the
self-check run either way.
"""
import argparse
import os
import pathlib
import shutil
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "realworld"))
from realworld import Steps  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent

# name, binary, seeds, inputs mutated, what a self-check failure prints
FUZZERS = [
    ("log reader", "apistamp-log-fuzzer", "log-reader-seeds", 1200,
     "the counts differ from the validating parser's"),
    ("partial files", "apistamp-partial-fuzzer", "partial-seeds", 60000,
     "a partial written, read and written again changed"),
]
# Options of every run: inputs up to a log's 16 lines and more; a parse
# that allocates far beyond its input stops the run.
OPTIONS = ["-max_len=20000", "-rss_limit_mb=2048", "-malloc_limit_mb=512"]


def fuzz(binary, work, *args, env=None):
    """Runs a fuzzer in work (where it writes a failing input); returns
    (exit code, output)."""
    done = subprocess.run([binary, *OPTIONS, "-artifact_prefix=%s/" % work,
                           *map(str, args)],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, errors="replace", env=env)
    return done.returncode, done.stdout


def failure(binary, output):
    """What a failed run says: its report, and how to replay its input."""
    found = [line.split()[-1] for line in output.splitlines()
             if "Test unit written to" in line]
    replay = ("\nreplay: %s %s" % (binary, found[0])) if found else ""
    lines = [line for line in output.splitlines() if not line.startswith("#")]
    return "\n".join(lines[-40:]) + replay


def check_fuzzer(steps, name, binary, seeds, runs, self_check, work):
    corpus = work / "corpus"
    shutil.copytree(seeds, corpus)
    (work / "self-check").mkdir()

    def replay_seeds():
        code, output = fuzz(binary, work, "-runs=0", corpus)
        if code != 0 or "INITED" not in output:
            raise RuntimeError(failure(binary, output))

    def mutated():
        code, output = fuzz(binary, work, "-seed=1", "-runs=%d" % runs, corpus)
        if code != 0 or not any(line.startswith("Done %d runs" % runs)
                                for line in output.splitlines()):
            raise RuntimeError(failure(binary, output))

    def failure_stops_it():
        env = dict(os.environ, APISTAMP_FUZZ_SELF_CHECK="1")
        code, output = fuzz(binary, work / "self-check", "-runs=0",
                            seeds / sorted(os.listdir(seeds))[0], env=env)
        if code == 0 or self_check not in output:
            raise RuntimeError("a failed property did not stop the fuzzer "
                               "(exit %d):\n%s" % (code, output[-3000:]))

    steps.run("%s: its %d seeds" % (name, len(os.listdir(seeds))), replay_seeds)
    steps.run("%s: %d inputs mutated from them (seed 1)" % (name, runs), mutated)
    steps.run("%s: a failed property stops the fuzzer" % name, failure_stops_it)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", required=True, help="where the fuzzers are")
    parser.add_argument("--work", required=True)
    parser.add_argument("--junit")
    parser.add_argument("--runs", type=int,
                        help="inputs mutated per fuzzer (default: each one's count above)")
    args = parser.parse_args()
    steps = Steps("fuzzers", independent=True)
    work = pathlib.Path(args.work).resolve()
    shutil.rmtree(work, ignore_errors=True)
    for name, program, seeds, runs, self_check in FUZZERS:
        binary = os.path.abspath(os.path.join(args.bin, program))
        if not os.access(binary, os.X_OK):
            steps.skip("%s fuzzer" % name,
                       "%s was not built (libFuzzer needs clang)" % binary)
            continue
        check_fuzzer(steps, name, binary, HERE / seeds, args.runs or runs,
                     self_check, work / program)
    return steps.finish(args.junit)


if __name__ == "__main__":
    sys.exit(main())
