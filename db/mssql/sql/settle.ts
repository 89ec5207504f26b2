// T-SQL that ends attempts: a worker's settlements (FINISH, fenced on task, worker and attempt), and
// the settling of the batches whose tasks moved (SETTLE_BATCHES, a transaction of its own, run right
// after any batch that moved tasks of a batch). Lock order as written down in sql/claim.ts.
import { ESCALATION_CHUNK } from './chunks';
import { BEGIN, DECLARE_MOVES, MOVES_TO_DELTAS, TALLY, TOUCHED } from './tally';
import { historyCommandOf } from './history';
import { CASCADE_FAILURE, DECLARE_EDGES, RELEASE_CHILDREN } from './edges';
import { DECLARE_GO, SUSPEND_MATCH } from './events';
import { PUT_SUSPENDED_STEPS, STEP_COLUMNS_DECLARED, STEP_COLUMN_NAMES, STEP_JSON_COLUMNS } from './steps';

/**
 * Settle attempts, fenced on (task, worker, attempt), status running and a lease not yet expired (a
 * lapsed lease is lost: its token may be granted to another attempt; the rescue retries the task);
 * the attempt's token is released. Kind `given_back`: an attempt its claim started that never ran (the claim came
 * back with too little of its lease left) is undone — pending, due as it was, its attempt count back, its
 * ExecutionLog row deleted, counted as no attempt. @results: JSON array of {ord, taskId, workerId, attempt, kind
 * (succeeded|retry|dead|cancelled|given_back),
 * outcome, result (JSON text|null), runAfter ('YYYY-MM-DDTHH:MM:SS.mmm' UTC|null), errorNumber, errorMessage,
 * errorDetail, fingerprint (lib/engine/fingerprint.ts; null: reads fingerprint it later), startedAt (UTC|null: when the
 * worker began it, kept only between the claim's started_at and @now — another clock may disagree), trace (the traceparent of
 * the attempt's span, kept on its log row and as its task's attempt_trace; null: not traced, the task's kept)}. Returns (ord, ok)
 * in input order (with `released`: how many waiting tasks became pending), then the touched batches.
 * The settled tasks' children follow (sql/edges.ts): released by a success, cancelled or let through by a failure.
 */
