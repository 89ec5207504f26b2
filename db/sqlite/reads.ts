// The read side of the SQLite store: lookups, keyset pages, ExecutionStatus and kept aggregates — never
// a count over a whole table. Queues and batches are read in queues.ts and batches.ts.
import type {
  AttemptFilter,
  AttemptView,
  FailureFilter,
  MetricPoint,
  Page,
  PendingBreakdown,
  QueueCounts,
  RunningView,
  TaskDetail,
  TaskFilter,
  TaskView,
  WorkerView,
} from '../../lib/engine/types';
import { JSON_PATH, TASK_SCAN_LIMIT, TERMINAL_STATUSES } from '../../lib/engine/types';
import { ValidationError } from '../../lib/engine/errors';
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
import { GET_INTAKE_TASK } from './sql/intake';
import { stmt } from './stmt';
import { taskLinks } from './flow-reads';
import { depthBefore } from './history';
import { withDepthSeed } from '../shared/depth';
import type { ReadModel } from '../../lib/engine/ports';
import type { Slice } from '../shared/bind';

const PAGE_DEFAULT = 50;
const PAGE_MAX = 500;
const pageSize = (n?: number) => Math.min(PAGE_MAX, Math.max(1, Math.floor(n ?? PAGE_DEFAULT)));

/** A task with its attempts, parents and children; one snapshot. */
export function getTask(shared: Shared, token: string): Promise<TaskDetail | null> {
  return read(() =>
    shared.db.transaction((): TaskDetail | null => {
      const row = stmt(shared.db, S.GET_TASK).get(token) as TaskRow | undefined;
      // not moved yet (another process held the write lock past the read's wait): as it will be, pending
      if (!row) return intakeTask(shared.db, token);
      const logs = stmt(shared.db, S.TASK_HISTORY).all(row.token, row.id) as LogRow[];
      return { ...taskView(row), history: logs.map(attemptView), ...taskLinks(shared.db, row.id, row.parent_count ?? 0) };
    })(),
  );
}

/** A task still in the intake (intake.ts), as getTask shows it: id 0 (none yet), pending, no attempt, no links. */
function intakeTask(db: Db, token: string): TaskDetail | null {
  const row = stmt(db, GET_INTAKE_TASK).get(token) as TaskRow | undefined;
  return row ? { ...taskView(row), history: [], parents: [], children: [], childCount: 0 } : null;
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
      if (!q)
        byQueue.set(r.queue, (q = { queue: r.queue, waiting: 0, pending: 0, claimed: 0, running: 0, succeeded: 0, dead: 0, cancelled: 0 }));
      if (r.status in q && r.status !== 'queue') (q as unknown as Record<string, number>)[r.status] = r.n;
    }
    return [...byQueue.values()];
  });
}

const TOKEN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The task list's WHERE: the driving fragments (an index walked newest first) and the ones checked on its rows. */
export function taskWhere(f: TaskFilter, now: number) {
  const drive: string[] = [];
  const driveParams: unknown[] = [];
  const rest: string[] = [];
  const restParams: unknown[] = [];
  const add = (to: 'drive' | 'rest', sql: string, ...values: unknown[]) => {
    (to === 'drive' ? drive : rest).push(sql);
    (to === 'drive' ? driveParams : restParams).push(...values);
  };
  // succeeded has no index of its own (most tasks are): checked on the newest rows of the primary key
  if (f.status === 'succeeded') add('rest', S.TASK_FILTER.status, f.status);
  else if (f.status) {
    add('drive', S.TASK_FILTER.status, f.status);
    const partial =
      f.status === 'waiting'
        ? 'waiting'
        : f.status === 'claimed'
          ? 'held'
          : f.status === 'pending' || f.status === 'running'
            ? 'open'
            : 'ended';
    add('drive', S.TASK_FILTER[partial]);
  }
  if (f.flowId !== undefined) add('drive', S.TASK_FILTER.flow, f.flowId);
  if (f.batchId !== undefined) {
    add('drive', S.TASK_FILTER.batch, f.batchId);
    if (f.stage !== undefined) add('drive', S.TASK_FILTER.stage, f.stage);
  } else if (f.stage !== undefined) add('rest', S.TASK_FILTER.stage, f.stage);
  if (f.status === 'pending' && f.sub) add('rest', S.TASK_FILTER[f.sub], now);
  if (f.status === 'waiting' && f.suspended) add('rest', S.TASK_FILTER.suspended, f.suspended);
  if (f.queue) add('rest', S.TASK_FILTER.queue, f.queue);
  if (f.command) add('rest', S.TASK_FILTER.command, f.command);
  if (f.concurrencyKey !== undefined) add('rest', S.TASK_FILTER.concurrencyKey, f.concurrencyKey);
  if (f.priorityMin !== undefined) add('rest', S.TASK_FILTER.priorityMin, f.priorityMin);
  if (f.priorityMax !== undefined) add('rest', S.TASK_FILTER.priorityMax, f.priorityMax);
  const finished = f.status !== undefined && TERMINAL_STATUSES.includes(f.status);
  if (f.from) add('rest', finished ? S.TASK_FILTER.finishedFrom : S.TASK_FILTER.createdFrom, f.from.getTime());
  if (f.to) add('rest', finished ? S.TASK_FILTER.finishedTo : S.TASK_FILTER.createdTo, f.to.getTime());
  const token = f.q?.trim().toLowerCase();
  // a token is looked up (one task), never searched for in the newest rows only
  if (token && TOKEN.test(token)) add('drive', S.TASK_FILTER.token, token);
  else if (f.q) add('rest', S.TASK_FILTER.q, likePattern(f.q), likePattern(f.q), likePattern(f.q), f.q.trim());
  if (f.payload) {
    if (!JSON_PATH.test(f.payload.path)) throw new ValidationError('payload', 'not a JSON path ($.a.b[0])');
    if (f.payload.op === 'eq') add('rest', S.TASK_FILTER.payloadEq, f.payload.path, f.payload.path, f.payload.value);
    else add('rest', S.TASK_FILTER.payloadContains, f.payload.path, likePattern(f.payload.value));
  }
  return { drive, driveParams, rest, restParams };
}

