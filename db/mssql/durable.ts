// Durable handlers on SQL Server (lib/engine/types/durable.ts): a task's recorded steps, a step recorded by its
// attempt (fenced), a transactional step committed with the handler's statements on the worker's own session, the
// wake-up of suspended tasks whose time has come, an operator's wake, events (sent through readpast.SendEvent, the
// one definition of matching: sql/events.ts), and the reads. The suspension itself is written by the finish
// (settle.ts, sql/settle.ts FINISH).
import { STEP_RESULT_SHOWN } from '../../lib/engine/types';
import type {
  EventDetail,
  EventFilter,
  EventView,
  Page,
  ResumedTask,
  SendEventInput,
  SendEventResult,
  StepsLoaded,
  StepView,
  StepWrite,
  SuspendedCount,
  WakeResult,
} from '../../lib/engine/types';
import type { CommandPort, MaintenancePort, ReadModel, RunningAttempt, StepSql } from '../../lib/engine/ports';
import type { Slice } from '../shared/bind';
import { auditedCommand } from './audit';
import { query, sql, type Param, type Shared } from './connection';
import { retrying } from './errors';
import type { ProcedureCatalog } from './procs';
import { eventView, id, stepRecord, stepView, toJson, token, UUID, type EventRow, type StepListRow, type StepRow } from './rows';
import { taskTag } from './session';
import * as E from './sql/events';
import * as S from './sql/steps';
import { transactionOn } from './transaction';
import type { Workers } from './workers';

/** RECORD_STEP's parameters: the attempt's fence and the step's columns. */
export function recordParams(attempt: RunningAttempt, s: StepWrite): Param[] {
  return [
    ['task', sql.BigInt, attempt.taskId],
    ['worker', sql.NVarChar(256), attempt.workerId],
    ['attempt', sql.Int, attempt.attempt],
    ['seq', sql.Int, s.seq],
    ['name', sql.NVarChar(200), s.name],
    ['kind', sql.VarChar(12), s.kind],
    ['status', sql.VarChar(10), s.status],
    ['started', sql.DateTime2(3), s.startedAt],
    ['ended', sql.DateTime2(3), s.endedAt],
    ['result', sql.NVarChar(sql.MAX), toJson(s.result)],
    ['error_number', sql.Int, s.error?.number ?? null],
    ['error_message', sql.NVarChar(4000), s.error?.message?.slice(0, 4000) ?? null],
    ['error_detail', sql.NVarChar(sql.MAX), s.error?.detail ?? null],
    ['wake', sql.DateTime2(3), s.wakeAt],
    ['event', sql.NVarChar(200), s.event],
    ['match', sql.NVarChar(sql.MAX), s.match === null ? null : JSON.stringify(s.match)],
  ];
}

/** the recorded steps of the attempt's task, and how many of its attempts ended suspended */
export async function loadSteps(shared: Shared, attempt: RunningAttempt): Promise<StepsLoaded> {
  const r = await shared.query(S.LOAD_STEPS, [['task', sql.BigInt, attempt.taskId]]);
  const sets = r.recordsets as unknown as [StepRow[], { suspensions: number }[]];
  return { suspensions: Number(sets[1]?.[0]?.suspensions ?? 0), steps: (sets[0] ?? []).map(stepRecord) };
}

const recorded = (r: { recordset: { ok: number }[] }) => Number(r.recordset[0]?.ok ?? 0) === 1;

/** record one step while the attempt owns its task; false: it no longer does (nothing written) */
export async function recordStep(shared: Shared, attempt: RunningAttempt, step: StepWrite): Promise<boolean> {
  return recorded(await shared.write<{ ok: number }>(S.RECORD_STEP, recordParams(attempt, step)));
}

/**
 * A transactional step on the worker's own session (tagged with the attempt, so its SPID is the attempt's): one
 * transaction holds the handler's statements (named parameters bound, never spliced: transaction.ts) and the step's
 * fenced record (RECORD_STEP, whose BEGIN/COMMIT nest in it) — both commit or neither. False when the attempt no
 * longer owns its task (rolled back). Not run again after a deadlock: the handler's statements are its own.
 */
export async function transactionStep(
  shared: Shared,
  procs: ProcedureCatalog,
  workers: Workers,
  attempt: RunningAttempt,
  step: StepWrite,
  fn: (sql: StepSql) => Promise<unknown>,
  timeoutMs: number,
): Promise<boolean> {
  const conn = workers.connection(attempt.workerId);
  try {
    await conn.withTask(taskTag(attempt.taskId, attempt.attempt, attempt.workerId), (pool) =>
      transactionOn(
        shared,
        procs,
        pool,
        async (tx) => {
          const result = await fn({ execute: (text, params) => tx.execute(text, params) });
          const r = await tx.inTurn(() => query<{ ok: number }>(tx.t, S.RECORD_STEP, recordParams(attempt, { ...step, result })));
          if (!recorded(r)) throw new FenceLost();
        },
        timeoutMs,
      ),
    );
    return true;
  } catch (err) {
    if (err instanceof FenceLost) return false;
    throw err;
  }
}

class FenceLost extends Error {}

