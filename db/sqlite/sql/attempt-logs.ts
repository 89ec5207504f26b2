// SQL of attempt output (db/sqlite/attempt-logs.ts): the fenced append of log lines and progress, the
// bound (the last lines within the count and byte limits), the reads, and the deletes that go with a task.

/** The attempt still owns its task and its lease has not expired (task id, worker id, attempt, now), as finish's fence. */
export const OWNS_TASK = `SELECT 1 AS ok FROM Tasks
      WHERE id = ? AND worker_id = ? AND attempts = ? AND status = 'running' AND lease_until >= ?`;

/** (task_id, attempt, updated_at) */
export const ENSURE_OUTPUT = `INSERT INTO AttemptOutput (task_id, attempt, updated_at) VALUES (?, ?, ?)
      ON CONFLICT (task_id, attempt) DO NOTHING`;

/** (task_id, attempt) */
export const OUTPUT_HEAD = `SELECT task_id, attempt, last_seq, lines, bytes, dropped, percent, message, progress_at
      FROM AttemptOutput WHERE task_id = ? AND attempt = ?`;

/** (task_id, attempt, seq, at, stream, line, bytes) */
export const INSERT_LINE = 'INSERT INTO AttemptLogs (task_id, attempt, seq, at, stream, line, bytes) VALUES (?, ?, ?, ?, ?, ?, ?)';

/** (last_seq, lines added, bytes added, dropped added, updated_at, task_id, attempt) */
export const ADVANCE_OUTPUT = `UPDATE AttemptOutput SET last_seq = ?, lines = lines + ?, bytes = bytes + ?, dropped = dropped + ?,
      updated_at = ? WHERE task_id = ? AND attempt = ?`;

/** (percent, message, progress_at, task_id, attempt) */
export const SET_PROGRESS = 'UPDATE AttemptOutput SET percent = ?, message = ?, progress_at = ? WHERE task_id = ? AND attempt = ?';

/**
 * The bound: delete the oldest lines beyond the newest `max lines` / `max bytes` (task_id, attempt, task_id,
 * attempt, max bytes, max lines). The running totals grow towards older lines, so what exceeds is a prefix.
 */
export const TRIM_LINES = `DELETE FROM AttemptLogs WHERE task_id = ? AND attempt = ? AND seq <= (
      SELECT COALESCE(MAX(seq), 0) FROM (
        SELECT seq, SUM(bytes) OVER (ORDER BY seq DESC) AS total, ROW_NUMBER() OVER (ORDER BY seq DESC) AS rn
        FROM AttemptLogs WHERE task_id = ? AND attempt = ?
      ) WHERE total > ? OR rn > ?)`;

/** (task_id, attempt) */
export const KEPT_TOTALS = 'SELECT COUNT(*) AS n, COALESCE(SUM(bytes), 0) AS b FROM AttemptLogs WHERE task_id = ? AND attempt = ?';

/** (lines, bytes, dropped added, task_id, attempt) */
export const SET_KEPT = 'UPDATE AttemptOutput SET lines = ?, bytes = ?, dropped = dropped + ? WHERE task_id = ? AND attempt = ?';

/** (token) */
export const TASK_BY_TOKEN = 'SELECT id, attempts FROM Tasks WHERE token = ?';

/** (task_id, attempt, after seq, limit) */
export const LINES_AFTER = `SELECT seq, at, stream, line FROM AttemptLogs WHERE task_id = ? AND attempt = ? AND seq > ?
      ORDER BY seq LIMIT ?`;

/** The progress of every running attempt that reported one (by token). */
export const RUNNING_PROGRESS = `SELECT t.token, o.percent, o.message, o.progress_at FROM Tasks t
      JOIN AttemptOutput o ON o.task_id = t.id AND o.attempt = t.attempts
      WHERE t.status = 'running' AND o.percent IS NOT NULL`;

/** A task's output goes with it (task_id). */
export const DELETE_TASK_OUTPUT = 'DELETE FROM AttemptOutput WHERE task_id = ?';
export const DELETE_TASK_LINES = 'DELETE FROM AttemptLogs WHERE task_id = ?';
