#!/usr/bin/env bash
# Installs apistamp's build and test dependencies on Debian 12 (run as root);
# a fast no-op when they are all installed already.
set -euo pipefail

# libgmock-dev: the unit tests include gmock/gmock.h, which libgtest-dev lacks.
packages=(clang-19 libclang-rt-19-dev clang-tools-19 clang-format-19 libclang-19-dev llvm-19-dev llvm-19-tools libyaml-cpp-dev
          libgtest-dev libgmock-dev googletest cmake ninja-build python3 g++ git
          libtorch-dev libbenchmark-dev pkgconf libjpeg-dev libpng-dev
          libavcodec-dev libavformat-dev libavutil-dev libswscale-dev
          libswresample-dev pre-commit libsimdjson-dev zlib1g-dev libzstd-dev
          zstd sqlite3 jq chromium time acl python3-torch python3-torchvision
          libtree-sitter-dev)
# libtorch-dev: the runtime's test against the real c10 and the c10 variant of
# its benchmark; libbenchmark-dev: runtime/bench; pkgconf: the runtime's
# installed-package check (apistamp.pc); libjpeg, libpng and ffmpeg: the
# torchvision policy test compiles torchvision's image and video sources;
# pre-commit: the hooks are tested with the real framework; clang-format-19:
# the test command checks that tool/ is formatted; clang-tools-19:
# clang-apply-replacements for the --export-fixes round trip; simdjson, zlib
# and zstd: apistamp report reads (compressed) JSON-lines logs; zstd, sqlite3,
# jq and chromium: the report's tests (compressed logs, the warehouse SQL on
# SQLite, the jq comparison of the benchmark, the HTML page rendered headless);
# time: /usr/bin/time, the peak RSS in bench/report/run.sh; python3-torch and
# python3-torchvision: the c10 bridge's Python tests and the torchvision end
# to end test (Debian's /usr/bin/python3 imports them); libclang-rt-19-dev:
# clang's sanitizer runtimes, for the tool's build under ASan and UBSan;
# libtree-sitter-dev: the Python front end runs the vendored grammar
# (third_party/tree-sitter-python) on it.

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ $status == "install ok installed" ]] || missing+=("$p")
done
if ((${#missing[@]} > 0)); then
  if ((EUID != 0)); then
    echo "install-deps.sh: missing ${missing[*]}; run as root to install" >&2
    exit 1
  fi
  echo "install-deps.sh: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" > /dev/null
fi

# DuckDB's Node.js client for the warehouse SQL's test on DuckDB
# (test/lit/report/sql-duckdb.test, which says it is skipped without it):
# npm into $APISTAMP_CACHE_DIR/node (default /var/cache/apistamp/node), a
# no-op once there. Node.js and npm from Debian when the machine has none
# (a Node.js of its own, with its npm, is used as it is).
if ! command -v npm > /dev/null && ((EUID == 0)); then
  echo "install-deps.sh: installing nodejs npm"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    nodejs npm > /dev/null || true
fi
if ! "$(dirname "$0")/fetch-duckdb.sh" > /dev/null; then
  echo "install-deps.sh: warning: DuckDB's Node.js client could not be" \
       "installed; the warehouse SQL's DuckDB test will be skipped" >&2
fi

# Bazel 4.2.3 for the Bazel aspect's test (test/bazel/bazel_test.py, which
# says it is skipped without it): optional, as its Java is large.
if ! command -v bazel > /dev/null && ((EUID == 0)); then
  echo "install-deps.sh: installing bazel-bootstrap"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    bazel-bootstrap > /dev/null ||
    echo "install-deps.sh: warning: bazel-bootstrap could not be installed;" \
         "the Bazel test will be skipped" >&2
fi

# torchvision 0.14.1's source for the torchvision policy test, which skips
# (and says so) when it is missing; a no-op once fetched.
if ! "$(dirname "$0")/fetch-torchvision.sh" > /dev/null; then
  echo "install-deps.sh: warning: torchvision's source could not be fetched;" \
       "the torchvision policy test will be skipped" >&2
fi
# jsoncpp's, pugixml's and fmt's sources for the adoption tests
# (test/realworld), which skip (and say so) without them.
for package in libjsoncpp=1.9.5-4 pugixml=1.13-0.2 fmtlib=9.1.0+ds1-2 \
               protobuf=3.21.12-3+deb12u1; do
  if ! "$(dirname "$0")/fetch-debian-source.sh" "${package%=*}" "${package#*=}" > /dev/null; then
    echo "install-deps.sh: warning: ${package%=*}'s source could not be fetched;" \
         "its adoption test will be skipped" >&2
  fi
done