export const FINISH = `${BEGIN}
${DECLARE_MOVES}
${DECLARE_EDGES}
${DECLARE_GO}
DECLARE @r TABLE (
  ord int NOT NULL PRIMARY KEY, task_id bigint NOT NULL, worker_id nvarchar(256) NOT NULL, attempt int NOT NULL,
  kind varchar(10) NOT NULL, outcome varchar(10) NOT NULL, result nvarchar(max) NULL, run_after datetime2(3) NULL,
  error_number int NULL, error_message nvarchar(4000) NULL, error_detail nvarchar(max) NULL, fingerprint char(16) NULL,
  started_at datetime2(3) NULL, trace varchar(55) NULL,
  ${STEP_COLUMNS_DECLARED});
INSERT INTO @r (ord, task_id, worker_id, attempt, kind, outcome, result, run_after, error_number, error_message, error_detail,
    fingerprint, started_at, trace, ${STEP_COLUMN_NAMES('')})
  SELECT j.ord, j.task_id, j.worker_id, j.attempt, j.kind, j.outcome, j.result, j.run_after, j.error_number,
    j.error_message, j.error_detail, j.fingerprint, j.started_at, j.trace, ${STEP_COLUMN_NAMES('j.')}
  FROM OPENJSON(@results) WITH (
    ord int '$.ord', task_id bigint '$.taskId', worker_id nvarchar(256) '$.workerId', attempt int '$.attempt',
    kind varchar(10) '$.kind', outcome varchar(10) '$.outcome', result nvarchar(max) '$.result',
    run_after datetime2(3) '$.runAfter', error_number int '$.errorNumber', error_message nvarchar(4000) '$.errorMessage',
    error_detail nvarchar(max) '$.errorDetail', fingerprint char(16) '$.fingerprint', started_at datetime2(3) '$.startedAt',
    trace varchar(55) '$.trace',
    ${STEP_JSON_COLUMNS}) AS j;
DECLARE @held_rows int;
BEGIN TRANSACTION;
-- the attempts' rows first, then the time: a finish that waited behind another writer's lock is fenced on the
-- lease as it stands once it holds the rows (one that lapsed meanwhile is refused), and its times are then
SELECT @held_rows = COUNT(*) FROM readpast.Tasks AS t WITH (UPDLOCK, ROWLOCK, READCOMMITTEDLOCK) JOIN @r AS r ON r.task_id = t.id;
SET @now = SYSUTCDATETIME();
UPDATE t
  SET status = CASE r.kind WHEN 'succeeded' THEN 'succeeded' WHEN 'retry' THEN 'pending' WHEN 'given_back' THEN 'pending'
        WHEN 'dead' THEN 'dead' WHEN 'suspended' THEN 'waiting' ELSE 'cancelled' END,
      attempts = CASE WHEN r.kind = 'given_back' THEN t.attempts - 1 ELSE t.attempts END,
      finished_at = CASE WHEN r.kind IN ('retry', 'given_back', 'suspended') THEN t.finished_at ELSE @now END,
      run_after = CASE WHEN r.kind IN ('retry', 'suspended') THEN COALESCE(r.run_after, @now) ELSE t.run_after END,
      suspended = CASE WHEN r.kind <> 'suspended' THEN t.suspended WHEN r.step_kind = 'sleep' THEN 'sleep' ELSE 'event' END,
      suspensions = CASE WHEN r.kind = 'suspended' THEN COALESCE(t.suspensions, 0) + 1 ELSE t.suspensions END,
      lease_until = NULL,
      result = CASE WHEN r.kind = 'succeeded' THEN r.result ELSE t.result END,
      error_number = CASE WHEN r.kind IN ('retry', 'dead') THEN r.error_number ELSE t.error_number END,
      error_message = CASE WHEN r.kind IN ('retry', 'dead') THEN r.error_message ELSE t.error_message END,
      error_detail = CASE WHEN r.kind IN ('retry', 'dead') THEN r.error_detail ELSE t.error_detail END,
      fingerprint = CASE WHEN r.kind IN ('retry', 'dead') THEN r.fingerprint ELSE t.fingerprint END,
      started_at = CASE WHEN r.started_at > t.started_at AND r.started_at <= @now THEN r.started_at ELSE t.started_at END,
      attempt_trace = COALESCE(r.trace, t.attempt_trace)
  OUTPUT inserted.id, inserted.queue, inserted.batch_id, inserted.stage, deleted.status, inserted.status, deleted.token_no,
    deleted.attempts, deleted.worker_id INTO @moves
  FROM readpast.Tasks AS t JOIN @r AS r ON r.task_id = t.id
  WHERE t.status = 'running' AND t.worker_id = r.worker_id AND t.attempts = r.attempt AND t.lease_until >= @now;
UPDATE c SET status = 'free', task_id = NULL, attempt = NULL, worker_id = NULL, granted_at = NULL
  FROM readpast.ConcurrencyTokens AS c
  JOIN @moves AS m ON m.queue = c.queue AND m.token_no = c.token_no AND m.id = c.task_id AND m.attempt = c.attempt;
UPDATE l
  SET ended_at = @now, outcome = r.outcome, error_number = r.error_number, error_message = r.error_message,
      error_detail = r.error_detail, trace_parent = r.trace,
      started_at = CASE WHEN r.started_at > l.started_at AND r.started_at <= @now THEN r.started_at ELSE l.started_at END
  OUTPUT inserted.queue, ${historyCommandOf('inserted.kind', 'inserted.command')},
    CASE r.kind WHEN 'succeeded' THEN 'succeeded' WHEN 'retry' THEN 'failed' WHEN 'dead' THEN 'dead' ELSE 'cancelled' END,
    DATEDIFF_BIG(MILLISECOND, inserted.started_at, @now) INTO @hist
  FROM readpast.ExecutionLog AS l
  JOIN @r AS r ON r.task_id = l.task_id AND r.attempt = l.attempt AND r.kind NOT IN ('given_back', 'suspended')
  JOIN @moves AS m ON m.id = r.task_id AND m.worker_id = r.worker_id AND m.attempt = r.attempt;
-- an attempt that ended suspended (a durable handler's sleep or wait) neither succeeded nor failed: out of the history
UPDATE l
  SET ended_at = @now, outcome = 'suspended', trace_parent = r.trace,
      started_at = CASE WHEN r.started_at > l.started_at AND r.started_at <= @now THEN r.started_at ELSE l.started_at END
  FROM readpast.ExecutionLog AS l
  JOIN @r AS r ON r.task_id = l.task_id AND r.attempt = l.attempt AND r.kind = 'suspended'
  JOIN @moves AS m ON m.id = r.task_id AND m.worker_id = r.worker_id AND m.attempt = r.attempt;
-- its step (sql/steps.ts), then an event sent since the attempt began that it matches resumes it at once (sql/events.ts)
IF EXISTS (SELECT 1 FROM @r AS r WHERE r.kind = 'suspended')
BEGIN
  ${PUT_SUSPENDED_STEPS}
  ${SUSPEND_MATCH}
END;
-- an attempt given back never ran: its row goes, as if its claim had not started it
DELETE l
  FROM readpast.ExecutionLog AS l
  JOIN @r AS r ON r.task_id = l.task_id AND r.attempt = l.attempt AND r.kind = 'given_back'
  JOIN @moves AS m ON m.id = r.task_id AND m.worker_id = r.worker_id AND m.attempt = r.attempt;
UPDATE s SET last_ended_at = @now
  FROM readpast.BatchStages AS s
  WHERE EXISTS (SELECT 1 FROM @moves AS m JOIN @r AS r ON r.task_id = m.id AND r.kind <> 'given_back'
      WHERE m.batch_id = s.batch_id AND m.stage = s.stage)
    AND (s.last_ended_at IS NULL OR s.last_ended_at < @now);
${RELEASE_CHILDREN}
${CASCADE_FAILURE}
${MOVES_TO_DELTAS}
-- the attempts' own moves (the children's carry no worker); an attempt given back ended neither way
SELECT @m_succeeded = COALESCE(SUM(CASE WHEN r.kind IN ('given_back', 'suspended') OR m.to_status <> 'succeeded' THEN 0 ELSE 1 END), 0),
       @m_failed = COALESCE(SUM(CASE WHEN r.kind IN ('given_back', 'suspended') OR m.to_status = 'succeeded' THEN 0 ELSE 1 END), 0)
  FROM @moves AS m JOIN @r AS r ON r.task_id = m.id AND r.worker_id = m.worker_id AND r.attempt = m.attempt
  WHERE m.worker_id IS NOT NULL;
${TALLY}
COMMIT TRANSACTION;
DECLARE @released int = (SELECT COUNT(*) FROM @moves AS m WHERE m.from_status = 'waiting' AND m.to_status = 'pending');
SELECT r.ord, CASE WHEN m.id IS NULL THEN 0 ELSE 1 END AS ok,
  CASE WHEN m.token_no IS NOT NULL OR m.batch_id IS NOT NULL OR (r.kind = 'suspended' AND m.to_status = 'pending') THEN 1 ELSE 0 END
    AS frees, @released AS released
FROM @r AS r LEFT JOIN @moves AS m ON m.id = r.task_id AND m.worker_id = r.worker_id AND m.attempt = r.attempt
ORDER BY r.ord;
${TOUCHED}`;

