// SQL of the read model: lookups, keyset pages, ExecutionStatus and kept aggregates — never a count over
// a whole table. Queues and batches are read in queues.ts and batches.ts.

export const GET_TASK = 'SELECT * FROM Tasks WHERE token = ?';
/** The attempts of one task (token, task_id). */
export const TASK_HISTORY = 'SELECT l.*, ? AS token FROM ExecutionLog l WHERE l.task_id = ? ORDER BY l.attempt';

export const KNOWN_HANDLERS = 'SELECT name FROM Handlers ORDER BY name';
export const COUNTS_BY_QUEUE = 'SELECT queue, status, n FROM QueueCounts ORDER BY queue';

/** A WHERE clause of the filters, ANDed; none without filters. */
const where = (filters: readonly string[]) => (filters.length ? 'WHERE ' + filters.join(' AND ') : '');

/** The filters of the task list; each `?` binds one value, in the order of the fragments. */
export const TASK_FILTER = {
  status: 'status = ?',
  // the literal matches the partial index of dead and cancelled tasks
  ended: "status IN ('dead', 'cancelled')",
  queue: 'queue = ?',
  batch: 'batch_id = ? AND batch_id IS NOT NULL',
  stage: 'stage = ?',
  /** three LIKE patterns, then the text itself (a token) */
  q: "(command LIKE ? ESCAPE '\\' OR dedup_key LIKE ? ESCAPE '\\' OR error_message LIKE ? ESCAPE '\\' OR token = ?)",
  cursor: 'id < ?',
} as const;

/** A keyset page of tasks, newest first: the filters' values, then the limit. */
export function listTasksSql(filters: readonly string[]): string {
  return `SELECT * FROM Tasks ${where(filters)} ORDER BY id DESC LIMIT ?`;
}

/** The filters of the attempt list (ExecutionLog l); each `?` binds one value, in the order of the fragments. */
export const ATTEMPT_FILTER = {
  outcome: 'l.outcome = ?',
  // the literal lets the planner use the partial index of unsuccessful attempts
  unsuccessful: "l.outcome NOT IN ('running', 'succeeded')",
  queue: 'l.queue = ?',
  batch: 'l.batch_id = ?',
  /** two LIKE patterns */
  q: "(l.command LIKE ? ESCAPE '\\' OR l.error_message LIKE ? ESCAPE '\\')",
  from: 'l.started_at >= ?',
  to: 'l.started_at <= ?',
  cursor: 'l.id < ?',
} as const;

/** A keyset page of attempts, newest first: the filters' values, then the limit. */
export function listAttemptsSql(filters: readonly string[]): string {
  return `SELECT l.*, t.token FROM ExecutionLog l JOIN Tasks t ON t.id = l.task_id ${where(filters)}
      ORDER BY l.id DESC LIMIT ?`;
}

export const LIST_RUNNING = 'SELECT * FROM ExecutionStatus ORDER BY started_at, log_id';

export const LIST_WORKERS = `SELECT worker_id, host, pid, role, session, login_time, started_at, heartbeat_at, state FROM Workers
      ORDER BY CASE state WHEN 'running' THEN 0 WHEN 'stopping' THEN 1 WHEN 'lost' THEN 2 ELSE 3 END, host, pid, session
      LIMIT 1000`;

/** Dead tasks matching the failure filters (sql/operators.ts FAILURE_FILTER), grouped by message, queue and command. */
export function failureGroupsSql(filters: readonly string[]): string {
  return `SELECT COALESCE(error_message, '') AS message, queue, command, COUNT(*) AS count,
      MAX(finished_at) AS last_at, MAX(token) AS sample FROM Tasks WHERE ${filters.join(' AND ')}
      GROUP BY error_message, queue, command ORDER BY count DESC, last_at DESC LIMIT 200`;
}

/** (from second) */
export const METRICS_SINCE = 'SELECT * FROM Metrics WHERE sec >= ? ORDER BY sec';
