#!/usr/bin/env python3
"""Fault injection: apistamp fix under failing writes, kill -9 and races.

Every case checks what a user would see afterwards: each source file is
byte-identical to the original or exactly the fully fixed version, no
temporary file is left once a later run has passed, and the exit code says
what happened.

- write faults (LD_PRELOAD shim faultinject.so: ENOSPC, EDQUOT, EIO at
  several offsets, short writes, EINTR, fsync/close/rename failures) into the
  source writes, the cache writes and the --export-fixes file;
- a real full disk (a 256 KiB tmpfs; skipped, with the reason, where mount
  is not permitted);
- a kill -9 loop over fix (>= 50 kills at random points);
- two concurrent fixes editing one header with different rules, each slowed
  down before its rename: no edit may be lost silently;
- mode, owner and hard links of the files written;
- the preamble store (the cache directory's preambles/): write faults in its
  files, a kill -9 loop over check --preamble=all, four concurrent runs
  sharing it, the store deleted while a run writes or reads it, and the
  store on a full tmpfs. Each run must print the answer of a run without
  store or cache, with its exit code; a store that cannot be written says
  "a preamble could not be stored"; no entry may name a PCH that is not
  there, and none that is there may be wrong (a run on it parses nothing
  again); a prefix header replaced between a run's store lookup and its
  parse's read of it (open-delay) must be fixed as its new bytes say.
"""
import argparse
import json
import os
import pathlib
import random
import re
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "realworld"))
from realworld import Steps  # noqa: E402

RULES = """version: 1
include: "log.h"
rules:
  - id: lib
    namespace: lib
  - id: py
    language: python
    where: function
    modules: ["**"]
    guard: "if not torch.jit.is_scripting():"
    import: "from log import _log_api_usage_once"
"""
HEADER = """#pragma once
namespace lib {
inline int hA(int x) { return x + 1; }
inline int hB(int x) { return x + 2; }
}
"""
LOG_HEADER = "#pragma once\n#define C10_LOG_API_USAGE_ONCE(...) ((void)0)\n"
SOURCES = {
    "a.cpp": '#include "h.h"\nnamespace lib {\nint f(int x) { return hA(x); }\n'
             + "".join("int f%d(int x) { return x * %d; }\n" % (i, i) for i in range(40))
             + "}\n",
    "b.cpp": '#include "h.h"\nnamespace lib {\nint g(int x) {\n  return hB(x);\n}\n}\n',
    # Python writes go through the same write path: every case covers them.
    "m.py": '"""A module."""\nimport torch\n\n\n'
            + "".join('def p%d(x):\n    """Doc."""\n    return x * %d\n\n\n' % (i, i)
                      for i in range(20)),
}


