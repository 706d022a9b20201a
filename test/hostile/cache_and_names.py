#!/usr/bin/env python3
"""Hostile cache entries and file names: apistamp must neither crash, nor
write outside the root, nor write anything but the events its rules make.

Cache entries are untrusted input (CI caches are shared): each case tampers
with a valid entry, then runs `fix`; the expected outcome is exit 0 with
exactly the tree a run without a cache produces, and the canary file outside
the root untouched.

File names: sources whose names hold a newline, CR, a trigraph, quotes,
backslashes, shell syntax, a leading dash or non-ASCII letters, with the
event template "{path}.{name}": fix exits 0, the file compiles with
-trigraphs in C++14 and C++17, and the literal written means exactly the
event (checked by the compiler, byte by byte).
"""
import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "realworld"))
from realworld import Steps  # noqa: E402

RULES = """version: 1
include: "log.h"
rules:
  - id: lib
    namespace: lib
    event: "{path}.{name}"
"""
LOG = "#pragma once\n#define C10_LOG_API_USAGE_ONCE(e) ((void)(e))\n"
SOURCE = "namespace lib {\nint f(int x) { return x + 1; }\n}\n"
CANARY = "namespace lib {\nint secret(int x) { return x; }\n}\n"


def run(apistamp, root, *extra, files=("a.cpp",)):
    return subprocess.run(
        [apistamp, "fix", *extra, *[str(root / "src" / f) for f in files],
         "--", "-std=c++17", "-I" + str(root / "src")],
        capture_output=True)


def project(work, name, files=("a.cpp",)):
    root = work / name
    shutil.rmtree(root, ignore_errors=True)
    (root / "src").mkdir(parents=True)
    (root / "src" / ".apistamp.yaml").write_text(RULES)
    (root / "src" / "log.h").write_text(LOG)
    for file in files:
        (root / "src" / file).write_text(SOURCE)
    (root / "canary.cpp").write_text(CANARY)
    return root


def tree(root):
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and "cache" not in p.parts}


def xxh_of_canary(root):
    """An attacker knows the canary's bytes: borrow a valid hash of them from
    an entry of a project whose source is the canary."""
    other = project(root.parent, root.name + "-canary")
    (other / "src" / "a.cpp").write_text(CANARY)
    run(APISTAMP, other, "--cache-dir", str(other / "cache"))
    entry = json.loads(next((other / "cache").glob("*.json")).read_text())
    return next(h for f, h in entry["deps"] if f.endswith("/a.cpp"))


def tamper_cases(root):
    canary = str(root / "canary.cpp")
    canary_hash = xxh_of_canary(root)

    def site(entry):
        return entry["candidates"][0]

    def outside_root(entry):
        entry["deps"].append([canary, canary_hash])
        s = json.loads(json.dumps(site(entry)))
        s["file"] = canary
        s["facts"]["path"] = "../canary.cpp"
        s["body"] = {"decl": 16, "lbrace": CANARY.index("{ return"),
                     "rbrace": CANARY.index("; }") + 2}
        entry["candidates"].append(s)

    def edits_outside_root(entry):
        # An edit as entries once stored them, applied verbatim.
        entry["deps"].append([canary, canary_hash])
        site(entry)["edits"] = [[canary, 0, 0, "owned();"]]

    def deep(entry):
        return "[" * 200000 + "]" * 200000

    return {
        "a site in a file outside the root": outside_root,
        "brackets nested 200,000 deep": deep,
        "a dependency without a hash": lambda e: e["deps"][0].__setitem__(1, None),
        "no dependencies": lambda e: e.__setitem__("deps", []),
        "body offsets past the end": lambda e: site(e)["body"].__setitem__("rbrace", 10**9),
        "body not on braces": lambda e: site(e)["body"].__setitem__("lbrace", 0),
        "a call outside its body": lambda e: site(e)["calls"].append(
            {"offset": 0, "event": "x", "hasArg": True, "argBegin": 0, "argEnd": 999}),
        "numbers as strings": lambda e: site(e).__setitem__("offset", "16"),
        "a negative offset": lambda e: site(e).__setitem__("line", -1),
        # Statuses and edits are not stored: a shape out of range is.
        "a body shape out of range": lambda e: site(e).__setitem__("shape", 99),
        # A call where clang's lexer finds no macro name (it rewrote "return").
        "a call where the macro is not": lambda e: site(e)["calls"].append(
            {"offset": SOURCE.index("return"), "event": "x", "hasArg": True,
             "argBegin": SOURCE.index("return") + 7,
             "argEnd": SOURCE.index("return") + 8, "functionCall": False}),
        # Matching brace tokens, but no function's body: the namespace's.
        "a body on a namespace's braces": lambda e: site(e).__setitem__(
            "body", {"decl": 0, "lbrace": SOURCE.index("{"),
                     "rbrace": SOURCE.rindex("}")}),
        "a 10 MB string": lambda e: site(e).__setitem__("name", "x" * 10_000_000),
        "stored edits that write outside the root": edits_outside_root,
        "not JSON": lambda e: "\x00\xff{",
        "an empty file": lambda e: "",
    }


