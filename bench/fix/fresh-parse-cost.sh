#!/bin/bash
# What "every write comes from a parse made in this run" costs fix (issue 44):
# OLD and NEW apistamp binaries, each on its own copy of an uninstrumented
# tree the real-project tests leave in build/realworld: googletest's (72 TUs,
# the round trip's), or torchvision's (52 TUs against libtorch's headers, the
# policy test's, its calls stripped again here).
#
#   bench/fix/fresh-parse-cost.sh [--torchvision] OLD [NEW]
set -e
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PROJECT=googletest
if [ "${1:-}" = --torchvision ]; then PROJECT=torchvision; shift; fi
SRC=$ROOT/build/realworld/$PROJECT
run() { # label binary args...
  local label=$1 bin=$2; shift 2
  local t0=$(date +%s.%N)
  "$bin" "$@" > /dev/null 2> /tmp/mf.err || true
  local t1=$(date +%s.%N)
  printf '%-46s %6.2f s  %s\n' "$label" "$(echo "$t1 - $t0" | bc)" "$(grep -o 'cache: [^;]*' /tmp/mf.err | tail -1)"
}
OLD=${1:?usage: bench/fix/fresh-parse-cost.sh [--torchvision] OLD [NEW]}
NEW=${2:-$ROOT/build/bin/apistamp}
for which in old new; do
  bin=$OLD; [ $which = new ] && bin=$NEW
  W=/tmp/fix-cost-$PROJECT-$which; rm -rf $W; mkdir -p $W; cp -a $SRC/src $W/src; mkdir $W/build
  sed "s|$SRC/src|$W/src|g; s|$SRC/build|$W/build|g" $SRC/build/compile_commands.json > $W/build/compile_commands.json
  if [ $PROJECT = googletest ]; then
    ARGS=(--extra-arg=-I$ROOT/runtime/include)
    RULES=$W/src/.apistamp.yaml
    F=$W/src/googletest/src/gtest-printers.cc
    NS=testing
  else
    # The policy test's tree is fixed: its calls (and nothing else) go.
    /usr/bin/python3 - "$W/src" <<'EOF'
import pathlib, re, sys
call = re.compile(r'^[ \t]*C10_LOG_API_USAGE_ONCE\(\s*"([^"]*)"\s*\);[ \t]*\n', re.M)
for path in pathlib.Path(sys.argv[1], "torchvision/csrc").rglob("*.cpp"):
    path.write_text(call.sub("", path.read_text()))
EOF
    cp "$ROOT/rules/torchvision.yaml" $W/rules.yaml
    RULES=$W/rules.yaml
    ARGS=(--rules $RULES --root $W/src)
    F=$W/src/torchvision/csrc/ops/nms.cpp
    NS=vision::ops
  fi
  TUS=$(grep -c '"file"' $W/build/compile_commands.json)
  run "$which: cold fix -p ($TUS TUs)" $bin fix -p $W/build "${ARGS[@]}"
  run "$which: check -p, clean tree" $bin check -p $W/build "${ARGS[@]}"
  for n in 1 2 3; do
    printf 'namespace %s {\nint NewApi%d(int x) { return x; }\n}\n' "${NS/::/ { namespace }" $n >> $F
    [ "$NS" = testing ] || sed -i '$ s/}$/}}/' $F
    case $n in
      1) run "$which: fix -p after a new function" $bin fix -p $W/build "${ARGS[@]}" ;;
      2) run "$which: fix FILE --preamble=all (store cold)" $bin fix -p $W/build --preamble=all $F "${ARGS[@]}" ;;
      3) run "$which: fix FILE --preamble=all (warm)" $bin fix -p $W/build --preamble=all $F "${ARGS[@]}" ;;
    esac
  done
  if [ $PROJECT = googletest ]; then
    sed -i 's/    namespace: "testing"/    namespace: "testing"\n    event: "v2.{name}"/' $RULES
  else
    sed -i 's/    event: "{path}.{name}"/    event: "v2.{path}.{name}"/' $RULES
  fi
  run "$which: fix -p after an event template edit" $bin fix -p $W/build "${ARGS[@]}"
done
