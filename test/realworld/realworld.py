"""Shared by the real-project tests: JUnit-recorded steps, a subprocess
helper, and uninstrumented copies of the trees the round trip and the
adoption tests leave under build/realworld (uninstrumented_tree: the one
tree maker of preamble_equivalence.py and tu_merge.py)."""
import filecmp
import json
import pathlib
import shutil
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


def translated_database(database, old, new, out_dir):
    """database's compile commands with the prefix old replaced by new in
    every string, written to out_dir/compile_commands.json."""
    entries = json.loads(pathlib.Path(database).read_text())

    def translate(value):
        if isinstance(value, str):
            return value.replace(str(old), str(new))
        if isinstance(value, list):
            return [translate(v) for v in value]
        if isinstance(value, dict):
            return {k: translate(v) for k, v in value.items()}
        return value
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "compile_commands.json").write_text(json.dumps(translate(entries), indent=1))
    return len(entries)


def googletest_copy(realworld, where, rules):
    """/usr/src/googletest copied to where/src with rules, and the database
    googletest_roundtrip.py left under realworld translated to it (in
    where/build): (src, build), or why it cannot be made."""
    database = realworld / "googletest/build/compile_commands.json"
    if not database.exists() or not pathlib.Path("/usr/src/googletest/CMakeLists.txt").exists():
        return "%s or /usr/src/googletest is missing (googletest_roundtrip.py makes it)" % database
    src, build = where / "src", where / "build"
    shutil.copytree("/usr/src/googletest", src)
    (src / ".apistamp.yaml").write_text(rules)
    translated_database(database, realworld / "googletest/src", src, build)
    translated_database(build / "compile_commands.json", realworld / "googletest/build",
                        build, build)
    return src, build


def adopted_copy(realworld, project, where, build_name="build"):
    """An adoption test's project (jsoncpp_adoption.Jsoncpp(), ...) copied
    uninstrumented to where/src with its rules, and the database its test
    left under realworld translated to it (in src/build_name): (src,
    build), or why it cannot be made."""
    database = realworld / project.name / "src/build/compile_commands.json"
    if not database.exists() or not (pathlib.Path(project.source) / "CMakeLists.txt").exists():
        return "%s or %s is missing (%s_adoption.py makes it)" % (
            database, project.source, project.name)
    src = where / "src"
    shutil.copytree(project.source, src)
    (src / ".apistamp.yaml").write_text(project.rules)
    build = src / build_name
    translated_database(database, realworld / project.name / "src/build", build, build)
    translated_database(build / "compile_commands.json", realworld / project.name / "src",
                        src, build)
    return src, build


def uninstrumented_tree(realworld, name, where, build_name="build"):
    """googletest's, jsoncpp's or pugixml's tree, copied uninstrumented to
    where/src with its rules, with the compilation database its test left
    under realworld translated to it (googletest: in where/build; the
    adopted projects: in src/build_name): (src, build), or why it cannot be
    made. Each call makes a fresh copy: a test may edit it."""
    # Imported here: these modules import this one.
    if name == "googletest":
        import googletest_roundtrip
        return googletest_copy(realworld, where, googletest_roundtrip.RULES)
    import jsoncpp_adoption
    import pugixml_adoption
    project = {"jsoncpp": jsoncpp_adoption.Jsoncpp,
               "pugixml": pugixml_adoption.Pugixml}[name]()
    return adopted_copy(realworld, project, where, build_name)


def same_tree(expected, actual):
    """Raises unless \p actual holds the files of \p expected, with the
    same bytes, and no other (the round trips' byte-for-byte check)."""
    def files(root):
        return sorted(str(p.relative_to(root)) for p in root.rglob("*")
                      if p.is_file())
    listed = files(expected)
    if listed != files(actual):
        raise RuntimeError("the trees list different files")
    _, mismatch, errors = filecmp.cmpfiles(expected, actual, listed,
                                           shallow=False)
    if mismatch or errors:
        raise RuntimeError("not the same bytes: %s" % (mismatch + errors)[:10])
