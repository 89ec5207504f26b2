// The read side of the SQL Server store: lookups, keyset pages, kept aggregates.
import type {
  AttemptFilter, AttemptView, FailureFilter, FailureGroup, MetricPoint, Page, QueueCounts, QueueSettings, TaskDetail,
  TaskFilter, TaskView, WorkerView,
} from '../../lib/engine/types';
import { query, sql, type ConnectionPool, type Param } from './driver';
import {
  attemptView, id, likePattern, metricPoint, queueSettings, taskView, token, type LogRow, type MetricRow, type QueueRow,
  type TaskRow, type WorkerRow, workerView,
} from './rows';
import * as S from './sql';

const PAGE_DEFAULT = 50;
const PAGE_MAX = 500;
const pageSize = (n?: number) => Math.min(PAGE_MAX, Math.max(1, Math.floor(n ?? PAGE_DEFAULT)));
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const tokenParam = (t: string): Param => ['token', sql.UniqueIdentifier, t];

export async function getTask(pool: ConnectionPool, t: string): Promise<TaskDetail | null> {
  if (!UUID.test(t)) return null;
  const r = await query(pool, S.GET_TASK, [tokenParam(t)]);
  const sets = r.recordsets as unknown as [TaskRow[], LogRow[]];
  const row = sets[0]?.[0];
  if (!row) return null;
  return { ...taskView(row), history: (sets[1] ?? []).map(attemptView) };
}

export async function getQueue(pool: ConnectionPool, name: string): Promise<QueueSettings | null> {
  const r = await query<QueueRow>(pool, S.GET_QUEUE, [['name', sql.NVarChar(64), name]]);
  const row = r.recordset[0];
  return row ? queueSettings(row) : null;
}

export async function knownHandlers(pool: ConnectionPool): Promise<string[]> {
  return (await query<{ name: string }>(pool, S.KNOWN_HANDLERS)).recordset.map((r) => r.name);
}

export async function countsByQueue(pool: ConnectionPool): Promise<QueueCounts[]> {
  const rows = (await query<{ queue: string; status: string; n: string | number }>(pool, S.COUNTS_BY_QUEUE)).recordset;
  const byQueue = new Map<string, QueueCounts>();
  for (const r of rows) {
    let q = byQueue.get(r.queue);
    if (!q) byQueue.set(r.queue, (q = { queue: r.queue, pending: 0, running: 0, succeeded: 0, dead: 0, cancelled: 0 }));
    if (r.status === 'pending' || r.status === 'running' || r.status === 'succeeded' || r.status === 'dead' || r.status === 'cancelled') {
      q[r.status] = Number(r.n);
    }
  }
  return [...byQueue.values()].sort((a, b) => (a.queue < b.queue ? -1 : a.queue > b.queue ? 1 : 0));
}

function page<T extends { id: number }>(items: T[], limit: number): Page<T> {
  const more = items.length > limit;
  const kept = items.slice(0, limit);
  return { items: kept, nextCursor: more ? kept[kept.length - 1]!.id : null };
}

export async function listTasks(pool: ConnectionPool, f: TaskFilter): Promise<Page<TaskView>> {
  const limit = pageSize(f.limit);
  const params: Param[] = [['limit', sql.Int, limit + 1]];
  if (f.queue) params.push(['queue', sql.NVarChar(64), f.queue]);
  if (f.batchId !== undefined) params.push(['batch_id', sql.BigInt, f.batchId]);
  if (f.stage !== undefined) params.push(['stage', sql.Int, f.stage]);
  if (f.q) {
    params.push(['q', sql.NVarChar(4000), likePattern(f.q)]);
    params.push(['q_token', sql.UniqueIdentifier, UUID.test(f.q.trim()) ? f.q.trim() : null]);
  }
  if (f.cursor !== undefined) params.push(['cursor', sql.BigInt, f.cursor]);
  const text = S.listTasksSql({
    status: f.status ?? null, queue: Boolean(f.queue), batch: f.batchId !== undefined, stage: f.stage !== undefined,
    q: Boolean(f.q), cursor: f.cursor !== undefined,
  });
  const rows = (await query<TaskRow>(pool, text, params)).recordset;
  return page(rows.map(taskView), limit);
}

export async function listAttempts(pool: ConnectionPool, f: AttemptFilter): Promise<Page<AttemptView>> {
  const limit = pageSize(f.limit);
  const params: Param[] = [['limit', sql.Int, limit + 1]];
  if (f.queue) params.push(['queue', sql.NVarChar(64), f.queue]);
  if (f.batchId !== undefined) params.push(['batch_id', sql.BigInt, f.batchId]);
  if (f.q) params.push(['q', sql.NVarChar(4000), likePattern(f.q)]);
  if (f.from) params.push(['from', sql.DateTime2(3), f.from]);
  if (f.to) params.push(['to', sql.DateTime2(3), f.to]);
  if (f.cursor !== undefined) params.push(['cursor', sql.BigInt, f.cursor]);
  const text = S.listAttemptsSql({
    outcome: f.outcome ?? null, queue: Boolean(f.queue), batch: f.batchId !== undefined, q: Boolean(f.q),
    from: Boolean(f.from), to: Boolean(f.to),
    cursor: f.cursor !== undefined,
  });
  const rows = (await query<LogRow>(pool, text, params)).recordset;
  return page(rows.map(attemptView), limit);
}

export async function listWorkers(pool: ConnectionPool): Promise<WorkerView[]> {
  const r = await query(pool, S.LIST_WORKERS);
  const sets = r.recordsets as unknown as [WorkerRow[], { worker_id: string; token: string; command: string; queue: string; started_at: Date }[]];
  const current = new Map<string, WorkerView['currentTask']>();
  for (const c of sets[1] ?? []) {
    current.set(c.worker_id, { token: token(c.token), command: c.command, queue: c.queue, startedAt: c.started_at });
  }
  return (sets[0] ?? []).map((w) => workerView(w, current.get(w.worker_id) ?? null));
}

/** Parameters of a failure filter, and which shape of statement they need. */
export function failureParams(f: FailureFilter): { shape: S.FailureShape; params: Param[] } {
  const params: Param[] = [];
  if (f.queue) params.push(['f_queue', sql.NVarChar(64), f.queue]);
  if (f.message !== undefined) params.push(['f_message', sql.NVarChar(4000), f.message]);
  if (f.q) params.push(['f_q', sql.NVarChar(4000), likePattern(f.q)]);
  return { shape: { queue: Boolean(f.queue), message: f.message !== undefined, q: Boolean(f.q) }, params };
}

export async function failureGroups(pool: ConnectionPool, f: FailureFilter): Promise<FailureGroup[]> {
  const { shape, params } = failureParams(f);
  const rows = (await query<{ message: string; queue: string; command: string; n: number; last_at: Date | null; sample: string }>(
    pool, S.failureGroupsSql(shape), params)).recordset;
  return rows.map((r) => ({
    message: r.message, queue: r.queue, command: r.command, count: id(r.n), lastAt: r.last_at ?? new Date(0),
    sampleToken: token(r.sample.trim()),
  }));
}

export async function metrics(pool: ConnectionPool, since: Date): Promise<MetricPoint[]> {
  const rows = (await query<MetricRow>(pool, S.METRICS_SINCE, [['since', sql.BigInt, Math.floor(since.getTime() / 1000)]])).recordset;
  return rows.map(metricPoint);
}
