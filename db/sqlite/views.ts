// Read queries behind the dashboard, the API and the CLI. Each is an indexed lookup, a keyset page
// or a read of a kept aggregate — never a count over a whole table.
import type {
  AttemptFilter, AttemptView, FailureFilter, FailureGroup, MetricPoint, Page, QueueCounts, RunningView,
  TaskDetail, TaskFilter, TaskKind, TaskView, WorkerState, WorkerView,
} from '../../lib/engine/types';
import type { Db } from './connection';
import { attemptView, likePattern, taskView, type LogRow, type TaskRow } from './rows';
import { stmt } from './tally';

const PAGE_DEFAULT = 50;
const PAGE_MAX = 500;
const pageSize = (n?: number) => Math.min(PAGE_MAX, Math.max(1, Math.floor(n ?? PAGE_DEFAULT)));

export function countsByQueue(db: Db): QueueCounts[] {
  const rows = stmt(db, 'SELECT queue, status, n FROM QueueCounts ORDER BY queue').all() as { queue: string; status: string; n: number }[];
  const byQueue = new Map<string, QueueCounts>();
  for (const r of rows) {
    let q = byQueue.get(r.queue);
    if (!q) byQueue.set(r.queue, (q = { queue: r.queue, pending: 0, running: 0, succeeded: 0, dead: 0, cancelled: 0 }));
    if (r.status in q && r.status !== 'queue') (q as unknown as Record<string, number>)[r.status] = r.n;
  }
  return [...byQueue.values()];
}

export function taskDetail(db: Db, token: string): TaskDetail | null {
  const row = stmt(db, 'SELECT * FROM Tasks WHERE token = ?').get(token) as TaskRow | undefined;
  if (!row) return null;
  const logs = stmt(db, `SELECT l.*, ? AS token FROM ExecutionLog l WHERE l.task_id = ? ORDER BY l.attempt`).all(row.token, row.id) as LogRow[];
  return { ...taskView(row), history: logs.map(attemptView) };
}

/** WHERE for "dead tasks matching a failure filter" (shared by groups, bulk retry and bulk delete). */
export function failureWhere(f: FailureFilter): { where: string; params: unknown[] } {
  // the IN literal matches the partial index of dead and cancelled tasks
  const parts = ["status = 'dead'", "status IN ('dead', 'cancelled')"];
  const params: unknown[] = [];
  if (f.queue) { parts.push('queue = ?'); params.push(f.queue); }
  if (f.message !== undefined) { parts.push('error_message = ?'); params.push(f.message); }
  if (f.q) {
    parts.push("(command LIKE ? ESCAPE '\\' OR error_message LIKE ? ESCAPE '\\')");
    params.push(likePattern(f.q), likePattern(f.q));
  }
  return { where: parts.join(' AND '), params };
}

export function listTasks(db: Db, f: TaskFilter): Page<TaskView> {
  const limit = pageSize(f.limit);
  const parts: string[] = [];
  const params: unknown[] = [];
  if (f.status) { parts.push('status = ?'); params.push(f.status); }
  if (f.status === 'dead' || f.status === 'cancelled') parts.push("status IN ('dead', 'cancelled')");
  if (f.queue) { parts.push('queue = ?'); params.push(f.queue); }
  if (f.batchId !== undefined) { parts.push('batch_id = ? AND batch_id IS NOT NULL'); params.push(f.batchId); }
  if (f.stage !== undefined) { parts.push('stage = ?'); params.push(f.stage); }
  if (f.q) {
    parts.push("(command LIKE ? ESCAPE '\\' OR dedup_key LIKE ? ESCAPE '\\' OR error_message LIKE ? ESCAPE '\\' OR token = ?)");
    params.push(likePattern(f.q), likePattern(f.q), likePattern(f.q), f.q);
  }
  if (f.cursor !== undefined) { parts.push('id < ?'); params.push(f.cursor); }
  const where = parts.length ? 'WHERE ' + parts.join(' AND ') : '';
  const rows = stmt(db, `SELECT * FROM Tasks ${where} ORDER BY id DESC LIMIT ?`).all(...params, limit + 1) as TaskRow[];
  const more = rows.length > limit;
  const items = rows.slice(0, limit).map(taskView);
  return { items, nextCursor: more ? items[items.length - 1]!.id : null };
}

