#!/usr/bin/env bash
# Installs DuckDB's Node.js client (@duckdb/node-api, with its prebuilt
# engine) into $APISTAMP_CACHE_DIR/node (default /var/cache/apistamp/node)
# for the warehouse SQL's test on DuckDB (test/lit/report/sql-duckdb.test);
# a no-op once installed. Prints the directory that holds node_modules.
set -euo pipefail
version=1.5.6-r.1
dir=${APISTAMP_CACHE_DIR:-/var/cache/apistamp}/node
installed=$dir/node_modules/@duckdb/node-api/package.json
if [[ -f $installed ]] && grep -q "\"version\": \"$version\"" "$installed"; then
  echo "$dir"
  exit 0
fi
command -v npm > /dev/null || { echo "fetch-duckdb.sh: no npm" >&2; exit 1; }
mkdir -p "$dir"
cd "$dir"
[[ -f package.json ]] || echo '{"name": "apistamp-test-tools", "private": true}' > package.json
npm install --no-audit --no-fund --loglevel=error --save-exact "@duckdb/node-api@$version" >&2
node -e "require('@duckdb/node-api')" >&2
echo "$dir"
