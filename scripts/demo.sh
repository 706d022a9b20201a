#!/usr/bin/env bash
# README command 1: install dependencies, build apistamp, run it on the bundled
# example project (diff, check, fix, check), then build the instrumented
# example against the runtime and run it, showing the events it logs.
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

step "apistamp diff -p build   (what fix would change)"
t=$(now); "$apistamp" diff -p build; elapsed "$t"

step "apistamp check -p build   (expect exit 1: events missing)"
t=$(now); set +e; "$apistamp" check -p build; rc=$?; set -e; elapsed "$t"
echo "exit code: $rc"; [[ $rc == 1 ]] || { echo "expected exit 1"; exit 1; }

step "apistamp fix -p build"
t=$(now); "$apistamp" fix -p build; elapsed "$t"

step "apistamp check -p build   (expect exit 0)"
t=$(now); "$apistamp" check -p build; elapsed "$t"
echo "exit code: 0"

step "Building the instrumented example against the apistamp runtime"
cmake --build build

step "Running it: each API logs its event once"
./build/imagelib_demo

step "Running it again with the JSON-lines sink: APISTAMP_API_USAGE_LOG=build/api-usage.jsonl"
rm -f build/api-usage.jsonl
APISTAMP_API_USAGE_LOG="$work/build/api-usage.jsonl" ./build/imagelib_demo > /dev/null
[[ -s build/api-usage.jsonl ]] || { echo "no events in build/api-usage.jsonl"; exit 1; }
cat build/api-usage.jsonl

step "apistamp report -p build build/api-usage.jsonl   (the APIs the run used; those it never reached)"
"$apistamp" report -p build build/api-usage.jsonl
