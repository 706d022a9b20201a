#!/usr/bin/env bash
# Usage: scripts/compare-rules-errors.sh BASELINE_BIN NEW_BIN
#
# Whether two apistamp binaries say the same about every rules file we have:
# the hostile corpus (test/hostile/rules/, raw and as run-rules-corpus.py
# builds it: expanded and re-encoded), every rules file embedded in the lit
# tests (extracted with split-file, as the tests do, plus the one a RUN line
# generates), every other rules file in the repository (rules/, examples/).
# For each, both binaries run `apistamp check --rules F --no-cache a.cpp --
# -std=c++17` on a tiny source, under the same argv[0] and directory; their
# stdout, stderr and exit codes are compared with cmp. Prints each difference
# and a summary; exits 1 if anything differs.
set -uo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 BASELINE_BIN NEW_BIN" >&2
  exit 2
fi
baseline=$(realpath "$1")
new=$(realpath "$2")
root=$(cd "$(dirname "$0")/.." && pwd)
split_file=${SPLIT_FILE:-/usr/lib/llvm-19/bin/split-file}
timeout_seconds=${TIMEOUT_SECONDS:-120}
work=$(mktemp -d "${TMPDIR:-/tmp}/compare-rules-errors.XXXXXX")
trap 'rm -rf "$work"' EXIT
files="$work/files"
mkdir -p "$files/hostile-raw" "$files/hostile" "$files/lit" "$files/repo" \
  "$work/run"

# 1. The hostile corpus: each file as it is, and as the corpus runner writes
# it (# expand: and # encode: applied).
cp "$root"/test/hostile/rules/* "$files/hostile-raw/"
python3 - "$root/test/hostile" "$files/hostile" <<'EOF' || exit 2
import importlib.util, os, sys
spec = importlib.util.spec_from_file_location(
    "corpus", os.path.join(sys.argv[1], "run-rules-corpus.py"))
corpus = importlib.util.module_from_spec(spec)
spec.loader.exec_module(corpus)
rules = os.path.join(sys.argv[1], "rules")
for name in sorted(os.listdir(rules)):
    with open(os.path.join(sys.argv[2], name), "wb") as out:
        out.write(corpus.Case(os.path.join(rules, name)).content)
EOF

# 2. The lit tests' embedded files, split as their RUN lines split them
# (%split-file is split-file --leading-lines).
while IFS= read -r test; do
  grep -qE '^(.|//)--- ' "$root/$test" || continue
  flags=()
  grep -q '%split-file' "$root/$test" && flags=(--leading-lines)
  "$split_file" "${flags[@]}" "$root/$test" "$files/lit/$test" || exit 2
done < <(cd "$root" && git ls-files test/lit)
# The one a RUN line of hostile-rules.test writes.
python3 -c "print('version: 1\nrules:\n  - id: a\n    matcher: ' + 'anyOf(' * 10000 + 'functionDecl()' + ')' * 10000)" \
  > "$files/lit/deep-matcher.yaml"
printf 'version: 1\nmacro: LOG\nrules:\n  - id: all\n' > "$files/lit/printf-rules.yaml"

# 3. The rules files in the repository: the bundled policies, the examples.
(cd "$root" && git ls-files 'rules/*' 'examples/*.yaml' 'examples/*.yml') |
  while IFS= read -r f; do
    mkdir -p "$files/repo/$(dirname "$f")"
    cp "$root/$f" "$files/repo/$f"
  done

printf 'namespace lib { int f(int x) { return x + 1; } }\n' > "$work/run/a.cpp"

# Runs binary $1 (as argv[0] "apistamp") on rules file $2; output to $3.*.
run() {
  (cd "$work/run" &&
    exec -a apistamp timeout "$timeout_seconds" "$1" check --rules "$2" \
      --no-cache a.cpp -- -std=c++17 > "$3.out" 2> "$3.err")
  echo $? > "$3.rc"
}

total=0
differ=0
declare -A by_exit
while IFS= read -r -d '' f; do
  total=$((total + 1))
  run "$baseline" "$f" "$work/base"
  run "$new" "$f" "$work/new"
  same=1
  for part in out err rc; do
    if ! cmp -s "$work/base.$part" "$work/new.$part"; then
      same=0
      echo "DIFFERENT ${part}: ${f#"$files"/}"
      diff <(head -c 4000 "$work/base.$part") <(head -c 4000 "$work/new.$part") |
        head -20
    fi
  done
  [ $same = 1 ] || differ=$((differ + 1))
  rc=$(cat "$work/base.rc")
  by_exit[$rc]=$((${by_exit[$rc]:-0} + 1))
done < <(find "$files" -type f \( -name '*.yaml' -o -name '*.yml' \
  -o -path "$files/hostile*" -o -path "$files/repo/rules/*" \) -print0 | sort -z)

summary=""
for rc in $(printf '%s\n' "${!by_exit[@]}" | sort -n); do
  summary+=" exit $rc: ${by_exit[$rc]};"
done
echo "compared $total rules files (baseline${summary%;}):" \
  "$differ with a different stdout, stderr or exit code"
[ $differ = 0 ]