def check_cache_case(name, mutate, work, reference):
    root = project(work, "cache-" + str(abs(hash(name)) % 10**8))
    cache = root / "cache"
    first = subprocess.run([APISTAMP, "check", "--cache-dir", str(cache),
                            str(root / "src" / "a.cpp"), "--", "-std=c++17",
                            "-I" + str(root / "src")], capture_output=True)
    if first.returncode != 1:
        raise RuntimeError("check before tampering: %d %s" % (first.returncode, first.stderr))
    entry_path = next(cache.glob("*.json"))
    entry = json.loads(entry_path.read_text())
    replaced = mutate(entry)
    entry_path.write_bytes((replaced if replaced is not None else json.dumps(entry))
                           .encode("utf-8", "surrogateescape"))
    done = run(APISTAMP, root, "--cache-dir", str(cache))
    if done.returncode != 0:
        raise RuntimeError("exit %d: %s" % (done.returncode, done.stderr[-500:]))
    if tree(root) != reference:
        raise RuntimeError("the tree differs from a run without the cache")


# Facts an attacker forges so that they pass every check of an entry: a
# definition whose "body" is an if block (its first statement a call written
# by hand), a namespace changed, a file reached through a symlink inside the
# root that points outside it. The entry's parse proposes edits a fresh
# parse does not: fix and merge --fix must write the fresh parse's edits
# alone (the tree a run without the cache makes) and say that they
# disagreed.
FORGED_SOURCE = """#include "log.h"
namespace lib {
int f(int x) {
  if (x) {
    C10_LOG_API_USAGE_ONCE("handplaced.if");
    x++;
  }
  return x + 1;
}
}
"""


def forged_cases(root):
    canary = root / "canary.cpp"
    canary_hash = xxh_of_canary(root)

    def candidate(entry):
        return next(c for c in entry["candidates"] if c["name"] == "lib::f")

    def if_block_as_body(entry):
        forged = json.loads(json.dumps(candidate(entry)))
        text = FORGED_SOURCE
        decl = text.index("if (x)")
        call = text.index("C10_LOG_API_USAGE_ONCE")
        forged.update({
            "offset": decl, "line": text.count("\n", 0, decl) + 1, "column": 3,
            "name": "other::evil",
            "body": {"decl": decl, "lbrace": text.index("{", decl),
                     "rbrace": text.index("}", decl)},
            "calls": [{"offset": call, "event": "handplaced.if", "hasArg": True,
                       "argBegin": call + 23, "argEnd": text.index(")", call),
                       "functionCall": False, "macro": "", "guarded": False,
                       "statementBegin": 0, "statementEnd": 0}]})
        forged["facts"].update({"name": "evil", "namespaces": ["other"]})
        entry["candidates"].append(forged)

    def name_changed(entry):
        candidate(entry)["facts"]["name"] = "g"
        candidate(entry)["name"] = "lib::g"

    def through_a_symlink(entry):
        link = root / "src" / "link.h"
        link.unlink(missing_ok=True)
        link.symlink_to(canary)
        forged = json.loads(json.dumps(candidate(entry)))
        forged["file"] = forged["file"][:-len("a.cpp")] + "link.h"
        forged["facts"]["path"] = forged["facts"]["path"][:-len("a.cpp")] + "link.h"
        forged["offset"] = 16
        forged["body"] = {"decl": 16, "lbrace": CANARY.index("{ return"),
                          "rbrace": CANARY.index("; }") + 2}
        forged["calls"] = []
        entry["candidates"].append(forged)
        if "deps" in entry:  # a cache entry
            entry["deps"].append([str(link), canary_hash])
            entry["deps"].sort()
        else:  # a tu result
            entry["files"][forged["file"]] = canary_hash

    return {
        "an if block passed off as a body": if_block_as_body,
        "a name changed": name_changed,
        "a file through a symlink to outside the root": through_a_symlink,
    }


