#!/usr/bin/env python3
"""apistamp's Bazel aspect (bazel/apistamp.bzl) with Debian's bazel-bootstrap, offline.

A workspace of two cc_library and a cc_binary (a shared header, a rules file
at the root) is analysed by the aspect: one `apistamp tu` action per source,
merged by apistamp_merge. The test shows that

- the merged text, JSON and SARIF equal `apistamp check -p` over a
  compile_commands.json made from Bazel's own compile commands (aquery) of
  the same sources, and every result equals `apistamp tu -p` over it;
- after `bazel clean --expunge` every action is a hit of --disk_cache, and
  after another, of --remote_cache (an HTTP/1.1 GET/PUT server on
  127.0.0.1, started and stopped here);
- a copy of the workspace at another path hits the remote cache too;
- a changed apistamp binary misses.

No download: rules_cc and rules_java are bazel/stubs/, local repositories.
Without bazel, it prints `SKIP bazel: ...` and records the skip.
"""
import argparse
import hashlib
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "test", "realworld"))
from realworld import Steps, sh  # noqa: E402

ASPECT = "@apistamp//:apistamp.bzl%apistamp_aspect"
MERGES = {"apistamp": "txt", "apistamp_json": "json", "apistamp_sarif": "sarif"}
# A quote in a source's name (a legal Bazel label) passes through merge.sh's
# response file (issue 44's F19: the merge action failed).
SOURCES = ["app/main.cpp", "mathlib/math.cpp", "strlib/str'ing.cc"]
# One tu action per source of each target: math.cpp is in three targets.
ACTIONS = SOURCES + ["mathlib/math.cpp", "mathlib/math.cpp"]
HITS = len(ACTIONS) + len(MERGES)

FILES = {
    ".apistamp.yaml": """version: 1
macro: LOG
rules:
  - id: demo
    namespace: demo
""",
    "BUILD": """load("@apistamp//:apistamp.bzl", "apistamp_merge")

exports_files([".apistamp.yaml"])

cc_binary(name = "app", srcs = ["app/main.cpp"], deps = ["//mathlib", "//strlib"])

# math.cpp is in three targets: two compile it alike (one TU, its result
# twice), one without FAST_SQUARE (another TU of the same source).
MERGED = [":app", "//mathlib:mathlib_twin", "//mathlib:mathlib_slow"]

apistamp_merge(name = "apistamp", deps = MERGED)
apistamp_merge(name = "apistamp_json", deps = MERGED, format = "json")
apistamp_merge(name = "apistamp_sarif", deps = MERGED, format = "sarif")
""",
    "common/BUILD": """cc_library(name = "common", hdrs = ["log.h"], visibility = ["//visibility:public"])
""",
    "common/log.h": """#pragma once
#define LOG(event) ((void)0)
namespace demo {
inline int clamp(int v) { return v < 0 ? 0 : v; }
}
""",
    "mathlib/BUILD": """[cc_library(
    name = name,
    srcs = ["math.cpp"],
    hdrs = ["math.h"],
    defines = ["FAST_SQUARE"],
    visibility = ["//visibility:public"],
    deps = ["//common"],
) for name in ["mathlib", "mathlib_twin"]]

cc_library(
    name = "mathlib_slow",
    srcs = ["math.cpp"],
    hdrs = ["math.h"],
    visibility = ["//visibility:public"],
    deps = ["//common"],
)
""",
    "mathlib/math.h": """#pragma once
namespace demo { int twice(int); int square(int); }
""",
    "mathlib/math.cpp": """#include "mathlib/math.h"
#include "common/log.h"
namespace demo {
int twice(int v) { LOG("demo.twice"); return clamp(2 * v); }
#ifdef FAST_SQUARE
int square(int v) { return v * v; }
#else
int slow_square(int v) { return clamp(v) * v; }
#endif
}
""",
    "strlib/BUILD": """cc_library(
    name = "strlib",
    srcs = ["str'ing.cc"],
    hdrs = ["str.h"],
    copts = ["-std=c++17"],
    local_defines = ["STRLIB_INTERNAL=1"],
    visibility = ["//visibility:public"],
    deps = ["//common"],
)
""",
    "strlib/str.h": """#pragma once
#include <string>
namespace demo { std::string shout(const std::string&); }
""",
    "strlib/str'ing.cc": """#include "str.h"
#include <string_view>
#include "common/log.h"
namespace demo {
#if STRLIB_INTERNAL
std::string shout(const std::string& s) { return std::string(std::string_view(s)) + "!"; }
#endif
namespace detail { int unused() { LOG("demo.gone"); return 0; } }
}
""",
    "app/main.cpp": """#include "mathlib/math.h"
#include "strlib/str.h"
#include "common/log.h"
namespace demo { int run() { return twice(square(3)) + clamp(-1); } }
int main() { return demo::run() == 18 ? 0 : 1; }
""",
}


