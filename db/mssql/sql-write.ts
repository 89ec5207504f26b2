// T-SQL that changes tasks: enqueue, settle, heartbeat, workers, maintenance (the claim is in
// sql-claim.ts, operator actions in sql-ops.ts).
// Every batch that writes more than one row runs in one short transaction with XACT_ABORT ON
// (any error rolls it back and ends the batch; the SET reverts when sp_executesql returns).
//
// Lock order, the same in every transaction so they cannot deadlock each other:
//   Queues → Batches → Tasks → ConcurrencyTokens → ExecutionLog → BatchStages → QueueCounts → Metrics
// (a settlement never locks Batches: completing or aborting a batch is a transaction of its own,
// SETTLE_BATCHES in sql-batches.ts, run right after).
// Counts and metrics come last and are touched in key order (a @delta table keyed like
// QueueCounts; exactly one Metrics row per transaction), so their hot rows are held briefly.
import { BEGIN, DECLARE_MOVES, MOVES_TO_DELTAS, TALLY, TOUCHED } from './sql-tally';

// ---- producers ----------------------------------------------------------------------------------

/**
 * Enqueue a JSON array of tasks (one or many) in one transaction. Each element:
 * {ord, token, queue, kind, command, payload (JSON text|null), priority, runAfter ('YYYY-MM-DDTHH:MM:SS.mmm' UTC|null),
 *  maxAttempts|null, timeoutGiven (0|1), timeoutMs|null, dedupKey|null, caller|null, batchId|null, stage|null}.
 * Returns (ord, token, created) in input order, then the touched batches. A dedup key held by a live
 * task returns that task's token; a key repeated within the array returns the first one's token.
 * A batch that does not exist, no longer takes tasks, or has started a later stage fails the whole call
 * (errors 51001 / 51002 / 51003).
 */
