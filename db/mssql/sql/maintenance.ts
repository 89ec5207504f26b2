// T-SQL of housekeeping: rescue of expired leases, lost workers, pruning, the depth sample. Bulk
// work goes in batches (TOP) so it never escalates to a table lock; DEADLOCK_PRIORITY LOW lets a
// worker's own transaction win. Lock order as in enqueue.ts.
import { BEGIN, DECLARE_MOVES, MOVES_TO_DELTAS, TALLY, TOUCHED } from './tally';

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

/**
 * Delete up to PRUNE_BATCH terminal tasks finished before @cutoff, with their log rows.
 * Returns (tasks, attempts), then the touched batches.
 */
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
