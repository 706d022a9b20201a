// Runs the warehouse SQL (docs/report-sql/) on DuckDB through its Node.js
// client, as sql-equivalence.py runs it on the sqlite3 shell: the raw lines
// into api_usage_lines(line), LOAD (duckdb-load.sql), an optional window,
// then the aggregates query exported with DuckDB's COPY ... TO (CSV).
//   node duckdb-aggregates.cjs NODE_DIR RAW LOAD.sql AGGREGATES.sql OUT.csv [SINCE UNTIL]
'use strict';
const path = require('path');
const fs = require('fs');
const { createRequire } = require('module');
const [nodeDir, raw, loadSql, aggregatesSql, out, since, until] =
    process.argv.slice(2);
const { DuckDBInstance, VARCHAR } =
    createRequire(path.join(nodeDir, 'package.json'))('@duckdb/node-api');

async function main() {
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  await c.run('CREATE TABLE api_usage_lines(line VARCHAR)');
  // One row per line, its bytes as they are (no CSV parsing of them).
  const text = fs.readFileSync(raw, 'utf8');
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const appender = await c.createAppender('api_usage_lines');
  for (const line of lines) {
    appender.appendVarchar(line);
    appender.endRow();
  }
  appender.closeSync();
  await c.run(fs.readFileSync(loadSql, 'utf8'));
  if (since !== undefined)
    await c.run(`DELETE FROM api_usage WHERE NOT (time >= '${since}' AND time < '${until}')`);
  const query = fs.readFileSync(aggregatesSql, 'utf8').trim().replace(/;$/, '');
  await c.run(`COPY (${query}) TO '${out}' (FORMAT csv, HEADER)`);
  const version = await c.runAndReadAll('SELECT version() AS v');
  console.log(`duckdb ${version.getRowObjects()[0].v}`);
}
main().catch((e) => { console.error(`duckdb: ${e.message}`); process.exit(1); });