class CacheHandler(http.server.BaseHTTPRequestHandler):
    """Bazel's HTTP cache protocol: GET and PUT of /ac/<hash> and /cas/<hash>."""
    protocol_version = "HTTP/1.1"  # with HTTP/1.0 every read of Bazel 4 misses
    store = {}
    counts = {"get_hit": 0, "get_miss": 0, "put": 0}
    lock = threading.Lock()

    def do_GET(self):
        with self.lock:
            body = self.store.get(self.path)
            self.counts["get_hit" if body is not None else "get_miss"] += 1
        if body is None:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_HEAD(self):
        with self.lock:
            body = self.store.get(self.path)
        self.send_response(200 if body is not None else 404)
        self.send_header("Content-Length", str(len(body) if body is not None else 0))
        self.end_headers()

    def do_PUT(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            body = b""
            while True:
                size = int(self.rfile.readline().strip(), 16)
                if size == 0:
                    self.rfile.readline()
                    break
                body += self.rfile.read(size)
                self.rfile.readline()
        else:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        with self.lock:
            self.store[self.path] = body
            self.counts["put"] += 1
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--apistamp", default=os.path.join(REPO, "build", "bin", "apistamp"))
    parser.add_argument("--bazel", default="bazel")
    parser.add_argument("--work", help="a directory to work in (default: a temporary one, removed)")
    parser.add_argument("--junit")
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    return parser.parse_args()


def main():
    args = parse_args()
    steps = Steps("bazel")
    bazel = shutil.which(args.bazel)
    if bazel is None:
        steps.skip("bazel", "no `%s` on PATH (apt-get install bazel-bootstrap)" % args.bazel)
        steps.write_junit(args.junit) if args.junit else None
        return steps.finish()

    work = os.path.abspath(args.work) if args.work else tempfile.mkdtemp(prefix="apistamp-bazel-")
    if os.path.exists(work):
        subprocess.run(["chmod", "-R", "u+w", work])  # Bazel leaves read-only trees
        shutil.rmtree(work)
    os.makedirs(work)
    home = os.path.join(work, "home")
    os.makedirs(home)
    tool = os.path.join(work, "tool", "apistamp")
    os.makedirs(os.path.dirname(tool))
    # A copy: the build may replace the binary while this runs.
    shutil.copy2(args.apistamp, tool)
    env = dict(os.environ, HOME=home)
    env.pop("USE_BAZEL_VERSION", None)
    user_root = os.path.join(work, "bazel-root")
    disk_cache = os.path.join(work, "disk-cache")
    startup = ["--output_user_root=" + user_root, "--nohome_rc", "--max_idle_secs=300"]
    # --nosandbox_debug: Debian's /etc/bazel/bazelrc turns it on (noisy).
    common = ["--nosandbox_debug", "--jobs=2", "--local_cpu_resources=2",
              "--color=no", "--curses=no", "--noshow_progress"]
    started = set()  # workspaces whose server is up
    figures = {}

    def bazel_cmd(workspace, command, *flags, expect=0, stderr_to_stdout=True):
        started.add(workspace)
        return sh(["nice", bazel] + startup + [command] + list(flags), expect=expect,
                  cwd=workspace, env=env, stderr_to_stdout=stderr_to_stdout)

    def build(workspace, name, *cache_flags):
        log = os.path.join(work, "exec-%s.json" % name)
        start = time.monotonic()
        out = bazel_cmd(workspace, "build", *common, *cache_flags,
                        "--execution_log_json_file=" + log,
                        "--aspects=" + ASPECT, "--output_groups=apistamp", "//...")
        seconds = time.monotonic() - start
        spawns = read_exec_log(log)
        summary = re.findall(r"INFO: \d+ process(?:es)?[:.].*", out)
        figures[name] = "%.1f s; %s" % (seconds, summary[-1] if summary else "?")
        return spawns, out

    def outputs(workspace):
        got = {}
        for name, extension in MERGES.items():
            with open(os.path.join(workspace, "bazel-bin", "%s.%s" % (name, extension))) as f:
                got[name] = f.read()
        with open(os.path.join(workspace, "bazel-bin", "apistamp.exit_code")) as f:
            got["exit"] = f.read().strip()
        return got

    def result_files(workspace):
        found = {}
        binary = os.path.join(workspace, "bazel-bin")
        for directory, _, names in os.walk(binary, followlinks=True):
            for name in names:
                if name.endswith(".json") and ".apistamp/" in os.path.join(directory, name) \
                        and not name.endswith(".command.json"):
                    path = os.path.join(directory, name)
                    found[os.path.relpath(path, binary)] = open(path, "rb").read()
        return found

    ws_a = os.path.join(work, "checkout-a")
    ws_b = os.path.join(work, "elsewhere", "checkout-b")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), CacheHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    remote = "--remote_cache=http://127.0.0.1:%d" % server.server_address[1]
    state = {}

    def write_workspace():
        for path, text in FILES.items():
            full = os.path.join(ws_a, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w") as f:
                f.write(text)
        with open(os.path.join(ws_a, "WORKSPACE"), "w") as f:
            f.write("""workspace(name = "demo")

# Bazel 4's own tools load @rules_cc and @rules_java: stand-ins, no download.
local_repository(name = "rules_cc", path = "{bazel}/stubs/rules_cc")
local_repository(name = "rules_java", path = "{bazel}/stubs/rules_java")

local_repository(name = "apistamp", path = "{bazel}")
load("@apistamp//:apistamp.bzl", "apistamp_tool")
apistamp_tool(name = "apistamp_tool", path = "{tool}")
""".format(bazel=os.path.join(REPO, "bazel"), tool=tool))

    def cold_build():
        spawns, _ = build(ws_a, "cold build (fills --disk_cache and --remote_cache)",
                          "--disk_cache=" + disk_cache, remote)
        ours = [s for s in spawns if s["mnemonic"].startswith("ApiStamp")]
        tu = [s for s in ours if s["mnemonic"] == "ApiStamp"]
        if len(tu) != len(ACTIONS) or len(ours) != len(ACTIONS) + len(MERGES):
            raise RuntimeError("expected %d tu and %d merge actions, got %s"
                               % (len(ACTIONS), len(MERGES), [s["mnemonic"] for s in ours]))
        if any(s["remoteCacheHit"] for s in ours):
            raise RuntimeError("a cold build hit the cache")
        state["outputs"] = outputs(ws_a)
        state["results"] = result_files(ws_a)
        if state["outputs"]["exit"] != "1":
            raise RuntimeError("merge exit code %s, expected 1 (findings)" % state["outputs"]["exit"])

    def equals_check():
        # Bazel's own compile commands of the same sources (not the aspect's),
        # as they are: GCC's (-fno-canonical-system-headers), which apistamp
        # reads as a clang command.
        query = bazel_cmd(ws_a, "aquery", *common, 'mnemonic("CppCompile", deps(//:app) + //mathlib:all)',
                          "--output=jsonproto", stderr_to_stdout=False)
        query = json.loads(query)
        database = []
        for action in query["actions"]:
            arguments = action["arguments"]
            source = arguments[arguments.index("-c") + 1]
            database.append({"directory": ws_a, "file": source, "arguments": arguments})
        if sorted(entry["file"] for entry in database) != sorted(ACTIONS):
            raise RuntimeError("aquery's sources: %s" % [e["file"] for e in database])
        build_dir = os.path.join(work, "cdb")
        os.makedirs(build_dir, exist_ok=True)
        with open(os.path.join(build_dir, "compile_commands.json"), "w") as f:
            json.dump(database, f, indent=1)
        problems = []
        for name, fmt in [("apistamp", "text"), ("apistamp_json", "json"), ("apistamp_sarif", "sarif")]:
            expected = sh([tool, "check", "--no-cache", "--color=never", "--format=" + fmt]
                          + (["--no-sarif-srcroot"] if fmt == "sarif" else []) + [
                           "-p", build_dir], expect=1, stderr_to_stdout=False, cwd=ws_a)
            if expected != state["outputs"][name]:
                problems.append("%s differs from check -p --format=%s:\n--- check\n%s\n--- merge\n%s"
                                % (name, fmt, expected[:1500], state["outputs"][name][:1500]))
        for expect in ["missing API usage event 'demo.run'", "common/log.h:4:12: warning: missing",
                       "stale API usage event 'demo.gone'", "missing API usage event 'demo.shout'",
                       "missing API usage event 'demo.square'",
                       "missing API usage event 'demo.slow_square'"]:
            if expect not in state["outputs"]["apistamp"]:
                problems.append("no %r in the merged text" % expect)
        # Every result equals `apistamp tu -p` on Bazel's command without what
        # names its outputs (-MD -MF -frandom-seed -o) and its configuration
        # number, and merge outside Bazel takes them: the aspect's command is
        # Bazel's, to the compile command digest the result records.
        exact_dir = os.path.join(work, "cdb-exact")
        os.makedirs(exact_dir, exist_ok=True)
        for entry in database:
            entry["arguments"] = without_outputs(entry["arguments"])
        with open(os.path.join(exact_dir, "compile_commands.json"), "w") as f:
            json.dump(database, f, indent=1)
        # (Nor the paths the TU looked for in vain: Bazel's sandbox has
        # directories the execution root has not, and the other way round.
        # Each absent path of Bazel's results is absent outside too, or the
        # merge below would refuse it.)
        def without_configuration(data):
            value = json.loads(data)
            value.pop("configuration")
            value.pop("absent")
            return value
        made = {}  # source -> tu's results for each of its compile commands
        for source in SOURCES:
            for configuration in range(len(database)):
                mine = os.path.join(work, "tu-%s-%d.json" % (source.replace("/", "_"),
                                                            configuration))
                done = subprocess.run([tool, "tu", "-p", exact_dir, "-o", mine,
                                       "--configuration=%d" % configuration, source], cwd=ws_a,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                if done.returncode != 0:
                    break
                made.setdefault(source, []).append(without_configuration(open(mine).read()))
        if len(made.get("mathlib/math.cpp", [])) != 2:
            problems.append("math.cpp: %d compile commands, expected 2 (FAST_SQUARE or not)"
                            % len(made.get("mathlib/math.cpp", [])))
        for path, data in state["results"].items():
            source = next((s for s in SOURCES if path.endswith(s + ".json")), None)
            if without_configuration(data) not in made.get(source, []):
                mine = without_configuration(data)
                keys = sorted({k for other in made.get(source, []) for k in mine
                               if other.get(k) != mine[k]})
                problems.append("%s differs from `apistamp tu -p` on Bazel's commands (in %s)"
                                % (path, ", ".join(keys)))

        merged = sh([tool, "merge", "--color=never", "-p", exact_dir]
                    + [os.path.join(ws_a, "bazel-bin", p) for p in state["results"]],
                    expect=1, stderr_to_stdout=False, cwd=ws_a)
        if merged != state["outputs"]["apistamp"]:
            problems.append("merge outside Bazel differs:\n%s" % merged[:1500])
        if len(state["results"]) != len(ACTIONS):
            problems.append("results: %s" % sorted(state["results"]))
        if problems:
            raise RuntimeError("\n".join(problems))
        figures["merged text"] = state["outputs"]["apistamp"].strip().splitlines()[-1]

    def all_hits(spawns, what):
        # Every tu action and every merge hits (SARIF's too: it names no
        # absolute path).
        ours = [s for s in spawns if s["mnemonic"].startswith("ApiStamp")]
        missed = [s["mnemonic"] + " " + " ".join(s["listedOutputs"]) for s in ours
                  if not s["remoteCacheHit"]]
        if len(ours) != len(ACTIONS) + len(MERGES) or missed:
            raise RuntimeError("%s: %d apistamp actions, not hits: %s" % (what, len(ours), missed))
        others = [s["mnemonic"] for s in spawns
                  if not s["remoteCacheHit"] and not s["mnemonic"].startswith("ApiStamp")]
        if others:
            raise RuntimeError("%s: other actions ran: %s" % (what, others))

    def same_outputs(workspace):
        got = outputs(workspace)
        for name in got:
            expected = state["outputs"][name]
            if got[name] != expected:
                raise RuntimeError("%s differs from the cold build's" % name)
        if result_files(workspace) != state["results"]:
            raise RuntimeError("the result files differ from the cold build's")

    def disk_hits():
        bazel_cmd(ws_a, "clean", "--expunge")
        before = dict(CacheHandler.counts)
        spawns, out = build(ws_a, "after clean --expunge: --disk_cache", "--disk_cache=" + disk_cache)
        all_hits(spawns, "--disk_cache")
        # Bazel 4 says "remote cache hit" of the disk cache too (5 says "disk
        # cache hit"); the HTTP server saw nothing, so they came from disk.
        if not re.search(r"\b%d (disk|remote) cache hit" % HITS, out):
            raise RuntimeError("Bazel does not say %d cache hits:\n%s" % (HITS, out[-2000:]))
        if CacheHandler.counts != before:
            raise RuntimeError("the HTTP cache was asked: %s -> %s" % (before, CacheHandler.counts))
        same_outputs(ws_a)

    def remote_hits():
        bazel_cmd(ws_a, "clean", "--expunge")
        before = dict(CacheHandler.counts)
        spawns, out = build(ws_a, "after clean --expunge: --remote_cache", remote)
        all_hits(spawns, "--remote_cache")
        if not re.search(r"\b%d remote cache hit" % HITS, out):
            raise RuntimeError("Bazel does not say %d remote cache hits:\n%s" % (HITS, out[-2000:]))
        hits = CacheHandler.counts["get_hit"] - before["get_hit"]
        misses = CacheHandler.counts["get_miss"] - before["get_miss"]
        figures["HTTP cache"] = "%d GET hits, %d misses, %d PUT in all" % (
            hits, misses, CacheHandler.counts["put"])
        same_outputs(ws_a)

    def other_path():
        bazel_cmd(ws_a, "shutdown")
        started.discard(ws_a)
        shutil.copytree(ws_a, ws_b, symlinks=True,
                        ignore=lambda d, names: [n for n in names if n.startswith("bazel-")])
        spawns, out = build(ws_b, "another checkout path: --remote_cache", remote)
        all_hits(spawns, "another path")
        same_outputs(ws_b)

    def upgrade_misses():
        # Another apistamp (here: the same program with one byte more) misses.
        with open(tool, "ab") as f:
            f.write(b"\0")
        spawns, out = build(ws_b, "a changed apistamp binary", remote)
        ours = [s for s in spawns if s["mnemonic"].startswith("ApiStamp")]
        hits = [s["mnemonic"] for s in ours if s["remoteCacheHit"]]
        if len(ours) != len(ACTIONS) + len(MERGES) or hits:
            raise RuntimeError("after a new binary: %d apistamp actions, hits: %s" % (len(ours), hits))
        same_outputs(ws_b)

    try:
        steps.run("write a workspace: 2 cc_library, 1 cc_binary, a shared header, .apistamp.yaml",
                  write_workspace)
        steps.run("cold build: one tu action per source, three merges, offline", cold_build)
        steps.run("merged text, JSON and SARIF equal check -p on Bazel's compile commands",
                  equals_check)
        steps.run("clean --expunge, rebuild: all hits from --disk_cache", disk_hits)
        steps.run("clean --expunge, rebuild: all hits from --remote_cache (HTTP/1.1)", remote_hits)
        steps.run("a checkout at another path: all hits", other_path)
        steps.run("a changed apistamp binary: every action misses, same outputs", upgrade_misses)
    finally:
        for workspace in sorted(started):
            subprocess.run(["nice", bazel] + startup + ["shutdown"], cwd=workspace, env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        server.shutdown()
        for name, value in figures.items():
            print("  %s: %s" % (name, value))
        if args.junit:
            steps.write_junit(args.junit)
        if not args.work and not args.keep:
            subprocess.run(["chmod", "-R", "u+w", work])
            shutil.rmtree(work, ignore_errors=True)
    return steps.finish()


def without_outputs(arguments):
    """A compile command without the flags that name what it writes."""
    kept, skip = [], False
    for argument in arguments:
        if skip:
            skip = False
        elif argument in ("-MF", "-o", "-MT", "-MQ"):
            skip = True
        elif argument not in ("-MD", "-MMD") and not argument.startswith("-frandom-seed="):
            kept.append(argument)
    return kept


def read_exec_log(path):
    """The spawns of --execution_log_json_file (concatenated JSON objects)."""
    with open(path) as f:
        text = f.read()
    decoder = json.JSONDecoder()
    spawns, index = [], 0
    while True:
        while index < len(text) and text[index].isspace():
            index += 1
        if index >= len(text):
            break
        spawn, index = decoder.raw_decode(text, index)
        spawns.append({"mnemonic": spawn.get("mnemonic", ""),
                       "remoteCacheHit": bool(spawn.get("remoteCacheHit", False)),
                       "listedOutputs": spawn.get("listedOutputs", [])})
    return spawns


if __name__ == "__main__":
    sys.exit(main())
