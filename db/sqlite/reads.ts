// The read side of the SQLite store: lookups, keyset pages, ExecutionStatus and kept aggregates — never
// a count over a whole table. Queues and batches are read in queues.ts and batches.ts.
import type {
  AttemptFilter,
  AttemptView,
  FailureFilter,
  FailureGroup,
  MetricPoint,
  Page,
  QueueCounts,
  RunningView,
  TaskDetail,
  TaskFilter,
  TaskView,
  WorkerView,
} from '../../lib/engine/types';
import { read, type Db, type Shared } from './connection';
import {
  attemptView,
  likePattern,
  metricPoint,
  runningView,
  taskView,
  workerView,
  type LogRow,
  type MetricRow,
  type StatusRow,
  type TaskRow,
  type WorkerRow,
} from './rows';
import { FAILURE_FILTER } from './sql/operators';
import * as S from './sql/reads';
import { stmt } from './tally';

const PAGE_DEFAULT = 50;
const PAGE_MAX = 500;
const pageSize = (n?: number) => Math.min(PAGE_MAX, Math.max(1, Math.floor(n ?? PAGE_DEFAULT)));

export function getTask(shared: Shared, token: string): Promise<TaskDetail | null> {
  return read(() => {
    const row = stmt(shared.db, S.GET_TASK).get(token) as TaskRow | undefined;
    if (!row) return null;
    const logs = stmt(shared.db, S.TASK_HISTORY).all(row.token, row.id) as LogRow[];
    return { ...taskView(row), history: logs.map(attemptView) };
  });
}

export function knownHandlers(shared: Shared): Promise<string[]> {
  return read(() => (stmt(shared.db, S.KNOWN_HANDLERS).all() as { name: string }[]).map((r) => r.name));
}

export function countsByQueue(shared: Shared): Promise<QueueCounts[]> {
  return read(() => {
    const rows = stmt(shared.db, S.COUNTS_BY_QUEUE).all() as { queue: string; status: string; n: number }[];
    const byQueue = new Map<string, QueueCounts>();
    for (const r of rows) {
      let q = byQueue.get(r.queue);
      if (!q) byQueue.set(r.queue, (q = { queue: r.queue, pending: 0, running: 0, succeeded: 0, dead: 0, cancelled: 0 }));
      if (r.status in q && r.status !== 'queue') (q as unknown as Record<string, number>)[r.status] = r.n;
    }
    return [...byQueue.values()];
  });
}

export function listTasks(shared: Shared, f: TaskFilter): Promise<Page<TaskView>> {
  return read(() => {
    const limit = pageSize(f.limit);
    const filters: string[] = [];
    const params: unknown[] = [];
    if (f.status) {
      filters.push(S.TASK_FILTER.status);
      params.push(f.status);
    }
    if (f.status === 'dead' || f.status === 'cancelled') filters.push(S.TASK_FILTER.ended);
    if (f.queue) {
      filters.push(S.TASK_FILTER.queue);
      params.push(f.queue);
    }
    if (f.batchId !== undefined) {
      filters.push(S.TASK_FILTER.batch);
      params.push(f.batchId);
    }
    if (f.stage !== undefined) {
      filters.push(S.TASK_FILTER.stage);
      params.push(f.stage);
    }
    if (f.q) {
      filters.push(S.TASK_FILTER.q);
      params.push(likePattern(f.q), likePattern(f.q), likePattern(f.q), f.q);
    }
    if (f.cursor !== undefined) {
      filters.push(S.TASK_FILTER.cursor);
      params.push(f.cursor);
    }
    const rows = stmt(shared.db, S.listTasksSql(filters)).all(...params, limit + 1) as TaskRow[];
    const more = rows.length > limit;
    const items = rows.slice(0, limit).map(taskView);
    return { items, nextCursor: more ? items[items.length - 1]!.id : null };
  });
}

