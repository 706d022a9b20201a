#!/bin/sh
# apistamp_aspect's action (apistamp.bzl): `apistamp tu` on the source's
# compile_commands.json entry, which the aspect wrote with the directory
# `__EXEC_ROOT__`: here it becomes this action's execution root, so the
# result is made from the very command apistamp_merge's database holds.
#   tu.sh APISTAMP COMMAND_ENTRY RESULT SOURCE
set -u
root="$(pwd -P)"
case "$root" in
  *[\"\\\|\&]*)
    echo "apistamp: the execution root '$root' has a character this script does not escape" >&2
    exit 2 ;;
esac
db="$(mktemp -d "${TMPDIR:-/tmp}/apistamp-tu.XXXXXX")" || exit 2
trap 'rm -rf "$db"' EXIT
{
  echo "["
  sed -e "s|\"__EXEC_ROOT__\"|\"$root\"|" "$2" || exit 2
  echo "]"
} > "$db/compile_commands.json" || exit 2
"$1" tu --quiet --color=never -p "$db" -o "$3" "$4"