export const ENQUEUE = `${BEGIN}
${DECLARE_MOVES}
DECLARE @in TABLE (
  ord int NOT NULL PRIMARY KEY, token uniqueidentifier NOT NULL, queue nvarchar(64) NOT NULL, kind varchar(10) NOT NULL,
  command nvarchar(max) NOT NULL, payload nvarchar(max) NULL, priority int NOT NULL, run_after datetime2(3) NULL,
  max_attempts int NULL, timeout_given bit NOT NULL, timeout_ms int NULL, dedup_key nvarchar(200) NULL,
  caller nvarchar(200) NULL, batch_id bigint NULL, stage int NULL, existing bit NOT NULL);
INSERT INTO @in (ord, token, queue, kind, command, payload, priority, run_after, max_attempts, timeout_given, timeout_ms,
    dedup_key, caller, batch_id, stage, existing)
  SELECT j.ord, j.token, j.queue, j.kind, j.command, j.payload, j.priority, j.run_after, j.max_attempts, j.timeout_given,
    j.timeout_ms, j.dedup_key, j.caller, j.batch_id, j.stage, 0
  FROM OPENJSON(@tasks) WITH (
    ord int '$.ord', token uniqueidentifier '$.token', queue nvarchar(64) '$.queue', kind varchar(10) '$.kind',
    command nvarchar(max) '$.command', payload nvarchar(max) '$.payload', priority int '$.priority',
    run_after datetime2(3) '$.runAfter', max_attempts int '$.maxAttempts', timeout_given bit '$.timeoutGiven',
    timeout_ms int '$.timeoutMs', dedup_key nvarchar(200) '$.dedupKey', caller nvarchar(200) '$.caller',
    batch_id bigint '$.batchId', stage int '$.stage') AS j;
DECLARE @newq TABLE (name nvarchar(64) NOT NULL PRIMARY KEY);
BEGIN TRANSACTION;
IF EXISTS (SELECT 1 FROM @in AS i WHERE NOT EXISTS (SELECT 1 FROM readpast.Queues AS q WHERE q.name = i.queue))
BEGIN
  INSERT INTO readpast.Queues (name)
    OUTPUT inserted.name INTO @newq
    SELECT DISTINCT i.queue FROM @in AS i
    WHERE NOT EXISTS (SELECT 1 FROM readpast.Queues AS q WITH (UPDLOCK, HOLDLOCK) WHERE q.name = i.queue);
  INSERT INTO readpast.QueueCounts (queue, status, n)
    SELECT n.name, s.status, 0 FROM @newq AS n
    CROSS JOIN (VALUES ('pending'), ('running'), ('succeeded'), ('dead'), ('cancelled')) AS s (status);
END;
-- the batches tasks go into: locked (so they cannot be released or cancelled meanwhile), and open
DECLARE @bstatus TABLE (id bigint NOT NULL PRIMARY KEY, status varchar(10) NOT NULL);
DECLARE @bad bigint = NULL, @msg nvarchar(2048);
IF EXISTS (SELECT 1 FROM @in AS i WHERE i.batch_id IS NOT NULL)
BEGIN
  INSERT INTO @bstatus (id, status)
    SELECT b.id, b.status FROM readpast.Batches AS b WITH (UPDLOCK, HOLDLOCK)
    WHERE b.id IN (SELECT i.batch_id FROM @in AS i WHERE i.batch_id IS NOT NULL);
  SELECT TOP (1) @bad = i.batch_id FROM @in AS i
    WHERE i.batch_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM @bstatus AS b WHERE b.id = i.batch_id);
  IF @bad IS NOT NULL
  BEGIN
    SET @msg = CONCAT(N'no batch ', @bad);
    THROW 51001, @msg, 1;
  END;
  SELECT TOP (1) @bad = b.id, @msg = CONCAT(N'batch ', b.id, N' is ', b.status, N'; only an open batch takes new tasks')
    FROM @bstatus AS b WHERE b.status <> 'open';
  IF @bad IS NOT NULL THROW 51002, @msg, 1;
  -- tasks of a later stage started believing every earlier stage was done: no new task may go before them
  SELECT TOP (1) @bad = i.batch_id,
      @msg = CONCAT(N'stage ', s.stage, N' of batch ', i.batch_id, N' has already started; add tasks to stage ', s.stage, N' or later')
    FROM @in AS i
    CROSS APPLY (SELECT MIN(x.stage) AS stage FROM readpast.BatchStages AS x
                 WHERE x.batch_id = i.batch_id AND x.stage > i.stage AND x.first_started_at IS NOT NULL) AS s
    WHERE i.batch_id IS NOT NULL AND s.stage IS NOT NULL
    ORDER BY i.ord;
  IF @bad IS NOT NULL THROW 51003, @msg, 1;
END;
UPDATE i SET token = t.token, existing = 1
  FROM @in AS i JOIN readpast.Tasks AS t ON t.dedup_key = i.dedup_key
  WHERE i.dedup_key IS NOT NULL AND t.dedup_key IS NOT NULL AND t.status IN ('pending', 'running');
UPDATE i SET token = f.token, existing = 1
  FROM @in AS i
  CROSS APPLY (SELECT TOP (1) g.token FROM @in AS g WHERE g.dedup_key = i.dedup_key AND g.ord < i.ord ORDER BY g.ord) AS f
  WHERE i.dedup_key IS NOT NULL AND i.existing = 0;
INSERT INTO readpast.Tasks (token, queue, kind, command, payload, status, priority, run_after, max_attempts, timeout_ms,
    dedup_key, caller, batch_id, stage, created_at)
  OUTPUT inserted.id, inserted.queue, inserted.batch_id, inserted.stage, NULL, 'pending', NULL, NULL, NULL INTO @moves
  SELECT i.token, i.queue, i.kind, i.command, i.payload, 'pending', i.priority, COALESCE(i.run_after, @now),
    COALESCE(i.max_attempts, q.max_attempts), CASE WHEN i.timeout_given = 1 THEN i.timeout_ms ELSE q.timeout_ms END,
    i.dedup_key, i.caller, i.batch_id, i.stage, @now
  FROM @in AS i JOIN readpast.Queues AS q ON q.name = i.queue
  WHERE i.existing = 0
  ORDER BY i.ord;
${MOVES_TO_DELTAS}
SET @m_enqueued = (SELECT COUNT(*) FROM @moves);
${TALLY}
COMMIT TRANSACTION;
SELECT i.ord, i.token, CASE WHEN i.existing = 1 THEN 0 ELSE 1 END AS created FROM @in AS i ORDER BY i.ord;
${TOUCHED}`;

