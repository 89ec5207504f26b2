// T-SQL behind the dashboard, the API and the CLI: indexed lookups, keyset pages and reads of kept
// aggregates, never a count over a whole table. Filters are assembled from fixed fragments (every
// combination is enumerated for the parse check); values always travel as parameters.
import type { Outcome, PendingSub, TaskStatus } from '../../../lib/engine/types';
import { OUTCOMES, PENDING_SUBS, TASK_STATUSES } from '../../../lib/engine/types';

export const TASK_COLUMNS = `t.id, t.token, t.queue, t.kind, t.command, t.payload, t.status, t.priority, t.run_after, t.attempts,
  t.max_attempts, t.timeout_ms, t.dedup_key, t.caller, t.batch_id, t.stage, t.lease_until, t.worker_id, t.cancel_requested,
  t.created_at, t.started_at, t.finished_at, t.error_number, t.error_message, t.error_detail, t.result, t.schedule_name,
  t.schedule_fire_at, t.concurrency_key, t.flow_id, t.flow_node, t.parent_count, t.parents_left, t.trace_parent, t.suspended,
  t.suspensions`;

export const LOG_COLUMNS = `l.id, l.task_id, t.token, l.attempt, l.queue, l.kind, l.command, l.worker_id, l.session, l.token_no,
  l.batch_id, l.stage, l.started_at, l.ended_at, l.outcome, l.error_number, l.error_message, l.error_detail, l.abandon_reason,
  l.trace_parent,
  t.max_attempts AS task_max_attempts, t.status AS task_status, t.attempts AS task_attempts`;

/** A task and its attempts (two result sets). */
export const GET_TASK = `SELECT ${TASK_COLUMNS} FROM readpast.Tasks AS t WHERE t.token = @token;
SELECT ${LOG_COLUMNS}
FROM readpast.ExecutionLog AS l JOIN readpast.Tasks AS t ON t.id = l.task_id
WHERE t.token = @token
ORDER BY l.attempt;`;

export const KNOWN_HANDLERS = 'SELECT h.name FROM readpast.Handlers AS h ORDER BY h.name;';
/** Kept counts, summed over the slots their writers bump (sql/tally.ts). */
export const COUNTS_BY_QUEUE = `SELECT c.queue, c.status, SUM(c.n) AS n FROM readpast.QueueCounts AS c
GROUP BY c.queue, c.status
ORDER BY c.queue, c.status;`;

/** Literal status filters, so the planner can match the filtered indexes. */
const STATUS_FILTER: Record<TaskStatus, string> = {
  waiting: "t.status = 'waiting'",
  pending: "t.status = 'pending'",
  // never written on SQL Server (its pools do not claim ahead): the read returns none
  claimed: "t.status = 'claimed'",
  running: "t.status = 'running'",
  succeeded: "t.status = 'succeeded'",
  dead: "t.status = 'dead'",
  cancelled: "t.status = 'cancelled'",
};

export interface TaskListShape {
  status: TaskStatus | null;
  /** pending tasks only: run-at against SYSUTCDATETIME() and attempts */
  sub: PendingSub | null;
  queue: boolean;
  /** @command, exact */
  command: boolean;
  /** @concurrency_key, exact (binary, as the column) */
  concurrencyKey: boolean;
  batch: boolean;
  stage: boolean;
  /** @flow_id: the tasks of one flow (IX_Tasks_flow) */
  flow: boolean;
  priorityMin: boolean;
  priorityMax: boolean;
  /** @from / @to on finished_at for terminal statuses, created_at otherwise */
  from: boolean;
  to: boolean;
  /** @q (a LIKE pattern) over command, dedup key and error message, or @q_token equal to the token */
  q: boolean;
  /** a text search that is a token: @q_token, the one task (unique index) */
  token: boolean;
  /** JSON_VALUE(payload, @payload_path) equals @payload_value, or is LIKE it (a pattern) */
  payload: 'eq' | 'contains' | null;
  cursor: boolean;
  /** t.id >= @floor: the lowest id of the scan window */
  floor: boolean;
  /** waiting tasks suspended by their durable handler on a sleep or an event: @suspended ('sleep' | 'event') */
  suspended: boolean;
}

