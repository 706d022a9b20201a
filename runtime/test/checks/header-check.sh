#!/bin/sh
# Compiles HeaderCheck.cpp with one compiler, standard and mode, links it
# against the runtime and runs it (one ctest check per combination).
# usage: header-check.sh COMPILER STD MODE INCLUDE_DIR RUNTIME_LIB WORK_DIR
#   MODE: default | no-exceptions-rtti | predefined
set -eu
compiler=$1 std=$2 mode=$3 include=$4 lib=$5 work=$6
here=$(dirname "$0")
mkdir -p "$work"
name=$(basename "$compiler")-$std-$mode
flags="-std=$std -Wall -Wextra -Wpedantic -Werror"
case $mode in
  default) ;;
  no-exceptions-rtti) flags="$flags -fno-exceptions -fno-rtti" ;;
  predefined) flags="$flags -DCHECK_PREDEFINED" ;;
  *) echo "bad mode $mode" >&2; exit 2 ;;
esac
set -x
"$compiler" $flags -I"$include" -c "$here/HeaderCheck.cpp" -o "$work/$name.o"
"$compiler" "$work/$name.o" "$lib" -pthread -o "$work/$name"
"$work/$name"
