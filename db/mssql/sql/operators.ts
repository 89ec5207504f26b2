// T-SQL of operator actions: cancel, retry (one and in bulk), delete (one and in bulk). Bulk
// statements work in rounds of BULK_BATCH tasks, and the attempt logs of deleted tasks go
// ESCALATION_CHUNK rows per statement, so a large action never escalates to a table lock
// (enqueue.ts). Each ends with the batches it touched (TOUCHED), which the store settles next. Lock
// order (sql/claim.ts): Tasks, then ExecutionLog, then the kept counts; what a retry reads of Batches and
// BatchStages it reads before taking any lock.
import { DELETE_TASKS_OUTPUT } from './attempt-logs';
import { ESCALATION_CHUNK, IN_CHUNK, inChunks } from './chunks';
import { BEGIN, DECLARE_MOVES, MOVES_TO_DELTAS, TALLY, TOUCHED } from './tally';
import { keyRowsFor } from './keys';
import { DELETE_TASK_STEPS } from './steps';
import { CASCADE_FAILURE, DECLARE_EDGES, REARM_CHILDREN, RETRIED_STATUS } from './edges';

/**
 * Which dead tasks a failure filter selects. Parameters: @f_queue, @f_message, @f_q (a LIKE pattern),
 * @f_fingerprint, @f_command.
 */
export interface FailureShape {
  queue: boolean;
  message: boolean;
  q: boolean;
  fingerprint?: boolean;
  command?: boolean;
}

export function failureWhere(s: FailureShape): string {
  const parts = ["t.status = 'dead'"];
  if (s.queue) parts.push('t.queue = @f_queue');
  // messages and commands compare as the names do, binary: two messages differing in case are two failures,
  // as on SQLite (a default install's collation is case-insensitive)
  if (s.message) parts.push('t.error_message = @f_message COLLATE Latin1_General_100_BIN2');
  if (s.q) parts.push("(t.command LIKE @f_q ESCAPE N'\\' OR t.error_message LIKE @f_q ESCAPE N'\\')");
  if (s.fingerprint) parts.push('t.fingerprint = @f_fingerprint');
  if (s.command) parts.push('t.command = @f_command COLLATE Latin1_General_100_BIN2');
  return parts.join(' AND ');
}

export const FAILURE_SHAPES: readonly FailureShape[] = [false, true].flatMap((queue) =>
  [false, true].flatMap((message) =>
    [false, true].flatMap((q) =>
      [false, true].flatMap((fingerprint) => [false, true].map((command) => ({ queue, message, q, fingerprint, command }))),
    ),
  ),
);

export const BULK_BATCH = 500;

/** The task `id` names has an edge to a child not finished: it may not be deleted (nor pruned). */
export const neededByChild = (id: string) => `EXISTS (SELECT 1 FROM readpast.TaskEdges AS ne
      JOIN readpast.Tasks AS nc ON nc.id = ne.child_id
      WHERE ne.parent_id = ${id} AND nc.status IN ('waiting', 'pending', 'running'))`;

/** The edges of the tasks in @moves (deleted), both ways, ESCALATION_CHUNK per statement. */
export const DELETE_EDGES = `DECLARE @edge_chunk int;
${['parent_id', 'child_id']
  .map(
    (end) => `SET @edge_chunk = ${ESCALATION_CHUNK};
WHILE @edge_chunk = ${ESCALATION_CHUNK}
BEGIN
  WITH doomed AS (
    SELECT TOP (${ESCALATION_CHUNK}) e.${end} FROM readpast.TaskEdges AS e WHERE e.${end} IN (SELECT m.id FROM @moves AS m)
  )
  DELETE FROM doomed;
  SET @edge_chunk = @@ROWCOUNT;
END;`,
  )
  .join('\n')}`;

/**
 * Delete the ExecutionLog rows of the tasks in @moves (a task retried many times has many),
 * ESCALATION_CHUNK per statement; @logs counts them. Their attempts' output goes too (sql/attempt-logs.ts), and their
 * durable handlers' steps (sql/steps.ts; ExecutionLog → TaskSteps, the lock order of sql/claim.ts).
 */
