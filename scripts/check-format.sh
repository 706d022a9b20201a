#!/usr/bin/env bash
# Checks that every C and C++ file of tool/, runtime/, test/unit/,
# test/fuzz/ and bench/ is as clang-format-19 formats it (.clang-format:
# BasedOnStyle LLVM); lit inputs (test/lit, Inputs/) are not: their bytes
# are what a test reads. One JUnit test case per file.
#   scripts/check-format.sh JUNIT.xml
set -euo pipefail
cd "$(dirname "$0")/.."
junit=$1
failed=0
cases=""
while IFS= read -r file; do
  if output=$(clang-format-19 --dry-run -Werror "$file" 2>&1); then
    cases+="  <testcase classname=\"format\" name=\"$file\"/>"$'\n'
  else
    failed=$((failed + 1))
    echo "$output" | head -20
    echo "format: $file is not clang-formatted: run clang-format-19 -i $file"
    cases+="  <testcase classname=\"format\" name=\"$file\"><failure message=\"not clang-formatted\"/></testcase>"$'\n'
  fi
done < <(find tool runtime test/unit test/fuzz bench \
           \( -name '*.cpp' -o -name '*.h' -o -name '*.c' \) -not -path '*/Inputs/*' |
           sort)
total=$(printf '%s' "$cases" | grep -c '<testcase')
printf '<?xml version="1.0"?>\n<testsuite name="format" tests="%d" failures="%d">\n%s</testsuite>\n' \
  "$total" "$failed" "$cases" > "$junit"
echo "format: $((total - failed)) of $total files of tool/, runtime/, test/unit/, test/fuzz/ and bench/ clang-formatted"
exit $((failed > 0))
