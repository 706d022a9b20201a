#!/usr/bin/env bash
# Fetches a Debian source package's upstream tarball (checked against the
# .dsc) into the apistamp cache and prints the unpacked directory:
#   fetch-debian-source.sh PACKAGE VERSION
# Set-up only: tests never touch the network; they skip without the source.
set -euo pipefail

package=$1 version=$2
upstream=${version%-*}
cache=${APISTAMP_CACHE_DIR:-/var/cache/apistamp}/$package
stamp=$cache/.unpacked-$version
if [[ -f $stamp ]]; then
  cat "$stamp"
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
# --download-only: only the upstream tarball is used; apt checks it against
# the .dsc's checksums, and so does this script.
(cd "$cache" && apt-get "${apt_opts[@]}" -qq source --download-only \
   "$package=$version" >/dev/null 2>&1 || true)
dsc=$cache/${package}_${version#*:}.dsc
tarball=$(ls "$cache/${package}_${upstream#*:}".orig.tar.* 2>/dev/null | head -1 || true)
if [[ ! -f $dsc || -z $tarball ]]; then
  echo "fetch-debian-source.sh: could not download $package $version" >&2
  exit 1
fi
expected=$(awk -v t="$(basename "$tarball")" \
           '/^Checksums-Sha256:/{f=1;next} f&&$3==t{print $1;exit}' "$dsc")
actual=$(sha256sum "$tarball" | cut -d' ' -f1)
if [[ -z $expected || $expected != "$actual" ]]; then
  echo "fetch-debian-source.sh: checksum mismatch for $tarball" >&2
  rm -f "$tarball"
  exit 1
fi
top=$(tar -tf "$tarball" | sed -n '1s|/.*||p')
tar -xf "$tarball" -C "$cache"
echo "$cache/$top" > "$stamp.tmp" && mv "$stamp.tmp" "$stamp"
cat "$stamp"
