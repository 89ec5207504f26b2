// T-SQL of housekeeping: rescue of expired leases, lost workers, pruning, the depth sample. Bulk
// work goes in rounds (TOP) and statements of at most ESCALATION_CHUNK rows, so it never escalates to a
// table lock (enqueue.ts); DEADLOCK_PRIORITY LOW lets a worker's own transaction win. Lock order as
// written down in sql/claim.ts: (ConcurrencyKeys →) Tasks → ConcurrencyTokens → (RateSlots →) ExecutionLog →
// BatchStages → the kept counts;
// pruning deletes batches after their stages, each statement on its own.
import { AUDIT_KEEP_MS } from '../../../lib/engine/limits';
import { ESCALATION_CHUNK } from './chunks';

const AUDIT_KEEP_DAYS = Math.round(AUDIT_KEEP_MS / 86_400_000);
import { DELETE_ATTEMPT_LOGS, DELETE_EDGES, neededByChild } from './operators';
import { CASCADE_FAILURE, DECLARE_EDGES } from './edges';
import { BEGIN, DECLARE_MOVES, MOVES_TO_DELTAS, TALLY, TOUCHED } from './tally';
import { historyCommandOf } from './history';
import { PRUNE_EVENTS } from './events';

export const RESCUE_BATCH = 500;

/**
 * Expired leases, at most RESCUE_BATCH per call (keeps locks far below escalation): attempt →
 * abandoned, token released; task → pending (due now) or dead when it has no attempts left. Why, as the
 * SQLite store says it (db/sqlite/maintenance.ts abandoned): the worker heard from at or after the lease's
 * end was alive while its lease lapsed (abandon_reason lease_lost), else it stopped (worker_lost); the times
 * go in the attempt's detail. The expired rows are taken first (UPDLOCK: the lock order's Tasks first; the
 * Workers row read after is written only by statements that lock nothing else), with their lease's end.
 * Returns (retried, dead), then the touched batches.
 */
