#!/usr/bin/env bash
# README command 2: install dependencies, build apistamp and run every test
# (GoogleTest unit tests, lit tests), ending with a one-line summary.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
build=${APISTAMP_BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
cmake --build "$build"

results="$build/test-results"
rm -rf "$results" && mkdir -p "$results"
status=0
echo "== unit tests"
"$build/bin/apistampUnitTests" --gtest_output="xml:$results/unit.xml" --gtest_brief=1 || status=1
echo "== lit tests"
python3 /usr/lib/llvm-19/build/utils/lit/lit.py -sv "$build/test/lit" \
  --xunit-xml-output "$results/lit.xml" || status=1
python3 scripts/summarize-tests.py "$results"/*.xml || status=1
exit $status
