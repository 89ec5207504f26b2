// Lists and filters: task and attempt pages, the running list, payload filters.
import type { LiveRequestState } from './database';
import type { ProgressReport } from './output';
import type { TaskStatus, Outcome, TaskKind, Suspension } from './tasks';

/** ExecutionStatus: an attempt running right now. */
export interface RunningView {
  attemptId: number;
  token: string;
  queue: string;
  kind: TaskKind;
  command: string;
  attempt: number;
  maxAttempts: number;
  workerId: string;
  session: number | null;
  tokenNo: number | null;
  batchId: number | null;
  stage: number | null;
  startedAt: Date;
  leaseUntil: Date | null;
  cancelRequested: boolean;
  /** SQL Server only, and only where the login can see the DMVs */
  live?: LiveRequestState | null;
  /** the first characters of the task's payload as JSON text (`…` when cut); null without a payload */
  payloadPreview?: string | null;
  /** the latest progress the attempt reported (ctx.progress), null when none */
  progress?: ProgressReport | null;
}

export interface TaskFilter {
  status?: TaskStatus;
  queue?: string;
  batchId?: number;
  stage?: number;
  /** substring of command, dedup key or last error message */
  q?: string;
  /** tasks with an id below this (keyset; newest first) */
  cursor?: number;
  limit?: number;
  /** pending tasks only: due now, a future run-at never tried, or waiting out a backoff (PendingBreakdown) */
  sub?: PendingSub;
  /** waiting tasks only: those a durable handler suspended on a sleep or an event (types/durable.ts) */
  suspended?: Suspension;
  /** exact command (handler name, procedure name, SQL text) */
  command?: string;
  /** exact concurrency key (binary-compared) */
  concurrencyKey?: string;
  /** the tasks of one flow */
  flowId?: number;
  /** priority within [priorityMin, priorityMax] */
  priorityMin?: number;
  priorityMax?: number;
  /** time range: finished_at for succeeded, dead and cancelled tasks, created_at otherwise (no status: created_at) */
  from?: Date;
  to?: Date;
  /** a value inside the JSON payload */
  payload?: PayloadFilter;
  /** rows examined at most for filters no index answers (default TASK_SCAN_LIMIT; not taken from a query string) */
  scanLimit?: number;
}

export const PENDING_SUBS = ['ready', 'scheduled', 'retrying'] as const;

export type PendingSub = (typeof PENDING_SUBS)[number];

/** The kinds of waiting task a query string's `sub` names (status waiting): suspended on a sleep, on an event. */
export const WAITING_SUBS = { sleeping: 'sleep', event: 'event' } as const satisfies Record<string, Suspension>;
export type WaitingSub = keyof typeof WAITING_SUBS;

/**
 * `path` is a JSON path `$.a.b[0]` (letters, digits, `_`, dots and `[n]` only: checked by the parser in
 * lib/api/task-query.ts and again by the stores). `eq`: the scalar at the path, as text (`true`, `42`,
 * `abc`), equals `value`; `contains`: it contains `value` (case as the database compares text).
 */
export interface PayloadFilter {
  path: string;
  op: 'eq' | 'contains';
  value: string;
}

/** A JSON path the stores accept: `$`, then `.name` or `[n]` steps. */
export const JSON_PATH = /^\$(?:\.[A-Za-z_][A-Za-z0-9_]*|\[\d{1,6}\])+$/;

/** Rows a filtered task page examines at most (newest first) before it answers `partial`. */
export const TASK_SCAN_LIMIT = 50_000;

export interface AttemptFilter {
  outcome?: Outcome;
  queue?: string;
  batchId?: number;
  /** substring of command or error message */
  q?: string;
  from?: Date;
  to?: Date;
  /** attempts with an id below this (keyset; newest first) */
  cursor?: number;
  limit?: number;
}

export interface Page<T> {
  items: T[];
  /** pass as `cursor` for the next page; null at the end */
  nextCursor: number | null;
  /**
   * Task pages with filters no index answers: true when the page stopped after examining `scanned` rows
   * (TASK_SCAN_LIMIT) with fewer matches than asked; `nextCursor` then continues the scan further back.
   */
  partial?: boolean;
  scanned?: number;
}