/** resume the suspended tasks whose time has come (a sleep over, an event wait timed out); how many */
export async function wakeDue(shared: Shared): Promise<number> {
  // nothing due (an idle store, every few seconds): a read, no transaction, nothing written
  if ((await shared.query(S.WAKE_DUE_READ)).recordset.length === 0) return 0;
  let total = 0;
  for (;;) {
    const r = await shared.write<{ resumed: number }>(S.WAKE_DUE);
    const n = Number(r.recordset[0]?.resumed ?? 0);
    total += n;
    if (n < S.WAKE_CHUNK) break;
  }
  if (total) shared.wake();
  return total;
}

/** an operator resumes a suspended task now (its sleep or wait returns null) */
export async function wake(shared: Shared, t: string): Promise<WakeResult> {
  if (!UUID.test(t)) return 'not_found';
  const r = await shared.write<{ resumed: number; found: number }>(S.WAKE_ONE, [['token', sql.UniqueIdentifier, t]]);
  const row = r.recordset[0];
  if (Number(row?.resumed ?? 0) > 0) {
    shared.wake();
    return 'woken';
  }
  return Number(row?.found ?? 0) === 1 ? 'conflict' : 'not_found';
}

/** The installed procedure that sends an event (sql/callers.ts): Node calls it as T-SQL callers do. */
export const SEND_EVENT_PROCEDURE = 'readpast.SendEvent';

/** The parameters of one call of readpast.SendEvent (its outputs: SEND_EVENT_OUTPUTS). */
export function sendEventParams(input: SendEventInput): Param[] {
  return [
    ['Event', sql.NVarChar(4000), input.name],
    ['Payload', sql.NVarChar(sql.MAX), toJson(input.payload)],
    ['Caller', sql.NVarChar(200), input.caller],
  ];
}

export const SEND_EVENT_OUTPUTS = [
  ['EventId', sql.BigInt],
  ['Resumed', sql.Int],
  ['Tokens', sql.NVarChar(sql.MAX)],
] as const;

/** send an event: its row and the tasks it resumes, in one transaction (readpast.SendEvent: one round trip) */
export async function sendEvent(shared: Shared, input: SendEventInput): Promise<SendEventResult> {
  const r = await shared.callWrite(SEND_EVENT_PROCEDURE, sendEventParams(input), SEND_EVENT_OUTPUTS);
  const out = r.output as { EventId: string | number; Resumed: number; Tokens: string | null };
  const tokens = (JSON.parse(out.Tokens ?? '[]') as { token: string }[]).map((x) => token(x.token));
  if (tokens.length) shared.wake();
  return { id: id(out.EventId), resumed: Number(out.Resumed ?? 0), tokens };
}

/** a task's steps in order (null: no such task) */
export async function listSteps(shared: Shared, t: string): Promise<StepView[] | null> {
  if (!UUID.test(t)) return null;
  const r = await shared.query(S.LIST_STEPS, [
    ['token', sql.UniqueIdentifier, t],
    ['shown', sql.Int, STEP_RESULT_SHOWN],
  ]);
  const sets = r.recordsets as unknown as [{ id: string }[], StepListRow[]];
  if ((sets[0] ?? []).length === 0) return null;
  return (sets[1] ?? []).map((row) => stepView({ ...row, result_bytes: Number(row.result_bytes) }));
}

export async function suspendedCounts(shared: Shared): Promise<SuspendedCount[]> {
  const r = await shared.query<{ queue: string; sleeping: number; waiting_event: number }>(S.SUSPENDED_COUNTS);
  return r.recordset.map((x) => ({ queue: x.queue, sleeping: Number(x.sleeping), waitingEvent: Number(x.waiting_event) }));
}

export async function listEvents(shared: Shared, f: EventFilter): Promise<Page<EventView>> {
  const r = await shared.query<EventRow>(E.LIST_EVENTS, [
    ['name', sql.NVarChar(200), f.name ?? null],
    ['before', sql.BigInt, f.before ?? null],
    ['limit', sql.Int, f.limit + 1],
  ]);
  const items = r.recordset.slice(0, f.limit).map(eventView);
  return { items, nextCursor: r.recordset.length > f.limit ? items[items.length - 1]!.id : null };
}

export async function getEvent(shared: Shared, eventId: number): Promise<EventDetail | null> {
  const params: Param[] = [['id', sql.BigInt, eventId]];
  const row = (await shared.query<EventRow>(E.GET_EVENT, params)).recordset[0];
  if (!row) return null;
  const tasks = (await shared.query<ResumedTask>(E.EVENT_TASKS, params)).recordset.map((x) => ({ ...x, token: token(x.token) }));
  return { ...eventView(row), tasks };
}

/** the worker's durable methods, on its store's shared pool and (a transactional step) its own session */
export function workerMethods(shared: Shared, procs: ProcedureCatalog, workers: Workers) {
  return {
    loadSteps: (attempt: RunningAttempt) => retrying(() => loadSteps(shared, attempt)),
    recordStep: (attempt: RunningAttempt, step: StepWrite) => recordStep(shared, attempt, step),
    transactionStep: (attempt: RunningAttempt, step: StepWrite, fn: (sql: StepSql) => Promise<unknown>, timeoutMs: number) =>
      transactionStep(shared, procs, workers, attempt, step, fn, timeoutMs),
  };
}

export const maintenanceSlice = { wakeDue } satisfies Slice<Shared, MaintenancePort>;
export const commandSlice = { sendEvent: auditedCommand(sendEvent, 1), wake: auditedCommand(wake, 1) } satisfies Slice<Shared, CommandPort>;
export const readSlice = { listSteps, listEvents, getEvent, suspendedCounts } satisfies Slice<Shared, ReadModel>;