// ---- workers ------------------------------------------------------------------------------------

/** Insert or refresh a worker row with the session (SPID + login time) of its own connection. */
export const REGISTER_WORKER = `SET NOCOUNT ON;
SET XACT_ABORT ON;
DECLARE @now datetime2(3) = SYSUTCDATETIME();
BEGIN TRANSACTION;
UPDATE readpast.Workers WITH (UPDLOCK, HOLDLOCK)
  SET host = @host, pid = @pid, role = @role, session = @session, login_time = @login_time, heartbeat_at = @now,
      state = 'running', stopped_at = NULL
  WHERE worker_id = @worker_id;
IF @@ROWCOUNT = 0
  INSERT INTO readpast.Workers (worker_id, host, pid, role, session, login_time, started_at, heartbeat_at, state)
  VALUES (@worker_id, @host, @pid, @role, @session, @login_time, @now, @now, 'running');
COMMIT TRANSACTION;`;

/** A worker's connection was replaced (dropped and reconnected): record its new session. */
export const UPDATE_WORKER_SESSION = `UPDATE readpast.Workers SET session = @session, login_time = @login_time
  WHERE worker_id = @worker_id;`;

export const DEREGISTER_WORKER = `UPDATE readpast.Workers
  SET state = 'stopped', stopped_at = SYSUTCDATETIME(), heartbeat_at = SYSUTCDATETIME()
  WHERE worker_id = @worker_id;`;

/** @names: JSON array of handler names */
export const REGISTER_HANDLERS = `SET NOCOUNT ON;
SET XACT_ABORT ON;
DECLARE @now datetime2(3) = SYSUTCDATETIME();
DECLARE @n TABLE (name nvarchar(128) NOT NULL PRIMARY KEY);
INSERT INTO @n (name) SELECT DISTINCT j.value FROM OPENJSON(@names) AS j;
BEGIN TRANSACTION;
UPDATE h SET seen_at = @now FROM readpast.Handlers AS h JOIN @n AS n ON n.name = h.name;
INSERT INTO readpast.Handlers (name, seen_at)
  SELECT n.name, @now FROM @n AS n
  WHERE NOT EXISTS (SELECT 1 FROM readpast.Handlers AS h WITH (UPDLOCK, HOLDLOCK) WHERE h.name = n.name);
COMMIT TRANSACTION;`;

/**
 * Renew worker heartbeats and the leases of their running attempts (fenced on task, worker, attempt).
 * @workers: JSON array of worker ids; @running: JSON array of {taskId, workerId, attempt}.
 */
export const HEARTBEAT = `SET NOCOUNT ON;
DECLARE @now datetime2(3) = SYSUTCDATETIME();
DECLARE @owned TABLE (id bigint NOT NULL PRIMARY KEY, cancel_requested bit NOT NULL);
UPDATE w SET heartbeat_at = @now, state = CASE WHEN w.state = 'lost' THEN 'running' ELSE w.state END
  FROM readpast.Workers AS w JOIN OPENJSON(@workers) AS j ON j.value = w.worker_id;
UPDATE t SET lease_until = DATEADD(MILLISECOND, @lease_ms, @now)
  OUTPUT inserted.id, inserted.cancel_requested INTO @owned
  FROM readpast.Tasks AS t
  JOIN OPENJSON(@running) WITH (task_id bigint '$.taskId', worker_id nvarchar(256) '$.workerId', attempt int '$.attempt') AS r
    ON r.task_id = t.id
  WHERE t.status = 'running' AND t.worker_id = r.worker_id AND t.attempts = r.attempt;
SELECT o.id, o.cancel_requested FROM @owned AS o ORDER BY o.id;`;

/**
 * Settle attempts, fenced on (task, worker, attempt) and status running; the attempt's token is
 * released. @results: JSON array of {ord, taskId, workerId, attempt, kind (succeeded|retry|dead|cancelled),
 * outcome, result (JSON text|null), runAfter ('YYYY-MM-DDTHH:MM:SS.mmm' UTC|null), errorNumber, errorMessage,
 * errorDetail}. Returns (ord, ok) in input order, then the touched batches.
 */