export const RESCUE_EXPIRED = `${BEGIN}
${DECLARE_MOVES}
${DECLARE_EDGES}
DECLARE @expired TABLE (id bigint NOT NULL PRIMARY KEY, lease_until datetime2(3) NOT NULL, heartbeat_at datetime2(3) NULL,
  alive bit NOT NULL DEFAULT 0);
SET DEADLOCK_PRIORITY LOW;
BEGIN TRANSACTION;
INSERT INTO @expired (id, lease_until)
  SELECT TOP (${RESCUE_BATCH}) t.id, t.lease_until FROM readpast.Tasks AS t WITH (UPDLOCK, ROWLOCK, READCOMMITTEDLOCK)
  WHERE t.status = 'running' AND t.lease_until < @now;
UPDATE e SET heartbeat_at = w.heartbeat_at,
    alive = CASE WHEN w.heartbeat_at >= e.lease_until THEN 1 ELSE 0 END
  FROM @expired AS e
  JOIN readpast.Tasks AS t ON t.id = e.id
  JOIN readpast.Workers AS w ON w.worker_id = t.worker_id;
-- attempts that ended suspended (a durable handler's sleeps and waits) are not failures
UPDATE t
  SET status = CASE WHEN t.attempts - COALESCE(t.suspensions, 0) >= t.max_attempts THEN 'dead' ELSE 'pending' END,
      run_after = CASE WHEN t.attempts - COALESCE(t.suspensions, 0) >= t.max_attempts THEN t.run_after ELSE @now END,
      finished_at = CASE WHEN t.attempts - COALESCE(t.suspensions, 0) >= t.max_attempts THEN @now ELSE NULL END,
      lease_until = NULL, error_number = NULL, error_detail = NULL,
      error_message = CASE WHEN e.alive = 1
        THEN CONCAT(N'lease lost while its worker was alive: worker ', COALESCE(t.worker_id, N'?'), N' renewed it too late')
        ELSE CONCAT(N'lease expired: worker ', COALESCE(t.worker_id, N'?'), N' stopped renewing it (crashed, killed or cut off)') END
  OUTPUT inserted.id, inserted.queue, inserted.batch_id, inserted.stage, deleted.status, inserted.status, deleted.token_no,
    deleted.attempts, deleted.worker_id INTO @moves
  FROM readpast.Tasks AS t
  JOIN @expired AS e ON e.id = t.id
  WHERE t.status = 'running' AND t.lease_until < @now;
UPDATE c SET status = 'free', task_id = NULL, attempt = NULL, worker_id = NULL, granted_at = NULL
  FROM readpast.ConcurrencyTokens AS c
  JOIN @moves AS m ON m.queue = c.queue AND m.token_no = c.token_no AND m.id = c.task_id AND m.attempt = c.attempt;
UPDATE l SET ended_at = @now, outcome = 'abandoned', error_message = t.error_message,
    abandon_reason = CASE WHEN e.alive = 1 THEN 'lease_lost' ELSE 'worker_lost' END,
    error_detail = CONCAT(N'worker ', COALESCE(m.worker_id, N'?'), N': last heartbeat ',
      COALESCE(CONVERT(nvarchar(23), e.heartbeat_at, 126) + N'Z', N'never'), N'; lease ended ',
      CONVERT(nvarchar(23), e.lease_until, 126), N'Z')
  OUTPUT inserted.queue, ${historyCommandOf('inserted.kind', 'inserted.command')},
    CASE WHEN m.to_status = 'dead' THEN 'dead' ELSE 'failed' END, DATEDIFF_BIG(MILLISECOND, inserted.started_at, @now) INTO @hist
  FROM readpast.ExecutionLog AS l
  JOIN @moves AS m ON m.id = l.task_id AND m.attempt = l.attempt
  JOIN readpast.Tasks AS t ON t.id = m.id
  JOIN @expired AS e ON e.id = m.id
  WHERE l.ended_at IS NULL;
UPDATE s SET last_ended_at = @now
  FROM readpast.BatchStages AS s
  WHERE EXISTS (SELECT 1 FROM @moves AS m WHERE m.batch_id = s.batch_id AND m.stage = s.stage)
    AND (s.last_ended_at IS NULL OR s.last_ended_at < @now);
${CASCADE_FAILURE}
${MOVES_TO_DELTAS}
-- the attempts' own moves (children a dead task cancelled carry no worker)
SET @m_failed = (SELECT COUNT(*) FROM @moves AS m WHERE m.worker_id IS NOT NULL);
${TALLY}
COMMIT TRANSACTION;
SELECT COALESCE(SUM(CASE WHEN m.to_status = 'pending' THEN 1 ELSE 0 END), 0) AS retried,
       COALESCE(SUM(CASE WHEN m.to_status = 'dead' THEN 1 ELSE 0 END), 0) AS dead
FROM @moves AS m WHERE m.worker_id IS NOT NULL;
${TOUCHED}`;

/**
 * Whether the rescue has anything to do: a running task whose lease ended, or an attempt left open though its task
 * moved on (CLOSE_ORPHAN_ATTEMPTS). Asked first, every second, so that an idle or healthy store sends no writing
 * batch for it: a read that waits for no lock (READPAST: a row being written now is being renewed or settled).
 */
export const RESCUE_DUE = `SELECT CASE WHEN EXISTS (SELECT 1 FROM readpast.Tasks AS t WITH (READPAST, READCOMMITTEDLOCK)
    WHERE t.status = 'running' AND t.lease_until < SYSUTCDATETIME())
  OR EXISTS (SELECT 1 FROM readpast.ExecutionLog AS l WITH (READPAST, READCOMMITTEDLOCK)
    WHERE l.ended_at IS NULL
      AND NOT EXISTS (SELECT 1 FROM readpast.Tasks AS t WITH (READPAST, READCOMMITTEDLOCK)
        WHERE t.id = l.task_id AND t.status = 'running' AND t.attempts = l.attempt))
  THEN 1 ELSE 0 END AS due;`;

