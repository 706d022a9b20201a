"""Shared by the real-project tests: JUnit-recorded steps and a subprocess helper."""
import subprocess
import time
import xml.etree.ElementTree as ET


class Steps:
    """Runs named steps, records them as JUnit test cases."""

    def __init__(self, suite, independent=False):
        """independent: a failed step does not skip the later ones."""
        self.suite = suite
        self.cases = []
        self.failed = False
        self.independent = independent

    def run(self, name, function):
        start = time.monotonic()
        if self.failed:
            self.skip(name, "an earlier step failed")
            return None
        try:
            result = function()
            self.cases.append((name, time.monotonic() - start, "passed", ""))
            print("PASS %s (%.1f s)" % (name, time.monotonic() - start), flush=True)
            return result
        except Exception as error:  # a failed step: record it, stop later steps
            self.failed = not self.independent
            self.cases.append((name, time.monotonic() - start, "failed", str(error)))
            print("FAIL %s: %s" % (name, error), flush=True)
            return None

    def skip(self, name, reason):
        self.cases.append((name, 0.0, "skipped", reason))
        print("SKIP %s: %s" % (name, reason), flush=True)

    def finish(self, junit_path=None):
        """Writes the JUnit file, prints 'N passed, M failed'; the exit code."""
        if junit_path:
            self.write_junit(junit_path)
        failed = sum(1 for case in self.cases if case[2] == "failed")
        passed = sum(1 for case in self.cases if case[2] == "passed")
        print("%d passed, %d failed" % (passed, failed), flush=True)
        return 1 if failed else 0

    def write_junit(self, path):
        suite = ET.Element("testsuite", name=self.suite,
                           tests=str(len(self.cases)))
        for name, seconds, status, message in self.cases:
            case = ET.SubElement(suite, "testcase", classname="realworld",
                                 name=name, time="%.3f" % seconds)
            if status == "failed":
                ET.SubElement(case, "failure", message=message[:2000])
            elif status == "skipped":
                ET.SubElement(case, "skipped", message=message)
        ET.ElementTree(suite).write(path)


def sh(args, expect=0, stderr_to_stdout=True, **kwargs):
    """Runs args; returns stdout (with stderr unless stderr_to_stdout=False).

    expect: the exit code, a tuple of allowed ones, or None for any.
    """
    completed = subprocess.run(
        args, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT if stderr_to_stdout else subprocess.PIPE,
        text=True, **kwargs)
    allowed = expect if isinstance(expect, tuple) else (expect,)
    if expect is not None and completed.returncode not in allowed:
        raise RuntimeError("%s exited %d, expected %s:\n%s" % (
            " ".join(map(str, args)), completed.returncode, expect,
            completed.stdout[-3000:] + (completed.stderr or "")[-3000:]))
    return completed.stdout