const SUB_FILTER: Record<PendingSub, string> = {
  ready: 't.run_after <= SYSUTCDATETIME()',
  scheduled: 't.run_after > SYSUTCDATETIME() AND t.attempts = 0',
  retrying: 't.run_after > SYSUTCDATETIME() AND t.attempts > 0',
};

// the scalar at a JSON path; a payload that is not a JSON object or array (a bare scalar) has none
const PAYLOAD_AT = 'CASE WHEN ISJSON(t.payload) = 1 THEN JSON_VALUE(t.payload, @payload_path) END';

/** The filters no index answers alone: with any of them a page examines at most a window of rows. */
function taskFilters(s: TaskListShape): string[] {
  const parts: string[] = [];
  if (s.status) parts.push(STATUS_FILTER[s.status]);
  if (s.sub) parts.push(SUB_FILTER[s.sub]);
  if (s.queue) parts.push('t.queue = @queue');
  if (s.command) parts.push('t.command = @command');
  if (s.concurrencyKey) parts.push('t.concurrency_key = @concurrency_key');
  if (s.batch) parts.push('t.batch_id = @batch_id AND t.batch_id IS NOT NULL');
  if (s.stage) parts.push('t.stage = @stage');
  if (s.flow) parts.push('t.flow_id = @flow_id AND t.flow_id IS NOT NULL');
  if (s.priorityMin) parts.push('t.priority >= @priority_min');
  if (s.priorityMax) parts.push('t.priority <= @priority_max');
  const finished = s.status === 'succeeded' || s.status === 'dead' || s.status === 'cancelled';
  if (s.from) parts.push(finished ? 't.finished_at >= @from' : 't.created_at >= @from');
  if (s.to) parts.push(finished ? 't.finished_at <= @to' : 't.created_at <= @to');
  if (s.q) {
    // the dedup key has a binary collation (schema.ts NAME_COLLATION); search it as the other columns
    parts.push(`(t.command LIKE @q ESCAPE N'\\' OR t.dedup_key COLLATE DATABASE_DEFAULT LIKE @q ESCAPE N'\\'
    OR t.error_message LIKE @q ESCAPE N'\\' OR t.token = @q_token)`);
  }
  if (s.token) parts.push('t.token = @q_token');
  if (s.payload === 'eq') parts.push(`${PAYLOAD_AT} = @payload_value`);
  if (s.payload === 'contains') parts.push(`${PAYLOAD_AT} LIKE @payload_value ESCAPE N'\\'`);
  if (s.cursor) parts.push('t.id < @cursor');
  if (s.floor) parts.push('t.id >= @floor');
  if (s.suspended) parts.push('t.suspended = @suspended');
  return parts;
}

/** Newest first; @limit rows (the caller asks one more than a page to know whether there is a next). */
export function listTasksSql(s: TaskListShape): string {
  const parts = taskFilters(s);
  const where = parts.length ? `\nWHERE ${parts.join('\n  AND ')}` : '';
  return `SELECT TOP (@limit) ${TASK_COLUMNS}\nFROM readpast.Tasks AS t${where}\nORDER BY t.id DESC;`;
}

/** What drives a scan: an index walked newest first (status: the filtered ones; batch: IX_Tasks_batch). */
export interface TaskWindowShape {
  status: Exclude<TaskStatus, 'succeeded'> | null;
  batch: boolean;
  stage: boolean;
  cursor: boolean;
  /** false: the first row below @cursor (or any) — whether the index goes on; true: the (@offset + 1)th */
  offset: boolean;
}

/** The lowest id of the scan window: the (@offset + 1)th row of the driving index below @cursor, newest first. */
export function taskWindowSql(s: TaskWindowShape): string {
  const parts = taskFilters({ ...NO_TASK_FILTER, status: s.status, batch: s.batch, stage: s.stage, cursor: s.cursor });
  const where = parts.length ? `\nWHERE ${parts.join('\n  AND ')}` : '';
  const page = s.offset ? 'OFFSET @offset ROWS FETCH NEXT 1 ROWS ONLY' : 'OFFSET 0 ROWS FETCH NEXT 1 ROWS ONLY';
  return `SELECT t.id\nFROM readpast.Tasks AS t${where}\nORDER BY t.id DESC ${page};`;
}

export const MAX_TASK_ID = 'SELECT MAX(t.id) AS id FROM readpast.Tasks AS t;';

