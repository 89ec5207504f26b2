// SQL of producers: the dedup check and the task INSERT, one row or a chunk of rows at once.

/** An unfinished task holding a dedup key (dedup_key). */
export const FIND_DEDUP = `SELECT token FROM Tasks WHERE dedup_key = ? AND dedup_key IS NOT NULL
          AND status IN ('waiting', 'pending', 'claimed', 'running')`;

const TASK_VALUES = "(?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

/**
 * Bound values per task row: token, queue, kind, command, payload, priority, run_after, max_attempts, timeout_ms,
 * dedup_key, concurrency_key, caller, batch_id, stage, created_at, trace_parent, trace_state.
 */
export const TASK_COLUMNS = 17;

/** A task row with dependencies: TASK_COLUMNS values, then status, flow_id, flow_node, parent_count, parents_left. */
export const LINKED_TASK_COLUMNS = TASK_COLUMNS + 5;

/** Rows per multi-row INSERT, largest first: a bulk enqueue of 1,000 is five statements. */
export const INSERT_CHUNKS = [200, 50, 10, 1] as const;

const COLUMNS = `token, queue, kind, command, payload, status, priority, run_after,
          max_attempts, timeout_ms, dedup_key, concurrency_key, caller, batch_id, stage, created_at, trace_parent, trace_state`;

const texts = new Map<number, string>();

/** The INSERT of `rows` tasks (one of INSERT_CHUNKS), their TASK_COLUMNS values one row after the other. */
export function insertTasks(rows: number): string {
  let t = texts.get(rows);
  if (!t) {
    t = `INSERT INTO Tasks (${COLUMNS}) VALUES ${Array(rows).fill(TASK_VALUES).join(', ')}`;
    texts.set(rows, t);
  }
  return t;
}

const LINKED_VALUES = `(${Array(LINKED_TASK_COLUMNS).fill('?').join(', ')})`;
const linkedTexts = new Map<number, string>();

/** The INSERT of `rows` tasks with dependencies (one of INSERT_CHUNKS), LINKED_TASK_COLUMNS values per row. */
export function insertLinkedTasks(rows: number): string {
  let t = linkedTexts.get(rows);
  if (!t) {
    const cols = COLUMNS.replace('status, ', '') + ', status, flow_id, flow_node, parent_count, parents_left';
    t = `INSERT INTO Tasks (${cols}) VALUES ${Array(rows).fill(LINKED_VALUES).join(', ')}`;
    linkedTexts.set(rows, t);
  }
  return t;
}