/** Attempts the rescue abandoned that ended at or after @since, by queue and reason (IX_ExecutionLog_unsuccessful). */
export const ABANDONED_SINCE = `SELECT l.queue, COALESCE(l.abandon_reason, 'unknown') AS reason, COUNT(*) AS n
FROM readpast.ExecutionLog AS l
WHERE l.outcome = 'abandoned' AND l.ended_at >= @since
GROUP BY l.queue, COALESCE(l.abandon_reason, 'unknown')
ORDER BY l.queue, reason;`;

/** Attempts left open by a task that was settled elsewhere (should not happen; keeps ExecutionStatus true). */
export const CLOSE_ORPHAN_ATTEMPTS = `SET NOCOUNT ON;
SET DEADLOCK_PRIORITY LOW;
DECLARE @now datetime2(3) = SYSUTCDATETIME();
DECLARE @o TABLE (id bigint NOT NULL PRIMARY KEY);
INSERT INTO @o (id)
  SELECT l.id FROM readpast.ExecutionLog AS l
  WHERE l.ended_at IS NULL
    AND NOT EXISTS (SELECT 1 FROM readpast.Tasks AS t WHERE t.id = l.task_id AND t.status = 'running' AND t.attempts = l.attempt);
-- an attempt that lost its task never owns it again (attempt numbers only grow): no need to read Tasks
-- again here, holding ExecutionLog rows (Tasks comes first in the lock order, sql/claim.ts)
UPDATE l SET ended_at = @now, outcome = 'abandoned', error_message = N'attempt no longer owns its task'
  FROM readpast.ExecutionLog AS l JOIN @o AS o ON o.id = l.id
  WHERE l.ended_at IS NULL;`;

/** Whether a worker is silent past @stale_ms: read before MARK_LOST_WORKERS writes. */
export const LOST_WORKERS_DUE = `SELECT TOP (1) 1 AS due FROM readpast.Workers AS w
WHERE w.state IN ('running', 'stopping') AND w.heartbeat_at < DATEADD(MILLISECOND, -@stale_ms, SYSUTCDATETIME());`;

export const MARK_LOST_WORKERS = `SET NOCOUNT ON;
UPDATE readpast.Workers SET state = 'lost'
  WHERE state IN ('running', 'stopping') AND heartbeat_at < DATEADD(MILLISECOND, -@stale_ms, SYSUTCDATETIME());
SELECT @@ROWCOUNT AS n;`;

export const PRUNE_BATCH = 500;

/**
 * Delete up to PRUNE_BATCH terminal tasks finished before @cutoff, with their log rows and edges. Never one an
 * unfinished task depends on; a task of a flow only once no task of its flow is unfinished or finished since
 * @cutoff — then the flow goes as a whole, round by round, its Flows row with its last task.
 * Returns (tasks, attempts), then the touched batches.
 */
export const PRUNE_TASKS = `${BEGIN}
${DECLARE_MOVES}
SET DEADLOCK_PRIORITY LOW;
DECLARE @attempts int;
DECLARE @pruned TABLE (id bigint NOT NULL PRIMARY KEY, queue nvarchar(64) COLLATE Latin1_General_100_BIN2 NOT NULL,
  batch_id bigint NULL, stage int NULL, from_status varchar(10) NULL, to_status varchar(10) NULL, token_no int NULL,
  attempt int NULL, flow_id bigint NULL);
BEGIN TRANSACTION;
WITH old AS (
  SELECT TOP (${PRUNE_BATCH}) t.id, t.queue, t.batch_id, t.stage, t.status, t.flow_id FROM readpast.Tasks AS t
  WHERE t.finished_at < @cutoff AND t.status IN ('succeeded', 'dead', 'cancelled')
    AND NOT ${neededByChild('t.id')}
    AND (t.flow_id IS NULL OR NOT EXISTS (SELECT 1 FROM readpast.Tasks AS o
      WHERE o.flow_id = t.flow_id AND (o.status IN ('waiting', 'pending', 'running') OR o.finished_at >= @cutoff)))
  ORDER BY t.finished_at
)
DELETE FROM old OUTPUT deleted.id, deleted.queue, deleted.batch_id, deleted.stage, deleted.status, NULL, NULL, NULL, deleted.flow_id
  INTO @pruned;
INSERT INTO @moves (id, queue, batch_id, stage, from_status, to_status)
  SELECT p.id, p.queue, p.batch_id, p.stage, p.from_status, NULL FROM @pruned AS p;
${DELETE_ATTEMPT_LOGS}
SET @attempts = @logs;
${DELETE_EDGES}
DELETE FROM readpast.Flows
  WHERE id IN (SELECT p.flow_id FROM @pruned AS p WHERE p.flow_id IS NOT NULL)
    AND NOT EXISTS (SELECT 1 FROM readpast.Tasks AS t WHERE t.flow_id = readpast.Flows.id);
${MOVES_TO_DELTAS}
${TALLY}
COMMIT TRANSACTION;
SELECT (SELECT COUNT(*) FROM @moves) AS tasks, @attempts AS attempts;
${TOUCHED}`;

