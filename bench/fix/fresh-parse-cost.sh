#!/bin/bash
# What "every write comes from a parse made in this run" costs fix on googletest
# (issue 44): OLD and NEW apistamp binaries, each on its own copy of the
# uninstrumented tree the googletest round trip leaves in build/realworld.
#
#   bench/fix/fresh-parse-cost.sh [OLD NEW]
set -e
SRC=$(cd "$(dirname "$0")/../.." && pwd)/build/realworld/googletest
run() { # label binary args...
  local label=$1 bin=$2; shift 2
  local t0=$(date +%s.%N)
  "$bin" "$@" > /dev/null 2> /tmp/mf.err || true
  local t1=$(date +%s.%N)
  printf '%-40s %6.2f s  %s\n' "$label" "$(echo "$t1 - $t0" | bc)" "$(grep -o 'cache: [^;]*' /tmp/mf.err | tail -1)"
}
OLD=${1:?usage: bench/fix/fresh-parse-cost.sh OLD NEW}
NEW=${2:-$(cd "$(dirname "$0")/../.." && pwd)/build/bin/apistamp}
for which in old new; do
  bin=$OLD; [ $which = new ] && bin=$NEW
  W=/tmp/gtm-$which; rm -rf $W; mkdir -p $W; cp -a $SRC/src $W/src; mkdir $W/build
  sed "s|$SRC/src|$W/src|g; s|$SRC/build|$W/build|g" $SRC/build/compile_commands.json > $W/build/compile_commands.json
  EXTRA=(--extra-arg=-I$(cd "$(dirname "$0")/../.." && pwd)/runtime/include)
  run "$which: cold fix -p (72 TUs)" $bin fix -p $W/build "${EXTRA[@]}"
  run "$which: check -p, clean tree" $bin check -p $W/build "${EXTRA[@]}"
  F=$W/src/googletest/src/gtest-printers.cc
  printf 'namespace testing {\nint NewApi(int x) { return x; }\n}\n' >> $F
  run "$which: fix -p after a new function" $bin fix -p $W/build "${EXTRA[@]}"
  printf 'namespace testing {\nint NewApi2(int x) { return x; }\n}\n' >> $F
  run "$which: fix FILE --preamble=all (store cold)" $bin fix -p $W/build --preamble=all $F "${EXTRA[@]}"
  printf 'namespace testing {\nint NewApi3(int x) { return x; }\n}\n' >> $F
  run "$which: fix FILE --preamble=all (warm)" $bin fix -p $W/build --preamble=all $F "${EXTRA[@]}"
  sed -i 's/    namespace: "testing"/    namespace: "testing"\n    event: "v2.{name}"/' $W/src/.apistamp.yaml
  run "$which: fix -p after an event template edit" $bin fix -p $W/build "${EXTRA[@]}"
done
