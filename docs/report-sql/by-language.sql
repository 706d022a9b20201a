-- Per language: the events placed, how many were used, and the jobs summed
-- over them, as `apistamp report --by=language --format=csv` gives them,
-- computed in the warehouse. Tables: catalog, `apistamp catalog
-- --format=csv` loaded as is (event, rule, file, line, kind, status, name,
-- language, through); aggregates, aggregates.sql's output (event, day, jobs,
-- processes, hosts, first_seen, last_seen; the totals' day ''). Standard
-- SQL: it runs unchanged on SQLite, DuckDB, Spark SQL and Trino.
WITH placed AS (
  -- One row per event (overloads share one), with its language.
  SELECT event, MIN(language) AS language
  FROM catalog
  GROUP BY event
),
totals AS (
  SELECT event, CAST(jobs AS INTEGER) AS jobs
  FROM aggregates
  WHERE day = '' OR day IS NULL
)
SELECT placed.language AS language,
       COUNT(*) AS events,
       SUM(CASE WHEN COALESCE(totals.jobs, 0) > 0 THEN 1 ELSE 0 END) AS used,
       SUM(COALESCE(totals.jobs, 0)) AS jobs
FROM placed
LEFT JOIN totals ON totals.event = placed.event
GROUP BY placed.language
ORDER BY placed.language;
