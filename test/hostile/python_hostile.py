#!/usr/bin/env python3
"""Hostile inputs to the Python front end: tampered cache entries, file
names, sources. The Python counterpart of cache_and_names.py; its hostile
rules files are in test/hostile/rules/python-*.yaml (run-rules-corpus.py).

Cache entries (untrusted: CI caches are shared). A Python entry is used only
when deciding it changes nothing; a file that needs an edit is parsed
afresh. Each case tampers with a valid entry of the project below, then runs
`check` (its exit code and report must be those of a --no-cache check) and
`fix` (exit 0 and exactly the tree a --no-cache fix writes, the canary
outside the root untouched).

File names: modules named with spaces, non-ASCII letters, quotes (fixed, as
any module), a leading dash, a newline, a CR (not module names: skipped,
exit 0, untouched), and directories so named.

Sources: deep nesting, a 1 MB line, NUL bytes, lone CR line ends, a FIFO, an
unreadable file, a directory named m.py, a BOM with a latin-1 cookie: no
signal, no hang, `FILE:LINE:COL: error:` and exit 3 (or a skip, exit 0),
nothing written to the file, the other modules still fixed.
"""
import argparse
import json
import re
import os
import pathlib
import resource
import shutil
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "realworld"))
from realworld import Steps  # noqa: E402

TIMEOUT = 60
MEMORY = 4 << 30  # address space per run: a quadratic blow-up fails, not the machine
RULES = """version: 1
python:
  path: ["."]
rules:
  - id: funcs
    language: python
    where: function
    modules: ["pkg.**"]
    call: "_log_api_usage_once({name})"
    import: "from pkg.utils import _log_api_usage_once"
"""
UTILS = "def _log_api_usage_once(obj):\n    pass\n"
# m.py needs an edit (f); n.py does not (its entry is a hit).
MODULE_M = ("import os\n\n\ndef f(x):\n    return x\n\n\n"
            "def g(y):\n    _log_api_usage_once(g)\n    return y\n")
MODULE_N = ("from pkg.utils import _log_api_usage_once\n\n\n"
            "def h(z):\n    _log_api_usage_once(h)\n    return z\n")
CANARY = "def secret(x):\n    return x\n"


def limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def apistamp(root, command, *extra, files=("pkg",), timeout=TIMEOUT, user=()):
    """Runs apistamp in root (as `user`, a setpriv prefix, if given); a
    timeout, a signal or more than MEMORY of address space is an error."""
    try:
        done = subprocess.run(
            [*user, APISTAMP, command, "--rules", "rules.yaml", "--root", ".",
             *extra, *files],
            cwd=root, capture_output=True, timeout=timeout, preexec_fn=limit_memory)
    except subprocess.TimeoutExpired:
        raise RuntimeError("%s %s timed out after %d s" % (command, " ".join(files), timeout))
    if done.returncode < 0 or b"std::bad_alloc" in done.stderr:
        raise RuntimeError("%s killed by signal %d (address space limited to %d GiB): %r" % (
            command, -done.returncode, MEMORY >> 30, done.stderr[-400:]))
    return done


def project(work, name, modules=None):
    """work/name/root is the root; work/name/canary.py is outside it."""
    base = work / name
    shutil.rmtree(base, ignore_errors=True)
    root = base / "root"
    (root / "pkg").mkdir(parents=True)
    (root / "rules.yaml").write_text(RULES)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "utils.py").write_text(UTILS)
    for module, text in (modules or {"m.py": MODULE_M, "n.py": MODULE_N}).items():
        path = root / "pkg" / module
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text if isinstance(text, bytes) else text.encode())
    (base / "canary.py").write_text(CANARY)
    return root


def tree(root):
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and "cache" not in p.relative_to(root).parts}


def summary(done):
    """The report check prints (stdout), which a cache must not change."""
    return done.returncode, done.stdout


# ---------------------------------------------------------------- the cache