class Suite:
    def __init__(self, args):
        self.apistamp = args.apistamp
        self.shim = args.shim
        self.work = pathlib.Path(args.work).resolve()
        self.figures = {}
        self.check_references = {}

    def project(self, name):
        """A fresh copy of the project: rules, a header and two sources."""
        root = self.work / name
        shutil.rmtree(root, ignore_errors=True)
        (root / "src").mkdir(parents=True)
        (root / "src" / ".apistamp.yaml").write_text(RULES)
        (root / "src" / "h.h").write_text(HEADER)
        (root / "src" / "log.h").write_text(LOG_HEADER)
        for file, text in SOURCES.items():
            (root / "src" / file).write_text(text)
        return root

    def fix(self, root, *extra, fault=None, match=None, env_extra=None,
            files=("a.cpp", "b.cpp", "m.py")):
        env = dict(os.environ)
        env.pop("APISTAMP_NO_SKIP_BODIES", None)
        if fault:
            env["LD_PRELOAD"] = self.shim
            env["APISTAMP_FAULT"] = fault
            if match:
                env["APISTAMP_FAULT_MATCH"] = match
        env.update(env_extra or {})
        return subprocess.run(
            [self.apistamp, "fix", "-j2", "--cache-dir", str(root / "cache"),
             *extra, *[str(root / "src" / f) for f in files], "--",
             "-std=c++17"], env=env, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True)

    def expected(self):
        """The original and the fully fixed bytes of every file."""
        if not hasattr(self, "_expected"):
            root = self.project("reference")
            original = snapshot(root)
            done = self.fix(root, "--no-cache")
            if done.returncode != 0:
                raise RuntimeError("reference fix failed: " + done.stderr)
            self._expected = (original, snapshot(root))
        return self._expected

    def check_tree(self, root, allow_temporaries=False):
        """Each file original or fully fixed; no temporary files."""
        original, fixed = self.expected()
        now = snapshot(root)
        for name in original:
            if now.get(name) not in (original[name], fixed[name]):
                raise RuntimeError("%s is neither the original nor the fixed "
                                   "file:\n%s" % (name, now.get(name)))
        leftovers = temporaries(root)
        if leftovers and not allow_temporaries:
            raise RuntimeError("temporary files left: %s" % leftovers)
        return now == fixed

    # --- the cases ------------------------------------------------------

    def source_fault(self, fault):
        root = self.project("source-" + fault.replace(":", "-"))
        done = self.fix(root, fault=fault, match="/src/.")
        failing = fault not in ("short", "eintr")
        fully_fixed = self.check_tree(root)
        if failing:
            if done.returncode != 1 or "cannot write" not in done.stderr:
                raise RuntimeError("expected exit 1 and 'cannot write', got %d:\n%s"
                                   % (done.returncode, done.stderr))
            if "LLVM ERROR" in done.stderr:
                raise RuntimeError("fatal error: " + done.stderr)
            if fully_fixed:
                raise RuntimeError("the fault did not fail any write")
        elif done.returncode != 0 or not fully_fixed:
            raise RuntimeError("short or interrupted writes must still fix "
                               "everything: exit %d\n%s" % (done.returncode, done.stderr))
        # The next run, without the fault, finishes the job.
        again = self.fix(root)
        if again.returncode != 0 or not self.check_tree(root):
            raise RuntimeError("the run after the fault did not fix: " + again.stderr)

    def cache_fault(self, fault):
        root = self.project("cache-" + fault.replace(":", "-"))
        done = self.fix(root, fault=fault, match="/cache/.")
        if done.returncode != 0 or not self.check_tree(root):
            raise RuntimeError("a failed cache write must not fail fix: exit "
                               "%d\n%s" % (done.returncode, done.stderr))
        if "result cache could not be written" not in done.stderr:
            raise RuntimeError("no warning about the cache: " + done.stderr)
        if temporaries(root / "cache"):
            raise RuntimeError("cache temporaries left")

    def export_fault(self, fault):
        root = self.project("export-" + fault.replace(":", "-"))
        fixes = root / "fixes.yaml"
        fixes.write_text("previous\n")
        done = self.fix(root, "--export-fixes", str(fixes), fault=fault,
                        match="fixes.yaml.apistamp-tmp")
        if done.returncode != 1 or fixes.read_text() != "previous\n":
            raise RuntimeError("export-fixes: exit %d, file %r" % (
                done.returncode, fixes.read_text()[:60]))
        if temporaries(root):
            raise RuntimeError("temporaries left: %s" % temporaries(root))

    def tu_fault(self, fault):
        """A tu action whose result or depfile write fails: exit 1 and an
        error naming the file, each file the one it replaces or the whole new
        one, no temporary left; the next tu writes both."""
        root = self.project("tu-" + fault.replace(":", "-"))
        (root / "out").mkdir()
        result, depfile = root / "out" / "a.apistamp", root / "out" / "a.d"

        def tu(fault=None):
            env = dict(os.environ)
            if fault:
                env.update(LD_PRELOAD=self.shim, APISTAMP_FAULT=fault,
                           APISTAMP_FAULT_MATCH="out/.a.")
            return subprocess.run(
                [self.apistamp, "tu", "src/a.cpp", "-o", "out/a.apistamp",
                 "--depfile", "out/a.d", "--", "-std=c++17"], cwd=root, env=env,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

        first = tu()
        if first.returncode != 0:
            raise RuntimeError("tu failed without a fault: " + first.stderr)
        whole = (result.read_bytes(), depfile.read_bytes())
        # Other bytes before, so that the faulty run must write both.
        previous = b"previous\n"
        result.write_bytes(previous)
        depfile.write_bytes(previous)
        done = tu(fault)
        now = (result.read_bytes(), depfile.read_bytes())
        if any(n not in (previous, w) for n, w in zip(now, whole)):
            raise RuntimeError("a file is neither the one before nor the new "
                               "one: %r" % ([n[:100] for n in now],))
        if temporaries(root / "out"):
            raise RuntimeError("temporaries left: %s" % temporaries(root / "out"))
        if fault in ("short", "eintr"):
            if done.returncode != 0 or now != whole:
                raise RuntimeError("short or interrupted writes must still "
                                   "write: exit %d\n%s" % (done.returncode, done.stderr))
        elif (done.returncode != 1 or "out/a.apistamp: error:" not in done.stderr
              or now[0] != previous or "LLVM ERROR" in done.stderr):
            raise RuntimeError("expected exit 1, the result as before and an "
                               "error naming it; got exit %d, %r:\n%s"
                               % (done.returncode, [n[:100] for n in now], done.stderr))
        again = tu()
        if again.returncode != 0 or (result.read_bytes(), depfile.read_bytes()) != whole:
            raise RuntimeError("the tu after the fault did not write: " + again.stderr)

    def full_disk(self):
        mount = self.work / "tmpfs"
        mount.mkdir(parents=True, exist_ok=True)
        mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k",
                                  "tmpfs", str(mount)], capture_output=True, text=True)
        if mounted.returncode != 0:
            return "skipped: cannot mount a tmpfs here (%s)" % mounted.stderr.strip()
        try:
            src = mount / "src"
            src.mkdir()
            (src / ".apistamp.yaml").write_text(RULES)
            (src / "log.h").write_text(LOG_HEADER)
            (src / "a.cpp").write_text(
                "namespace lib {\nint f(int x) { return x + 1; }\n}\n")
            original = (src / "a.cpp").read_bytes()
            try:
                with open(mount / "filler", "wb") as filler:
                    while True:
                        filler.write(b"\0" * 4096)
                        filler.flush()
            except OSError:
                pass  # Full.
            done = subprocess.run([self.apistamp, "fix", "--no-cache",
                                   str(src / "a.cpp"), "--", "-std=c++17"],
                                  capture_output=True, text=True)
            if done.returncode != 1 or "No space left on device" not in done.stderr:
                raise RuntimeError("full disk: exit %d\n%s" % (done.returncode, done.stderr))
            if (src / "a.cpp").read_bytes() != original:
                raise RuntimeError("full disk: a.cpp changed")
            if [p for p in mount.rglob("*") if p.name not in ("src", "filler", ".apistamp.yaml", "log.h", "a.cpp")]:
                raise RuntimeError("full disk: temporaries left")
            (mount / "filler").unlink()
            done = subprocess.run([self.apistamp, "fix", "--no-cache",
                                   str(src / "a.cpp"), "--", "-std=c++17"],
                                  capture_output=True, text=True)
            if done.returncode != 0 or b"C10_LOG_API_USAGE_ONCE" not in (src / "a.cpp").read_bytes():
                raise RuntimeError("after freeing space: " + done.stderr)
            return "ENOSPC on a 256 KiB tmpfs: a.cpp byte-identical, exit 1"
        finally:
            subprocess.run(["umount", str(mount)])

    def kill_loop(self, kills):
        """kill -9 at random points; every file stays whole."""
        rng = random.Random(1234)
        killed = finished = 0
        root = self.project("kill")
        for round in range(kills * 10):
            if killed >= kills:
                break
            if round % 5 == 0:
                root = self.project("kill")  # From the original now and then.
            # Renames into src/ slowed down: kills often land while a
            # temporary file exists.
            env = {"LD_PRELOAD": self.shim, "APISTAMP_FAULT": "delay:%d" % rng.randint(0, 60),
                   "APISTAMP_FAULT_MATCH": "/src/"}
            process = subprocess.Popen(
                [self.apistamp, "fix", "-j2", "--cache-dir", str(root / "cache"),
                 str(root / "src" / "a.cpp"), str(root / "src" / "b.cpp"),
                 "--", "-std=c++17"], env={**os.environ, **env},
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(rng.uniform(0.0, 0.12))
            if process.poll() is None:
                process.send_signal(signal.SIGKILL)
                killed += 1
            else:
                finished += 1
            process.wait()
            self.check_tree(root, allow_temporaries=True)
        if killed < kills:
            raise RuntimeError("only %d kills landed" % killed)
        # The next run completes the fix and removes what killed runs left.
        done = self.fix(root)
        if done.returncode != 0 or not self.check_tree(root):
            raise RuntimeError("run after the kills: " + done.stderr)
        self.figures["kills"] = killed
        return "%d kills, %d runs finished first; every file whole; no temporaries after the next run" % (killed, finished)

    def header_race(self, rounds):
        """Two fixes with different rules edit one header at once."""
        lost = 0
        for round in range(rounds):
            root = self.project("race")
            src = root / "src"
            for name, function in (("A", "hA"), ("B", "hB")):
                (root / ("rules%s.yaml" % name)).write_text(
                    # Two policies over one header keep each other's events
                    # (else each would remove the other's as stale).
                    "version: 1\ninclude: log.h\nkeep_events: [\"lib.h*\"]\n"
                    "rules:\n  - id: %s\n    namespace: lib\n"
                    "    name: %s\n" % (name, function))
            runs = []
            for name, delay in (("A", 1500), ("B", 300)):
                env = {**os.environ, "LD_PRELOAD": self.shim,
                       "APISTAMP_FAULT": "delay:%d" % delay,
                       "APISTAMP_FAULT_MATCH": "/src/h.h"}
                runs.append(subprocess.Popen(
                    [self.apistamp, "fix", "--no-cache", "--root", str(src),
                     "--rules", str(root / ("rules%s.yaml" % name)),
                     str(src / ("a.cpp" if name == "A" else "b.cpp")),
                     "--", "-std=c++17"], env=env, stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE, text=True))
                time.sleep(0.2)
            results = [(run.wait(), run.stderr.read()) for run in runs]
            header = (src / "h.h").read_text()
            has = {f: ('"lib.%s"' % f) in header for f in ("hA", "hB")}
            for (code, stderr), function in zip(results, ("hA", "hB")):
                if code == 0 and not has[function]:
                    lost += 1
                if code != 0 and "changed while apistamp ran" not in stderr:
                    raise RuntimeError("unexpected failure: " + stderr)
            # Whoever was refused runs again and gets its edit in.
            for (code, _), name in zip(results, "AB"):
                if code != 0:
                    again = subprocess.run(
                        [self.apistamp, "fix", "--no-cache", "--root", str(src),
                         "--rules", str(root / ("rules%s.yaml" % name)),
                         str(src / ("a.cpp" if name == "A" else "b.cpp")),
                         "--", "-std=c++17"], capture_output=True, text=True)
                    if again.returncode != 0:
                        raise RuntimeError("rerun: " + again.stderr)
            header = (src / "h.h").read_text()
            if '"lib.hA"' not in header or '"lib.hB"' not in header:
                raise RuntimeError("an edit is missing after reruns:\n" + header)
        if lost:
            raise RuntimeError("%d edits lost silently (exit 0, edit missing)" % lost)
        return "%d rounds, no edit lost; a refused run said so and exit 1" % rounds

    def mode_owner_links(self):
        root = self.project("modes")
        src = root / "src"
        a, b = src / "a.cpp", src / "b.cpp"
        os.chmod(a, 0o640)
        os.chmod(b, 0o755)
        os.chmod(src / "m.py", 0o600)
        owner = None
        if os.geteuid() == 0:
            import pwd, grp
            owner = (pwd.getpwnam("nobody").pw_uid, grp.getgrnam("nogroup").gr_gid)
            os.chown(a, *owner)
        done = self.fix(root, files=("a.cpp", "b.cpp", "m.py"))
        if done.returncode != 0:
            raise RuntimeError(done.stderr)
        if (os.stat(a).st_mode & 0o7777) != 0o640 or (os.stat(b).st_mode & 0o7777) != 0o755:
            raise RuntimeError("modes: %o %o" % (os.stat(a).st_mode, os.stat(b).st_mode))
        if (os.stat(src / "m.py").st_mode & 0o7777) != 0o600 or "_log_api_usage_once(p3)" not in (src / "m.py").read_text():
            raise RuntimeError("m.py: mode %o, or not fixed" % os.stat(src / "m.py").st_mode)
        if owner and (os.stat(a).st_uid, os.stat(a).st_gid) != owner:
            raise RuntimeError("owner lost: %s" % ((os.stat(a).st_uid, os.stat(a).st_gid),))
        # A hard-linked file is refused, both names untouched.
        root = self.project("links")
        src = root / "src"
        os.link(src / "a.cpp", root / "a-link.cpp")
        before = (src / "a.cpp").read_bytes()
        done = self.fix(root, files=("a.cpp",))
        if done.returncode != 1 or "hard links" not in done.stderr:
            raise RuntimeError("hard link: exit %d %s" % (done.returncode, done.stderr))
        if (src / "a.cpp").read_bytes() != before or os.stat(src / "a.cpp").st_nlink != 2:
            raise RuntimeError("hard link: file changed or link split")
        return "0640/0755 kept%s; hard-linked file refused" % (
            ", nobody:nogroup kept" if owner else " (owner not checked: not root)")


    def editor_window(self):
        """An editor saves a.cpp while fix is in its rename (held up there by
        the shim): in place, and by a rename of its own. The save must win,
        and fix say so with exit 1 (the save was lost with exit 0)."""
        results = []
        for how in ("in place", "by rename"):
            root = self.project("editor")
            a = root / "src" / "a.cpp"
            saved = a.read_text() + "// saved by the editor (%s)\n" % how
            env = {**os.environ, "LD_PRELOAD": self.shim,
                   "APISTAMP_FAULT": "delay:1500", "APISTAMP_FAULT_MATCH": "/src/a.cpp"}
            env.pop("APISTAMP_NO_SKIP_BODIES", None)
            run = subprocess.Popen(
                [self.apistamp, "fix", "--no-cache", str(a), "--", "-std=c++17"],
                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            # The temporary exists once fix is about to rename it.
            wait_until(lambda: list(a.parent.glob(".a.cpp.apistamp-tmp-*")), run, 20,
                       "fix never reached its rename")
            time.sleep(0.3)
            if how == "in place":
                with open(a, "r+") as f:
                    f.truncate(0)
                    f.write(saved)
            else:
                (root / "src" / "a.cpp.editor").write_text(saved)
                os.rename(root / "src" / "a.cpp.editor", a)
            code = run.wait(timeout=30)
            stderr = run.stderr.read()
            if a.read_text() != saved:
                raise RuntimeError("%s: the editor's save was lost (exit %d)" % (how, code))
            if code != 1 or "changed while apistamp ran" not in stderr:
                raise RuntimeError("%s: exit %d, %s" % (how, code, stderr))
            if temporaries(root):
                raise RuntimeError("%s: left %s" % (how, temporaries(root)))
            results.append(how)
        return "the editor's save kept, exit 1: " + ", ".join(results)

    def acl_and_xattrs(self):
        """A 0600 file with an ACL entry for nobody and a user.* attribute:
        both must survive the rename (the ACL was dropped: the owning group
        gained read-write and nobody lost access; user.* vanished)."""
        if not shutil.which("setfacl") or not shutil.which("getfacl"):
            return "skipped: setfacl/getfacl not installed (package acl)"
        root = self.project("acl")
        a = root / "src" / "a.cpp"
        os.chmod(a, 0o600)
        subprocess.run(["setfacl", "-m", "u:nobody:rw", str(a)], check=True)
        os.setxattr(a, "user.origin", b"apistamp-test")
        acl_before = subprocess.run(["getfacl", "-cp", str(a)], check=True,
                                    stdout=subprocess.PIPE, text=True).stdout
        before = a.read_bytes()
        done = self.fix(root, files=("a.cpp",))
        if done.returncode != 0:
            raise RuntimeError(done.stderr)
        if a.read_bytes() == before:
            raise RuntimeError("a.cpp was not fixed")
        acl_after = subprocess.run(["getfacl", "-cp", str(a)], check=True,
                                   stdout=subprocess.PIPE, text=True).stdout
        if acl_after != acl_before:
            raise RuntimeError("ACL changed:\n%s->\n%s" % (acl_before, acl_after))
        if os.getxattr(a, "user.origin") != b"apistamp-test":
            raise RuntimeError("user.origin lost")
        return "ACL (user:nobody:rw, mask) and user.* attribute kept"

    # --- the preamble store ---------------------------------------------

    def run(self, root, command, *extra, fault=None, match=None, env_extra=None,
            files=("a.cpp", "b.cpp", "m.py"), cache=True, popen=False):
        """apistamp COMMAND --verbose on root's sources, in root (so that the
        output names them src/a.cpp wherever root is). cache: True (root's
        cache/), a directory, or False (--no-cache)."""
        env = dict(os.environ)
        for name in ("APISTAMP_NO_SKIP_BODIES", "APISTAMP_PREAMBLE_STORE", "APISTAMP_PREAMBLE"):
            env.pop(name, None)
        if fault:
            env.update(LD_PRELOAD=self.shim, APISTAMP_FAULT=fault)
            if match:
                env["APISTAMP_FAULT_MATCH"] = match
        env.update(env_extra or {})
        args = [self.apistamp, command, "--verbose", "--color=never", "-j2",
                *(["--cache-dir", str(root / "cache" if cache is True else cache)]
                  if cache else ["--no-cache"]),
                *extra, *["src/" + f for f in files], "--", "-std=c++17"]
        if popen:
            return subprocess.Popen(args, cwd=root, env=env, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True)
        return subprocess.run(args, cwd=root, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)

    def check_reference(self, fixed=False):
        """check's exit code and output without store or cache, on the
        project or (fixed) on the project fixed."""
        if fixed not in self.check_references:
            root = self.project("check-reference")
            if fixed and self.run(root, "fix", "--no-preamble", cache=False).returncode:
                raise RuntimeError("reference fix failed")
            done = self.run(root, "check", "--no-preamble", cache=False)
            if done.returncode != (0 if fixed else 1) or (
                    fixed != ("missing API usage event" not in done.stdout)):
                raise RuntimeError("reference check: exit %d\n%s%s" % (
                    done.returncode, done.stdout, done.stderr))
            self.check_references[fixed] = (done.returncode, done.stdout)
        return self.check_references[fixed]

    def expect_answer(self, what, done, root=None, fixed=False):
        """done printed check's reference answer with its exit code (on the
        fixed project if fixed), or (root given) fix fixed root and exited
        0."""
        if crashed(done.stderr):
            raise RuntimeError("%s: crashed:\n%s" % (what, done.stderr[-3000:]))
        if root is not None:
            if done.returncode != 0 or not self.check_tree(root, allow_temporaries=True):
                raise RuntimeError("%s: fix exited %d, tree fixed: %s\n%s" % (
                    what, done.returncode, self.check_tree(root, allow_temporaries=True),
                    done.stderr[-3000:]))
            return
        code, output = self.check_reference(fixed)
        if (done.returncode, done.stdout) != (code, output):
            raise RuntimeError("%s: exit %d (expected %d), output:\n%s\nexpected:\n%s\n%s" % (
                what, done.returncode, code, done.stdout, output, done.stderr[-3000:]))

    def store_usable(self, what, root, expect_built=None, fixed=False):
        """The store holds only whole entries, and a run on it gives the
        answer: its TUs on a preamble, none parsed again; then none built."""
        store = root / "cache" / "preambles"
        problems = store_problems(store)
        if problems:
            raise RuntimeError("%s: %s" % (what, "; ".join(problems)))
        for attempt in ("first", "second"):
            done = self.run(root, "check", "--preamble=all", cache=False,
                            env_extra={"APISTAMP_PREAMBLE_STORE": str(store)})
            self.expect_answer("%s, %s run on the store" % (what, attempt), done,
                               fixed=fixed)
            used, built, _, again = store_figures(done.stderr)
            if used != 2 or again or (attempt == "second" and built) or (
                    attempt == "first" and expect_built is not None and built != expect_built):
                raise RuntimeError("%s, %s run on the store: %d on a preamble, %d built, %d "
                                   "parsed again\n%s" % (what, attempt, used, built, again,
                                                         done.stderr[-2000:]))
        if temporaries(root):
            raise RuntimeError("%s: temporaries left: %s" % (what, temporaries(root)))

    def store_fault(self, command, fault):
        """A write fault in every file of the store (match /preambles/.):
        the run's answer and exit code are unchanged, it says the preamble
        could not be stored, and leaves no temporary file."""
        root = self.project("store-%s-%s" % (command, fault.replace(":", "-")))
        done = self.run(root, command, fault=fault, match="/preambles/.")
        self.expect_answer("%s under %s" % (command, fault), done,
                           root if command == "fix" else None)
        failing = fault not in ("short", "eintr")
        used, built, _, again = store_figures(done.stderr)
        if failing and (NOT_STORED not in done.stderr or built):
            raise RuntimeError("no warning, or preambles stored (%d):\n%s" % (
                built, done.stderr[-2000:]))
        if not failing and (NOT_STORED in done.stderr or built != 2):
            raise RuntimeError("short or interrupted writes must store both preambles "
                               "(%d):\n%s" % (built, done.stderr[-2000:]))
        if again:
            raise RuntimeError("%d TUs parsed again:\n%s" % (again, done.stderr[-2000:]))
        if temporaries(root):
            raise RuntimeError("temporaries left: %s" % temporaries(root))
        # What the faulty run stored (nothing, or whole entries) serves.
        # (fix changed the prefixes: its preambles are built again.)
        self.store_usable("after " + fault, root, fixed=command == "fix",
                          expect_built=2 if failing or command == "fix" else 0)

    def store_kill_loop(self, kills):
        """kill -9 at random points of check --preamble=all (renames into the
        store slowed down, h.h and a body changed between runs so that the
        preambles are built again or reused); then a run gives the answer,
        leaves no temporaries, and the store holds only whole entries."""
        rng = random.Random(4321)
        root = self.project("store-kill")
        src = root / "src"
        killed = finished = in_write = 0
        for round in range(kills * 10):
            # Enough kills, and enough of them inside a write into the store
            # (a slow machine spends more of a run before it).
            if killed >= kills and in_write >= kills // 6:
                break
            # A comment at the end of h.h: the preambles' files change (they
            # are built again), not the answer; a.cpp's body: its result is
            # not in the result cache, its preamble is (if h.h is the same).
            (src / "h.h").write_text(HEADER + "// variant %d\n" % rng.randrange(3))
            (src / "a.cpp").write_text(SOURCES["a.cpp"].replace(
                "return hA(x);", "return hA(x) + %d;" % round))
            process = self.run(root, "check", "--preamble=all", popen=True,
                               fault="delay:%d" % rng.randint(0, 80), match="/preambles/")
            time.sleep(rng.uniform(0.0, 0.35))
            if process.poll() is None:
                process.send_signal(signal.SIGKILL)
                process.wait()
                killed += 1
                in_write += bool(list((root / "cache" / "preambles").glob(".*")))
                # Whenever a run dies, every entry names a whole PCH (the
                # next run would repair a dangling one: look now).
                problems = store_problems(root / "cache" / "preambles")
                if problems:
                    raise RuntimeError("after kill %d: %s" % (killed, "; ".join(problems)))
            else:
                finished += 1
                stdout, stderr = process.communicate()
                if crashed(stderr) or (process.returncode, stdout) != self.check_reference():
                    raise RuntimeError("a run that finished: exit %d\n%s%s" % (
                        process.returncode, stdout, stderr[-2000:]))
            process.communicate()
        if killed < kills or in_write < kills // 6:
            raise RuntimeError("only %d kills landed, %d of them in a write into the store"
                               % (killed, in_write))
        (src / "a.cpp").write_text(SOURCES["a.cpp"])
        done = self.run(root, "check", "--preamble=all")
        self.expect_answer("the run after the kills", done)
        used, built, _, again = store_figures(done.stderr)
        if again:
            raise RuntimeError("the run after the kills parsed %d TUs again:\n%s"
                               % (again, done.stderr))
        self.store_usable("after the kills", root)
        self.figures["store kills"] = killed
        return ("%d kills (%d in a write into the store), %d runs finished first; no "
                "temporaries after the next run; every entry whole" % (killed, in_write, finished))

    def store_concurrent(self, rounds, runs=4):
        """runs check --preamble=all at once on one store and cache (renames
        into the store slowed down at random): each prints the answer."""
        rng = random.Random(99)
        for round in range(rounds):
            root = self.project("store-concurrent")
            if round % 2:
                # The store filled by a run on another h.h: each run finds
                # its preambles stale and builds them again at once.
                (root / "src" / "h.h").write_text(HEADER + "// before\n")
                self.run(root, "check", "--preamble=all")
                (root / "src" / "h.h").write_text(HEADER)
            processes = [self.run(root, "check", "--preamble=all", popen=True,
                                  fault="delay:%d" % rng.randint(0, 300), match="/preambles/")
                         for _ in range(runs)]
            for index, process in enumerate(processes):
                stdout, stderr = process.communicate(timeout=120)
                done = subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)
                self.expect_answer("round %d, run %d" % (round, index), done)
                if NOT_STORED in stderr or store_figures(stderr)[3]:
                    raise RuntimeError("round %d, run %d:\n%s" % (round, index, stderr))
            self.store_usable("round %d" % round, root)
        return "%d rounds of %d runs: each printed the answer; the store whole" % (rounds, runs)

    def store_deleted(self):
        """The store deleted (rm -rf) while a run is held up in a rename
        into it, and while a run reads it (held up in a result-cache write
        between its two TUs): the answer, no crash."""
        results = []
        for moment, match in (("writes it", "/preambles/."), ("reads it", "/cache/.")):
            root = self.project("store-deleted")
            store = root / "cache" / "preambles"
            if moment == "reads it":
                # A store of both TUs, and bodies changed so that the result
                # cache misses and the TUs are parsed on it.
                self.run(root, "check", "--preamble=all")
                for name in ("a.cpp", "b.cpp"):
                    path = root / "src" / name
                    path.write_text(path.read_text().replace("(x);", "(x) + 0;"))
            process = self.run(root, "check", "--preamble=all", "-j1", popen=True,
                               fault="delay:1500", match=match)
            directory = store if moment == "writes it" else root / "cache"
            wait_until(lambda: list(directory.glob(".*.apistamp-tmp-*")), process, 30,
                       "%s: the run never reached the rename" % moment)
            time.sleep(0.2)
            shutil.rmtree(store)
            stdout, stderr = process.communicate(timeout=60)
            done = subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)
            self.expect_answer("store deleted while a run " + moment, done)
            if temporaries(root):
                raise RuntimeError("%s: temporaries left: %s" % (moment, temporaries(root)))
            self.store_usable("deleted while a run " + moment, root)
            used, built, _, _ = store_figures(stderr)
            results.append("%s: %d on a preamble, %d built%s" % (
                moment, used, built, ", 'could not be stored'" if NOT_STORED in stderr else ""))
        return "; ".join(results)

    def store_prefix_replaced(self):
        """h.h replaced after a run's store lookup checked its bytes and
        before the parse read them (the run held up in that read): with the
        same size and its body moved, or longer. fix must fix the new h.h as
        a run without store does, not apply the PCH's offsets to the new
        bytes."""
        variants = (
            ("the same size, a body moved",
             HEADER.replace("(int x) { return x + 1; }", "(int x)  {return x + 1; }")),
            ("longer", "// edited\n" + HEADER),
        )
        results = []
        if len(variants[0][1]) != len(HEADER):
            raise RuntimeError("the first variant must keep h.h's size")
        for what, replacement in variants:
            reference = self.project("prefix-replaced-reference")
            (reference / "src" / "h.h").write_text(replacement)
            if self.run(reference, "fix", "--no-preamble", cache=False).returncode:
                raise RuntimeError("%s: the reference fix failed" % what)
            root = self.project("prefix-replaced")
            store = root / "store"
            env = {"APISTAMP_PREAMBLE_STORE": str(store)}
            self.run(root, "check", "--preamble=all", cache=False, env_extra=env)
            signal_file = self.work / "prefix-replaced.signal"
            signal_file.unlink(missing_ok=True)
            env["APISTAMP_FAULT_SIGNAL"] = str(signal_file)
            # The 1st open of h.h is the lookup's, the 2nd the parse's.
            process = self.run(root, "fix", "--preamble=all", "-j1", cache=False,
                               popen=True, fault="open-delay:1500:2", match="/src/h.h",
                               env_extra=env)
            wait_until(signal_file.exists, process, 30,
                       "%s: the run never read h.h twice" % what)
            replaced = root / "src" / "h.h.new"
            replaced.write_text(replacement)
            os.rename(replaced, root / "src" / "h.h")
            stdout, stderr = process.communicate(timeout=60)
            if crashed(stderr) or process.returncode != 0:
                raise RuntimeError("%s: fix exited %d:\n%s" % (
                    what, process.returncode, stderr[-3000:]))
            for name, text in snapshot(reference).items():
                if snapshot(root).get(name) != text:
                    raise RuntimeError("%s: %s is not what a run without store makes "
                                       "of the new h.h:\n%s" % (what, name, snapshot(root).get(name)))
            used, built, _, again = store_figures(stderr)
            if not again:
                raise RuntimeError("%s: the replacement was not in the window (no TU "
                                   "parsed again):\n%s" % (what, stderr[-2000:]))
            results.append("%s: %d TUs parsed again, the new h.h fixed" % (what, again))
        return "; ".join(results)

    def symlink_planted(self):
        """A directory of a source's path under the root (src/lib) swapped
        for a symbolic link to a copy outside the root while fix runs, at
        each of the opens of the source the run makes (the parse's, and the
        checks before the write): nothing outside the root is written, the
        run does not crash, and a run that succeeds wrote the file it parsed
        (its directory pinned: moved, not followed)."""
        results = []
        for n in range(1, 6):
            root = self.project("planted-%d" % n)
            lib = root / "src" / "lib"
            lib.mkdir()
            (lib / "a.cpp").write_text(
                (root / "src" / "a.cpp").read_text().replace('"h.h"', '"../h.h"'))
            outside = self.work / ("outside-%d" % n)
            shutil.rmtree(outside, ignore_errors=True)
            shutil.copytree(lib, outside)
            before = {p.name: p.read_bytes() for p in outside.iterdir()}
            signal_file = self.work / ("planted-%d.signal" % n)
            signal_file.unlink(missing_ok=True)
            process = self.run(root, "fix", cache=False, popen=True,
                               fault="open-delay:1000:%d" % n, match="/lib/a.cpp",
                               env_extra={"APISTAMP_FAULT_SIGNAL": str(signal_file)},
                               files=("lib/a.cpp",))
            while not signal_file.exists() and process.poll() is None:
                time.sleep(0.01)
            swapped = signal_file.exists()
            if swapped:
                os.rename(lib, root / "src" / "lib.moved")
                os.symlink(outside, lib)
            _, stderr = process.communicate(timeout=60)
            if crashed(stderr):
                raise RuntimeError("open %d: crashed:\n%s" % (n, stderr[-3000:]))
            after = {p.name: p.read_bytes() for p in outside.iterdir()}
            if after != before:
                raise RuntimeError("open %d: fix wrote outside the root (%s):\n%s" % (
                    n, sorted(set(after.items()) ^ set(before.items()))[0][0], stderr[-2000:]))
            if not swapped:
                results.append("%d opens of a.cpp" % (n - 1))
                break
            moved = (root / "src" / "lib.moved" / "a.cpp").read_text()
            if process.returncode == 0 and "C10_LOG_API_USAGE_ONCE" not in moved:
                raise RuntimeError("open %d: fix exited 0, and the file it parsed "
                                   "(its directory moved) is not fixed" % n)
            results.append("swapped at open %d: exit %d%s" % (
                n, process.returncode,
                ", the parsed file fixed where its directory went"
                if process.returncode == 0 else ""))
        if len(results) < 2:
            raise RuntimeError("the run never opened a.cpp: " + "; ".join(results))
        return "; ".join(results) + "; nothing written outside"

    def store_entry_swapped(self):
        """A store entry swapped (a PCH built from another h.h of the same
        size, a body moved; the entry's recorded hash of h.h forged to the
        current bytes'): check may take it, but fix's edits come from a
        parse made by the run (docs/reliability.md): the tree a run without
        store makes, and a warning that the two disagreed."""
        # The '{' a character earlier: the stale facts place the call before
        # the current '{' (a one-line body takes the call on its line, so a
        # brace moved the other way would give the same edit).
        other = HEADER.replace("(int x) { return x + 1; }", "(int x){ return x + 1;  }")
        if len(other) != len(HEADER):
            raise RuntimeError("the other h.h must keep h.h's size")
        reference = self.project("swapped-reference")
        if self.run(reference, "fix", "--no-preamble", cache=False).returncode:
            raise RuntimeError("the reference fix failed")
        root = self.project("swapped")
        (root / "src" / "h.h").write_text(other)
        self.run(root, "check", "--preamble=all")
        (root / "src" / "h.h").write_text(HEADER)
        # The current h.h's hash, as the result cache records it.
        for entry in (root / "cache").glob("*.json"):
            entry.unlink()
        self.run(root, "check", "--no-preamble")
        current = None
        for entry in (root / "cache").glob("*.json"):
            for path, digest in json.loads(entry.read_text())["deps"]:
                if path.endswith("/src/h.h"):
                    current = digest
        forged = 0
        for entry in (root / "cache" / "preambles").glob("*.json"):
            text = entry.read_text()
            for path, digest in json.loads(text)["files"]:
                if path.endswith("/src/h.h") and current:
                    entry.write_text(text.replace(digest, current))
                    forged += 1
        if not forged:
            raise RuntimeError("no entry of h.h to forge (its hash now: %s)" % current)
        for entry in (root / "cache").glob("*.json"):
            entry.unlink()
        done = self.run(root, "fix", "--preamble=all")
        if crashed(done.stderr) or done.returncode != 0:
            raise RuntimeError("fix exited %d:\n%s" % (done.returncode, done.stderr[-3000:]))
        for name, text in snapshot(reference).items():
            if snapshot(root).get(name) != text:
                raise RuntimeError("%s is not what a run without store makes:\n%s"
                                   % (name, snapshot(root).get(name)))
        if "proposed other edits than a fresh parse" not in done.stderr:
            raise RuntimeError("the disagreement was not reported:\n" + done.stderr[-2000:])
        used = store_figures(done.stderr)[0]
        return "%d TUs parsed on the swapped entry; the tree a run without store makes" % used

    def store_full_disk(self):
        """The cache directory (result cache and store) on a full tmpfs, and
        the store alone on a tmpfs smaller than a PCH: the answer, the
        warning, no temporary file on it."""
        mount = self.work / "store-tmpfs"
        mount.mkdir(parents=True, exist_ok=True)
        results = []
        for case, size in (("full", "256k"), ("smaller than a PCH", "128k")):
            mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=" + size, "tmpfs",
                                      str(mount)], capture_output=True, text=True)
            if mounted.returncode != 0:
                return "skipped: cannot mount a tmpfs here (%s)" % mounted.stderr.strip()
            try:
                for command in ("check", "fix"):
                    root = self.project("store-tmpfs-" + command)
                    if case == "full":
                        try:
                            with open(mount / "filler", "wb") as filler:
                                while True:
                                    filler.write(b"\0" * 4096)
                                    filler.flush()
                        except OSError:
                            pass  # Full.
                        done = self.run(root, command, cache=mount / "cache")
                    else:
                        done = self.run(root, command, cache=False, env_extra={
                            "APISTAMP_PREAMBLE_STORE": str(mount / "preambles")})
                    self.expect_answer("%s, %s tmpfs" % (command, case), done,
                                       root if command == "fix" else None)
                    if NOT_STORED not in done.stderr:
                        raise RuntimeError("%s, %s tmpfs: no warning:\n%s" % (
                            command, case, done.stderr))
                    left = [p.name for p in mount.rglob("*") if ".apistamp-tmp-" in p.name]
                    if left or temporaries(root):
                        raise RuntimeError("%s, %s tmpfs: temporaries left: %s" % (
                            command, case, left + temporaries(root)))
                    if store_problems(mount / "preambles") + store_problems(mount / "cache/preambles"):
                        raise RuntimeError("%s, %s tmpfs: %s" % (command, case, store_problems(
                            mount / "preambles") + store_problems(mount / "cache/preambles")))
                    for path in list(mount.iterdir()):
                        shutil.rmtree(path) if path.is_dir() else path.unlink()
                results.append("%s (%s)" % (case, size))
            finally:
                subprocess.run(["umount", str(mount)])
        return "check and fix on a tmpfs %s: the answer, the warning, no temporaries" % (
            " and ".join(results))


