#!/usr/bin/env bash
# Installs apistamp's build and test dependencies on Debian 12 (as root).
# Fast no-op when everything is already installed.
set -euo pipefail
packages=(clang-19 libclang-19-dev llvm-19-dev llvm-19-tools libyaml-cpp-dev
          libgtest-dev libgmock-dev cmake ninja-build python3 g++ git)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
((${#missing[@]} == 0)) && exit 0
echo "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" > /dev/null