export const FINISH = `${BEGIN}
${DECLARE_MOVES}
DECLARE @r TABLE (
  ord int NOT NULL PRIMARY KEY, task_id bigint NOT NULL, worker_id nvarchar(256) NOT NULL, attempt int NOT NULL,
  kind varchar(10) NOT NULL, outcome varchar(10) NOT NULL, result nvarchar(max) NULL, run_after datetime2(3) NULL,
  error_number int NULL, error_message nvarchar(4000) NULL, error_detail nvarchar(max) NULL);
INSERT INTO @r (ord, task_id, worker_id, attempt, kind, outcome, result, run_after, error_number, error_message, error_detail)
  SELECT j.ord, j.task_id, j.worker_id, j.attempt, j.kind, j.outcome, j.result, j.run_after, j.error_number,
    j.error_message, j.error_detail
  FROM OPENJSON(@results) WITH (
    ord int '$.ord', task_id bigint '$.taskId', worker_id nvarchar(256) '$.workerId', attempt int '$.attempt',
    kind varchar(10) '$.kind', outcome varchar(10) '$.outcome', result nvarchar(max) '$.result',
    run_after datetime2(3) '$.runAfter', error_number int '$.errorNumber', error_message nvarchar(4000) '$.errorMessage',
    error_detail nvarchar(max) '$.errorDetail') AS j;
BEGIN TRANSACTION;
UPDATE t
  SET status = CASE r.kind WHEN 'succeeded' THEN 'succeeded' WHEN 'retry' THEN 'pending' WHEN 'dead' THEN 'dead' ELSE 'cancelled' END,
      finished_at = CASE WHEN r.kind = 'retry' THEN t.finished_at ELSE @now END,
      run_after = CASE WHEN r.kind = 'retry' THEN COALESCE(r.run_after, @now) ELSE t.run_after END,
      lease_until = NULL,
      result = CASE WHEN r.kind = 'succeeded' THEN r.result ELSE t.result END,
      error_number = CASE WHEN r.kind IN ('retry', 'dead') THEN r.error_number ELSE t.error_number END,
      error_message = CASE WHEN r.kind IN ('retry', 'dead') THEN r.error_message ELSE t.error_message END,
      error_detail = CASE WHEN r.kind IN ('retry', 'dead') THEN r.error_detail ELSE t.error_detail END
  OUTPUT inserted.id, inserted.queue, inserted.batch_id, inserted.stage, deleted.status, inserted.status, deleted.token_no,
    deleted.attempts, deleted.worker_id INTO @moves
  FROM readpast.Tasks AS t JOIN @r AS r ON r.task_id = t.id
  WHERE t.status = 'running' AND t.worker_id = r.worker_id AND t.attempts = r.attempt;
UPDATE c SET status = 'free', task_id = NULL, attempt = NULL, worker_id = NULL, granted_at = NULL
  FROM readpast.ConcurrencyTokens AS c
  JOIN @moves AS m ON m.queue = c.queue AND m.token_no = c.token_no AND m.id = c.task_id AND m.attempt = c.attempt;
UPDATE l
  SET ended_at = @now, outcome = r.outcome, error_number = r.error_number, error_message = r.error_message,
      error_detail = r.error_detail
  FROM readpast.ExecutionLog AS l
  JOIN @r AS r ON r.task_id = l.task_id AND r.attempt = l.attempt
  JOIN @moves AS m ON m.id = r.task_id AND m.worker_id = r.worker_id AND m.attempt = r.attempt;
UPDATE s SET last_ended_at = @now
  FROM readpast.BatchStages AS s
  WHERE EXISTS (SELECT 1 FROM @moves AS m WHERE m.batch_id = s.batch_id AND m.stage = s.stage)
    AND (s.last_ended_at IS NULL OR s.last_ended_at < @now);
${MOVES_TO_DELTAS}
SELECT @m_succeeded = COALESCE(SUM(CASE WHEN m.to_status = 'succeeded' THEN 1 ELSE 0 END), 0),
       @m_failed = COALESCE(SUM(CASE WHEN m.to_status = 'succeeded' THEN 0 ELSE 1 END), 0)
  FROM @moves AS m;
${TALLY}
COMMIT TRANSACTION;
SELECT r.ord, CASE WHEN m.id IS NULL THEN 0 ELSE 1 END AS ok,
  CASE WHEN m.token_no IS NOT NULL OR m.batch_id IS NOT NULL THEN 1 ELSE 0 END AS frees
FROM @r AS r LEFT JOIN @moves AS m ON m.id = r.task_id AND m.worker_id = r.worker_id AND m.attempt = r.attempt
ORDER BY r.ord;
${TOUCHED}`;