export function listAttempts(db: Db, f: AttemptFilter): Page<AttemptView> {
  const limit = pageSize(f.limit);
  const parts: string[] = [];
  const params: unknown[] = [];
  if (f.outcome) {
    parts.push('l.outcome = ?');
    params.push(f.outcome);
    // the literal lets the planner use the partial index of unsuccessful attempts
    if (f.outcome !== 'running' && f.outcome !== 'succeeded') parts.push("l.outcome NOT IN ('running', 'succeeded')");
  }
  if (f.queue) { parts.push('l.queue = ?'); params.push(f.queue); }
  if (f.batchId !== undefined) { parts.push('l.batch_id = ?'); params.push(f.batchId); }
  if (f.q) {
    parts.push("(l.command LIKE ? ESCAPE '\\' OR l.error_message LIKE ? ESCAPE '\\')");
    params.push(likePattern(f.q), likePattern(f.q));
  }
  if (f.from) { parts.push('l.started_at >= ?'); params.push(f.from.getTime()); }
  if (f.to) { parts.push('l.started_at <= ?'); params.push(f.to.getTime()); }
  if (f.cursor !== undefined) { parts.push('l.id < ?'); params.push(f.cursor); }
  const where = parts.length ? 'WHERE ' + parts.join(' AND ') : '';
  const rows = stmt(db, `SELECT l.*, t.token FROM ExecutionLog l JOIN Tasks t ON t.id = l.task_id ${where}
      ORDER BY l.id DESC LIMIT ?`).all(...params, limit + 1) as LogRow[];
  const more = rows.length > limit;
  const items = rows.slice(0, limit).map(attemptView);
  return { items, nextCursor: more ? items[items.length - 1]!.id : null };
}

interface StatusRow {
  log_id: number; token: string; queue: string; kind: string; command: string; attempt: number; max_attempts: number;
  worker_id: string; session: number | null; token_no: number | null; batch_id: number | null; stage: number | null;
  started_at: number; lease_until: number | null; cancel_requested: number;
}

export function listRunning(db: Db): RunningView[] {
  const rows = stmt(db, 'SELECT * FROM ExecutionStatus ORDER BY started_at, log_id').all() as StatusRow[];
  return rows.map((r) => ({
    attemptId: r.log_id,
    token: r.token,
    queue: r.queue,
    kind: r.kind as TaskKind,
    command: r.command,
    attempt: r.attempt,
    maxAttempts: r.max_attempts,
    workerId: r.worker_id,
    session: r.session,
    tokenNo: r.token_no,
    batchId: r.batch_id,
    stage: r.stage,
    startedAt: new Date(r.started_at),
    leaseUntil: r.lease_until === null ? null : new Date(r.lease_until),
    cancelRequested: r.cancel_requested === 1,
  }));
}

interface WorkerRow {
  worker_id: string; host: string; pid: number; role: string; session: number; login_time: number; started_at: number;
  heartbeat_at: number; state: string;
}

export function listWorkers(db: Db): WorkerView[] {
  const rows = stmt(db, `SELECT worker_id, host, pid, role, session, login_time, started_at, heartbeat_at, state FROM Workers
      ORDER BY CASE state WHEN 'running' THEN 0 WHEN 'stopping' THEN 1 WHEN 'lost' THEN 2 ELSE 3 END, host, pid, session
      LIMIT 1000`).all() as WorkerRow[];
  const current = new Map<string, WorkerView['currentTask']>();
  for (const r of listRunning(db)) {
    current.set(r.workerId, { token: r.token, command: r.command, queue: r.queue, startedAt: r.startedAt });
  }
  return rows.map((r) => ({
    workerId: r.worker_id,
    host: r.host,
    pid: r.pid,
    role: r.role,
    session: r.session,
    loginTime: new Date(r.login_time),
    startedAt: new Date(r.started_at),
    heartbeatAt: new Date(r.heartbeat_at),
    state: r.state as WorkerState,
    currentTask: current.get(r.worker_id) ?? null,
  }));
}

export function failureGroups(db: Db, f: FailureFilter): FailureGroup[] {
  const { where, params } = failureWhere(f);
  const rows = stmt(db, `SELECT COALESCE(error_message, '') AS message, queue, command, COUNT(*) AS count,
      MAX(finished_at) AS last_at, MAX(token) AS sample FROM Tasks WHERE ${where}
      GROUP BY error_message, queue, command ORDER BY count DESC, last_at DESC LIMIT 200`).all(...params) as
    { message: string; queue: string; command: string; count: number; last_at: number | null; sample: string }[];
  return rows.map((r) => ({
    message: r.message, queue: r.queue, command: r.command, count: r.count, lastAt: new Date(r.last_at ?? 0), sampleToken: r.sample,
  }));
}

export function metrics(db: Db, since: Date): MetricPoint[] {
  const rows = stmt(db, 'SELECT * FROM Metrics WHERE sec >= ? ORDER BY sec').all(Math.floor(since.getTime() / 1000)) as
    { sec: number; enqueued: number; started: number; succeeded: number; failed: number; latency_sum: number; latency_max: number; depth: number | null }[];
  return rows.map((r) => ({
    at: new Date(r.sec * 1000), enqueued: r.enqueued, started: r.started, succeeded: r.succeeded, failed: r.failed,
    latencySumMs: r.latency_sum, latencyMaxMs: r.latency_max, depth: r.depth,
  }));
}
