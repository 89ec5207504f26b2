// SQL of bulk commands on tasks (by token, a chunk per transaction) and of editing a task before a retry.

/** What a bulk command needs of a task (token). */
export const BULK_TASK = 'SELECT id, queue, batch_id, stage, status, run_after FROM Tasks WHERE token = ?';

/** A scheduled or retrying pending task becomes due now (run_after, id). */
export const RUN_NOW = "UPDATE Tasks SET run_after = ? WHERE id = ? AND status = 'pending'";

/** (priority, id) */
export const SET_PRIORITY = "UPDATE Tasks SET priority = ? WHERE id = ? AND status IN ('waiting', 'pending', 'dead', 'cancelled')";

/**
 * Rewrite a task that is not running (queue, payload, priority, run_after, max_attempts, status, finished_at,
 * id, status it must still have). A retried task's cancel request is cleared.
 */
export const EDIT_TASK = `UPDATE Tasks SET queue = ?, payload = ?, priority = ?, run_after = ?, max_attempts = ?, status = ?,
      finished_at = ?, cancel_requested = 0 WHERE id = ? AND status = ?`;
