// SQL of the read model: lookups, keyset pages, ExecutionStatus and kept aggregates — never a count over
// a whole table. Queues and batches are read in queues.ts and batches.ts.

export const GET_TASK = 'SELECT * FROM Tasks WHERE token = ?';
/** The attempts of one task (token, task_id). */
export const TASK_HISTORY = 'SELECT l.*, ? AS token FROM ExecutionLog l WHERE l.task_id = ? ORDER BY l.attempt';

export const KNOWN_HANDLERS = 'SELECT name FROM Handlers ORDER BY name';
export const COUNTS_BY_QUEUE = 'SELECT queue, status, n FROM QueueCounts ORDER BY queue';

/** A WHERE clause of the filters, ANDed; none without filters. */
const where = (filters: readonly string[]) => (filters.length ? 'WHERE ' + filters.join(' AND ') : '');

/**
 * The filters of the task list; each `?` binds one value, in the order of the fragments. The driving ones
 * (status, batch, flow) pick an index walked newest first; the others are checked on the rows it yields.
 */
export const TASK_FILTER = {
  status: 'status = ?',
  // the literals match the partial indexes: pending and running (Tasks_open), dead and cancelled (Tasks_ended),
  // waiting (Tasks_waiting)
  open: "status IN ('pending', 'running')",
  // the running and claimed tasks (Tasks_running): the claimed tab, sorted (a pool holds at most its prefetch)
  held: "status IN ('claimed', 'running')",
  ended: "status IN ('dead', 'cancelled')",
  waiting: "status = 'waiting'",
  /** the tasks of one flow (Tasks_flow) */
  flow: 'flow_id = ? AND flow_id IS NOT NULL',
  queue: 'queue = ?',
  command: 'command = ?',
  concurrencyKey: 'concurrency_key = ?',
  batch: 'batch_id = ? AND batch_id IS NOT NULL',
  stage: 'stage = ?',
  /** a waiting task suspended by its durable handler on a sleep or an event (suspended) */
  suspended: 'suspended = ?',
  /** (now) */
  ready: 'run_after <= ?',
  /** (now) */
  scheduled: 'run_after > ? AND attempts = 0',
  /** (now) */
  retrying: 'run_after > ? AND attempts > 0',
  priorityMin: 'priority >= ?',
  priorityMax: 'priority <= ?',
  createdFrom: 'created_at >= ?',
  createdTo: 'created_at <= ?',
  finishedFrom: 'finished_at >= ?',
  finishedTo: 'finished_at <= ?',
  /** three LIKE patterns, then the text itself (a token) */
  q: "(command LIKE ? ESCAPE '\\' OR dedup_key LIKE ? ESCAPE '\\' OR error_message LIKE ? ESCAPE '\\' OR token = ?)",
  /**
   * (path, path, value) the scalar at a JSON path as text (true/false as words, as SQL Server's JSON_VALUE has
   * them) equals the value; the path is bound, and checked against JSON_PATH before
   */
  payloadEq: `(CASE json_type(payload, ?) WHEN 'true' THEN 'true' WHEN 'false' THEN 'false'
      ELSE CAST(json_extract(payload, ?) AS TEXT) END) = ?`,
  /** (path, LIKE pattern) */
  payloadContains: "CAST(json_extract(payload, ?) AS TEXT) LIKE ? ESCAPE '\\'",
  /** a text search that is a token: the one task (unique index) */
  token: 'token = ?',
  cursor: 'id < ?',
  /** the lowest id of the scan window (inclusive) */
  floor: 'id >= ?',
} as const;

/** A keyset page of tasks, newest first: the filters' values, then the limit. */
export function listTasksSql(filters: readonly string[]): string {
  return `SELECT * FROM Tasks ${where(filters)} ORDER BY id DESC LIMIT ?`;
}

/** The lowest id among the newest (offset + 1) rows the driving filters yield: the filters' values, then the offset. */
export function taskWindowSql(filters: readonly string[]): string {
  return `SELECT id FROM Tasks ${where(filters)} ORDER BY id DESC LIMIT 1 OFFSET ?`;
}

/** Whether the driving filters yield any row at all (below the window): the filters' values. */
export function taskExistsSql(filters: readonly string[]): string {
  return `SELECT 1 AS one FROM Tasks ${where(filters)} ORDER BY id DESC LIMIT 1`;
}

export const MAX_TASK_ID = 'SELECT MAX(id) AS id FROM Tasks';

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
  return `SELECT l.*, t.token, t.max_attempts AS task_max_attempts, t.status AS task_status, t.attempts AS task_attempts
      FROM ExecutionLog l JOIN Tasks t ON t.id = l.task_id ${where(filters)}
      ORDER BY l.id DESC LIMIT ?`;
}

export const LIST_RUNNING = 'SELECT * FROM ExecutionStatus ORDER BY started_at, log_id';

export const LIST_WORKERS = `SELECT worker_id, host, pid, role, session, login_time, started_at, heartbeat_at, state, queues FROM Workers
      ORDER BY CASE state WHEN 'running' THEN 0 WHEN 'stopping' THEN 1 WHEN 'lost' THEN 2 ELSE 3 END, host, pid, session
      LIMIT 1000`;

/** (from second) */
export const METRICS_SINCE = 'SELECT * FROM Metrics WHERE sec >= ? ORDER BY sec';

// ---- pending breakdown (index Tasks_pending_run, migration 9) ------------------------------------

/** Queues with pending tasks, from the kept counts. */
export const PENDING_QUEUES = "SELECT queue, n FROM QueueCounts WHERE status = 'pending' AND n > 0 ORDER BY queue";
/** (queue, now) Pending tasks of one queue with a run-at in the future: a range of the index. */
export const PENDING_FUTURE = `SELECT COALESCE(SUM(attempts = 0), 0) AS scheduled, COALESCE(SUM(attempts > 0), 0) AS retrying,
      MIN(run_after) AS next_run FROM Tasks WHERE status = 'pending' AND queue = ? AND run_after > ?`;
/** (queue, now) The ready task of one queue due longest ago: one seek. */
export const OLDEST_READY = `SELECT created_at FROM Tasks WHERE status = 'pending' AND queue = ? AND run_after <= ?
      ORDER BY run_after LIMIT 1`;
