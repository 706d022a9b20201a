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
- mode, owner and hard links of the files written.
"""
import argparse
import os
import pathlib
import random
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
}


class Suite:
    def __init__(self, args):
        self.apistamp = args.apistamp
        self.shim = args.shim
        self.work = pathlib.Path(args.work).resolve()
        self.figures = {}

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
            files=("a.cpp", "b.cpp")):
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
        owner = None
        if os.geteuid() == 0:
            import pwd, grp
            owner = (pwd.getpwnam("nobody").pw_uid, grp.getgrnam("nogroup").gr_gid)
            os.chown(a, *owner)
        done = self.fix(root, files=("a.cpp", "b.cpp"))
        if done.returncode != 0:
            raise RuntimeError(done.stderr)
        if (os.stat(a).st_mode & 0o7777) != 0o640 or (os.stat(b).st_mode & 0o7777) != 0o755:
            raise RuntimeError("modes: %o %o" % (os.stat(a).st_mode, os.stat(b).st_mode))
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
            deadline = time.monotonic() + 20
            # The temporary exists once fix is about to rename it.
            while not list(a.parent.glob(".a.cpp.apistamp-tmp-*")):
                if run.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("fix never reached its rename: " + run.stderr.read())
                time.sleep(0.01)
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
    args = parser.parse_args()
    args.apistamp = os.path.abspath(args.apistamp)
    args.shim = os.path.abspath(args.shim)
    suite = Suite(args)
    steps = Steps("fault-injection", independent=True)
    write_faults = ["enospc", "enospc:7", "edquot", "eio", "eio:100", "short",
                    "eintr", "fsync-eio", "close-eio", "rename-eio"]
    for fault in write_faults:
        steps.run("source write: " + fault, lambda f=fault: suite.source_fault(f))
    for fault in ["enospc", "eio:3", "fsync-eio", "rename-eio"]:
        steps.run("cache write: " + fault, lambda f=fault: suite.cache_fault(f))
        steps.run("export-fixes write: " + fault, lambda f=fault: suite.export_fault(f))
    for name, case in (("full disk (tmpfs)", suite.full_disk),
                       ("kill -9 loop", lambda: suite.kill_loop(args.kills)),
                       ("concurrent header race", lambda: suite.header_race(args.race_rounds)),
                       ("mode, owner, hard links", suite.mode_owner_links),
                       ("ACL and extended attributes", suite.acl_and_xattrs),
                       ("an editor saves during the rename", suite.editor_window)):
        result = steps.run(name, case)
        if result:
            print("  " + result, flush=True)
    return steps.finish(args.junit)


if __name__ == "__main__":
    sys.exit(main())