export const DELETE_ATTEMPT_LOGS = `DECLARE @logs int = 0, @log_chunk int = ${ESCALATION_CHUNK};
WHILE @log_chunk = ${ESCALATION_CHUNK}
BEGIN
  SET @log_chunk = 0;
  WITH doomed AS (
    SELECT TOP (${ESCALATION_CHUNK}) l.id FROM readpast.ExecutionLog AS l WHERE l.task_id IN (SELECT m.id FROM @moves AS m)
  )
  DELETE FROM doomed;
  SET @log_chunk = @@ROWCOUNT;
  SET @logs = @logs + @log_chunk;
END;
${DELETE_TASKS_OUTPUT}
${DELETE_TASK_STEPS(ESCALATION_CHUNK)}`;

/**
 * waiting or pending → cancelled at once (its children's policies applied, sql/edges.ts); running → cancel requested.
 * Returns (old_status, found), then the touched batches.
 */
export const CANCEL_WRITE = `${BEGIN}
${DECLARE_MOVES}
${DECLARE_EDGES}
DECLARE @o TABLE (id bigint NOT NULL PRIMARY KEY, queue nvarchar(64) COLLATE Latin1_General_100_BIN2 NOT NULL,
  batch_id bigint NULL, stage int NULL, old_status varchar(10) NOT NULL);
BEGIN TRANSACTION;
UPDATE readpast.Tasks
  SET status = CASE WHEN status IN ('waiting', 'pending') THEN 'cancelled' ELSE status END,
      finished_at = CASE WHEN status IN ('waiting', 'pending') THEN @now ELSE finished_at END,
      cancel_requested = CASE WHEN status = 'running' THEN 1 ELSE cancel_requested END
  OUTPUT inserted.id, inserted.queue, inserted.batch_id, inserted.stage, deleted.status INTO @o
  WHERE token = @token AND status IN ('waiting', 'pending', 'running');
INSERT INTO @moves (id, queue, batch_id, stage, from_status, to_status)
  SELECT o.id, o.queue, o.batch_id, o.stage, o.old_status, 'cancelled' FROM @o AS o WHERE o.old_status IN ('waiting', 'pending');
${CASCADE_FAILURE}
${MOVES_TO_DELTAS}
${TALLY}
COMMIT TRANSACTION;`;

/** CANCEL_WRITE (shared with readpast.CancelTask, sql/callers.ts), then its outcome and the touched batches. */
export const CANCEL = `${CANCEL_WRITE}
SELECT (SELECT TOP (1) o.old_status FROM @o AS o) AS old_status,
  CASE WHEN EXISTS (SELECT 1 FROM readpast.Tasks AS t WHERE t.token = @token) THEN 1 ELSE 0 END AS found;
${TOUCHED}`;

/**
 * A task of a stage after a failed one (a dead task) in a batch that aborts on failure: the claim never
 * starts it (its lane is skipped, sql/claim.ts), so it is not retried.
 */
export const PAST_ABORT = `t.batch_id IS NOT NULL AND EXISTS (SELECT 1 FROM readpast.Batches AS b
      JOIN readpast.BatchStages AS s ON s.batch_id = b.id
      WHERE b.id = t.batch_id AND b.on_failure = 'abort' AND s.dead > 0 AND s.stage < t.stage)`;

/**
 * @held: how many of the tasks `where` selects (not past an aborted stage) stay dead for their dedup key:
 * a newer one of them takes the key, or an unfinished task holds it. Read after a round of retryFailed,
 * the last round's count is every task the rounds skipped so (still dead, the key held by a live task).
 */
export const heldCount = (where: string) => `DECLARE @held int = (SELECT COUNT(*) FROM (
    SELECT t.id, t.dedup_key, ROW_NUMBER() OVER (PARTITION BY t.dedup_key ORDER BY t.id DESC) AS rn
    FROM readpast.Tasks AS t
    WHERE ${where} AND t.dedup_key IS NOT NULL
      AND NOT (${PAST_ABORT})
  ) AS c
  WHERE c.rn > 1 OR EXISTS (SELECT 1 FROM readpast.Tasks AS o
    WHERE o.dedup_key = c.dedup_key AND o.status IN ('waiting', 'pending', 'running')));`;