/** Delete the rows `select` names (a SELECT TOP (ESCALATION_CHUNK) …), one statement per chunk, until none is left. */
const chunked = (select: string) => `SET @n = ${ESCALATION_CHUNK};
WHILE @n = ${ESCALATION_CHUNK}
BEGIN
  SET @n = 0;
  WITH doomed AS (
    ${select}
  )
  DELETE FROM doomed;
  SET @n = @@ROWCOUNT;
END;`;

/**
 * Pruning (part of PRUNE_REST, each statement its own transaction of at most ESCALATION_CHUNK rows): the
 * ConcurrencyKeys rows of keys with no unbatched pending and no running task (a batched task's key needs no
 * row: only key lanes are found through them; the claim inserts a missing one it locks); the RateSlots of
 * queues no longer rate limited, of keys a queue-wide rate no longer keeps, above a lowered limit, and of
 * per-key windows with no start in the window — out of the window only, highest slot first, so a key's
 * remaining slots stay numbered 1..n (the claim creates slot n + 1). Deleting a key's row locks it before
 * reading Tasks (ConcurrencyKeys comes first in the lock order).
 */
const PRUNE_KEYS = `${chunked(`SELECT TOP (${ESCALATION_CHUNK}) c.queue, c.concurrency_key FROM readpast.ConcurrencyKeys AS c
    WHERE NOT EXISTS (SELECT 1 FROM readpast.Tasks AS t
        WHERE t.status = 'pending' AND t.batch_id IS NULL AND t.concurrency_key IS NOT NULL
          AND t.queue = c.queue AND t.concurrency_key = c.concurrency_key)
      AND NOT EXISTS (SELECT 1 FROM readpast.Tasks AS t
        WHERE t.status = 'running' AND t.concurrency_key IS NOT NULL AND t.queue = c.queue AND t.concurrency_key = c.concurrency_key)
      AND NOT EXISTS (SELECT 1 FROM readpast.Tasks AS t
        WHERE t.status = 'waiting' AND t.concurrency_key IS NOT NULL AND t.queue = c.queue AND t.concurrency_key = c.concurrency_key)`)}
${chunked(`SELECT TOP (${ESCALATION_CHUNK}) s.queue, s.rate_key, s.slot_no FROM readpast.RateSlots AS s
    LEFT JOIN readpast.Queues AS q ON q.name = s.queue
    WHERE q.rate_limit IS NULL
      OR (s.used_at <= DATEADD(SECOND, -q.rate_period_s, SYSUTCDATETIME())
        AND ((q.rate_per_key = 0 AND s.rate_key <> N'') OR s.slot_no > q.rate_limit
          OR (q.rate_per_key = 1 AND NOT EXISTS (SELECT 1 FROM readpast.RateSlots AS o
            WHERE o.queue = s.queue AND o.rate_key = s.rate_key AND o.used_at > DATEADD(SECOND, -q.rate_period_s, SYSUTCDATETIME())))))
    ORDER BY s.queue, s.rate_key, s.slot_no DESC`)}`;

