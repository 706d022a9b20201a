#!/usr/bin/env bash
# Configures a build of apistamp the way the README's commands build it:
# Ninja and clang-19 (about half of g++'s compile time on clang's headers),
# optimised, with line tables only (-g1: backtraces keep file:line, and the
# binary is a third of -g's). Later arguments override these, e.g. the
# sanitized build's -DCMAKE_BUILD_TYPE.
#
#   scripts/configure-build.sh BUILD_DIR [CMAKE_ARGS...]
set -euo pipefail
dir=$1
shift
exec cmake -S "$(dirname "$0")/.." -B "$dir" -G Ninja \
  -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" "$@" > /dev/null
