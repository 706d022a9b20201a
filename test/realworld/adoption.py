"""Adopting apistamp on a real library from Debian sources, as its new
maintainer would from the docs: the steps that every such project shares.

A project script (jsoncpp_adoption.py, pugixml_adoption.py) gives the source
tree, the rules, the CMake options, its test command and its pre-commit
scenario; run_adoption() then does the round trip: a git repository of the
pristine tree, a build directory configured *without* the runtime (the
project's build is not edited first), `catalog`, `fix --extra-arg=-I...`,
`check` failing with the one-line hint until the runtime is on the include
path, then configured with it: `check` clean, a second `fix` empty, a build
with the project's warnings as errors, the project's own tests with the
JSON-lines sink on, `report` over their log, and a scripted session of the
real pre-commit framework with apistamp's hooks. Each step is a JUnit test
case; a figure or two per step goes to stdout.
"""
import hashlib
import json
import os
import pathlib
import re
import shutil
import subprocess
import time

from realworld import Steps, sh


def tree_digest(root):
    """A digest of every file under root but .git and the build."""
    digest = hashlib.sha256()
    for path in sorted(pathlib.Path(root).rglob("*")):
        rel = path.relative_to(root)
        if rel.parts[0] in (".git", "build") or not path.is_file():
            continue
        digest.update(str(rel).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


class Project:
    """What one real project brings to the round trip."""

    name = ""
    source = ""            # the fetched, pristine tree
    rules = ""             # .apistamp.yaml (compile_commands: build)
    cmake_args = []        # the project's own options (warnings as errors)
    cxx_flags = ""         # added to CMAKE_CXX_FLAGS (the project's warnings)
    min_insertions = 50
    configurations = {}    # file -> compile commands it must have
    test_command = []      # run in the build directory, the log sink on

    def check_report(self, src, rows, logged):
        """Project-specific checks of report's rows; returns problems."""
        return []

    def usage_gate(self, src, gate, fix):
        """Edits the tree at `src` so that a used API loses its event (`fix`
        runs apistamp fix), asks `gate` (check --usage on the project's own
        usage) and restores the tree; returns problems. None: the project has
        no such session."""
        return None

    def pre_commit_session(self, session):
        """The scripted commits (see PreCommitSession)."""


class PreCommitSession:
    """A git repository of the instrumented project with apistamp's hooks
    installed through the real pre-commit framework (offline: the hooks are
    `language: system`, their repository a local one)."""

    def __init__(self, src, work, apistamp, source_dir):
        self.src, self.work = src, work
        self.env = dict(os.environ,
                        PATH="%s:%s" % (os.path.dirname(apistamp), os.environ["PATH"]),
                        PRE_COMMIT_HOME=str(work / "pre-commit-home"),
                        GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com",
                        GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com")
        hooks = work / "hooks"
        shutil.rmtree(hooks, ignore_errors=True)
        hooks.mkdir()
        shutil.copy(pathlib.Path(source_dir) / ".pre-commit-hooks.yaml", hooks)
        self.git(["init", "-q", "-b", "main"], cwd=hooks)
        self.git(["add", "."], cwd=hooks)
        self.git(["commit", "-q", "-m", "hooks"], cwd=hooks)
        rev = self.git(["rev-parse", "HEAD"], cwd=hooks).strip()
        (src / ".pre-commit-config.yaml").write_text(
            "repos:\n  - repo: %s\n    rev: %s\n    hooks:\n"
            "      - id: apistamp-fix\n      - id: apistamp-fix-policy\n" % (hooks, rev))
        self.git(["add", ".pre-commit-config.yaml"])
        self.git(["commit", "-q", "-m", "pre-commit config", "--no-verify"])
        sh(["pre-commit", "install"], cwd=src, env=self.env)

    def git(self, args, cwd=None, expect=0):
        return sh(["git", *args], cwd=cwd or self.src, env=self.env, expect=expect)

    def edit(self, path, old, new, last=False):
        """Replaces the first (or last) occurrence of old in path."""
        path = self.src / path
        text = path.read_text()
        if old not in text:
            raise RuntimeError("%s: %r not found" % (path, old))
        if last:
            head, _, tail = text.rpartition(old)
            path.write_text(head + new + tail)
        else:
            path.write_text(text.replace(old, new, 1))

    def commit(self, message, paths):
        """Stages paths and commits; (passed, output). A failed commit
        leaves the staged files staged and the hooks' changes unstaged."""
        self.git(["add", *paths])
        completed = subprocess.run(["git", "commit", "-m", message], cwd=self.src,
                                   env=self.env, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True)
        return completed.returncode == 0, completed.stdout

    def expect_blocked_then_pass(self, message, paths, must_contain):
        passed, output = self.commit(message, paths)
        if passed:
            raise RuntimeError("%r was not stopped:\n%s" % (message, output))
        for path, text in must_contain:
            if text not in (self.src / path).read_text():
                raise RuntimeError("%r: the hook did not write %r into %s:\n%s"
                                   % (message, text, path, output))
        # As the user would: stage what the hook changed, commit again.
        self.git(["add", "-u"])
        passed, again = self.commit(message, paths)
        if not passed:
            raise RuntimeError("%r still stopped after the hook's fix:\n%s"
                               % (message, again))
        return output

    def expect_pass(self, message, paths):
        before = self.git(["diff", "--stat"])
        passed, output = self.commit(message, paths)
        if not passed or self.git(["status", "--porcelain", "--untracked-files=no"]).strip():
            raise RuntimeError("%r: expected a clean commit:\n%s\n%s"
                               % (message, output, before))
        return output


def copy_into_git(project, src, env=None):
    """Copies the pristine tree to src with the project's rules, and commits
    it to a new git repository there (env: e.g. fixed commit dates)."""
    shutil.copytree(project.source, src)
    (src / ".apistamp.yaml").write_text(project.rules)
    (src / ".gitignore").write_text("/build/\n")
    session_git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    sh(session_git + ["init", "-q", "-b", "main"], cwd=src, env=env)
    sh(session_git + ["add", "-A"], cwd=src, env=env)
    sh(session_git + ["commit", "-q", "-m", "pristine " + project.name], cwd=src, env=env)


def configure_project(project, src, build, runtime_include=None, runtime_lib=None):
    """Configures the project's build; with the runtime when runtime_include
    is given (its include path, and runtime_lib linked)."""
    flags = project.cxx_flags
    extra = []
    if runtime_include:
        flags += " -I" + str(runtime_include)
        extra = ["-DCMAKE_CXX_STANDARD_LIBRARIES=%s -lpthread" % runtime_lib]
    sh(["cmake", "-S", src, "-B", build, "-G", "Ninja",
        "-DCMAKE_BUILD_TYPE=Release", "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON",
        "-DCMAKE_CXX_FLAGS=" + flags.strip(), *project.cmake_args, *extra])


def run_adoption(project, args):
    """The round trip; returns the exit code (0: every step passed)."""
    apistamp = os.path.abspath(args.apistamp)
    runtime_include = os.path.abspath(args.runtime_include)
    runtime_lib = os.path.abspath(args.runtime_lib)
    work = pathlib.Path(args.work).resolve()
    src, build = work / "src", work / "src" / "build"
    events = work / "events.jsonl"
    steps = Steps("%s-adoption" % project.name)
    figures = {}

    def configure(with_runtime):
        configure_project(project, src, build, runtime_include if with_runtime else None,
                          runtime_lib)

    def prepare():
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        copy_into_git(project, src)
        configure(with_runtime=False)
        database = json.loads((build / "compile_commands.json").read_text())
        counts = {}
        for entry in database:
            rel = os.path.relpath(entry["file"], src)
            counts[rel] = counts.get(rel, 0) + 1
        for rel, wanted in project.configurations.items():
            if counts.get(rel) != wanted:
                raise RuntimeError("%s: %s compile commands, expected %d"
                                   % (rel, counts.get(rel), wanted))
        figures["database"] = "%d commands for %d files" % (len(database), len(counts))

    def catalog():
        rows = json.loads(sh([apistamp, "catalog", "--format=json", "-j" + args.jobs],
                             cwd=src, stderr_to_stdout=False))
        missing = [r for r in rows if r.get("status") == "missing"]
        if len(missing) < project.min_insertions:
            raise RuntimeError("the catalog places only %d events" % len(missing))
        figures["catalog"] = "%d events to place" % len(missing)

    def fix():
        output = sh([apistamp, "fix", "--verbose", "-j" + args.jobs,
                     "--extra-arg=-I" + runtime_include], cwd=src)
        inserted = int(re.search(r"inserted (\d+)", output).group(1))
        if inserted < project.min_insertions:
            raise RuntimeError("only %d insertions:\n%s" % (inserted, output[-3000:]))
        for rel, wanted in project.configurations.items():
            # Shown as the other notes show paths: relative to the current
            # directory when under it.
            if wanted > 1 and ("%s' has %d configurations" % (rel, wanted)) not in output:
                raise RuntimeError("--verbose does not say %s has %d configurations:\n%s"
                                   % (rel, wanted, output[-3000:]))
        figures["fix"] = re.search(r"apistamp: inserted .*", output).group(0)

    def check_without_runtime():
        """Before the build knows the runtime: exit 3 and the one-line fix."""
        output = sh([apistamp, "check", "-j" + args.jobs], cwd=src, expect=3)
        hint = [line for line in output.splitlines()
                if "apistamp/api_usage.h" in line and "-I" in line]
        if not hint or "apistamp::runtime" not in hint[0]:
            raise RuntimeError("no one-line hint for the missing include:\n"
                               + output[-2000:])
        sh([apistamp, "check", "-j" + args.jobs,
            "--extra-arg=-I" + runtime_include], cwd=src, expect=0)

    def reconfigure():
        configure(with_runtime=True)

    def check_clean():
        output = sh([apistamp, "check", "--verbose", "-j" + args.jobs], cwd=src)
        figures["check"] = re.search(r"apistamp: \d+ TUs.*", output).group(0)

    def fix_again():
        before = tree_digest(src)
        output = sh([apistamp, "fix", "-j" + args.jobs], cwd=src)
        if "inserted 0, corrected 0" not in output or tree_digest(src) != before:
            raise RuntimeError("second fix changed something:\n" + output)
        (work / "catalog.json").write_text(sh(
            [apistamp, "catalog", "--format=json", "-j" + args.jobs], cwd=src,
            stderr_to_stdout=False))

    def build_it():
        start = time.monotonic()
        sh(["cmake", "--build", build, "-j", args.jobs])
        figures["build with warnings as errors (s)"] = round(time.monotonic() - start, 1)

    def run_tests():
        events.unlink(missing_ok=True)
        env = dict(os.environ, APISTAMP_API_USAGE_LOG=str(events))
        env.pop("SLURM_JOB_ID", None)
        env.pop("TORCHELASTIC_RUN_ID", None)
        output = sh(project.test_command, cwd=build, env=env)
        figures["own tests"] = output.strip().splitlines()[-1][:200]

    def report():
        catalog_rows = json.loads((work / "catalog.json").read_text())
        placed = {r["event"] for r in catalog_rows}
        records = [json.loads(line) for line in events.read_text().splitlines()]
        logged = {r["event"] for r in records}
        result = json.loads(sh([apistamp, "report", "--catalog", work / "catalog.json",
                                "--format=json", events], stderr_to_stdout=False))
        rows = {e["event"]: e for e in result["events"]}
        used = {n for n, e in rows.items() if e["status"] == "used"}
        problems = []
        if not records:
            problems.append("no events logged")
        if result["unknown"] or not logged <= placed:
            problems.append("events outside the catalog: %s" % sorted(logged - placed)[:10])
        if used != logged or set(rows) != placed:
            problems.append("used is not what the log shows: %s" % sorted(used ^ logged)[:10])
        problems += project.check_report(src, rows, logged)
        if problems:
            raise RuntimeError("\n".join(problems))
        (work / "usage.json").write_text(json.dumps(result))
        figures["report"] = "%d lines; %d events placed: %d used, %d never used" % (
            len(records), len(rows), len(used), len(rows) - len(used))

    def usage_gate():
        """check --usage with the report of the project's own test run: the
        tree as it is passes (never-used events are notes); the project's
        session removes a used API and must be stopped."""
        usage = work / "usage.json"
        timings = {}

        def gate(extra=(), expect=None):
            start = time.monotonic()
            out = sh([apistamp, "check", "-j" + args.jobs, "--usage", usage] + list(extra),
                     cwd=src, expect=expect)
            timings.setdefault(" ".join(extra), []).append(time.monotonic() - start)
            return out
        start = time.monotonic()
        sh([apistamp, "check", "-j" + args.jobs], cwd=src)
        plain = time.monotonic() - start
        output = gate(expect=0)
        never = {e["event"] for e in json.loads(usage.read_text())["events"]
                 if e["status"] == "never-used"}
        notes = set(re.findall(r"note: deprecation candidate: API usage event '([^']+)'", output))
        if notes != never:
            raise RuntimeError("deprecation candidates %s are not the never-used events %s"
                               % (sorted(notes ^ never)[:10], len(never)))
        def fix_tree(where):
            sh([apistamp, "fix", "-j" + args.jobs], cwd=where)
        problems = project.usage_gate(src, gate, fix_tree)
        if problems is None:
            return
        if problems:
            raise RuntimeError("\n".join(problems))
        figures["usage gate"] = ("%d deprecation candidates; check %.2f s, check --usage %.2f s"
                                 % (len(notes), plain, timings[""][0]))

    def pre_commit():
        sh(["git", "-c", "user.name=t", "-c", "user.email=t@example.com",
            "commit", "-q", "-a", "-m", "apistamp fix"], cwd=src)
        session = PreCommitSession(src, work, apistamp,
                                   os.path.abspath(args.source_dir))
        project.pre_commit_session(session)
        figures["pre-commit"] = "%s commits" % session.git(
            ["rev-list", "--count", "HEAD"]).strip()

    if not (pathlib.Path(project.source) / "CMakeLists.txt").exists():
        steps.skip("%s adoption" % project.name,
                   "%s is missing (scripts/fetch-debian-source.sh fetches it)"
                   % project.source)
        steps.write_junit(args.junit)
        return 0
    steps.run("copy %s into a git repository, configure" % project.name, prepare)
    steps.run("catalog lists the events the rules place", catalog)
    steps.run("fix with --extra-arg (the build not yet changed)", fix)
    steps.run("check without the runtime: exit 3 with the -I hint", check_without_runtime)
    steps.run("configure with the runtime", reconfigure)
    steps.run("check exits 0", check_clean)
    steps.run("second fix changes nothing", fix_again)
    steps.run("build with the project's warnings as errors", build_it)
    steps.run("the project's own tests pass, logging events", run_tests)
    steps.run("report: logged events used, untested APIs never used", report)
    steps.run("check --usage with the usage of the project's own tests", usage_gate)
    steps.run("pre-commit session", pre_commit)
    steps.write_junit(args.junit)
    for key, value in figures.items():
        print("  %s: %s" % (key, value))
    return 1 if steps.failed else 0


def parse_args(description):
    import argparse
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--apistamp", required=True)
    parser.add_argument("--runtime-include", required=True)
    parser.add_argument("--runtime-lib", required=True)
    parser.add_argument("--source-dir", required=True, help="apistamp's source tree")
    parser.add_argument("--work", required=True)
    parser.add_argument("--junit", required=True)
    parser.add_argument("--jobs", default="2")
    return parser.parse_args()