export const NO_TASK_FILTER: TaskListShape = {
  suspended: false,
  status: null,
  sub: null,
  queue: false,
  command: false,
  concurrencyKey: false,
  batch: false,
  stage: false,
  flow: false,
  priorityMin: false,
  priorityMax: false,
  from: false,
  to: false,
  q: false,
  token: false,
  payload: null,
  cursor: false,
  floor: false,
};

/** Per status: no filter, each filter alone, and all of them (for the parse check). */
function taskListShapes(): TaskListShape[] {
  const out: TaskListShape[] = [];
  const flags = [
    'queue',
    'command',
    'concurrencyKey',
    'batch',
    'stage',
    'flow',
    'priorityMin',
    'priorityMax',
    'from',
    'to',
    'q',
    'token',
    'cursor',
    'floor',
  ] as const;
  for (const status of [null, ...TASK_STATUSES]) {
    const base = { ...NO_TASK_FILTER, status };
    out.push(base);
    for (const k of flags) out.push({ ...base, [k]: true });
    out.push({ ...base, payload: 'eq' }, { ...base, payload: 'contains' });
    const all = { ...base, ...Object.fromEntries(flags.map((k) => [k, true])), payload: 'contains' as const };
    out.push(all);
    if (status === 'pending') for (const sub of PENDING_SUBS) out.push({ ...base, sub }, { ...all, sub });
    if (status === 'waiting') out.push({ ...base, suspended: true }, { ...all, suspended: true });
  }
  return out;
}

/** Every shape of the scan window's statement. */
export function taskWindowShapes(): TaskWindowShape[] {
  const out: TaskWindowShape[] = [];
  for (const status of [null, 'waiting', 'pending', 'claimed', 'running', 'dead', 'cancelled'] as const)
    for (const batch of [false, true])
      for (const stage of batch ? [false, true] : [false])
        for (const cursor of [false, true]) for (const offset of [false, true]) out.push({ status, batch, stage, cursor, offset });
  return out;
}

const OUTCOME_FILTER = Object.fromEntries(OUTCOMES.map((o) => [o, `l.outcome = '${o}'`])) as Record<Outcome, string>;

export interface AttemptListShape {
  outcome: Outcome | null;
  queue: boolean;
  batch: boolean;
  q: boolean;
  from: boolean;
  to: boolean;
  cursor: boolean;
}

export function listAttemptsSql(s: AttemptListShape): string {
  const parts: string[] = [];
  if (s.outcome) parts.push(OUTCOME_FILTER[s.outcome]);
  if (s.queue) parts.push('l.queue = @queue');
  if (s.batch) parts.push('l.batch_id = @batch_id');
  if (s.q) parts.push("(l.command LIKE @q ESCAPE N'\\' OR l.error_message LIKE @q ESCAPE N'\\')");
  if (s.from) parts.push('l.started_at >= @from');
  if (s.to) parts.push('l.started_at <= @to');
  if (s.cursor) parts.push('l.id < @cursor');
  const where = parts.length ? `\nWHERE ${parts.join('\n  AND ')}` : '';
  return `SELECT TOP (@limit) ${LOG_COLUMNS}
FROM readpast.ExecutionLog AS l JOIN readpast.Tasks AS t ON t.id = l.task_id${where}
ORDER BY l.id DESC;`;
}

export const STATUS_COLUMNS = `s.log_id, s.task_id, s.token, s.queue, s.kind, s.command, s.attempt, s.max_attempts, s.worker_id,
  s.session, s.token_no, s.batch_id, s.stage, s.started_at, s.lease_until, s.cancel_requested`;

/** ExecutionStatus: the attempts running now. */
export const LIST_RUNNING = `SELECT ${STATUS_COLUMNS}
FROM readpast.ExecutionStatus AS s
ORDER BY s.started_at, s.log_id;`;

/**
 * ExecutionStatus joined to the server's own view of each worker session and its request, keyed
 * on (session, login time) since SPIDs are reused. Only meaningful where the login may see other
 * sessions (VIEW SERVER STATE, or VIEW DATABASE STATE on Azure SQL Database).
 */
