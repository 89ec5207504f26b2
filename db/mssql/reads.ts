// The read side of the SQL Server store: lookups, keyset pages, kept aggregates, ExecutionStatus
// (with the server's own request state where the login may see it). Queues and batches are read in
// queues.ts and batches.ts.
import type {
  AttemptFilter,
  AttemptView,
  FailureFilter,
  MetricPoint,
  Page,
  ParentFailurePolicy,
  PendingBreakdown,
  QueueCounts,
  RunningView,
  TaskDetail,
  TaskFilter,
  TaskLink,
  TaskStatus,
  TaskView,
  WorkerView,
} from '../../lib/engine/types';
import { JSON_PATH, TASK_SCAN_LIMIT } from '../../lib/engine/types';
import { ValidationError } from '../../lib/engine/errors';
import { query, sql, type Param, type Shared } from './connection';
import {
  attemptView,
  likePattern,
  liveState,
  metricPoint,
  runningView,
  taskView,
  token,
  UUID,
  workerView,
  type LiveRow,
  type LogRow,
  type MetricRow,
  type StatusRow,
  type TaskRow,
  type WorkerRow,
} from './rows';
import type { FailureShape } from './sql/operators';
import * as S from './sql/reads';
import { TASK_LINKS } from './sql/flows';
import { depthBefore } from './history';
import { withDepthSeed } from '../shared/depth';
import type { ReadModel } from '../../lib/engine/ports';
import type { Slice } from '../shared/bind';

const PAGE_DEFAULT = 50;
const PAGE_MAX = 500;
const pageSize = (n?: number) => Math.min(PAGE_MAX, Math.max(1, Math.floor(n ?? PAGE_DEFAULT)));

const tokenParam = (t: string): Param => ['token', sql.UniqueIdentifier, t];

export async function getTask(shared: Shared, t: string): Promise<TaskDetail | null> {
  if (!UUID.test(t)) return null;
  // the task, its attempts, then its links (sql/flows.ts): one round trip
  const r = await shared.query(`${S.GET_TASK}\n${TASK_LINKS}`, [tokenParam(t)]);
  const sets = r.recordsets as unknown as [TaskRow[], LogRow[], LinkRow[], LinkRow[], { child_count: number }[]];
  const row = sets[0]?.[0];
  if (!row) return null;
  return {
    ...taskView(row),
    history: (sets[1] ?? []).map(attemptView),
    parents: (sets[2] ?? []).map(taskLink),
    children: (sets[3] ?? []).map(taskLink),
    childCount: Number(sets[4]?.[0]?.child_count ?? 0),
  };
}

interface LinkRow {
  token: string;
  flow_node: string | null;
  command: string;
  status: TaskStatus;
  on_parent_failure: ParentFailurePolicy;
}

function taskLink(r: LinkRow): TaskLink {
  return { token: r.token.toLowerCase(), nodeId: r.flow_node, command: r.command, status: r.status, onParentFailure: r.on_parent_failure };
}

export async function knownHandlers(shared: Shared): Promise<string[]> {
  return (await shared.query<{ name: string }>(S.KNOWN_HANDLERS)).recordset.map((r) => r.name);
}

