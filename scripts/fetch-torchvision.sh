#!/usr/bin/env bash
# Fetches torchvision 0.14.1's source (Debian source package pytorch-vision)
# for the torchvision policy test; prints the unpacked directory. Set-up only:
# the tests never touch the network, they skip when this has not been run.
set -euo pipefail

cache=${APISTAMP_CACHE_DIR:-/var/cache/apistamp}/pytorch-vision
tree=$cache/vision-0.14.1
if [[ -f $tree/torchvision/csrc/vision.cpp ]]; then
  echo "$tree"
  exit 0
fi

mkdir -p "$cache/apt/lists/partial" "$cache/apt/archives/partial"
# A private deb-src list and private apt state: the machine's own sources and
# package lists are left as they are.
cat > "$cache/apt/sources.list" <<'LIST'
deb-src http://deb.debian.org/debian bookworm main
LIST
apt_opts=(-o "Dir::Etc::SourceList=$cache/apt/sources.list"
          -o Dir::Etc::SourceParts=/dev/null
          -o "Dir::State::Lists=$cache/apt/lists"
          -o "Dir::Cache=$cache/apt"
          -o APT::Sandbox::User=root)
apt-get "${apt_opts[@]}" -qq update
# --download-only: only the upstream tarball is needed, and apt checks it
# against the .dsc's checksums; the Debian packaging tarball is not used.
(cd "$cache" && apt-get "${apt_opts[@]}" -qq source --download-only \
   pytorch-vision=0.14.1-2 >/dev/null 2>&1 || true)
tarball=$cache/pytorch-vision_0.14.1.orig.tar.gz
if [[ ! -f $tarball ]]; then
  echo "fetch-torchvision.sh: could not download $tarball" >&2
  exit 1
fi
expected=$(awk '/^Checksums-Sha256:/{f=1;next} f&&/orig.tar.gz/{print $1;exit}' \
           "$cache/pytorch-vision_0.14.1-2.dsc")
actual=$(sha256sum "$tarball" | cut -d' ' -f1)
if [[ -z $expected || $expected != "$actual" ]]; then
  echo "fetch-torchvision.sh: checksum mismatch for $tarball" >&2
  rm -f "$tarball"
  exit 1
fi
tar -xzf "$tarball" -C "$cache"
echo "$tree"
