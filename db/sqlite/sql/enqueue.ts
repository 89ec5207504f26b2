// SQL of producers: the dedup check and the task INSERT, one row or a chunk of rows at once.

/** An unfinished task holding a dedup key (dedup_key). */
export const FIND_DEDUP = `SELECT token FROM Tasks WHERE dedup_key = ? AND dedup_key IS NOT NULL
          AND status IN ('pending', 'running')`;

const TASK_VALUES = "(?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?, ?)";

/** Rows per multi-row INSERT: far fewer statement executions for a bulk enqueue. */
export const INSERT_CHUNK = 50;

const insertTasks = (values: string) => `INSERT INTO Tasks (token, queue, kind, command, payload, status, priority, run_after,
          max_attempts, timeout_ms, dedup_key, caller, batch_id, stage, created_at) VALUES ${values}`;

/**
 * One task (token, queue, kind, command, payload, priority, run_after, max_attempts, timeout_ms, dedup_key,
 * caller, batch_id, stage, created_at).
 */
export const INSERT_TASK = insertTasks(TASK_VALUES);

/** INSERT_CHUNK tasks, their values one after the other. */
export const INSERT_TASKS = insertTasks(Array(INSERT_CHUNK).fill(TASK_VALUES).join(', '));