// ---- maintenance --------------------------------------------------------------------------------

export const RESCUE_BATCH = 500;

/**
 * Expired leases, at most RESCUE_BATCH per call (keeps locks far below escalation): attempt →
 * abandoned, token released; task → pending (due now) or dead when it has no attempts left.
 * Returns (retried, dead), then the touched batches.
 */
export const RESCUE_EXPIRED = `${BEGIN}
${DECLARE_MOVES}
SET DEADLOCK_PRIORITY LOW;
BEGIN TRANSACTION;
UPDATE TOP (${RESCUE_BATCH}) t
  SET status = CASE WHEN t.attempts >= t.max_attempts THEN 'dead' ELSE 'pending' END,
      run_after = CASE WHEN t.attempts >= t.max_attempts THEN t.run_after ELSE @now END,
      finished_at = CASE WHEN t.attempts >= t.max_attempts THEN @now ELSE NULL END,
      lease_until = NULL, error_number = NULL, error_detail = NULL,
      error_message = CONCAT(N'lease expired: worker ', COALESCE(t.worker_id, N'?'), N' stopped renewing it (crashed, killed or cut off)')
  OUTPUT inserted.id, inserted.queue, inserted.batch_id, inserted.stage, deleted.status, inserted.status, deleted.token_no,
    deleted.attempts, deleted.worker_id INTO @moves
  FROM readpast.Tasks AS t
  WHERE t.status = 'running' AND t.lease_until < @now;
UPDATE c SET status = 'free', task_id = NULL, attempt = NULL, worker_id = NULL, granted_at = NULL
  FROM readpast.ConcurrencyTokens AS c
  JOIN @moves AS m ON m.queue = c.queue AND m.token_no = c.token_no AND m.id = c.task_id AND m.attempt = c.attempt;
UPDATE l SET ended_at = @now, outcome = 'abandoned', error_message = t.error_message
  FROM readpast.ExecutionLog AS l
  JOIN @moves AS m ON m.id = l.task_id AND m.attempt = l.attempt
  JOIN readpast.Tasks AS t ON t.id = m.id
  WHERE l.ended_at IS NULL;
UPDATE s SET last_ended_at = @now
  FROM readpast.BatchStages AS s
  WHERE EXISTS (SELECT 1 FROM @moves AS m WHERE m.batch_id = s.batch_id AND m.stage = s.stage)
    AND (s.last_ended_at IS NULL OR s.last_ended_at < @now);
${MOVES_TO_DELTAS}
SET @m_failed = (SELECT COUNT(*) FROM @moves);
${TALLY}
COMMIT TRANSACTION;
SELECT COALESCE(SUM(CASE WHEN m.to_status = 'pending' THEN 1 ELSE 0 END), 0) AS retried,
       COALESCE(SUM(CASE WHEN m.to_status = 'dead' THEN 1 ELSE 0 END), 0) AS dead
FROM @moves AS m;
${TOUCHED}`;

/** Attempts left open by a task that was settled elsewhere (should not happen; keeps ExecutionStatus true). */
export const CLOSE_ORPHAN_ATTEMPTS = `SET NOCOUNT ON;
SET DEADLOCK_PRIORITY LOW;
DECLARE @now datetime2(3) = SYSUTCDATETIME();
DECLARE @o TABLE (id bigint NOT NULL PRIMARY KEY);
INSERT INTO @o (id)
  SELECT l.id FROM readpast.ExecutionLog AS l
  WHERE l.ended_at IS NULL
    AND NOT EXISTS (SELECT 1 FROM readpast.Tasks AS t WHERE t.id = l.task_id AND t.status = 'running' AND t.attempts = l.attempt);
UPDATE l SET ended_at = @now, outcome = 'abandoned', error_message = N'attempt no longer owns its task'
  FROM readpast.ExecutionLog AS l JOIN @o AS o ON o.id = l.id
  WHERE l.ended_at IS NULL
    AND NOT EXISTS (SELECT 1 FROM readpast.Tasks AS t WHERE t.id = l.task_id AND t.status = 'running' AND t.attempts = l.attempt);`;