/**
 * The retry proper, over @cand (read before, holding nothing): dead or cancelled → pending (or waiting), ESCALATION_CHUNK
 * tasks per statement (sql/chunks.ts: a whole flow's failed nodes may be retried at once), each re-checked; into @moves.
 */
export const RETRY_CANDIDATES = `DELETE FROM @cx;
INSERT INTO @cx (rn, id) SELECT ROW_NUMBER() OVER (ORDER BY c.id), c.id FROM @cand AS c;
${inChunks(
  '@cx',
  `UPDATE t
    SET status = ${RETRIED_STATUS}, run_after = @now, finished_at = NULL, cancel_requested = 0, blocked_by = NULL, suspended = NULL,
        max_attempts = CASE WHEN t.max_attempts >= t.attempts + 1 THEN t.max_attempts ELSE t.attempts + 1 END
    OUTPUT inserted.id, inserted.queue, inserted.batch_id, inserted.stage, deleted.status, inserted.status, NULL, NULL, NULL INTO @moves
    FROM readpast.Tasks AS t JOIN @cx AS x ON x.id = t.id
    WHERE ${IN_CHUNK} AND t.status IN ('dead', 'cancelled')
      AND NOT EXISTS (SELECT 1 FROM readpast.Tasks AS o
        WHERE o.dedup_key = t.dedup_key AND o.dedup_key IS NOT NULL AND o.status IN ('waiting', 'pending', 'running'));`,
)}`;

/**
 * dead or cancelled → pending, granting one more attempt when they were used up. A task whose
 * dedup key a live task holds is skipped, and of several matching tasks sharing a key only the
 * newest comes back (the key stays unique among live tasks); so is a task of a stage after a failed
 * one of a batch that aborts (PAST_ABORT). The candidates are read first, holding no lock (they read
 * Batches and BatchStages, which come before Tasks in the lock order, sql/claim.ts); their keys' rows are
 * made sure of (ConcurrencyKeys, before Tasks); the UPDATE checks their status again.
 */
const retryWrite = (where: string, top: string) => `${BEGIN}
${DECLARE_MOVES}
${DECLARE_EDGES}
DECLARE @retried int = 0;
DECLARE @cand TABLE (id bigint NOT NULL PRIMARY KEY);
INSERT INTO @cand (id)
  SELECT ${top}c.id FROM (
    SELECT t.id, t.dedup_key, ROW_NUMBER() OVER (PARTITION BY t.dedup_key ORDER BY t.id DESC) AS rn
    FROM readpast.Tasks AS t
    WHERE ${where}
      AND NOT (${PAST_ABORT})
  ) AS c
  WHERE (c.dedup_key IS NULL OR c.rn = 1)
    AND NOT EXISTS (SELECT 1 FROM readpast.Tasks AS o
      WHERE o.dedup_key = c.dedup_key AND o.dedup_key IS NOT NULL AND o.status IN ('waiting', 'pending', 'running'))
  ORDER BY c.id;
BEGIN TRANSACTION;
${keyRowsFor('SELECT t.queue, t.concurrency_key FROM readpast.Tasks AS t JOIN @cand AS k ON k.id = t.id WHERE t.batch_id IS NULL')}
${RETRY_CANDIDATES}
SET @retried = (SELECT COUNT(*) FROM @moves);
${REARM_CHILDREN}
${MOVES_TO_DELTAS}
${TALLY}
COMMIT TRANSACTION;`;
const retry = (where: string, top: string, tail: string) => `${retryWrite(where, top)}
${tail}
${TOUCHED}`;

/**
 * One task by token; not one of a completed or cancelled batch. Returns (retried, status_now, past_abort:
 * 1 when refused as a task of a stage after a failed one, held_key / held_by / held_status: the unfinished
 * task holding its dedup key), then the touched batches.
 */
const RETRY_ONE_WHERE = `t.token = @token AND t.status IN ('dead', 'cancelled')
    AND (t.batch_id IS NULL OR NOT EXISTS (SELECT 1 FROM readpast.Batches AS b
      WHERE b.id = t.batch_id AND b.status IN ('completed', 'cancelled')))`;

