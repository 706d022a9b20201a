#!/usr/bin/env bash
# Checks that the vendored third-party files are the bytes their README
# lists (third_party/*/README.apistamp.md): exit 1 on any difference.
set -euo pipefail
cd "$(dirname "$0")/../third_party"
status=0
for readme in */README.apistamp.md; do
  dir=$(dirname "$readme")
  # The checksum block: lines of 64 hex digits, two spaces, a path.
  if ! grep -E '^[0-9a-f]{64}  ' "$readme" | (cd "$dir" && sha256sum --check --quiet); then
    echo "$dir: vendored files differ from $readme" >&2
    status=1
  fi
done
exit $status
