#!/bin/sh
# Runs one GoogleTest program, writing JUnit XML to RESULTS/NAME.xml. If the
# program fails but no test case in that file records a failure (a sanitizer
# report at exit, a crash, a missing program), also writes RESULTS/NAME-exit.xml
# with one failing test case, so that the summary cannot say OK.
# The runtime's environment variables are unset for the run.
# usage: run-gtest.sh NAME RESULTS_DIR PROGRAM [ARGS...]
set -u
name=$1 results=$2 program=$3
shift 3
xml=$results/$name.xml
# The caller's settings must not change what the tests see.
unset PYTORCH_API_USAGE_STDERR APISTAMP_API_USAGE_LOG APISTAMP_JOB_ID_ENV
rm -f "$xml" "$results/$name-exit.xml"
if [ -x "$program" ]; then
  "$program" --gtest_output="xml:$xml" --gtest_brief=1 "$@"
  rc=$?
  why="$program exited with status $rc"
else
  rc=127
  why="$program was not built"
fi
[ "$rc" -eq 0 ] && exit 0
if [ -f "$xml" ] && grep -q "<failure" "$xml"; then
  exit "$rc"
fi
cat > "$results/$name-exit.xml" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="1" failures="1" name="$name-exit">
  <testsuite name="$name" tests="1" failures="1">
    <testcase name="exit status" classname="$name">
      <failure message="$why (see the output above)"/>
    </testcase>
  </testsuite>
</testsuites>
XML
echo "run-gtest.sh: $name: $why" >&2
exit "$rc"
