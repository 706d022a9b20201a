#!/usr/bin/env bash
# Checks that every C and C++ file of tool/, runtime/, test/unit/,
# test/fuzz/ and bench/ is as clang-format-19 formats it (.clang-format:
# BasedOnStyle LLVM); lit inputs (test/lit, Inputs/) are not: their bytes
# are what a test reads. One JUnit test case per file.
#   scripts/check-format.sh JUNIT.xml
set -euo pipefail
cd "$(dirname "$0")/.."
junit=$1
mapfile -t files < <(find tool runtime test/unit test/fuzz bench \
           \( -name '*.cpp' -o -name '*.h' -o -name '*.c' \) -not -path '*/Inputs/*' |
           sort)
# One clang-format for all the files (one per file spent 10 s starting it);
# its diagnostics name the files that differ.
report=$(clang-format-19 --dry-run -Werror "${files[@]}" 2>&1) || true
differing=$(sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: .*-Wclang-format-violations.*/\1/p' \
  <<<"$report" | sort -u)
failed=0
cases=""
for file in "${files[@]}"; do
  if ! grep -qxF -- "$file" <<<"$differing"; then
    cases+="  <testcase classname=\"format\" name=\"$file\"/>"$'\n'
  else
    failed=$((failed + 1))
    grep -F -- "$file:" <<<"$report" | head -20 || true
    echo "format: $file is not clang-formatted: run clang-format-19 -i $file"
    cases+="  <testcase classname=\"format\" name=\"$file\"><failure message=\"not clang-formatted\"/></testcase>"$'\n'
  fi
done
# Output but no file that differs: clang-format could not run.
if [ -n "$report" ] && ((failed == 0)); then
  echo "$report" | head -20
  echo "format: clang-format-19 failed"
  failed=1
fi
total=${#files[@]}
printf '<?xml version="1.0"?>\n<testsuite name="format" tests="%d" failures="%d">\n%s</testsuite>\n' \
  "$total" "$failed" "$cases" > "$junit"
echo "format: $((total - failed)) of $total files of tool/, runtime/, test/unit/, test/fuzz/ and bench/ clang-formatted"
exit $((failed > 0))
