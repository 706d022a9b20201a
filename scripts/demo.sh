#!/usr/bin/env bash
# README command 1: install dependencies, build apistamp, run it on the bundled
# example project, its C++ sources and its Python package (diff, check, fix,
# check), then build the instrumented C++ against the runtime and run it, run
# the instrumented Python with /usr/bin/python3, show the events both log, and
# report which placed events the runs used.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "(%.2f s)\n", b - a }'; }

step "Installing dependencies and building apistamp"
scripts/install-deps.sh
scripts/configure-build.sh build
cmake --build build --target apistamp
apistamp=$repo/build/bin/apistamp

# Work on a copy: the example in the repository stays uninstrumented.
work=$repo/build/example
rm -rf "$work" && cp -r examples/imagelib "$work"
cmake -S "$work" -B "$work/build" -G Ninja -DAPISTAMP_RUNTIME_DIR="$repo/runtime" > /dev/null
cd "$work"
echo "example: $work (rules: .apistamp.yaml)"
# The C++ sources come from the compilation database (-p build); the Python
# package is named, as pre-commit names files: one run covers both.
py=python/imagelib

step "apistamp diff -p build $py   (what fix would change)"
t=$(now); "$apistamp" diff -p build "$py"; elapsed "$t"

step "apistamp check -p build $py   (expect exit 1: events missing)"
t=$(now); set +e; "$apistamp" check -p build "$py"; rc=$?; set -e; elapsed "$t"
echo "exit code: $rc"; [[ $rc == 1 ]] || { echo "expected exit 1"; exit 1; }

step "apistamp fix -p build $py"
t=$(now); "$apistamp" fix -p build "$py"; elapsed "$t"

step "apistamp check -p build $py   (expect exit 0)"
t=$(now); "$apistamp" check -p build "$py"; elapsed "$t"
echo "exit code: 0"

step "Building the instrumented example against the apistamp runtime"
cmake --build build

step "Running it: each API logs its event once"
./build/imagelib_demo

step "Running the Python side with /usr/bin/python3: python/demo.py (PYTORCH_API_USAGE_STDERR=1)"
# python/imagelib/utils.py's _log_api_usage_once writes what the runtime
# writes: "PYTORCH_API_USAGE <event>" on stderr, JSON lines to
# APISTAMP_API_USAGE_LOG.
PYTORCH_API_USAGE_STDERR=1 /usr/bin/python3 python/demo.py 2>&1

step "Running both again with the JSON-lines sink: APISTAMP_API_USAGE_LOG=build/api-usage.jsonl"
rm -f build/api-usage.jsonl
APISTAMP_API_USAGE_LOG="$work/build/api-usage.jsonl" ./build/imagelib_demo > /dev/null
[[ -s build/api-usage.jsonl ]] || { echo "no events in build/api-usage.jsonl"; exit 1; }
cxx_lines=$(wc -l < build/api-usage.jsonl)
APISTAMP_API_USAGE_LOG="$work/build/api-usage.jsonl" /usr/bin/python3 python/demo.py > /dev/null
(($(wc -l < build/api-usage.jsonl) > cxx_lines)) || { echo "no Python events in build/api-usage.jsonl"; exit 1; }
cat build/api-usage.jsonl

# report computes the catalog from -p (the C++ side); the Python events come
# in through a saved catalog of both.
step "apistamp catalog --format=json -p build $py > build/catalog.json"
"$apistamp" catalog --format=json -p build "$py" > build/catalog.json
echo "$(grep -c '"event"' build/catalog.json) selected definitions"

step "apistamp report --catalog build/catalog.json build/api-usage.jsonl   (the APIs the runs used; those they never reached)"
"$apistamp" report --catalog build/catalog.json build/api-usage.jsonl
