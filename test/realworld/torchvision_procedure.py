#!/usr/bin/env python3
"""docs/torchvision.md, followed as written: every shell block it shows is
run, in order, and the output it shows is compared with what they print.

- A ```sh block is run by bash (-e -u -o pipefail) in a fresh process, with
  PREFIX (an apistamp installed from the build), SRC (a copy of torchvision
  0.14.1's source) and WORK (an empty directory) set, and PATH starting with
  $PREFIX/bin. A block whose first line starts with "# not run by the test"
  is skipped (the document says why); "# exits N" in a block is its expected
  exit code (0 otherwise).
- A ```text block right after a ```sh block: each of its lines must be a
  line of that block's output (stdout and stderr), "…" matching anything.
- While the block that reads the report "elsewhere" runs (it names
  "elsewhere"), the source tree and the build directory are moved away:
  the saved catalog must be all it needs.

Each block is a JUnit test case; the test skips (with the reason) without
the fetched source or Debian's python3-torchvision.
"""
import argparse
import os
import pathlib
import re
import shutil
import subprocess

from realworld import Steps, sh
import torchvision_policy

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "torchvision.md"
PYTHON = "/usr/bin/python3"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.M | re.S)


def blocks(text):
    """[(title, kind, body, expected lines or None)] in the document's order:
    kind "run" or "skip"; title is the section heading above the block."""
    found, heading = [], ""
    fences = list(FENCE.finditer(text))
    for index, fence in enumerate(fences):
        before = text[:fence.start()]
        headings = re.findall(r"^## (.*)$", before, re.M)
        heading = headings[-1] if headings else ""
        language, body = fence.group(1), fence.group(2)
        if language != "sh":
            continue
        expected = None
        if index + 1 < len(fences):
            following = fences[index + 1]
            between = text[fence.end():following.start()]
            if following.group(1) == "text" and not between.strip():
                expected = [line for line in following.group(2).splitlines()
                            if line.strip()]
        kind = "skip" if body.startswith("# not run by the test") else "run"
        found.append((heading, kind, body, expected))
    return found


def matches(expected, output_lines):
    pattern = re.compile("^" + ".*".join(map(re.escape, expected.split("…")))
                         + "$")
    return any(pattern.match(line) for line in output_lines)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", required=True,
                        help="the build directory to install apistamp from")
    parser.add_argument("--source", default=torchvision_policy.DEFAULT_SOURCE)
    parser.add_argument("--work", required=True)
    parser.add_argument("--junit", required=True)
    args = parser.parse_args()
    work = pathlib.Path(args.work).resolve()
    source = pathlib.Path(args.source)
    steps = Steps("torchvision-procedure")
    text = DOC.read_text()
    found = blocks(text)
    names = ["%d. %s" % (number, heading)
             for number, (heading, _, _, _) in enumerate(found, 1)]
    reason = None
    if not (source / "torchvision/csrc/vision.cpp").exists():
        reason = ("torchvision 0.14.1 source not found at %s; run "
                  "scripts/fetch-torchvision.sh" % source)
    elif subprocess.run([PYTHON, "-c", "import torch, torchvision"],
                        capture_output=True).returncode != 0:
        reason = "%s cannot import torch and torchvision" % PYTHON
    if reason:
        for name in names:
            steps.skip(name, reason)
        return steps.finish(args.junit)

    shutil.rmtree(work, ignore_errors=True)
    prefix, src, root = work / "prefix", work / "vision-0.14.1", work / "work"
    root.mkdir(parents=True)
    sh(["cmake", "--install", os.path.abspath(args.build), "--prefix",
        str(prefix)])
    shutil.copytree(source, src, symlinks=True)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("APISTAMP_", "PYTORCH_API_USAGE", "SLURM_",
                                "RANK", "PYTHON"))}
    env.update(PREFIX=str(prefix), SRC=str(src), WORK=str(root),
               PATH="%s/bin:%s" % (prefix, env.get("PATH", "")))
    print("  %s: %d shell blocks" % (DOC.name, len(found)))

    def run(body, expected):
        exits = re.search(r"^# exits (\d+)", body, re.M)
        want = int(exits.group(1)) if exits else 0
        elsewhere = "elsewhere" in body
        away = []
        if elsewhere:
            for path in (src, root / "build"):
                moved = path.with_name(path.name + ".away")
                path.rename(moved)
                away.append((moved, path))
        try:
            result = subprocess.run(["bash", "-euo", "pipefail", "-c", body],
                                    cwd=str(work), env=env, text=True,
                                    stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, timeout=900)
        finally:
            for moved, path in away:
                moved.rename(path)
        if result.returncode != want:
            raise RuntimeError("exited %d, the document says %d:\n%s" % (
                result.returncode, want, result.stdout[-3000:]))
        lines = result.stdout.splitlines()
        missing = [line for line in expected or [] if not matches(line, lines)]
        if missing:
            raise RuntimeError("the document shows lines the run did not "
                               "print:\n  %s\nit printed:\n%s" % (
                                   "\n  ".join(missing), result.stdout[-3000:]))

    for name, (_, kind, body, expected) in zip(names, found):
        if kind == "skip":
            steps.skip(name, body.splitlines()[0].lstrip("# "))
            continue
        steps.run(name, lambda body=body, expected=expected: run(body, expected))
    return steps.finish(args.junit)


if __name__ == "__main__":
    raise SystemExit(main())
