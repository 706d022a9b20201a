-- apistamp report's per-event aggregates, in standard SQL (Spark SQL, Trino,
-- BigQuery, SQLite), from the runtime's JSON lines loaded as the table
-- api_usage(event, time, pid, host, exe, rank, job_id): one row per valid
-- line, host, exe and job_id NULL where the line has null (or nothing).
-- Output: the CSV `apistamp report --aggregates FILE.csv` reads: per event,
-- a totals row (day '') and one row per day (YYYY-MM-DD, the first 10
-- characters of time) whose jobs are the distinct jobs that day.
-- A job is the line's job_id; a line without one counts its process
-- (host, pid, exe) as its own job. docs/report-sql.md explains.
WITH usage_lines AS (
  SELECT event, time, pid,
         COALESCE(host, '') AS host,
         COALESCE(exe, '') AS exe,
         job_id
  FROM api_usage
),
-- Every line twice: under its day, and under '' for the event's totals.
keyed AS (
  SELECT event, SUBSTR(time, 1, 10) AS day, time, pid, host, exe, job_id
  FROM usage_lines
  UNION ALL
  SELECT event, '' AS day, time, pid, host, exe, job_id
  FROM usage_lines
),
jobs AS (
  SELECT event, day, COUNT(*) AS jobs
  FROM (SELECT DISTINCT event, day,
               CASE WHEN job_id IS NULL THEN 'process' ELSE 'job' END AS job_kind,
               COALESCE(job_id, host) AS job_name,
               CASE WHEN job_id IS NULL THEN pid ELSE 0 END AS job_pid,
               CASE WHEN job_id IS NULL THEN exe ELSE '' END AS job_exe
        FROM keyed) distinct_jobs
  GROUP BY event, day
),
processes AS (
  SELECT event, day, COUNT(*) AS processes
  FROM (SELECT DISTINCT event, day, host, pid, exe FROM keyed) distinct_processes
  GROUP BY event, day
),
hosts AS (
  SELECT event, day, COUNT(*) AS hosts
  FROM (SELECT DISTINCT event, day, host FROM keyed) distinct_hosts
  GROUP BY event, day
),
seen AS (
  SELECT event, day, MIN(time) AS first_seen, MAX(time) AS last_seen
  FROM keyed
  GROUP BY event, day
)
SELECT seen.event, seen.day, jobs.jobs, processes.processes, hosts.hosts,
       seen.first_seen, seen.last_seen
FROM seen
JOIN jobs ON jobs.event = seen.event AND jobs.day = seen.day
JOIN processes ON processes.event = seen.event AND processes.day = seen.day
JOIN hosts ON hosts.event = seen.event AND hosts.day = seen.day
ORDER BY seen.event, seen.day;