def forged_project(work, name):
    root = project(work, name)
    (root / "src" / "a.cpp").write_text(FORGED_SOURCE)
    build = root / "build"
    build.mkdir()
    (build / "compile_commands.json").write_text(json.dumps([{
        "directory": str(root), "file": "src/a.cpp",
        "arguments": ["clang++", "-std=c++17", "-Isrc", "-c", "src/a.cpp"]}]))
    return root


def check_forged(root, reference, done, canary_before):
    if done.returncode != 0:
        raise RuntimeError("exit %d: %s" % (done.returncode, done.stderr[-500:]))
    if (root / "canary.cpp").read_bytes() != canary_before:
        raise RuntimeError("the file outside the root was written")
    if {k: v for k, v in tree(root).items()
            if not k.startswith(("build", "res", "src/link.h"))} != reference:
        raise RuntimeError("the tree differs from a run without the cache")
    if b"proposed other edits than a fresh parse" not in done.stderr:
        raise RuntimeError("the disagreement was not reported: %s" % done.stderr[-500:])


def check_forged_cache_case(name, work, reference):
    root = forged_project(work, "forged-cache-" + str(abs(hash(name)) % 10**8))
    mutate = forged_cases(root)[name]
    cache = root / "cache"
    first = subprocess.run([APISTAMP, "check", "-p", str(root / "build"),
                            "--cache-dir", str(cache)], capture_output=True)
    if first.returncode != 1:
        raise RuntimeError("check before forging: %d %s" % (first.returncode, first.stderr))
    entry_path = next(cache.glob("*.json"))
    original = entry_path.read_text()
    entry = json.loads(original)
    mutate(entry)
    entry_path.write_text(json.dumps(entry))
    # The forged entry is a hit: check takes it (it may decide that nothing
    # needs to change) ...
    hit = subprocess.run([APISTAMP, "check", "-p", str(root / "build"), "--verbose",
                          "--cache-dir", str(cache)], capture_output=True)
    if b"cache: 1 hits" not in hit.stderr:
        raise RuntimeError("the forged entry is not used: %s" % hit.stderr[-500:])
    # ... but diff parses again and stores the facts of that parse: the
    # repaired entry answers as a parse does,
    subprocess.run([APISTAMP, "diff", "-p", str(root / "build"), "--cache-dir", str(cache)],
                   capture_output=True)
    cached, cold = (subprocess.run([APISTAMP, "check", "-p", str(root / "build"), *extra],
                                   capture_output=True)
                    for extra in (["--cache-dir", str(cache)], ["--no-cache"]))
    if (cached.returncode, cached.stdout) != (cold.returncode, cold.stdout):
        raise RuntimeError("the repaired entry answers otherwise: %s against %s" % (
            cached.stdout[-300:], cold.stdout[-300:]))
    # and fix writes what a fresh parse says.
    entry = json.loads(original)
    mutate(entry)
    entry_path.write_text(json.dumps(entry))
    done = subprocess.run([APISTAMP, "fix", "-p", str(root / "build"),
                           "--cache-dir", str(cache)], capture_output=True)
    check_forged(root, reference, done, CANARY.encode())


def check_forged_result_case(name, work, reference):
    root = forged_project(work, "forged-tu-" + str(abs(hash(name)) % 10**8))
    mutate = forged_cases(root)[name]
    result = root / "res" / "a.json"
    result.parent.mkdir()
    made = subprocess.run([APISTAMP, "tu", "-p", str(root / "build"), "-o", str(result),
                           str(root / "src" / "a.cpp")], capture_output=True)
    if made.returncode != 0:
        raise RuntimeError("tu: %d %s" % (made.returncode, made.stderr))
    entry = json.loads(result.read_text())
    mutate(entry)
    result.write_text(json.dumps(entry))
    done = subprocess.run([APISTAMP, "merge", "-p", str(root / "build"), "--fix",
                           str(root / "res")], capture_output=True)
    check_forged(root, reference, done, CANARY.encode())


