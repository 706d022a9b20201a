-- SQLite (3.38 or later, JSON functions built in): api_usage from the raw
-- lines in api_usage_lines(line), with apistamp's rules for a valid line
-- (docs/report-sql.md). Other warehouses have their own JSON functions;
-- the rules are the same.
CREATE TABLE api_usage AS
SELECT json_extract(line, '$.event') AS event,
       json_extract(line, '$.time') AS time,
       json_extract(line, '$.pid') AS pid,
       json_extract(line, '$.host') AS host,
       json_extract(line, '$.exe') AS exe,
       line -> '$.rank' AS rank,
       CASE json_type(line, '$.job_id')
         WHEN 'text' THEN json_extract(line, '$.job_id')
         -- An integer job_id is its decimal text ("77" and 77 are one job);
         -- past 2^63 SQLite's value is a REAL, so the JSON text is taken.
         WHEN 'integer' THEN
           CASE WHEN typeof(json_extract(line, '$.job_id')) = 'integer'
                THEN CAST(json_extract(line, '$.job_id') AS TEXT)
                ELSE line -> '$.job_id' END
       END AS job_id
FROM api_usage_lines
WHERE json_valid(line)
  AND json_type(line) = 'object'
  AND json_type(line, '$.event') = 'text'
  AND json_extract(line, '$.event') <> ''
  AND json_type(line, '$.time') = 'text'
  -- time: ISO 8601, YYYY-MM-DD alone or followed by 'T' and the time of day.
  AND json_extract(line, '$.time') GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*'
  AND (length(json_extract(line, '$.time')) = 10
       OR substr(json_extract(line, '$.time'), 11, 1) = 'T')
  -- ... and its day a day of the calendar (not 2026-02-30 or 0000-00-00).
  -- (date() keeps 2026-02-30; a modifier makes it 2026-03-02.)
  AND date(substr(json_extract(line, '$.time'), 1, 10), '+0 days')
      = substr(json_extract(line, '$.time'), 1, 10)
  -- pid: a 64-bit signed integer.
  AND json_type(line, '$.pid') = 'integer'
  AND typeof(json_extract(line, '$.pid')) = 'integer'
  AND COALESCE(json_type(line, '$.host'), 'null') IN ('text', 'null')
  AND COALESCE(json_type(line, '$.exe'), 'null') IN ('text', 'null')
  -- job_id: a string, null, or an integer of 64 bits (signed, or unsigned
  -- up to 18446744073709551615).
  AND (COALESCE(json_type(line, '$.job_id'), 'null') IN ('text', 'null')
       OR (json_type(line, '$.job_id') = 'integer'
           AND (typeof(json_extract(line, '$.job_id')) = 'integer'
                OR (json_extract(line, '$.job_id') > 0
                    AND (length(line -> '$.job_id') < 20
                         OR (length(line -> '$.job_id') = 20
                             AND line -> '$.job_id' <= '18446744073709551615'))))));
