// SQL of ending attempts: a worker's settlements, each fenced on (task, worker, attempt), the attempt's
// log row, and the settling of batches whose tasks moved (abort on failure, completion).

/**
 * When the attempt really began (started, now): a prefetched task starts after its claim, when its worker's
 * task before it ends. Taken only between the claim's time and now (null, or a clock that disagrees: the claim's).
 */
const STARTED = 'started_at = COALESCE((SELECT s.v FROM (SELECT ? AS v, ? AS n) AS s WHERE s.v > started_at AND s.v <= s.n), started_at)';

/**
 * The fence of every settlement (id, worker_id, attempts, now): the attempt still owns its task and its lease
 * has not expired (a lapsed lease is lost: its token may be granted to another attempt, the rescue retries it).
 * Returns what the attempt held. Each settlement sets the task's `started_at` (STARTED) just before it.
 */
const FENCE = `WHERE id = ? AND worker_id = ? AND attempts = ? AND status = 'running' AND lease_until >= ?
            RETURNING queue, batch_id, stage, token_no`;

/** (finished_at, result, …started, …fence) */
export const FINISH_SUCCEEDED = `UPDATE Tasks SET status = 'succeeded', finished_at = ?, result = ?, lease_until = NULL, ${STARTED}
            ${FENCE}`;

/** (run_after, error_number, error_message, error_detail, fingerprint, …started, …fence) */
export const FINISH_RETRY = `UPDATE Tasks SET status = 'pending', run_after = ?, lease_until = NULL, error_number = ?,
            error_message = ?, error_detail = ?, fingerprint = ?, ${STARTED} ${FENCE}`;

/** (finished_at, error_number, error_message, error_detail, fingerprint, …started, …fence) */
export const FINISH_DEAD = `UPDATE Tasks SET status = 'dead', finished_at = ?, lease_until = NULL, error_number = ?,
            error_message = ?, error_detail = ?, fingerprint = ?, ${STARTED} ${FENCE}`;

/**
 * A durable handler suspended (types/durable.ts): waiting until run_after or its event, its attempt not a failure
 * (run_after, suspended, …started, …fence)
 */
export const FINISH_SUSPENDED = `UPDATE Tasks SET status = 'waiting', run_after = ?, suspended = ?, suspensions = suspensions + 1,
            lease_until = NULL, ${STARTED} ${FENCE}`;

/** (finished_at, …started, …fence) */
export const FINISH_CANCELLED = `UPDATE Tasks SET status = 'cancelled', finished_at = ?, lease_until = NULL, ${STARTED} ${FENCE}`;

/**
 * (ended_at, outcome, error_number, error_message, error_detail, …started, task_id, attempt) → command, started_at
 * (for the history)
 */
export const END_ATTEMPT = `UPDATE ExecutionLog SET ended_at = ?, outcome = ?, error_number = ?, error_message = ?, error_detail = ?,
      ${STARTED} WHERE task_id = ? AND attempt = ? RETURNING command, started_at`;

// ---- settling batches -------------------------------------------------------------------------------

export const BATCH_POLICY = 'SELECT status, on_failure FROM Batches WHERE id = ?';

export const FIRST_FAILED_STAGE = 'SELECT MIN(stage) AS stage FROM BatchStages WHERE batch_id = ? AND dead > 0';

/** An aborted batch's pending tasks of later stages (finished_at, error_message, batch_id, stage) → id, queue, batch_id, stage */
export const CANCEL_LATER_STAGES = `UPDATE Tasks SET status = 'cancelled', finished_at = ?, error_message = ?
            WHERE batch_id = ? AND batch_id IS NOT NULL AND stage > ? AND status = 'pending' RETURNING id, queue, batch_id, stage`;

export const ABORT_BATCH = "UPDATE Batches SET status = 'aborted' WHERE id = ?";

/** Tasks of a batch not yet terminal. */
export const UNFINISHED_IN_BATCH = 'SELECT COALESCE(SUM(pending + running), 0) AS n FROM BatchStages WHERE batch_id = ?';

/** (completed_at, id) */
export const COMPLETE_BATCH = `UPDATE Batches SET status = CASE status WHEN 'aborted' THEN 'aborted' ELSE 'completed' END, completed_at = ?
            WHERE id = ?`;
