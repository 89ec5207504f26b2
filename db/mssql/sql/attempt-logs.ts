// T-SQL of attempt output (db/mssql/attempt-logs.ts): the fenced append of log lines and progress with the
// bound per attempt, the reads of the task page and Running, the delete that goes with a task. Lock order
// (sql/claim.ts): Tasks, then AttemptOutput, then AttemptLogs (after ExecutionLog where both are written).
import { MAX_ATTEMPT_BYTES, MAX_ATTEMPT_LINES } from '../../../lib/engine/attempt-output';
import { ESCALATION_CHUNK } from './chunks';

/**
 * Append attempts' output. @batch: JSON array of {ord, taskId, workerId, attempt, dropped, percent|null,
 * message|null, progressAt|null}; @lines: JSON array of {ord, i, at ('YYYY-MM-DDTHH:MM:SS.mmm' UTC), stream,
 * line, bytes}. The fence as FINISH's (the attempt owns its running task, its lease has not expired), with
 * the task rows held (UPDLOCK) until the commit so no settlement, rescue or delete slips in between. Seqs
 * continue the attempt's last; the oldest lines beyond the newest MAX_ATTEMPT_LINES / MAX_ATTEMPT_BYTES
 * are deleted (ESCALATION_CHUNK per statement) and counted as dropped. Returns (ord, ok) in input order.
 */
