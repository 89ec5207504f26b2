// Row shapes as the driver returns them (bigint as string, uniqueidentifier upper-case, bit as
// boolean, datetime2 as Date) and their mapping to the engine's types: the shared mappers
// (db/shared/rows.ts) with SQL Server's column converters, and the rows only SQL Server has.
import type { ClaimedTask, LiveRequestState, ParentResult, TaskKind, TaskStatus } from '../../lib/engine/types';
import * as R from '../shared/rows';
import * as RR from '../shared/record-rows';
import * as SR from '../shared/step-rows';
import { parseJson } from '../shared/rows';

export { parseJson, toJson } from '../shared/rows';

export type Id = string | number;

export const id = (v: Id | null | undefined): number => Number(v);
export const token = (v: string): string => v.toLowerCase();

/** A task token in the form the engine hands out; anything else names no task. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Milliseconds as an int parameter (0 … 2^31-1). */
export const intMs = (n: number): number => Math.min(2_147_483_647, Math.max(0, Math.round(n)));

/** `%text%` for LIKE … ESCAPE '\': the escape character, %, _ and [ are literal. */
export function likePattern(text: string): string {
  return '%' + text.replace(/[\\%_[]/g, (c) => '\\' + c) + '%';
}

/** A UTC instant as the ISO text OPENJSON converts to datetime2(3) exactly (no zone suffix). */
export function isoUtc(d: Date): string {
  return d.toISOString().slice(0, 23);
}

/** How the mssql driver returns a time, a flag and a bigint column. */
export interface MssqlCols {
  time: Date;
  bool: boolean;
  bigint: Id;
}

export type TaskRow = R.TaskRow<MssqlCols>;
export type LogRow = R.LogRow<MssqlCols>;
export type QueueRow = R.QueueRow<MssqlCols>;
export type WorkerRow = R.WorkerRow<MssqlCols>;
export type MetricRow = R.MetricRow<MssqlCols>;
export interface StatusRow extends R.StatusRow<MssqlCols> {
  task_id: Id;
}

export type BatchRow = RR.BatchRow<MssqlCols>;
export type StageRow = RR.StageRow<MssqlCols>;
export type ScheduleRow = RR.ScheduleRow<MssqlCols>;
export type FireRow = RR.FireRow<MssqlCols> & { name: string };
export type RuleRow = RR.RuleRow<MssqlCols>;
export type AuditRow = RR.AuditRow<MssqlCols>;
export type ChangeRow = RR.ChangeRow<MssqlCols>;

const columns: R.Converters<MssqlCols> = { time: (d) => d, bool: Boolean, bigint: id, token };

export const { taskView, attemptView, queueSettings, runningView, workerView, metricPoint } = R.rowMappers(columns);
export const { batchView, scheduleFire, scheduleView, alertRule, auditRecord, queueChange } = RR.recordMappers(columns);
export type StepRow = SR.StepRow<MssqlCols>;
export type StepListRow = SR.StepListRow<MssqlCols>;
export type EventRow = SR.EventRow<MssqlCols>;
export const { stepRecord, stepView, eventView } = SR.stepMappers(columns);

export interface ClaimRow {
  id: Id;
  token: string;
  queue: string;
  kind: string;
  command: string;
  payload: string | null;
  priority: number;
  attempts: number;
  max_attempts: number;
  timeout_ms: number | null;
  created_at: Date;
  run_after: Date;
  started_at: Date;
  token_no: number | null;
  batch_id: Id | null;
  stage: number | null;
  concurrency_key: string | null;
  backoff_ms: number;
  session: number;
  served_stamp: Id;
  /** how many parents it has (0: no parents to read) */
  parent_count?: number;
  /** the trace context stored at enqueue, and its last attempt's span (migration 22) */
  trace_parent?: string | null;
  trace_state?: string | null;
  attempt_trace?: string | null;
}

/** A parent of a claimed task (sql/flows.ts CLAIM_PARENTS). */
export interface ParentRow {
  child_id: Id;
  token: string;
  flow_node: string | null;
  command: string;
  status: TaskStatus;
  result: string | null;
  /** the span of its last attempt (migration 22) */
  attempt_trace?: string | null;
}

export function parentResult(r: ParentRow): ParentResult {
  return {
    token: token(r.token),
    nodeId: r.flow_node,
    command: r.command,
    status: r.status,
    result: r.status === 'succeeded' ? parseJson(r.result) : null,
  };
}

export function claimedTask(r: ClaimRow, workerId: string): ClaimedTask {
  return {
    parents: [],
    id: id(r.id),
    token: token(r.token),
    queue: r.queue,
    kind: r.kind as TaskKind,
    command: r.command,
    payload: parseJson(r.payload),
    priority: r.priority,
    concurrencyKey: r.concurrency_key ?? null,
    attempt: r.attempts,
    maxAttempts: r.max_attempts,
    timeoutMs: r.timeout_ms,
    backoffMs: r.backoff_ms,
    workerId,
    session: r.session,
    createdAt: r.created_at,
    runAfter: r.run_after,
    startedAt: r.started_at,
    traceParent: r.trace_parent ?? null,
    traceState: r.trace_state ?? null,
    previousTrace: r.attempt_trace ?? null,
  };
}

export interface LiveRow extends StatusRow {
  live_session: number | null;
  session_status: string | null;
  session_cpu: number | null;
  session_open_tran: number | null;
  request_status: string | null;
  request_command: string | null;
  wait_type: string | null;
  wait_time: number | null;
  blocking_session_id: number | null;
  request_cpu: number | null;
  percent_complete: number | null;
  request_open_tran: number | null;
}

/** The server's view of the session running an attempt; null where the session is not visible. */
export function liveState(r: LiveRow): LiveRequestState | null {
  if (r.live_session === null || r.live_session === undefined) return null;
  const hasRequest = r.request_status !== null && r.request_status !== undefined;
  return {
    status: (hasRequest ? r.request_status : r.session_status)?.trim() ?? null,
    command: r.request_command?.trim() ?? null,
    waitType: r.wait_type,
    waitTimeMs: r.wait_time,
    blockingSession: r.blocking_session_id ? r.blocking_session_id : null,
    cpuMs: hasRequest ? r.request_cpu : r.session_cpu,
    percentComplete: hasRequest && r.percent_complete !== null ? Number(r.percent_complete) : null,
    openTransactions: hasRequest ? r.request_open_tran : r.session_open_tran,
  };
}