def literal_checks(text, event):
    """A C++ file that compiles only if the literal in `text` is `event`."""
    start = text.index("C10_LOG_API_USAGE_ONCE(") + len("C10_LOG_API_USAGE_ONCE(")
    line_end = text.find("\n", start)
    end = text.rindex(");", start, line_end if line_end >= 0 else len(text))
    literal = text[start:end]
    data = event.encode()
    lines = ["constexpr char E[] = %s;" % literal,
             "static_assert(sizeof(E) == %d, \"length\");" % (len(data) + 1)]
    lines += ["static_assert((unsigned char)E[%d] == %d, \"byte %d\");" % (i, b, i)
              for i, b in enumerate(data)]
    return "\n".join(lines) + "\n"


NAMES = {
    "a newline": "new\nline.cpp",
    "a carriage return": "car\rriage.cpp",
    "trigraphs": "t??=x??(y??!z??-.cpp",
    "a trigraph ??/ across a directory": "dir??/file.cpp",
    "a double quote": 'quo"te.cpp',
    "a backslash": "back\\slash.cpp",
    "shell syntax": "$(touch PWNED);`id`.cpp",
    "a leading dash": "-dash.cpp",
    "non-ASCII letters": "ünïcödé.cpp",
    "a tab and a vertical tab": "t\tv\v.cpp",
}


def check_name_case(label, name, work):
    directory, _, base = name.rpartition("/")
    root = work / ("name-" + str(abs(hash(label)) % 10**8))
    shutil.rmtree(root, ignore_errors=True)
    src = root / "src"
    (src / directory).mkdir(parents=True, exist_ok=True)
    (src / ".apistamp.yaml").write_text(RULES)
    (src / "log.h").write_text(LOG)
    path = src / name
    path.write_text(SOURCE)
    done = subprocess.run([APISTAMP, "fix", "--no-cache", str(path), "--",
                           "-std=c++17", "-I" + str(src)], capture_output=True)
    if done.returncode != 0:
        raise RuntimeError("fix exit %d: %r" % (done.returncode, done.stderr[-400:]))
    if (pathlib.Path.cwd() / "PWNED").exists() or (src / "PWNED").exists():
        raise RuntimeError("a shell ran the file name")
    text = path.read_text()
    relative = os.path.splitext(name)[0].replace("/", ".")
    event = relative + ".f"
    check = root / "check.cpp"
    check.write_text(literal_checks(text, event))
    for std in ("-std=c++14", "-std=c++17"):
        for source in (str(path), str(check)):
            compiled = subprocess.run(["clang++-19", "-fsyntax-only", std, "-trigraphs",
                                       "-I" + str(src), "-x", "c++", source],
                                      capture_output=True, text=True)
            if compiled.returncode != 0:
                raise RuntimeError("%s %s does not compile: %s" % (
                    std, os.path.basename(source), compiled.stderr[-600:]))


def main():
    global APISTAMP
    parser = argparse.ArgumentParser()
    parser.add_argument("--apistamp", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--junit")
    args = parser.parse_args()
    APISTAMP = os.path.abspath(args.apistamp)
    work = pathlib.Path(args.work).resolve()
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    steps = Steps("hostile-cache-and-names", independent=True)

    reference_root = project(work, "reference")
    done = run(APISTAMP, reference_root, "--no-cache")
    if done.returncode != 0:
        print("reference fix failed: %s" % done.stderr)
        return 1
    reference = tree(reference_root)
    for name, mutate in tamper_cases(project(work, "cases")).items():
        steps.run("cache: " + name,
                  lambda n=name, m=mutate: check_cache_case(n, m, work, reference))
    forged_root = forged_project(work, "forged-reference")
    done = subprocess.run([APISTAMP, "fix", "--no-cache", "-p", str(forged_root / "build")],
                          capture_output=True)
    if done.returncode != 0:
        print("reference fix of the forged cases' source failed: %s" % done.stderr)
        return 1
    forged_reference = {k: v for k, v in tree(forged_root).items() if not k.startswith("build")}
    for name in forged_cases(forged_project(work, "forged-names")):
        steps.run("cache, forged: " + name,
                  lambda n=name: check_forged_cache_case(n, work, forged_reference))
        steps.run("tu result, forged: " + name,
                  lambda n=name: check_forged_result_case(n, work, forged_reference))
    for label, name in NAMES.items():
        steps.run("file name with " + label,
                  lambda l=label, n=name: check_name_case(l, n, work))
    return steps.finish(args.junit)


if __name__ == "__main__":
    sys.exit(main())