export const APPEND_OUTPUT = `SET NOCOUNT ON;
SET XACT_ABORT ON;
SET DEADLOCK_PRIORITY LOW;
DECLARE @now datetime2(3) = SYSUTCDATETIME();
DECLARE @b TABLE (ord int NOT NULL PRIMARY KEY, task_id bigint NOT NULL, worker_id nvarchar(256) NOT NULL, attempt int NOT NULL,
  dropped int NOT NULL, pct decimal(4,1) NULL, message nvarchar(400) NULL, progress_at datetime2(3) NULL, ok bit NOT NULL);
INSERT INTO @b (ord, task_id, worker_id, attempt, dropped, pct, message, progress_at, ok)
  SELECT j.ord, j.task_id, j.worker_id, j.attempt, COALESCE(j.dropped, 0), j.pct, j.message, j.progress_at, 0
  FROM OPENJSON(@batch) WITH (
    ord int '$.ord', task_id bigint '$.taskId', worker_id nvarchar(256) '$.workerId', attempt int '$.attempt',
    dropped int '$.dropped', pct decimal(4,1) '$.percent', message nvarchar(400) '$.message',
    progress_at datetime2(3) '$.progressAt') AS j;
DECLARE @l TABLE (ord int NOT NULL, i int NOT NULL, at datetime2(3) NOT NULL, stream varchar(5) NOT NULL,
  line nvarchar(4000) NOT NULL, bytes int NOT NULL, PRIMARY KEY (ord, i));
INSERT INTO @l (ord, i, at, stream, line, bytes)
  SELECT j.ord, j.i, j.at, j.stream, j.line, j.bytes
  FROM OPENJSON(@lines) WITH (
    ord int '$.ord', i int '$.i', at datetime2(3) '$.at', stream varchar(5) '$.stream', line nvarchar(4000) '$.line',
    bytes int '$.bytes') AS j;
DECLARE @cut TABLE (task_id bigint NOT NULL, attempt int NOT NULL, seq int NOT NULL, PRIMARY KEY (task_id, attempt));
BEGIN TRANSACTION;
UPDATE b SET ok = 1
  FROM @b AS b
  JOIN readpast.Tasks AS t WITH (UPDLOCK, ROWLOCK) ON t.id = b.task_id
  WHERE t.status = 'running' AND t.worker_id = b.worker_id AND t.attempts = b.attempt AND t.lease_until >= @now;
INSERT INTO readpast.AttemptOutput (task_id, attempt, updated_at)
  SELECT DISTINCT b.task_id, b.attempt, @now FROM @b AS b
  WHERE b.ok = 1
    AND NOT EXISTS (SELECT 1 FROM readpast.AttemptOutput AS o WHERE o.task_id = b.task_id AND o.attempt = b.attempt);
INSERT INTO readpast.AttemptLogs (task_id, attempt, seq, at, stream, line, bytes)
  SELECT b.task_id, b.attempt,
    o.last_seq + ROW_NUMBER() OVER (PARTITION BY b.task_id, b.attempt ORDER BY l.ord, l.i),
    l.at, l.stream, l.line, l.bytes
  FROM @l AS l
  JOIN @b AS b ON b.ord = l.ord
  JOIN readpast.AttemptOutput AS o ON o.task_id = b.task_id AND o.attempt = b.attempt
  WHERE b.ok = 1;
UPDATE o SET last_seq = o.last_seq + a.n, lines = o.lines + a.n, bytes = o.bytes + a.bytes, dropped = o.dropped + a.dropped,
    updated_at = @now
  FROM readpast.AttemptOutput AS o
  JOIN (
    SELECT b.task_id, b.attempt, SUM(x.n) AS n, SUM(x.bytes) AS bytes, SUM(b.dropped) AS dropped
    FROM @b AS b
    CROSS APPLY (SELECT COUNT(*) AS n, COALESCE(SUM(l.bytes), 0) AS bytes FROM @l AS l WHERE l.ord = b.ord) AS x
    WHERE b.ok = 1
    GROUP BY b.task_id, b.attempt
  ) AS a ON a.task_id = o.task_id AND a.attempt = o.attempt;
UPDATE o SET pct = p.pct, message = p.message, progress_at = p.progress_at
  FROM readpast.AttemptOutput AS o
  JOIN (
    SELECT b.task_id, b.attempt, b.pct, b.message, b.progress_at,
      ROW_NUMBER() OVER (PARTITION BY b.task_id, b.attempt ORDER BY b.ord DESC) AS rn
    FROM @b AS b
    WHERE b.ok = 1 AND b.pct IS NOT NULL AND b.progress_at IS NOT NULL
  ) AS p ON p.task_id = o.task_id AND p.attempt = o.attempt AND p.rn = 1;
INSERT INTO @cut (task_id, attempt, seq)
  SELECT o.task_id, o.attempt, MAX(k.seq)
  FROM readpast.AttemptOutput AS o
  CROSS APPLY (
    SELECT g.seq FROM (
      SELECT x.seq, SUM(x.bytes) OVER (ORDER BY x.seq DESC ROWS UNBOUNDED PRECEDING) AS total,
        ROW_NUMBER() OVER (ORDER BY x.seq DESC) AS rn
      FROM readpast.AttemptLogs AS x
      WHERE x.task_id = o.task_id AND x.attempt = o.attempt
    ) AS g
    WHERE g.total > ${MAX_ATTEMPT_BYTES} OR g.rn > ${MAX_ATTEMPT_LINES}
  ) AS k
  WHERE (o.lines > ${MAX_ATTEMPT_LINES} OR o.bytes > ${MAX_ATTEMPT_BYTES})
    AND EXISTS (SELECT 1 FROM @b AS b WHERE b.ok = 1 AND b.task_id = o.task_id AND b.attempt = o.attempt)
  GROUP BY o.task_id, o.attempt;
-- ESCALATION_CHUNK lines per statement: many attempts trimmed at once must not escalate to a table lock (one table in
-- the CTE's FROM: a DELETE through a CTE over a join is refused, error 4405)
DECLARE @trimmed int = ${ESCALATION_CHUNK};
WHILE @trimmed = ${ESCALATION_CHUNK}
BEGIN
  SET @trimmed = 0;
  WITH doomed AS (
    SELECT TOP (${ESCALATION_CHUNK}) x.seq
    FROM readpast.AttemptLogs AS x
    WHERE EXISTS (SELECT 1 FROM @cut AS c WHERE c.task_id = x.task_id AND c.attempt = x.attempt AND x.seq <= c.seq)
  )
  DELETE FROM doomed;
  SET @trimmed = @@ROWCOUNT;
END;
UPDATE o SET lines = k.n, bytes = k.bytes, dropped = o.dropped + (o.lines - k.n)
  FROM readpast.AttemptOutput AS o
  JOIN @cut AS c ON c.task_id = o.task_id AND c.attempt = o.attempt
  CROSS APPLY (SELECT COUNT(*) AS n, COALESCE(SUM(x.bytes), 0) AS bytes FROM readpast.AttemptLogs AS x
    WHERE x.task_id = o.task_id AND x.attempt = o.attempt) AS k;
COMMIT TRANSACTION;
SELECT b.ord, CAST(b.ok AS int) AS ok FROM @b AS b ORDER BY b.ord;`;