export const LIST_RUNNING_LIVE = `SELECT ${STATUS_COLUMNS},
  ses.session_id AS live_session, ses.status AS session_status, ses.cpu_time AS session_cpu,
  ses.open_transaction_count AS session_open_tran,
  r.status AS request_status, r.command AS request_command, r.wait_type, r.wait_time, r.blocking_session_id,
  r.cpu_time AS request_cpu, r.percent_complete, r.open_transaction_count AS request_open_tran
FROM readpast.ExecutionStatus AS s
LEFT JOIN readpast.Workers AS w ON w.worker_id = s.worker_id AND w.session = s.session
LEFT JOIN sys.dm_exec_sessions AS ses ON ses.session_id = s.session AND ses.login_time = w.login_time
LEFT JOIN sys.dm_exec_requests AS r ON r.session_id = ses.session_id
ORDER BY s.started_at, s.log_id;`;

/**
 * Workers (the running first) and, as a second result set, what each runs now. `login_time` is kept
 * as sys.dm_exec_sessions has it — the server's local time, so that it compares equal there (live
 * state, KILL) — and shown in UTC: shifted by the server's offset from UTC now (a session older than
 * the server's last daylight-saving change shows an hour off; what it is compared with is not).
 */
export const LIST_WORKERS = `SELECT TOP (1000) w.worker_id, w.host, w.pid, w.role, w.session,
  DATEADD(MINUTE, -DATEPART(TZOFFSET, SYSDATETIMEOFFSET()), w.login_time) AS login_time, w.started_at,
  w.heartbeat_at, w.state, w.queues
FROM readpast.Workers AS w
ORDER BY CASE w.state WHEN 'running' THEN 0 WHEN 'stopping' THEN 1 WHEN 'lost' THEN 2 ELSE 3 END, w.host, w.pid, w.session;
SELECT s.worker_id, s.token, s.command, s.queue, s.started_at
FROM readpast.ExecutionStatus AS s
ORDER BY s.started_at, s.log_id;`;

/** One point per second, summed over the slots its writers bump (sql/tally.ts); the depth gauge is slot 0's. */
export const METRICS_SINCE = `SELECT m.sec, SUM(m.enqueued) AS enqueued, SUM(m.started) AS started, SUM(m.succeeded) AS succeeded,
  SUM(m.failed) AS failed, SUM(m.latency_sum) AS latency_sum, MAX(m.latency_max) AS latency_max, MAX(m.depth) AS depth
FROM readpast.Metrics AS m
WHERE m.sec >= @since
GROUP BY m.sec
ORDER BY m.sec;`;

/** Every shape of the list queries, for the parse check. */
export function allListShapes(): { tasks: TaskListShape[]; attempts: AttemptListShape[] } {
  const bools = [false, true];
  const tasks = taskListShapes();
  const attempts: AttemptListShape[] = [];
  for (const outcome of [null, ...OUTCOMES]) {
    for (const queue of bools)
      for (const batch of bools)
        for (const q of bools)
          for (const from of bools) {
            for (const to of bools) for (const cursor of bools) attempts.push({ outcome, queue, batch, q, from, to, cursor });
          }
  }
  return { tasks, attempts };
}

/**
 * Per queue with pending tasks (kept counts): scheduled and retrying (a range of IX_Tasks_pending_run, run-at in
 * the future), the next run-at, and the created_at of the ready task due longest ago (one seek).
 */
export const PENDING_BREAKDOWN = `DECLARE @now datetime2(3) = SYSUTCDATETIME();
WITH q AS (
  SELECT c.queue, SUM(c.n) AS pending FROM readpast.QueueCounts AS c
  WHERE c.status = 'pending'
  GROUP BY c.queue
  HAVING SUM(c.n) > 0
)
SELECT q.queue, q.pending, COALESCE(f.scheduled, 0) AS scheduled, COALESCE(f.retrying, 0) AS retrying, f.next_run,
  o.created_at AS oldest_ready
FROM q
OUTER APPLY (
  SELECT SUM(CASE WHEN t.attempts = 0 THEN 1 ELSE 0 END) AS scheduled, SUM(CASE WHEN t.attempts > 0 THEN 1 ELSE 0 END) AS retrying,
    MIN(t.run_after) AS next_run
  FROM readpast.Tasks AS t
  WHERE t.status = 'pending' AND t.queue = q.queue AND t.run_after > @now
) AS f
OUTER APPLY (
  SELECT TOP (1) t.created_at FROM readpast.Tasks AS t
  WHERE t.status = 'pending' AND t.queue = q.queue AND t.run_after <= @now
  ORDER BY t.run_after
) AS o
ORDER BY q.queue;`;
