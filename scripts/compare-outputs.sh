#!/usr/bin/env bash
# Usage: scripts/compare-outputs.sh BASELINE_BIN NEW_BIN [snapshot-outputs.py options]
#
# Snapshots apistamp's output on the real projects with each binary
# (scripts/snapshot-outputs.py, one after the other: they share the scratch
# directory, so paths in the outputs are the same) into
# ${SNAPSHOT_DIR:-/tmp/apistamp-compare}/{baseline,new} and diffs the two.
# Exit 0 only when the snapshots are identical (timings.txt, the wall time
# per command, is not compared); 1 when they differ; 2 on a failed set-up.
# Extra options (e.g. --only imagelib jsoncpp, --jobs 2) go to both runs.
set -uo pipefail
if [[ $# -lt 2 ]]; then
  sed -n '2,10s/^# \{0,1\}//p' "$0" >&2
  exit 2
fi
baseline_bin=$1 new_bin=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
dir=${SNAPSHOT_DIR:-/tmp/apistamp-compare}
mkdir -p "$dir"

for side in baseline new; do
  bin=$baseline_bin
  [[ $side == new ]] && bin=$new_bin
  echo "== snapshot with $bin -> $dir/$side"
  if ! /usr/bin/python3 "$here/snapshot-outputs.py" --apistamp "$bin" --out "$dir/$side" "$@"; then
    echo "compare-outputs: the $side snapshot failed (see its *.SETUP-FAILED.txt)" >&2
    exit 2
  fi
done

if diff -r -u --exclude=timings.txt "$dir/baseline" "$dir/new"; then
  echo "compare-outputs: identical ($(ls "$dir/baseline" | wc -l) files)"
  exit 0
fi
echo "compare-outputs: the outputs differ (diff above: $dir/baseline vs $dir/new)" >&2
exit 1