/**
 * An attempt's output by task token (@token), attempt (@attempt; NULL: the task's latest) and @after_seq.
 * Returns (task_id, attempt, has_output, dropped, pct, message, progress_at) — no row: no such task — then
 * up to MAX_ATTEMPT_LINES lines after @after_seq.
 */
export const ATTEMPT_OUTPUT = `SET NOCOUNT ON;
DECLARE @task bigint, @n int;
SELECT @task = t.id, @n = COALESCE(@attempt, t.attempts) FROM readpast.Tasks AS t WHERE t.token = @token;
SELECT @task AS task_id, @n AS attempt, CASE WHEN o.task_id IS NULL THEN 0 ELSE 1 END AS has_output,
    COALESCE(o.dropped, 0) AS dropped, o.pct, o.message, o.progress_at
  FROM (SELECT 1 AS one) AS x
  LEFT JOIN readpast.AttemptOutput AS o ON o.task_id = @task AND o.attempt = @n
  WHERE @task IS NOT NULL;
SELECT TOP (${MAX_ATTEMPT_LINES}) l.seq, l.at, l.stream, l.line
  FROM readpast.AttemptLogs AS l
  WHERE l.task_id = @task AND l.attempt = @n AND l.seq > @after_seq
  ORDER BY l.seq;`;

/** @tokens: JSON array of running tasks' tokens → token, pct, message, progress_at of the attempt running now. */
export const RUNNING_PROGRESS = `SELECT t.token, o.pct, o.message, o.progress_at
FROM readpast.Tasks AS t
JOIN readpast.AttemptOutput AS o ON o.task_id = t.id AND o.attempt = t.attempts
WHERE t.token IN (SELECT TRY_CAST(j.value AS uniqueidentifier) FROM OPENJSON(@tokens) AS j)
  AND o.pct IS NOT NULL AND o.progress_at IS NOT NULL;`;

/** Delete the rows of `table` of the tasks in @moves, ESCALATION_CHUNK per statement (@out_chunk counts the last one). */
const deleteOfMoved = (table: string) => `WHILE @out_chunk = ${ESCALATION_CHUNK}
BEGIN
  SET @out_chunk = 0;
  WITH doomed AS (
    SELECT TOP (${ESCALATION_CHUNK}) x.task_id FROM ${table} AS x WHERE x.task_id IN (SELECT m.id FROM @moves AS m)
  )
  DELETE FROM doomed;
  SET @out_chunk = @@ROWCOUNT;
END;`;

/**
 * The output of the tasks in @moves goes with them (part of the deletes in sql/operators.ts and
 * sql/maintenance.ts, after their ExecutionLog rows): lines, and each attempt's output row, ESCALATION_CHUNK per
 * statement.
 */
export const DELETE_TASKS_OUTPUT = `DECLARE @out_chunk int = ${ESCALATION_CHUNK};
${deleteOfMoved('readpast.AttemptLogs')}
SET @out_chunk = ${ESCALATION_CHUNK};
${deleteOfMoved('readpast.AttemptOutput')}`;