export function listAttempts(shared: Shared, f: AttemptFilter): Promise<Page<AttemptView>> {
  return read(() => {
    const limit = pageSize(f.limit);
    const filters: string[] = [];
    const params: unknown[] = [];
    if (f.outcome) {
      filters.push(S.ATTEMPT_FILTER.outcome);
      params.push(f.outcome);
      if (f.outcome !== 'running' && f.outcome !== 'succeeded') filters.push(S.ATTEMPT_FILTER.unsuccessful);
    }
    if (f.queue) {
      filters.push(S.ATTEMPT_FILTER.queue);
      params.push(f.queue);
    }
    if (f.batchId !== undefined) {
      filters.push(S.ATTEMPT_FILTER.batch);
      params.push(f.batchId);
    }
    if (f.q) {
      filters.push(S.ATTEMPT_FILTER.q);
      params.push(likePattern(f.q), likePattern(f.q));
    }
    if (f.from) {
      filters.push(S.ATTEMPT_FILTER.from);
      params.push(f.from.getTime());
    }
    if (f.to) {
      filters.push(S.ATTEMPT_FILTER.to);
      params.push(f.to.getTime());
    }
    if (f.cursor !== undefined) {
      filters.push(S.ATTEMPT_FILTER.cursor);
      params.push(f.cursor);
    }
    const rows = stmt(shared.db, S.listAttemptsSql(filters)).all(...params, limit + 1) as LogRow[];
    const more = rows.length > limit;
    const items = rows.slice(0, limit).map(attemptView);
    return { items, nextCursor: more ? items[items.length - 1]!.id : null };
  });
}

function running(db: Db): RunningView[] {
  return (stmt(db, S.LIST_RUNNING).all() as StatusRow[]).map(runningView);
}

/** ExecutionStatus: the attempts running now. */
export function listRunning(shared: Shared): Promise<RunningView[]> {
  return read(() => running(shared.db));
}

export function listWorkers(shared: Shared): Promise<WorkerView[]> {
  return read(() => {
    const rows = stmt(shared.db, S.LIST_WORKERS).all() as WorkerRow[];
    const current = new Map<string, WorkerView['currentTask']>();
    for (const r of running(shared.db)) {
      current.set(r.workerId, { token: r.token, command: r.command, queue: r.queue, startedAt: r.startedAt });
    }
    return rows.map((r) => workerView(r, current.get(r.worker_id) ?? null));
  });
}

/** The filters and values of "dead tasks matching a failure filter" (groups here; bulk retry and delete in operators.ts). */
export function failureWhere(f: FailureFilter): { filters: string[]; params: unknown[] } {
  const filters: string[] = [FAILURE_FILTER.dead];
  const params: unknown[] = [];
  if (f.queue) {
    filters.push(FAILURE_FILTER.queue);
    params.push(f.queue);
  }
  if (f.message !== undefined) {
    filters.push(FAILURE_FILTER.message);
    params.push(f.message);
  }
  if (f.q) {
    filters.push(FAILURE_FILTER.q);
    params.push(likePattern(f.q), likePattern(f.q));
  }
  return { filters, params };
}

export function failureGroups(shared: Shared, f: FailureFilter): Promise<FailureGroup[]> {
  return read(() => {
    const { filters, params } = failureWhere(f);
    const rows = stmt(shared.db, S.failureGroupsSql(filters)).all(...params) as {
      message: string;
      queue: string;
      command: string;
      count: number;
      last_at: number | null;
      sample: string;
    }[];
    return rows.map((r) => ({
      message: r.message,
      queue: r.queue,
      command: r.command,
      count: r.count,
      lastAt: new Date(r.last_at ?? 0),
      sampleToken: r.sample,
    }));
  });
}

export function metrics(shared: Shared, since: Date): Promise<MetricPoint[]> {
  return read(() => (stmt(shared.db, S.METRICS_SINCE).all(Math.floor(since.getTime() / 1000)) as MetricRow[]).map(metricPoint));
}