/** RETRY_ONE's write, shared with readpast.RetryTask (sql/callers.ts). */
export const RETRY_ONE_WRITE = retryWrite(RETRY_ONE_WHERE, '');

export const RETRY_ONE = retry(
  RETRY_ONE_WHERE,
  '',
  `SELECT @retried AS retried,
  (SELECT TOP (1) t.status FROM readpast.Tasks AS t WHERE t.token = @token) AS status_now,
  CASE WHEN EXISTS (SELECT 1 FROM readpast.Tasks AS t WHERE t.token = @token AND t.status IN ('dead', 'cancelled')
    AND ${PAST_ABORT}) THEN 1 ELSE 0 END AS past_abort,
  h.dedup_key AS held_key, h.token AS held_by, h.status AS held_status
FROM (VALUES (1)) AS x (one)
OUTER APPLY (SELECT TOP (1) o.dedup_key, o.token, o.status FROM readpast.Tasks AS t
  JOIN readpast.Tasks AS o ON o.dedup_key = t.dedup_key AND o.id <> t.id
  WHERE t.token = @token AND t.status IN ('dead', 'cancelled') AND o.status IN ('waiting', 'pending', 'running')) AS h;`,
);

/** Up to BULK_BATCH dead tasks per call. Returns (retried, held: see heldCount), then the touched batches. */
export const retryFailedSql = (s: FailureShape) =>
  retry(
    failureWhere(s),
    `TOP (${BULK_BATCH}) `,
    `${heldCount(failureWhere(s))}
SELECT @retried AS retried, @held AS held;`,
  );

/**
 * Delete one finished task no unfinished task depends on, with its log rows and its edges. Returns (deleted, found),
 * then the touched batches.
 */
export const DELETE_ONE = `${BEGIN}
${DECLARE_MOVES}
BEGIN TRANSACTION;
DELETE FROM readpast.Tasks
  OUTPUT deleted.id, deleted.queue, deleted.batch_id, deleted.stage, deleted.status, NULL, NULL, NULL, NULL INTO @moves
  WHERE token = @token AND status IN ('succeeded', 'dead', 'cancelled') AND NOT ${neededByChild('readpast.Tasks.id')};
${DELETE_ATTEMPT_LOGS}
${DELETE_EDGES}
${MOVES_TO_DELTAS}
${TALLY}
COMMIT TRANSACTION;
SELECT (SELECT COUNT(*) FROM @moves) AS deleted,
  CASE WHEN EXISTS (SELECT 1 FROM readpast.Tasks AS t WHERE t.token = @token) THEN 1 ELSE 0 END AS found;
${TOUCHED}`;

/** Delete up to BULK_BATCH dead tasks matching a failure filter, with their log rows. Returns (deleted), then the touched batches. */
export const deleteFailedSql = (s: FailureShape) => `${BEGIN}
${DECLARE_MOVES}
BEGIN TRANSACTION;
WITH doomed AS (
  SELECT TOP (${BULK_BATCH}) t.id, t.queue, t.batch_id, t.stage, t.status FROM readpast.Tasks AS t
  WHERE ${failureWhere(s)} AND NOT ${neededByChild('t.id')}
  ORDER BY t.id
)
DELETE FROM doomed OUTPUT deleted.id, deleted.queue, deleted.batch_id, deleted.stage, deleted.status, NULL, NULL, NULL, NULL INTO @moves;
${DELETE_ATTEMPT_LOGS}
${DELETE_EDGES}
${MOVES_TO_DELTAS}
${TALLY}
COMMIT TRANSACTION;
SELECT COUNT(*) AS deleted FROM @moves;
${TOUCHED}`;

/**
 * A flow's failed nodes, as RETRY_ONE retries one: each dead node and each cancelled one no parent cancelled (those
 * come back with their parent, re-armed). Returns (retried, found), then the touched batches.
 */
export const RETRY_FLOW = retry(
  "t.flow_id = @flow_id AND (t.status = 'dead' OR (t.status = 'cancelled' AND t.blocked_by IS NULL))",
  '',
  'SELECT @retried AS retried, (SELECT COUNT(*) FROM readpast.Flows AS f WHERE f.id = @flow_id) AS found;',
);