export async function countsByQueue(shared: Shared): Promise<QueueCounts[]> {
  const rows = (await shared.query<{ queue: string; status: string; n: string | number }>(S.COUNTS_BY_QUEUE)).recordset;
  const byQueue = new Map<string, QueueCounts>();
  for (const r of rows) {
    let q = byQueue.get(r.queue);
    if (!q)
      byQueue.set(r.queue, (q = { queue: r.queue, waiting: 0, pending: 0, claimed: 0, running: 0, succeeded: 0, dead: 0, cancelled: 0 }));
    if (
      r.status === 'waiting' ||
      r.status === 'pending' ||
      r.status === 'running' ||
      r.status === 'succeeded' ||
      r.status === 'dead' ||
      r.status === 'cancelled'
    ) {
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

/** SQL Server 2016 takes only a literal JSON path (error 13610); a bound one needs 2017 or later. */
function payloadRefused(err: unknown): never {
  if ((err as { number?: unknown } | null)?.number === 13610) {
    throw new ValidationError('payload', 'filtering by a payload path needs SQL Server 2017 or later');
  }
  throw err;
}

/**
 * A keyset page of tasks, newest first. With a filter no index answers alone (anything but status other than
 * succeeded, batch and stage), the page examines at most TASK_SCAN_LIMIT rows of the driving index below the
 * cursor (IX_Tasks_open / IX_Tasks_ended / IX_Tasks_batch, or the clustered key); one that ran out of them
 * before it filled says `partial`, with a cursor that goes on below what it examined.
 */
export async function listTasks(shared: Shared, f: TaskFilter): Promise<Page<TaskView>> {
  const limit = pageSize(f.limit);
  const scan = Math.max(1, Math.floor(f.scanLimit ?? TASK_SCAN_LIMIT));
  if (f.payload && !JSON_PATH.test(f.payload.path)) throw new ValidationError('payload', 'not a JSON path ($.a.b[0])');
  const params: Param[] = [['limit', sql.Int, limit + 1]];
  if (f.queue) params.push(['queue', sql.NVarChar(64), f.queue]);
  if (f.command) params.push(['command', sql.NVarChar(sql.MAX), f.command]);
  if (f.concurrencyKey !== undefined) params.push(['concurrency_key', sql.NVarChar(200), f.concurrencyKey]);
  if (f.batchId !== undefined) params.push(['batch_id', sql.BigInt, f.batchId]);
  if (f.stage !== undefined) params.push(['stage', sql.Int, f.stage]);
  if (f.flowId !== undefined) params.push(['flow_id', sql.BigInt, f.flowId]);
  if (f.priorityMin !== undefined) params.push(['priority_min', sql.Int, f.priorityMin]);
  if (f.priorityMax !== undefined) params.push(['priority_max', sql.Int, f.priorityMax]);
  if (f.from) params.push(['from', sql.DateTime2(3), f.from]);
  if (f.to) params.push(['to', sql.DateTime2(3), f.to]);
  // a token is looked up (one task), never searched for in the newest rows only
  const token = f.q !== undefined && UUID.test(f.q.trim());
  if (token) params.push(['q_token', sql.UniqueIdentifier, f.q!.trim()]);
  else if (f.q) {
    params.push(['q', sql.NVarChar(4000), likePattern(f.q)]);
    params.push(['q_token', sql.UniqueIdentifier, null]);
  }
  if (f.payload) {
    params.push(['payload_path', sql.NVarChar(400), f.payload.path]);
    params.push(['payload_value', sql.NVarChar(4000), f.payload.op === 'eq' ? f.payload.value : likePattern(f.payload.value)]);
  }
  if (f.cursor !== undefined) params.push(['cursor', sql.BigInt, f.cursor]);
  // a waiting task suspended by its durable handler (sleep | event)
  const suspended = f.status === 'waiting' && f.suspended !== undefined;
  if (suspended) params.push(['suspended', sql.VarChar(5), f.suspended]);
  const shape: S.TaskListShape = {
    status: f.status ?? null,
    sub: f.status === 'pending' ? (f.sub ?? null) : null,
    queue: Boolean(f.queue),
    command: Boolean(f.command),
    concurrencyKey: f.concurrencyKey !== undefined,
    batch: f.batchId !== undefined,
    stage: f.stage !== undefined,
    flow: f.flowId !== undefined,
    priorityMin: f.priorityMin !== undefined,
    priorityMax: f.priorityMax !== undefined,
    from: Boolean(f.from),
    to: Boolean(f.to),
    q: Boolean(f.q) && !token,
    token,
    payload: f.payload?.op ?? null,
    cursor: f.cursor !== undefined,
    floor: false,
    suspended,
  };
  // the driving index; succeeded tasks (most of the table) are read on the clustered key
  const drive: S.TaskWindowShape = {
    status: shape.status === 'succeeded' ? null : shape.status,
    batch: shape.batch,
    stage: shape.batch && shape.stage,
    cursor: shape.cursor,
    offset: true,
  };
  // a flow's tasks are a seek of IX_Tasks_flow (at most a flow's nodes and continuations): no window needed
  const capped =
    !shape.token &&
    !shape.flow &&
    (shape.status === 'succeeded' ||
      Boolean(shape.sub || shape.queue || shape.command || shape.concurrencyKey) ||
      Boolean(shape.priorityMin || shape.priorityMax || shape.from || shape.to) ||
      Boolean(shape.q || shape.payload) ||
      (shape.stage && !shape.batch));
  const driveParams = (offset: number | null, below: number | undefined): Param[] => {
    const p: Param[] = [];
    if (drive.batch) p.push(['batch_id', sql.BigInt, f.batchId!]);
    if (drive.stage) p.push(['stage', sql.Int, f.stage!]);
    if (below !== undefined) p.push(['cursor', sql.BigInt, below]);
    if (offset !== null) p.push(['offset', sql.Int, offset]);
    return p;
  };
  let floor: number | null = null;
  if (capped) {
    if (drive.status || drive.batch) {
      const w = await shared.query<{ id: string | number }>(S.taskWindowSql(drive), driveParams(scan - 1, f.cursor));
      floor = w.recordset[0] ? Number(w.recordset[0].id) : null;
    } else {
      const top = f.cursor ?? Number((await shared.query<{ id: string | number | null }>(S.MAX_TASK_ID)).recordset[0]?.id ?? 0) + 1;
      floor = top - scan > 1 ? top - scan : null;
    }
  }
  if (floor !== null) params.push(['floor', sql.BigInt, floor]);
  const rows = (await shared.query<TaskRow>(S.listTasksSql({ ...shape, floor: floor !== null }), params).catch(payloadRefused)).recordset;
  const items = rows.slice(0, limit).map(taskView);
  if (rows.length > limit) return { items, nextCursor: items[items.length - 1]!.id };
  if (floor === null) return { items, nextCursor: null };
  // the window ran out before the page filled: partial when the driving index goes on below it
  const more = await shared.query(S.taskWindowSql({ ...drive, cursor: true, offset: false }), driveParams(null, floor));
  return more.recordset.length ? { items, nextCursor: floor, partial: true, scanned: scan } : { items, nextCursor: null };
}

export async function listAttempts(shared: Shared, f: AttemptFilter): Promise<Page<AttemptView>> {
  const limit = pageSize(f.limit);
  const params: Param[] = [['limit', sql.Int, limit + 1]];
  if (f.queue) params.push(['queue', sql.NVarChar(64), f.queue]);
  if (f.batchId !== undefined) params.push(['batch_id', sql.BigInt, f.batchId]);
  if (f.q) params.push(['q', sql.NVarChar(4000), likePattern(f.q)]);
  if (f.from) params.push(['from', sql.DateTime2(3), f.from]);
  if (f.to) params.push(['to', sql.DateTime2(3), f.to]);
  if (f.cursor !== undefined) params.push(['cursor', sql.BigInt, f.cursor]);
  const text = S.listAttemptsSql({
    outcome: f.outcome ?? null,
    queue: Boolean(f.queue),
    batch: f.batchId !== undefined,
    q: Boolean(f.q),
    from: Boolean(f.from),
    to: Boolean(f.to),
    cursor: f.cursor !== undefined,
  });
  const rows = (await shared.query<LogRow>(text, params)).recordset;
  return page(rows.map(attemptView), limit);
}

export async function listWorkers(shared: Shared): Promise<WorkerView[]> {
  const r = await shared.query(S.LIST_WORKERS);
  const sets = r.recordsets as unknown as [
    WorkerRow[],
    { worker_id: string; token: string; command: string; queue: string; started_at: Date }[],
  ];
  const current = new Map<string, WorkerView['currentTask']>();
  for (const c of sets[1] ?? []) {
    current.set(c.worker_id, { token: token(c.token), command: c.command, queue: c.queue, startedAt: c.started_at });
  }
  return (sets[0] ?? []).map((w) => workerView(w, current.get(w.worker_id) ?? null));
}

/** Parameters of a failure filter, and which shape of statement they need. */
export function failureParams(f: FailureFilter): { shape: FailureShape; params: Param[] } {
  const params: Param[] = [];
  if (f.queue) params.push(['f_queue', sql.NVarChar(64), f.queue]);
  if (f.message !== undefined) params.push(['f_message', sql.NVarChar(4000), f.message]);
  if (f.q) params.push(['f_q', sql.NVarChar(4000), likePattern(f.q)]);
  if (f.fingerprint) params.push(['f_fingerprint', sql.Char(16), f.fingerprint]);
  if (f.command !== undefined) params.push(['f_command', sql.NVarChar(sql.MAX), f.command]);
  const shape = { queue: Boolean(f.queue), message: f.message !== undefined, q: Boolean(f.q) };
  return { shape: { ...shape, fingerprint: Boolean(f.fingerprint), command: f.command !== undefined }, params };
}

export async function metrics(shared: Shared, since: Date): Promise<MetricPoint[]> {
  const rows = (await shared.query<MetricRow>(S.METRICS_SINCE, [['since', sql.BigInt, Math.floor(since.getTime() / 1000)]])).recordset;
  const points = rows.map(metricPoint);
  // the depth in force at `since` when its first second has no sample (db/shared/depth.ts)
  const first = points[0];
  const seed =
    first && first.at.getTime() === Math.floor(since.getTime() / 1000) * 1000 && first.depth !== null
      ? null
      : await depthBefore(shared, since.getTime());
  return withDepthSeed(points, since, () => seed);
}

/** ExecutionStatus from readpast's tables alone. */
export async function listRunningPlain(shared: Shared): Promise<RunningView[]> {
  const rows = (await shared.query<StatusRow>(S.LIST_RUNNING)).recordset;
  return rows.map((r) => ({ ...runningView(r), live: null }));
}

/** A live read that takes longer than this is given up (the list is then read without it: live.ts). */
export const LIVE_TIMEOUT_MS = 5_000;

/** ExecutionStatus with the server's request state per attempt (fails where the DMVs cannot be read). */
export async function listRunningLive(shared: Shared): Promise<RunningView[]> {
  const rows = (await query<LiveRow>(await shared.pool(), S.LIST_RUNNING_LIVE, [], LIVE_TIMEOUT_MS)).recordset;
  return rows.map((r) => ({ ...runningView(r), live: liveState(r) }));
}

/** Per queue with pending tasks: ready (kept pending count less the future ones), scheduled, retrying, oldest ready, next run-at. */
export async function pendingBreakdown(shared: Shared): Promise<PendingBreakdown[]> {
  const rows = (
    await shared.query<{
      queue: string;
      pending: number | string;
      scheduled: number | string;
      retrying: number | string;
      next_run: Date | null;
      oldest_ready: Date | null;
    }>(S.PENDING_BREAKDOWN)
  ).recordset;
  return rows.map((r) => {
    const scheduled = Number(r.scheduled);
    const retrying = Number(r.retrying);
    const ready = Math.max(0, Number(r.pending) - scheduled - retrying);
    return { queue: r.queue, ready, scheduled, retrying, oldestReadyAt: ready > 0 ? r.oldest_ready : null, nextRunAt: r.next_run };
  });
}

/** this module's part of the ReadModel (store.ts binds it to the store's Shared) */
export const readSlice = {
  getTask,
  listTasks,
  listAttempts,
  listWorkers,
  knownHandlers,
  metrics,
  countsByQueue,
  pendingBreakdown,
} satisfies Slice<Shared, ReadModel>;
