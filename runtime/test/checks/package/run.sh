#!/bin/sh
# Installs the runtime component of BUILD_DIR into a fresh prefix, then builds
# and runs the tiny project beside this script against it (find_package, each
# target) and the same program through pkg-config.
# usage: run.sh BUILD_DIR WORK_DIR CXX
set -eu
build=$1 work=$2 cxx=$3
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work"
prefix=$work/prefix
set -x
cmake --install "$build" --component apistamp_runtime --prefix "$prefix"
cmake -S "$here" -B "$work/build" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_CXX_COMPILER="$cxx" > "$work/configure.log"
cmake --build "$work/build"
expected="event package.api
event package.direct"
for exe in uses_runtime uses_static uses_shared; do
  out=$("$work/build/$exe")
  [ "$out" = "$expected" ] || { echo "$exe printed: $out" >&2; exit 1; }
done
# The shared flavour really is shared.
ldd "$work/build/uses_shared" | grep -q "libapistamp_runtime.so" || {
  echo "uses_shared does not load libapistamp_runtime.so" >&2; exit 1; }

pcdir=$(dirname "$(find "$prefix" -name apistamp.pc | head -n 1)")
export PKG_CONFIG_PATH=$pcdir
pkg-config --modversion apistamp
# shellcheck disable=SC2046
"$cxx" -std=c++11 "$here/main.cpp" $(pkg-config --cflags --libs apistamp) \
  -pthread -o "$work/uses_pkg_config"
libdir=$(pkg-config --variable=libdir apistamp)
out=$(LD_LIBRARY_PATH=$libdir "$work/uses_pkg_config")
[ "$out" = "$expected" ] || { echo "pkg-config build printed: $out" >&2; exit 1; }
echo "package check passed"
