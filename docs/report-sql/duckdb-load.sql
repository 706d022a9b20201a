-- DuckDB (1.1 or later; its JSON extension is built in): api_usage from the
-- raw lines in api_usage_lines(line), with apistamp's rules for a valid
-- line (docs/report-sql.md), as sqlite-load.sql does on SQLite.
-- First the lines that are JSON: DuckDB's json_type and json_extract raise
-- an error on a line that is not, and a WHERE does not guard them. DuckDB's
-- parser also takes trailing commas and NaN or Infinity, which JSON (and
-- apistamp) does not: outside the strings (each replaced by ""), no comma
-- before a closing bracket and no letter but in true, false, null and an
-- exponent.
CREATE TEMP TABLE api_usage_json AS
SELECT line,
       regexp_replace(line, '"(\\.|[^"\\])*"', '""', 'g') AS bare
FROM api_usage_lines
WHERE json_valid(line);
CREATE TABLE api_usage AS
SELECT json_extract_string(line, '$.event') AS event,
       json_extract_string(line, '$.time') AS time,
       TRY_CAST(json_extract_string(line, '$.pid') AS BIGINT) AS pid,
       json_extract_string(line, '$.host') AS host,
       json_extract_string(line, '$.exe') AS exe,
       json_extract(line, '$.rank') AS rank,
       -- An integer job_id is its decimal text ("77" and 77 are one job).
       CASE WHEN json_type(line, '$.job_id') IN ('VARCHAR', 'BIGINT', 'UBIGINT')
            THEN json_extract_string(line, '$.job_id') END AS job_id
FROM api_usage_json
WHERE NOT regexp_matches(bare, ',\s*[\]}]')
  AND NOT regexp_matches(regexp_replace(bare, 'true|false|null', '', 'g'),
                         '[A-DF-Za-df-z]')
  AND json_type(line) = 'OBJECT'
  AND json_type(line, '$.event') = 'VARCHAR'
  AND json_extract_string(line, '$.event') <> ''
  AND json_type(line, '$.time') = 'VARCHAR'
  -- time: ISO 8601, YYYY-MM-DD alone or followed by 'T' and the time of day,
  -- and its day a day of the calendar (not 2026-02-30 or 0000-00-00).
  AND regexp_matches(json_extract_string(line, '$.time'),
                     '^[0-9]{4}-[0-9]{2}-[0-9]{2}(T|$)')
  AND strftime(TRY_CAST(substr(json_extract_string(line, '$.time'), 1, 10) AS DATE),
               '%Y-%m-%d') = substr(json_extract_string(line, '$.time'), 1, 10)
  -- pid: a 64-bit signed integer (DuckDB types a positive one UBIGINT).
  AND json_type(line, '$.pid') IN ('BIGINT', 'UBIGINT')
  AND TRY_CAST(json_extract_string(line, '$.pid') AS BIGINT) IS NOT NULL
  AND COALESCE(json_type(line, '$.host'), 'NULL') IN ('VARCHAR', 'NULL')
  AND COALESCE(json_type(line, '$.exe'), 'NULL') IN ('VARCHAR', 'NULL')
  -- job_id: a string, null, or an integer of 64 bits (signed, or unsigned
  -- up to 18446744073709551615: larger ones are DOUBLE to DuckDB).
  AND COALESCE(json_type(line, '$.job_id'), 'NULL')
      IN ('VARCHAR', 'NULL', 'BIGINT', 'UBIGINT');
