#!/bin/sh
# apistamp_merge's action (apistamp.bzl): joins the compile_commands.json
# entries the aspect wrote into a database whose directory is this action's
# execution root, runs `apistamp merge -p` over it and every result, and
# records its exit code.
#   merge.sh APISTAMP FORMAT OUT EXIT_FILE FAIL_ON_FINDINGS COMMAND_LIST RESULT_LIST RULES_FILE
set -u
root="$(pwd -P)"
apistamp="$root/$1"; format="$2"; out="$root/$3"; exit_file="$root/$4"; fail_on_findings="$5"
commands="$6"; results="$7"; rules_file="$8"
db="$(mktemp -d "${TMPDIR:-/tmp}/apistamp-merge.XXXXXX")" || exit 2
trap 'rm -rf "$db"' EXIT
case "$root" in
  *[\"\\\|\&]*)
    echo "apistamp_merge: the execution root '$root' has a character this script does not escape" >&2
    exit 2 ;;
esac
# One entry a file, one line each: a JSON array of them.
{
  echo "["
  separator=""
  while IFS= read -r file; do
    printf '%s' "$separator"
    sed -e "s|\"__EXEC_ROOT__\"|\"$root\"|" "$file" || exit 2
    separator=","
  done < "$commands"
  echo "]"
} > "$db/compile_commands.json" || exit 2
case "$format" in
  diff) mode="--diff" ;;
  # SRCROOT without the checkout's absolute URI: the same log in every
  # checkout, so that a cached one is right for all.
  sarif) mode="--format=sarif --no-sarif-srcroot" ;;
  *) mode="--format=$format" ;;
esac
# Read as LLVM reads a response file (GNU rules): a quote, a backslash or a
# blank in a path (a'b.cc is a legal Bazel source) is escaped with a
# backslash.
sed -e "s|^|$root/|" -e 's/[\\"'"'"'[:space:]]/\\&/g' "$results" > "$db/results" || exit 2
# apistamp prints paths relative to the working directory, after resolving
# symbolic links, and a sandbox's (or the execution root's) sources are
# links into the workspace: run in the workspace's directory, found from the
# rules file's link, so that the output names files as `apistamp check -p`
# run there does, the same in every checkout (the output is cached).
real_rules="$(readlink -f "$rules_file")" || exit 2
workspace="${real_rules%"/$rules_file"}"
[ "$workspace" != "$real_rules" ] || workspace="$root"
cd "$workspace" || exit 2
# The results as a response file (LLVM's @FILE): any number of them.
# shellcheck disable=SC2086 # $mode is one or two options, no spaces within
"$apistamp" merge --color=never -p "$db" $mode "@$db/results" > "$out" 2> "$db/stderr"
status=$?
echo "$status" > "$exit_file"
case "$status" in
  0) ;;
  1|3) if [ "$fail_on_findings" = 1 ]; then cat "$out" "$db/stderr" >&2; exit "$status"; fi ;;
  *) cat "$out" "$db/stderr" >&2; exit "$status" ;;
esac
