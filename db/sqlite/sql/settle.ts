// SQL of ending attempts: a worker's settlements, each fenced on (task, worker, attempt), the attempt's
// log row, and the settling of batches whose tasks moved (abort on failure, completion).

/**
 * The attempt a settlement records (worker_id, attempts, start, now): its worker and number, and — for a task
 * claimed ahead whose start goes with it — its start, no later than now (the pool's clock may disagree); a running
 * attempt keeps the start its claim recorded. SET reads the row as it was: `status` is the fenced one.
 */
const ATTEMPT = "worker_id = ?, attempts = ?, started_at = CASE WHEN status = 'claimed' THEN MIN(?, ?) ELSE started_at END";

/**
 * The fence of every settlement (id, worker_id, status, attempts, now): a running attempt still owns its task
 * (its worker, 'running', its number), or a task claimed ahead is still its claimer's ('claimed', the attempt
 * number less one: its start goes with this settlement); and the lease has not expired (a lapsed lease is lost:
 * its token may be granted to another attempt, the rescue retries the task). Returns what the attempt held and
 * what its log row needs.
 */
const FENCE = `WHERE id = ? AND worker_id = ? AND status = ? AND attempts = ? AND lease_until >= ?
            RETURNING queue, batch_id, stage, token_no, kind, command`;

/** (finished_at, result, …attempt, …fence) */
export const FINISH_SUCCEEDED = `UPDATE Tasks SET status = 'succeeded', finished_at = ?, result = ?, lease_until = NULL, ${ATTEMPT}
            ${FENCE}`;

/** (run_after, error_number, error_message, error_detail, fingerprint, …attempt, …fence) */
export const FINISH_RETRY = `UPDATE Tasks SET status = 'pending', run_after = ?, lease_until = NULL, error_number = ?,
            error_message = ?, error_detail = ?, fingerprint = ?, ${ATTEMPT} ${FENCE}`;

/** (finished_at, error_number, error_message, error_detail, fingerprint, …attempt, …fence) */
export const FINISH_DEAD = `UPDATE Tasks SET status = 'dead', finished_at = ?, lease_until = NULL, error_number = ?,
            error_message = ?, error_detail = ?, fingerprint = ?, ${ATTEMPT} ${FENCE}`;

/** (finished_at, …attempt, …fence) */
export const FINISH_CANCELLED = `UPDATE Tasks SET status = 'cancelled', finished_at = ?, lease_until = NULL, ${ATTEMPT} ${FENCE}`;

/** A claimed task's attempt starts, still running (…attempt, …fence with status 'claimed'). */
export const START_CLAIMED = `UPDATE Tasks SET status = 'running', ${ATTEMPT} ${FENCE}`;

/** The token a task claimed ahead holds now names the slot that runs it (worker_id, queue, token_no, task_id). */
export const TOKEN_RUNNER = 'UPDATE ConcurrencyTokens SET worker_id = ? WHERE queue = ? AND token_no = ? AND task_id = ?';

/**
 * A task claimed ahead and not started goes back to pending, due as it was (id, worker_id, attempts + 1, now):
 * fenced on its claim; nothing was counted or logged. Returns what it held (its token: released by the caller).
 */
export const GIVE_BACK_CLAIMED = `UPDATE Tasks SET status = 'pending', lease_until = NULL, worker_id = NULL
            WHERE id = ? AND worker_id = ? AND status = 'claimed' AND attempts = ? - 1 AND lease_until >= ?
            RETURNING queue, batch_id, stage, token_no`;

/**
 * A durable handler suspended (types/durable.ts): waiting until run_after or its event, its attempt not a failure
 * (run_after, suspended, …attempt, …fence)
 */
export const FINISH_SUSPENDED = `UPDATE Tasks SET status = 'waiting', run_after = ?, suspended = ?, suspensions = suspensions + 1,
            lease_until = NULL, ${ATTEMPT} ${FENCE}`;

/**
 * An attempt its claim started but that never ran (its lease was too short when the claim returned) is undone
 * (id, worker_id, attempts, now): pending, due as it was, its attempt count back; its log row goes (LOG_UNDO).
 */
export const GIVE_BACK_STARTED = `UPDATE Tasks SET status = 'pending', attempts = attempts - 1, lease_until = NULL
            WHERE id = ? AND worker_id = ? AND status = 'running' AND attempts = ? AND lease_until >= ?
            RETURNING queue, batch_id, stage, token_no`;

/** (task_id, attempt) */
export const LOG_UNDO = 'DELETE FROM ExecutionLog WHERE task_id = ? AND attempt = ?';

/** (ended_at, outcome, error_number, error_message, error_detail, task_id, attempt) → command, started_at (for the history) */
export const END_ATTEMPT = `UPDATE ExecutionLog SET ended_at = ?, outcome = ?, error_number = ?, error_message = ?, error_detail = ?
      WHERE task_id = ? AND attempt = ? RETURNING command, started_at`;

/**
 * The whole log row of an attempt of a task claimed ahead that ended before its start was recorded (task_id, attempt,
 * queue, kind, command, worker_id, session, token_no, batch_id, stage, started_at, ended_at, outcome, error_number,
 * error_message, error_detail): one write instead of an insert at the start and an update at the end.
 */
export const LOG_ENDED_ATTEMPT = `INSERT INTO ExecutionLog (task_id, attempt, queue, kind, command, worker_id, session, token_no, batch_id,
      stage, started_at, ended_at, outcome, error_number, error_message, error_detail)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/**
 * A traced attempt's span, kept on its log row (trace, task_id, attempt) and on its task (trace, id), where the next
 * attempt (and a child's) finds it. Run only for an attempt that was traced, after its settlement was accepted: an
 * untraced attempt leaves the task's last traced span (as SQL Server's FINISH does).
 */
export const LOG_ATTEMPT_TRACE = 'UPDATE ExecutionLog SET trace_parent = ? WHERE task_id = ? AND attempt = ?';
export const TASK_ATTEMPT_TRACE = 'UPDATE Tasks SET attempt_trace = ? WHERE id = ?';

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
