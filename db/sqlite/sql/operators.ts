// SQL of what operators do to tasks: cancel, retry, delete — one task by its token, or every dead task
// matching a failure filter.

export const TASK_BY_TOKEN = 'SELECT id, queue, batch_id, stage, status FROM Tasks WHERE token = ?';

/** (finished_at, id) → what a claimed task held (its token, for the attempt it would have been) */
export const CANCEL_PENDING = `UPDATE Tasks SET status = 'cancelled', finished_at = ?, lease_until = NULL WHERE id = ?
      RETURNING token_no, attempts`;
export const REQUEST_CANCEL = 'UPDATE Tasks SET cancel_requested = 1 WHERE id = ?';

/**
 * The filters of "dead tasks matching a failure filter" (groups, bulk retry, bulk delete), ANDed;
 * `dead` always applies. Each `?` binds one value, in the order of the fragments.
 */
export const FAILURE_FILTER = {
  // the IN literal matches the partial index of dead and cancelled tasks
  dead: "status = 'dead' AND status IN ('dead', 'cancelled')",
  queue: 'queue = ?',
  message: 'error_message = ?',
  /** two LIKE patterns */
  q: "(command LIKE ? ESCAPE '\\' OR error_message LIKE ? ESCAPE '\\')",
  /** failure fingerprint (migration 10) */
  fingerprint: 'fingerprint = ?',
  command: 'command = ?',
} as const;

/**
 * not_after_failed_stage for one task of stage `stage` of batch `batch` (SQL expressions), true when it
 * fails: a stage after one with a dead task, in a batch that aborts on failure. The claim never starts such
 * a task (its rule not_after_failed_stage, sql/claim.ts), so retry and bulk retry refuse it.
 */
const pastFailedStage = (batch: string, stage: string) => `EXISTS (SELECT 1 FROM Batches b
        JOIN BatchStages s ON s.batch_id = b.id WHERE b.id = ${batch} AND b.on_failure = 'abort' AND s.dead > 0 AND s.stage < ${stage})`;

/**
 * A task of a stage after a failed one (a dead task) in a batch that aborts on failure: the claim never
 * starts it, so it is not retried (batch_id, stage).
 */
export const PAST_ABORT = `SELECT 1 AS past WHERE ${pastFailedStage('?', '?')}`;

/** An unfinished task holds this task's dedup key (the partial unique index Tasks_dedup answers it). */
const KEY_HELD = `EXISTS (SELECT 1 FROM Tasks o WHERE o.dedup_key = Tasks.dedup_key
        AND o.dedup_key IS NOT NULL AND o.status IN ('waiting', 'pending', 'claimed', 'running'))`;

/** Not of a stage after a failed one in a batch that aborts on failure (see PAST_ABORT). */
const NOT_PAST_ABORT = `(batch_id IS NULL OR NOT ${pastFailedStage('Tasks.batch_id', 'Tasks.stage')})`;

/**
 * Tasks a filter would retry, newest first, each with its dedup key and whether an unfinished task holds
 * it (`held`): the caller retries the newest per key whose key is free and counts the rest as skipped.
 */
export function retryCandidatesSql(filters: readonly string[]): string {
  return `SELECT id, queue, batch_id, stage, status AS prior, dedup_key,
        CASE WHEN dedup_key IS NOT NULL AND ${KEY_HELD} THEN 1 ELSE 0 END AS held
      FROM Tasks WHERE ${filters.join(' AND ')} AND ${NOT_PAST_ABORT}
      ORDER BY id DESC`;
}

/** (id): the task, when it may be retried: its dedup key free, not past an aborted stage */
export const RETRY_ONE_CANDIDATE = `SELECT id, queue, batch_id, stage, status AS prior FROM Tasks
      WHERE id = ? AND (dedup_key IS NULL OR NOT ${KEY_HELD}) AND ${NOT_PAST_ABORT}`;

/** (id): the unfinished task holding this task's dedup key */
export const DEDUP_HOLDER = `SELECT o.token, o.status, o.dedup_key FROM Tasks t
      JOIN Tasks o ON o.dedup_key = t.dedup_key AND o.dedup_key IS NOT NULL AND o.status IN ('waiting', 'pending', 'claimed', 'running')
      WHERE t.id = ? AND o.id <> t.id LIMIT 1`;

/** The tasks matching `filters`, with what the tally needs. */
export function matchingTasksSql(filters: readonly string[]): string {
  return `SELECT id, queue, batch_id, stage, status FROM Tasks WHERE ${filters.join(' AND ')}`;
}

export const DELETE_TASK_LOG = 'DELETE FROM ExecutionLog WHERE task_id = ?';
export const DELETE_TASK = 'DELETE FROM Tasks WHERE id = ?';