STORE_LINE = re.compile(r"apistamp: preamble store '[^']*': (\d+) TUs parsed on a "
                        r"preamble, (\d+) built by this run, (\d+) evicted"
                        r"(?:, (\d+) parsed again without one)?;")
NOT_STORED = "a preamble could not be stored"


def store_figures(stderr):
    """(on a preamble, built, evicted, parsed again) from --verbose."""
    found = STORE_LINE.findall(stderr)
    if len(found) != 1:
        raise RuntimeError("expected one 'preamble store' line:\n" + stderr[-2000:])
    return tuple(int(n or 0) for n in found[0])


def store_problems(store):
    """Entries of the store that are not JSON or name a PCH that is not
    there whole (its size; the hash is apistamp's to check)."""
    problems = []
    for entry in sorted(pathlib.Path(store).glob("*.json")):
        try:
            fields = json.loads(entry.read_text())
            pch = entry.parent / ("%s-%s.pch" % (entry.stem, fields["pchHash"]))
            size = fields["pchSize"]
        except (ValueError, KeyError, TypeError) as error:
            problems.append("%s: not an entry (%s)" % (entry.name, error))
            continue
        if not pch.exists():
            problems.append("%s names %s, which is missing" % (entry.name, pch.name))
        elif pch.stat().st_size != size:
            problems.append("%s names %s of %d bytes, it has %d" % (
                entry.name, pch.name, size, pch.stat().st_size))
    return problems