/**
 * A keyset page of tasks, newest first. Filters no index answers (queue, command, text, payload, times…) are
 * checked on at most TASK_SCAN_LIMIT rows of the driving index (status, batch, or the primary key) below
 * the cursor: a page that ran out of them before it filled says `partial`, with a cursor that goes on
 * below what it examined.
 */
export function listTasks(shared: Shared, f: TaskFilter): Promise<Page<TaskView>> {
  return read(() => {
    const limit = pageSize(f.limit);
    const { drive, driveParams, rest, restParams } = taskWhere(f, Date.now());
    const scan = Math.max(1, Math.floor(f.scanLimit ?? TASK_SCAN_LIMIT));
    const below = f.cursor !== undefined ? [S.TASK_FILTER.cursor] : [];
    const belowParams = f.cursor !== undefined ? [f.cursor] : [];
    // the lowest id the scan may reach; null: the scan is not capped (no filter to check, or few enough rows)
    let floor: number | null = null;
    if (rest.length) {
      if (drive.length) {
        const w = stmt(shared.db, S.taskWindowSql([...drive, ...below])).get(...driveParams, ...belowParams, scan - 1) as
          | { id: number }
          | undefined;
        floor = w?.id ?? null;
      } else {
        const top = f.cursor ?? ((stmt(shared.db, S.MAX_TASK_ID).get() as { id: number | null }).id ?? 0) + 1;
        floor = top - scan > 1 ? top - scan : null;
      }
    }
    const filters = [...drive, ...rest, ...below, ...(floor !== null ? [S.TASK_FILTER.floor] : [])];
    const params = [...driveParams, ...restParams, ...belowParams, ...(floor !== null ? [floor] : [])];
    const rows = stmt(shared.db, S.listTasksSql(filters)).all(...params, limit + 1) as TaskRow[];
    const items = rows.slice(0, limit).map(taskView);
    if (rows.length > limit) return { items, nextCursor: items[items.length - 1]!.id };
    if (floor === null) return { items, nextCursor: null };
    // the window ran out before the page filled: partial when the driving index goes on below it
    const more = stmt(shared.db, S.taskExistsSql([...drive, S.TASK_FILTER.cursor])).get(...driveParams, floor);
    return more ? { items, nextCursor: floor, partial: true, scanned: scan } : { items, nextCursor: null };
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
  if (f.fingerprint) {
    filters.push(FAILURE_FILTER.fingerprint);
    params.push(f.fingerprint);
  }
  if (f.command !== undefined) {
    filters.push(FAILURE_FILTER.command);
    params.push(f.command);
  }
  return { filters, params };
}

export function metrics(shared: Shared, since: Date): Promise<MetricPoint[]> {
  return read(() =>
    withDepthSeed((stmt(shared.db, S.METRICS_SINCE).all(Math.floor(since.getTime() / 1000)) as MetricRow[]).map(metricPoint), since, () =>
      depthBefore(shared.db, since.getTime()),
    ),
  );
}

/**
 * Per queue with pending tasks: ready / scheduled / retrying, the longest-due ready task's created_at and the
 * next run-at. Scheduled and retrying are a range of Tasks_pending_run (run-at in the future), ready the kept
 * pending count (QueueCounts) less those; one snapshot.
 */
export function pendingBreakdown(shared: Shared): Promise<PendingBreakdown[]> {
  return read(() =>
    shared.db.transaction(() => {
      const now = Date.now();
      const queues = stmt(shared.db, S.PENDING_QUEUES).all() as { queue: string; n: number }[];
      return queues.map(({ queue, n }) => {
        const f = stmt(shared.db, S.PENDING_FUTURE).get(queue, now) as { scheduled: number; retrying: number; next_run: number | null };
        const ready = Math.max(0, n - f.scheduled - f.retrying);
        const oldest = ready > 0 ? (stmt(shared.db, S.OLDEST_READY).get(queue, now) as { created_at: number } | undefined) : undefined;
        return {
          queue,
          ready,
          scheduled: f.scheduled,
          retrying: f.retrying,
          oldestReadyAt: oldest ? new Date(oldest.created_at) : null,
          nextRunAt: f.next_run === null ? null : new Date(f.next_run),
        };
      });
    })(),
  );
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