/**
 * Old stopped or lost workers, metrics older than a day, finished batches, old queue changes, the rows of keys
 * with no unfinished task and rate slots no window needs (PRUNE_KEYS), events sent before @cutoff but those an
 * unfinished task was resumed by (sql/events.ts): each
 * statement its own transaction, of at most ESCALATION_CHUNK rows (after a long pause there may be a
 * day of metrics to drop). The finished batches are read first (holding nothing), their empty stages
 * deleted, then the batches left without stages.
 */
export const PRUNE_REST = `SET NOCOUNT ON;
DECLARE @n int;
DECLARE @since bigint = DATEDIFF_BIG(SECOND, '19700101', SYSUTCDATETIME()) - 86400;
DECLARE @finished TABLE (id bigint NOT NULL PRIMARY KEY);
${chunked(`SELECT TOP (${ESCALATION_CHUNK}) w.worker_id FROM readpast.Workers AS w
    WHERE w.state IN ('stopped', 'lost') AND w.heartbeat_at < @cutoff`)}
${chunked(`SELECT TOP (${ESCALATION_CHUNK}) m.sec FROM readpast.Metrics AS m WHERE m.sec < @since`)}
DELETE FROM readpast.QueueCounts WHERE n = 0 AND status IN ('succeeded', 'dead', 'cancelled');
INSERT INTO @finished (id)
  SELECT b.id FROM readpast.Batches AS b
  WHERE b.status IN ('completed', 'cancelled', 'aborted') AND b.completed_at < @cutoff;
${chunked(`SELECT TOP (${ESCALATION_CHUNK}) s.batch_id FROM readpast.BatchStages AS s
    WHERE s.total = 0 AND s.batch_id IN (SELECT f.id FROM @finished AS f)`)}
${chunked(`SELECT TOP (${ESCALATION_CHUNK}) b.id FROM readpast.Batches AS b
    WHERE b.id IN (SELECT f.id FROM @finished AS f) AND b.status IN ('completed', 'cancelled', 'aborted')
      AND b.completed_at < @cutoff AND NOT EXISTS (SELECT 1 FROM readpast.BatchStages AS s WHERE s.batch_id = b.id)`)}
${chunked(`SELECT TOP (${ESCALATION_CHUNK}) x.id FROM readpast.QueueChanges AS x WHERE x.at < @cutoff`)}
${chunked(`SELECT TOP (${ESCALATION_CHUNK}) a.id FROM readpast.AuditLog AS a
    WHERE a.at < DATEADD(DAY, -${AUDIT_KEEP_DAYS}, SYSUTCDATETIME())`)}
${PRUNE_KEYS}
${PRUNE_EVENTS(ESCALATION_CHUNK)}`;

/** The pending depth now, summed over every slot of QueueCounts (a read; SAMPLE_DEPTH writes it when it changed). */
export const PENDING_DEPTH = `SELECT COALESCE(SUM(c.n), 0) AS depth FROM readpast.QueueCounts AS c WHERE c.status = 'pending';`;

/**
 * Record the pending depth @depth (PENDING_DEPTH, read just before) for the current second — sent only when it changed
 * since this store's last sample (db/shared/depth.ts). A gauge, not a sum: it is kept in slot 0 of the second's
 * Metrics rows only, and read with MAX (sql/tally.ts).
 */
export const SAMPLE_DEPTH = `SET NOCOUNT ON;
SET XACT_ABORT ON;
DECLARE @sec bigint = DATEDIFF_BIG(SECOND, '19700101', SYSUTCDATETIME());
BEGIN TRANSACTION;
IF NOT EXISTS (SELECT 1 FROM readpast.Metrics WITH (UPDLOCK, HOLDLOCK) WHERE sec = @sec AND slot = 0)
  INSERT INTO readpast.Metrics (sec, slot, enqueued, started, succeeded, failed, latency_sum, latency_max)
  VALUES (@sec, 0, 0, 0, 0, 0, 0, 0);
UPDATE readpast.Metrics SET depth = CAST(@depth AS int) WHERE sec = @sec AND slot = 0;
COMMIT TRANSACTION;`;