def crashed(stderr):
    return any(sign in stderr for sign in ("LLVM ERROR", "Stack dump", "PLEASE submit",
                                           "Segmentation fault", "Assertion"))


def wait_until(reached, process, seconds, failure):
    """Polls reached() while process runs; raises failure (with the
    process's stderr) if it ends or seconds pass first."""
    deadline = time.monotonic() + seconds
    while not reached():
        if process.poll() is not None or time.monotonic() > deadline:
            if process.poll() is None:
                process.kill()
            raise RuntimeError("%s:\n%s" % (failure, process.communicate()[1][-2000:]))
        time.sleep(0.01)


def snapshot(root):
    src = root / "src"
    return {p.name: p.read_bytes() for p in sorted(src.iterdir())
            if p.is_file() and ".apistamp-tmp-" not in p.name}


PROJECT_FILES = {".apistamp.yaml", "h.h", "log.h", *SOURCES}


def temporaries(root):
    """Files no one asked for: temporaries left beside the sources (whatever
    their name) or in the cache."""
    root = pathlib.Path(root)
    left = [p for p in root.rglob("*") if ".apistamp-tmp-" in p.name
            or ".temp-stream-" in p.name]
    if (root / "src").is_dir():
        left += [p for p in (root / "src").iterdir()
                 if p.name not in PROJECT_FILES]
    return sorted(set(str(p) for p in left))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--apistamp", required=True)
    parser.add_argument("--shim", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--junit")
    parser.add_argument("--kills", type=int, default=60)
    parser.add_argument("--race-rounds", type=int, default=5)
    parser.add_argument("--store-kills", type=int, default=30)
    parser.add_argument("--store-rounds", type=int, default=4)
    parser.add_argument("--only", help="run only the cases whose name holds this")
    args = parser.parse_args()
    args.apistamp = os.path.abspath(args.apistamp)
    args.shim = os.path.abspath(args.shim)
    suite = Suite(args)
    steps = Steps("fault-injection", independent=True)
    if args.only:  # For working on a case: the others are not run.
        run_step = steps.run
        steps.run = lambda name, case: run_step(name, case) if args.only in name else None
    write_faults = ["enospc", "enospc:7", "edquot", "eio", "eio:100", "short",
                    "eintr", "fsync-eio", "close-eio", "rename-eio"]
    for fault in write_faults:
        steps.run("source write: " + fault, lambda f=fault: suite.source_fault(f))
    for fault in ["enospc", "eio:3", "fsync-eio", "rename-eio"]:
        steps.run("cache write: " + fault, lambda f=fault: suite.cache_fault(f))
        steps.run("export-fixes write: " + fault, lambda f=fault: suite.export_fault(f))
    for fault in ["enospc", "eio:100", "short", "eintr", "fsync-eio", "rename-eio"]:
        steps.run("tu result write: " + fault, lambda f=fault: suite.tu_fault(f))
    for command in ("check", "fix"):
        for fault in ["enospc", "eio:100", "short", "eintr", "fsync-eio", "rename-eio"]:
            steps.run("preamble store write, %s: %s" % (command, fault),
                      lambda c=command, f=fault: suite.store_fault(c, f))
    for name, case in (("full disk (tmpfs)", suite.full_disk),
                       ("kill -9 loop", lambda: suite.kill_loop(args.kills)),
                       ("concurrent header race", lambda: suite.header_race(args.race_rounds)),
                       ("mode, owner, hard links", suite.mode_owner_links),
                       ("ACL and extended attributes", suite.acl_and_xattrs),
                       ("an editor saves during the rename", suite.editor_window),
                       ("a directory of a source's path swapped for a symlink out of "
                        "the root during fix", suite.symlink_planted),
                       ("preamble store: kill -9 loop over check --preamble=all",
                        lambda: suite.store_kill_loop(args.store_kills)),
                       ("preamble store: 4 concurrent runs share it",
                        lambda: suite.store_concurrent(args.store_rounds)),
                       ("preamble store: deleted during a run", suite.store_deleted),
                       ("preamble store: on a full tmpfs", suite.store_full_disk),
                       ("preamble store: a prefix file replaced after the lookup",
                        suite.store_prefix_replaced),
                       ("preamble store: an entry swapped, its hash forged",
                        suite.store_entry_swapped)):
        result = steps.run(name, case)
        if result:
            print("  " + result, flush=True)
    return steps.finish(args.junit)


if __name__ == "__main__":
    sys.exit(main())