/**
 * After tasks of these batches moved (JSON array @batches): a batch with onFailure 'abort' and a
 * dead task cancels its pending tasks of later stages (ESCALATION_CHUNK per statement); a released
 * (or aborted) batch whose tasks are all finished completes. Its own short transaction, taking the
 * batches' locks first, exclusive at once (the lock order of sql/claim.ts: Batches → Tasks →
 * BatchStages; its later writes to those rows then wait for nothing). Returns (cancelled).
 */
export const SETTLE_BATCHES_WRITE = `${BEGIN}
${DECLARE_MOVES}
${DECLARE_EDGES}
DECLARE @bs TABLE (id bigint NOT NULL PRIMARY KEY, status varchar(10) NOT NULL, on_failure varchar(10) NOT NULL);
DECLARE @abort TABLE (id bigint NOT NULL PRIMARY KEY, stage int NOT NULL);
DECLARE @n int = ${ESCALATION_CHUNK};
BEGIN TRANSACTION;
INSERT INTO @bs (id, status, on_failure)
  SELECT b.id, b.status, b.on_failure FROM readpast.Batches AS b WITH (XLOCK, HOLDLOCK)
  WHERE b.id IN (SELECT CAST(j.value AS bigint) FROM OPENJSON(@batches) AS j);
INSERT INTO @abort (id, stage)
  SELECT s.batch_id, MIN(s.stage) FROM readpast.BatchStages AS s JOIN @bs AS b ON b.id = s.batch_id
  WHERE b.on_failure = 'abort' AND b.status IN ('open', 'released') AND s.dead > 0
  GROUP BY s.batch_id;
UPDATE b SET status = 'aborted' FROM readpast.Batches AS b JOIN @abort AS a ON a.id = b.id;
WHILE @n = ${ESCALATION_CHUNK}
BEGIN
  SET @n = 0;
  WITH doomed AS (
    SELECT TOP (${ESCALATION_CHUNK}) t.id, t.queue, t.batch_id, t.stage, t.status, t.finished_at, t.error_message,
      a.id AS aborted_batch, a.stage AS failed_stage
    FROM readpast.Tasks AS t JOIN @abort AS a ON a.id = t.batch_id
    WHERE t.batch_id IS NOT NULL AND t.stage > a.stage AND t.status = 'pending'
  )
  UPDATE doomed SET status = 'cancelled', finished_at = @now,
      error_message = CONCAT(N'batch ', aborted_batch, N' aborted: a task of stage ', failed_stage, N' failed')
    OUTPUT inserted.id, inserted.queue, inserted.batch_id, inserted.stage, deleted.status, inserted.status, NULL, NULL, NULL
    INTO @moves;
  SET @n = @@ROWCOUNT;
END;
-- complete before the tally writes the counts (the batches' rows are this transaction's already; after the
-- tally it would read BatchStages holding QueueCounts and Metrics, against the lock order): the stages'
-- kept counts less the pending tasks just cancelled
UPDATE b SET status = CASE WHEN b.status = 'aborted' THEN 'aborted' ELSE 'completed' END, completed_at = @now
  FROM readpast.Batches AS b JOIN @bs AS x ON x.id = b.id
  WHERE b.status IN ('released', 'aborted') AND b.completed_at IS NULL
    AND NOT EXISTS (SELECT 1 FROM readpast.BatchStages AS s WHERE s.batch_id = b.id
      AND s.pending + s.running > (SELECT COUNT(*) FROM @moves AS m WHERE m.batch_id = s.batch_id AND m.stage = s.stage));
${CASCADE_FAILURE}
${MOVES_TO_DELTAS}
${TALLY}
COMMIT TRANSACTION;`;

/** SETTLE_BATCHES_WRITE (also the body of readpast.SettleBatches, sql/callers.ts), then (cancelled). */
export const SETTLE_BATCHES = `${SETTLE_BATCHES_WRITE}
SELECT COUNT(*) AS cancelled FROM @moves AS m WHERE m.batch_id IS NOT NULL;`;