def entries(cache):
    """{module file name: (entry path, entry)} of the cache's Python entries."""
    found = {}
    for path in cache.glob("*.json"):
        entry = json.loads(path.read_text())
        for candidate in entry.get("candidates", []):
            found[os.path.basename(candidate["file"])] = (path, entry)
    return found


def candidate(entry, name):
    return next(c for c in entry["candidates"] if c["facts"]["name"] == name)


def forged_call(entry):
    """f's entry claims the call f lacks: one at the offset of 'return x',
    its statement the line, as a real call is stored."""
    text = MODULE_M
    line = text.index("    return x")
    call = {"argBegin": text.index("x", line + 4), "argEnd": text.index("x", line + 4) + 1,
            "event": "pkg.m.f", "functionCall": False, "guarded": False,
            "hasArg": True, "offset": line + 4, "statementBegin": line,
            "statementEnd": text.index("\n", line) + 1}
    candidate(entry, "f")["calls"] = [call]


def forged_call_on_callee(entry):
    """f's entry claims g's real call (on the callee's name) as its own."""
    candidate(entry, "f")["calls"] = list(candidate(entry, "g")["calls"])


def outside_root(entry, other, base):
    """n.py's entry gains a candidate in the canary outside the root, and
    the canary (with a valid hash) as a dependency."""
    canary = str(base / "canary.py")
    s = json.loads(json.dumps(candidate(entry, "h")))
    s["file"] = canary
    s["facts"]["path"] = "../canary.py"
    s["facts"]["declaredIn"] = ["../canary.py"]
    s["calls"] = []
    entry["candidates"].append(s)
    entry["deps"].append([canary, canary_hash(base.parent)])


def offsets_past_end(entry):
    c = candidate(entry, "h")
    for call in c["calls"]:
        for key in ("offset", "argBegin", "argEnd", "statementBegin", "statementEnd"):
            call[key] += 10**9
    c["offset"] = 10**9
    for key in ("firstAfterDoc", "firstAfterSuper", "insertAfterDoc",
                "insertAfterSuper", "importOffset"):
        c["python"][key] = 10**9


def swapped(entry, other, base):
    """The entry of another file (n.py's, a hit) under m.py's key."""
    return json.dumps(other)