export const MARK_LOST_WORKERS = `SET NOCOUNT ON;
UPDATE readpast.Workers SET state = 'lost'
  WHERE state IN ('running', 'stopping') AND heartbeat_at < DATEADD(MILLISECOND, -@stale_ms, SYSUTCDATETIME());
SELECT @@ROWCOUNT AS n;`;

export const PRUNE_BATCH = 500;

/** Delete up to PRUNE_BATCH terminal tasks finished before @cutoff, with their log rows. Returns (tasks, attempts), then the touched batches. */
export const PRUNE_TASKS = `${BEGIN}
${DECLARE_MOVES}
SET DEADLOCK_PRIORITY LOW;
DECLARE @attempts int;
BEGIN TRANSACTION;
WITH old AS (
  SELECT TOP (${PRUNE_BATCH}) t.id, t.queue, t.batch_id, t.stage, t.status FROM readpast.Tasks AS t
  WHERE t.finished_at < @cutoff AND t.status IN ('succeeded', 'dead', 'cancelled')
  ORDER BY t.finished_at
)
DELETE FROM old OUTPUT deleted.id, deleted.queue, deleted.batch_id, deleted.stage, deleted.status, NULL, NULL, NULL, NULL INTO @moves;
DELETE FROM readpast.ExecutionLog WHERE task_id IN (SELECT m.id FROM @moves AS m);
SET @attempts = @@ROWCOUNT;
${MOVES_TO_DELTAS}
${TALLY}
COMMIT TRANSACTION;
SELECT (SELECT COUNT(*) FROM @moves) AS tasks, @attempts AS attempts;
${TOUCHED}`;

/** Old stopped or lost workers, metrics older than a day, finished batches, old queue changes. */
export const PRUNE_REST = `SET NOCOUNT ON;
DELETE FROM readpast.Workers WHERE state IN ('stopped', 'lost') AND heartbeat_at < @cutoff;
DELETE FROM readpast.Metrics WHERE sec < DATEDIFF_BIG(SECOND, '19700101', SYSUTCDATETIME()) - 86400;
DELETE FROM readpast.QueueCounts WHERE n = 0 AND status IN ('succeeded', 'dead', 'cancelled');
DELETE s FROM readpast.BatchStages AS s
  WHERE s.total = 0 AND EXISTS (SELECT 1 FROM readpast.Batches AS b WHERE b.id = s.batch_id
    AND b.status IN ('completed', 'cancelled', 'aborted') AND b.completed_at < @cutoff);
DELETE b FROM readpast.Batches AS b
  WHERE b.status IN ('completed', 'cancelled', 'aborted') AND b.completed_at < @cutoff
    AND NOT EXISTS (SELECT 1 FROM readpast.BatchStages AS s WHERE s.batch_id = b.id);
DELETE FROM readpast.QueueChanges WHERE at < @cutoff;`;

/** Record the pending depth for the current second. */
export const SAMPLE_DEPTH = `SET NOCOUNT ON;
SET XACT_ABORT ON;
DECLARE @sec bigint = DATEDIFF_BIG(SECOND, '19700101', SYSUTCDATETIME());
DECLARE @depth bigint = (SELECT COALESCE(SUM(c.n), 0) FROM readpast.QueueCounts AS c WHERE c.status = 'pending');
BEGIN TRANSACTION;
IF NOT EXISTS (SELECT 1 FROM readpast.Metrics WITH (UPDLOCK, HOLDLOCK) WHERE sec = @sec)
  INSERT INTO readpast.Metrics (sec, enqueued, started, succeeded, failed, latency_sum, latency_max)
  VALUES (@sec, 0, 0, 0, 0, 0, 0);
UPDATE readpast.Metrics SET depth = CAST(@depth AS int) WHERE sec = @sec;
COMMIT TRANSACTION;`;