CACHE_CASES = {
    # name: (the module whose entry is tampered, mutate)
    # mutate(entry, other module's entry, the project's directory) changes
    # the entry in place or returns the bytes to write instead. check must
    # say what a --no-cache check says, the tampered entry must be a miss
    # and the untouched ones hits (so that the lookup itself was tried).
    "a forged call hides f's missing one (at 'return x')":
        ("m.py", lambda e, o, b: forged_call(e)),
    "a forged call hides f's missing one (g's call, on the callee's name)":
        ("m.py", lambda e, o, b: forged_call_on_callee(e)),
    "offsets past the end of the file": ("n.py", lambda e, o, b: offsets_past_end(e)),
    "truncated JSON": ("n.py", lambda e, o, b: json.dumps(e)[:len(json.dumps(e)) // 2]),
    "garbage bytes": ("n.py", lambda e, o, b: "\x00\udcff{\"deps\":"),
    "an empty file": ("m.py", lambda e, o, b: ""),
    "brackets nested 200,000 deep": ("n.py", lambda e, o, b: "[" * 200000 + "]" * 200000),
    "objects nested 100,000 deep in a candidate": (
        "n.py", lambda e, o, b: json.dumps(e).replace(
            '"suppression": null', '"suppression": ' + '{"a":' * 100000 + "1" + "}" * 100000,
            1)),
    "n.py's entry under m.py's key": ("m.py", swapped),
    "m.py's entry under n.py's key": ("n.py", swapped),
    "a module name of another package": ("n.py", lambda e, o, b: [
        c["facts"].__setitem__("module", "other.n") or c["python"].__setitem__("module", "other.n")
        for c in e["candidates"]] and None),
    "a candidate in a file outside the root": ("n.py", outside_root),
    "no dependencies": ("n.py", lambda e, o, b: e.__setitem__("deps", [])),
    "a 10 MB name": ("n.py", lambda e, o, b: candidate(e, "h")["facts"].__setitem__(
        "name", "h" * 10_000_000)),
}



# A warm check of the project: pkg/__init__.py, utils.py and n.py are hits;
# m.py, which lacks a call, is a miss (an edit is needed: parsed afresh).
WARM_HITS = {"__init__.py", "utils.py", "n.py"}


def check_cache_case(name, module, mutate, work, reference):
    root = project(work, "cache-" + str(abs(hash(name)) % 10**8))
    cache = root.parent / "cache"
    first = apistamp(root, "check", "--cache-dir", str(cache))
    if first.returncode != 1:
        raise RuntimeError("check before tampering: %d %r" % (first.returncode, first.stderr))
    found = entries(cache)
    path, entry = found[module]
    other = found["n.py" if module == "m.py" else "m.py"][1]
    replaced = mutate(entry, other, root.parent)
    path.write_bytes((replaced if replaced is not None else json.dumps(entry))
                     .encode("utf-8", "surrogateescape"))
    # check and fix each on their own copy of the tampered cache (a miss
    # stores a fresh entry).
    shutil.copytree(cache, root.parent / "cache-fix")
    checked = apistamp(root, "check", "--cache-dir", str(cache))
    problems = []
    hits = re.search(rb"cache: (\d+) hits", checked.stderr)
    expected_hits = len(WARM_HITS - {module})
    if not hits or int(hits.group(1)) != expected_hits:
        problems.append("check: %s cache hits, expected %d (the untouched entries, "
                        "not %s's): %r" % (hits.group(1).decode() if hits else "no",
                                           expected_hits, module, checked.stderr[-300:]))
    if summary(checked) != REFERENCE_CHECK:
        problems.append("check: exit %d, report %r; a --no-cache check: exit %d, report %r" % (
            checked.returncode, checked.stdout[-300:], REFERENCE_CHECK[0],
            REFERENCE_CHECK[1][-300:]))
    fixed = apistamp(root, "fix", "--cache-dir", str(root.parent / "cache-fix"))
    if fixed.returncode != 0:
        problems.append("fix: exit %d: %r" % (fixed.returncode, fixed.stderr[-400:]))
    if tree(root) != reference:
        diff = sorted(k for k in set(tree(root)) | set(reference)
                      if tree(root).get(k) != reference.get(k))
        problems.append("fix: the tree differs from a --no-cache fix's in %s" % diff)
    if (root.parent / "canary.py").read_text() != CANARY:
        problems.append("fix wrote the canary outside the root")
    if problems:
        raise RuntimeError("; ".join(problems))


_CANARY_HASH = {}


def canary_hash(work):
    """A valid hash of the canary's bytes, from an entry of a project whose
    module is the canary (an attacker knows its bytes)."""
    if "h" not in _CANARY_HASH:
        root = project(work, "canary-hash", {"c.py": CANARY})
        apistamp(root, "check", "--cache-dir", str(root.parent / "cache"))
        path, entry = entries(root.parent / "cache")["c.py"]
        _CANARY_HASH["h"] = next(h for f, h in entry["deps"] if f.endswith("/c.py"))
    return _CANARY_HASH["h"]


# ---------------------------------------------------------------- file names

# name -> is it a module (fixed) or not (skipped, untouched)
NAMES = {
    "a space": ("with space.py", False),
    "non-ASCII letters": ("café.py", True),
    "non-ASCII letters (NFD)": ("cafe\u0301.py", None),
    "a leading dash": ("-x.py", False),
    "a newline": ("new\nline.py", False),
    "a carriage return": ("car\rriage.py", False),
    "a double quote": ('quo"te.py', False),
    "a single quote": ("quo'te.py", False),
    "shell syntax": ("$(touch PWNED).py", False),
    "a directory with a space": ("my dir/m.py", False),
    "a directory with a leading dash": ("-d/m.py", False),
    "a directory with a newline": ("d\nx/m.py", False),
    "a non-ASCII directory": ("paquet_é/m.py", True),
}



def check_name_case(label, name, is_module, work):
    root = project(work, "name-" + str(abs(hash(label)) % 10**8),
                   {name: "def f(x):\n    return x\n"})
    path = root / "pkg" / name
    before = path.read_bytes()
    problems = []
    # Named as a directory, and named as the file.
    for files in (["pkg"], ["pkg/" + name]):
        check = apistamp(root, "check", "--no-cache", *[], files=files)
        if is_module is None:  # Python's own verdict decides
            is_module = all(part.isidentifier() for part in
                            pathlib.PurePosixPath(name).with_suffix("").parts)
        want = 1 if is_module else 0
        if check.returncode != want:
            problems.append("check %s: exit %d, expected %d: %r" % (
                files, check.returncode, want, (check.stdout + check.stderr)[-400:]))
        if b"error" in check.stderr:
            problems.append("check %s: an error: %r" % (files, check.stderr[-400:]))
    fixed = apistamp(root, "fix", "--no-cache")
    if fixed.returncode != 0:
        problems.append("fix: exit %d: %r" % (fixed.returncode, fixed.stderr[-400:]))
    after = path.read_bytes()
    if is_module and b"    _log_api_usage_once(f)\n" not in after:
        problems.append("fix did not instrument the module: %r" % after)
    if not is_module and after != before:
        problems.append("fix wrote a file that is not a module: %r" % after)
    if (root / "PWNED").exists() or (pathlib.Path.cwd() / "PWNED").exists():
        problems.append("a shell ran the file name")
    if problems:
        raise RuntimeError("; ".join(problems))


# ---------------------------------------------------------------- sources

GOOD = "def ok(x):\n    return x\n"


def nested_parens(n):
    return "def f(x):\n    return " + "(" * n + "x" + ")" * n + "\n"


def attribute_base(n):
    return "class C(" + ".".join(["a"] * n) + "):\n    def __init__(self):\n        pass\n"


def attribute_decorator(n):
    return "@" + ".".join(["a"] * n) + "\ndef f(x):\n    return x\n"


def nested_ifs(n):
    lines = ["def f(x):"]
    for depth in range(n):
        lines.append(" " * (depth + 1) + "if x:")
    lines.append(" " * (n + 1) + "return x")
    return "\n".join(lines) + "\n"


IMPORT = b"from pkg.utils import _log_api_usage_once"
CALL = b"    _log_api_usage_once(f)"


def instrumented(content, newline=b"\n", head=b""):
    """content (bytes) as fix writes it: the import before the first
    statement (after `head`, a BOM or a cookie), the call first in f."""
    content = content.encode() if isinstance(content, str) else content
    assert content.startswith(head)
    body = content[len(head):]
    definition = body.index(b"def f(x):" + newline) + len(b"def f(x):" + newline)
    return (head + IMPORT + newline + body[:definition] + CALL + newline +
            body[definition:])


LATIN1_BOM = b"\xef\xbb\xbf# -*- coding: latin-1 -*-\n"
# name -> (bytes of pkg/m.py, expectation, what fix writes if "fixed")
# expectation: "error" (exit 3, FILE:LINE:COL: error: first, the 'failed to
# parse' line, m.py untouched), "fixed" (exit 0, m.py is exactly the bytes
# given; a second fix changes nothing). good.py is fixed in every case.
SOURCES = {
    # CPython refuses more than 200 nested parentheses; apistamp's parser
    # reads them, and the call goes in as in any function.
    "50,000 nested parentheses":
        (nested_parens(50000), "fixed", instrumented(nested_parens(50000))),
    "a 100,000-long attribute chain as a base class":
        (attribute_base(100000) + "\n\ndef f(x):\n    return x\n", "fixed",
         instrumented(attribute_base(100000) + "\n\ndef f(x):\n    return x\n")),
    "a 100,000-long attribute chain as a decorator":
        (attribute_decorator(100000), "fixed", instrumented(attribute_decorator(100000))),
    # CPython stops at 100 levels of indentation ("too many levels").
    "10,000 nested if blocks": (nested_ifs(10000), "error", None),
    "a 1 MB single line":
        ("def f(x):\n    return '" + "x" * 1_000_000 + "'\n", "fixed",
         instrumented("def f(x):\n    return '" + "x" * 1_000_000 + "'\n")),
    "NUL bytes": (b"def f(x):\n    return x\x00\n", "error", None),
    "a NUL byte in a string": (b"def f(x):\n    return '\x00'\n", "error", None),
    # Python reads a lone CR as a line break; what is written keeps the
    # file's line breaks (docs/rules.md).
    "lone CR line ends": (b"def f(x):\r    return x\r", "fixed",
                          instrumented(b"def f(x):\r    return x\r", b"\r")),
    # CPython refuses a BOM with a cookie naming another encoding ("encoding
    # problem: iso-8859-1 with BOM"). apistamp reads such a file as UTF-8
    # (the BOM wins): ASCII bytes are fixed, a latin-1 byte is refused.
    "a UTF-8 BOM and a latin-1 coding cookie, ASCII":
        (LATIN1_BOM + b"def f(x):\n    return x\n", "fixed",
         instrumented(LATIN1_BOM + b"def f(x):\n    return x\n", head=LATIN1_BOM)),
    "a UTF-8 BOM and a latin-1 coding cookie, a latin-1 byte":
        (LATIN1_BOM + b"def f(x):\n    return 'caf\xe9'\n", "error", None),
}


def check_source_case(label, content, expect, written, work):
    root = project(work, "source-" + str(abs(hash(label)) % 10**8),
                   {"m.py": content, "good.py": GOOD})
    path = root / "pkg" / "m.py"
    before = path.read_bytes()
    problems = []
    try:
        done = apistamp(root, "fix", "--no-cache")
    except RuntimeError as error:
        done = None
        problems.append(str(error))
    after = path.read_bytes()
    if done and "_log_api_usage_once(ok)" not in (root / "pkg" / "good.py").read_text():
        problems.append("good.py was not fixed")
    if done and expect == "error":
        stderr = done.stderr.decode("utf-8", "replace")
        first = stderr.splitlines()[:1]
        if done.returncode != 3:
            problems.append("exit %d, expected 3: %r" % (done.returncode, stderr[-300:]))
        if not first or not first[0].startswith(str(path) + ":") or \
                ": error: " not in first[0] or \
                not first[0][len(str(path)) + 1:].split(":")[0].isdigit():
            problems.append("no FILE:LINE:COL: error: first: %r" % stderr[:300])
        if "'pkg/m.py' failed to parse" not in stderr:
            problems.append("no 'failed to parse' line: %r" % stderr[-300:])
        if after != before:
            problems.append("m.py was written")
    elif done:
        if done.returncode != 0:
            problems.append("exit %d, expected 0: %r" % (done.returncode, done.stderr[-300:]))
        if after != written:
            problems.append("m.py is not what fix should write (%r...)" % after[:200])
        again = apistamp(root, "fix", "--no-cache")
        if again.returncode != 0 or path.read_bytes() != after:
            problems.append("a second fix changed m.py or exited %d" % again.returncode)
    if problems:
        raise RuntimeError("; ".join(problems))


def special_file(label, make, expect_exit, expect_stderr, work, user=()):
    """m.py is not a regular readable file: a FIFO, unreadable, a directory.
    fix runs on the package (a walk), then on it and m.py named; expect_exit
    and expect_stderr (text stderr holds, or None: no error) say each."""
    root = project(work, "special-" + str(abs(hash(label)) % 10**8), {"good.py": GOOD})
    path = root / "pkg" / "m.py"
    make(path)
    if user:
        subprocess.run(["chown", "-R", "nobody:", str(root.parent)], check=True)
    problems = []
    for files in (["pkg"], ["pkg", "pkg/m.py"]):
        done = apistamp(root, "fix", "--no-cache", files=files, timeout=30, user=user)
        stderr = done.stderr.decode("utf-8", "replace")
        want = expect_exit[len(files) - 1]
        if done.returncode != want:
            problems.append("fix %s: exit %d, expected %d: %r" % (
                files, done.returncode, want, stderr[-400:]))
        wanted = expect_stderr[len(files) - 1]
        if wanted and wanted not in stderr:
            problems.append("fix %s: stderr lacks %r: %r" % (files, wanted, stderr[-400:]))
        if not wanted and "error" in stderr:
            problems.append("fix %s: an error: %r" % (files, stderr[-400:]))
    if "_log_api_usage_once(ok)" not in (root / "pkg" / "good.py").read_text():
        problems.append("good.py was not fixed")
    if problems:
        raise RuntimeError("; ".join(problems))


def main():
    global APISTAMP, REFERENCE_CHECK
    parser = argparse.ArgumentParser()
    parser.add_argument("--apistamp", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--junit")
    args = parser.parse_args()
    APISTAMP = os.path.abspath(args.apistamp)
    work = pathlib.Path(args.work).resolve()
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    steps = Steps("hostile-python", independent=True)

    reference_root = project(work, "reference")
    REFERENCE_CHECK = summary(apistamp(reference_root, "check", "--no-cache"))
    done = apistamp(reference_root, "fix", "--no-cache")
    if done.returncode != 0 or REFERENCE_CHECK[0] != 1:
        print("reference runs failed: %r %r" % (REFERENCE_CHECK, done.stderr))
        return 1
    reference = tree(reference_root)
    for name, (module, mutate) in CACHE_CASES.items():
        steps.run("python cache: " + name,
                  lambda n=name, mod=module, m=mutate:
                  check_cache_case(n, mod, m, work, reference))
    for label, (name, is_module) in NAMES.items():
        steps.run("python file name with " + label,
                  lambda l=label, n=name, m=is_module: check_name_case(l, n, m, work))
    for label, (content, expect, written) in SOURCES.items():
        steps.run("python source: " + label,
                  lambda l=label, c=content, e=expect, w=written:
                  check_source_case(l, c, e, w, work))
    # A FIFO is no regular file: a walk passes it by; named, it is "no such
    # file" (exit 2). Opening it would block until a writer came.
    steps.run("python source: a FIFO named m.py", lambda: special_file(
        "fifo", lambda p: os.mkfifo(p), (0, 2), (None, "error: no such file: 'pkg/m.py'"),
        work))
    # A directory named as a source is walked: m.py/ holds nothing.
    steps.run("python source: a directory named m.py", lambda: special_file(
        "dir", lambda p: p.mkdir(), (0, 0), (None, None), work))
    # An unreadable module is a failed TU (exit 3), the others fixed. Root
    # reads a mode-000 file: as root the case runs as nobody (setpriv).
    unreadable = "python source: an unreadable m.py (chmod 000)"
    user = ()
    if os.geteuid() == 0:
        user = ("setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups")
        if not shutil.which("setpriv"):
            user = None
    if user is None:
        steps.skip(unreadable, "running as root, which reads a mode-000 file, "
                               "and no setpriv to run as nobody")
    else:
        steps.run(unreadable, lambda: special_file(
            "unreadable", lambda p: (p.write_text(GOOD), p.chmod(0)), (3, 3),
            ("m.py: error: cannot read: Permission denied",) * 2, work, user))
    return steps.finish(args.junit)


if __name__ == "__main__":
    sys.exit(main())
