// Durable handlers' steps on SQLite (lib/engine/types/durable.ts): a task's recorded steps, a step recorded by its
// attempt (fenced), a transactional step committed with the caller's statements, the suspension a settlement
// applies, and resuming a suspended task — by its time (maintenance, each second), by an operator, by an event
// (events.ts).
import { NO_TIMEOUT, type StepsLoaded, type StepView, type StepWrite, type SuspendedCount, type WakeResult } from '../../lib/engine/types';
import type { AuditWrite, CommandPort, MaintenancePort, ReadModel, RunningAttempt, WorkerPort } from '../../lib/engine/ports';
import { STEP_RESULT_SHOWN } from '../../lib/engine/types';
import { stepParams } from '../shared/step-rows';
import type { Slice } from '../shared/bind';
import { read, type Db, type Shared } from './connection';
import { stepRecord, stepView, toJson, type StepListRow, type StepRow } from './rows';
import * as S from './sql/steps';
import { stmt } from './stmt';
import type { Tally, TaskKey } from './tally';

const ms = (d: Date) => d.getTime();

/** the recorded steps of the attempt's task, and how many of its attempts ended suspended */
export function loadSteps(shared: Shared, attempt: RunningAttempt): Promise<StepsLoaded> {
  return read(() => {
    const steps = (stmt(shared.db, S.LOAD_STEPS).all(attempt.taskId) as StepRow[]).map(stepRecord);
    const t = stmt(shared.db, S.SUSPENSIONS).get(attempt.taskId) as { suspensions: number } | undefined;
    return { suspensions: t?.suspensions ?? 0, steps };
  });
}

export const fenced = (attempt: RunningAttempt, step: StepWrite, now: number) => ({
  ...stepParams(attempt.taskId, attempt.attempt, step, ms),
  worker: attempt.workerId,
  now,
});

/** A step waiting for its record's write. */
interface QueuedStep {
  attempt: RunningAttempt;
  step: StepWrite;
  done: (ok: boolean) => void;
  failed: (err: unknown) => void;
}

/** The steps each store has waiting for the next write (one transaction for all of them). */
const queued = new WeakMap<Shared, QueuedStep[]>();

const record = (db: Db, q: QueuedStep, now: number): boolean => stmt(db, S.RECORD_STEP).run(fenced(q.attempt, q.step, now)).changes === 1;

/**
 * Record one step while the attempt owns its task; false: it no longer does (nothing written). The steps recorded by
 * a pool's slots in one turn of the event loop share one write transaction (each fenced on its own attempt): a step is
 * one row, and the transaction — its lock and its commit — was most of its cost. Should that shared write fail, each
 * is written alone, so one step's error is its own.
 */
export function recordStep(shared: Shared, attempt: RunningAttempt, step: StepWrite): Promise<boolean> {
  return new Promise<boolean>((done, failed) => {
    // written later, outside this call's context: refused here, as a write of its own would be
    shared.refuseInsideOwn();
    let batch = queued.get(shared);
    if (!batch) {
      queued.set(shared, (batch = []));
      setImmediate(() => void writeQueued(shared));
    }
    batch.push({ attempt, step, done, failed });
  });
}

async function writeQueued(shared: Shared): Promise<void> {
  const batch = queued.get(shared) ?? [];
  queued.delete(shared);
  if (batch.length > 1) {
    try {
      const ok = await shared.tx((_t, now) => batch.map((q) => record(shared.db, q, now)));
      batch.forEach((q, i) => q.done(ok[i]!));
      return;
    } catch {
      // each alone below
    }
  }
  for (const q of batch) await shared.tx((_t, now) => record(shared.db, q, now)).then(q.done, q.failed);
}

/** Inside a settlement's transaction, its task suspended (fenced already): the step it suspends on. */
export function putSuspendedStep(db: Db, taskId: number, attempt: number, step: StepWrite): void {
  stmt(db, S.PUT_STEP).run(stepParams(taskId, attempt, step, ms));
}

/** When a suspended task wakes by time: its wake time, or never (an event wait with no timeout). */
export const suspendedUntil = (until: Date | null): number => ms(until ?? NO_TIMEOUT);

/**
 * Resume a suspended task: its step over with `result` (an event's payload; null for a sleep, a timeout, a wake),
 * the task pending and due now. Its token; null when it was not suspended.
 */
export function resume(db: Db, taskId: number, result: unknown, eventId: number | null, tally: Tally, now: number): string | null {
  const t = stmt(db, S.RESUME_TASK).get(now, taskId) as (TaskKey & { id: number; token: string }) | undefined;
  if (!t) return null;
  stmt(db, S.RESOLVE_STEP).run(now, toJson(result), eventId, taskId);
  tally.task(t, 'waiting', 'pending');
  return t.token;
}

/** Suspended tasks resumed per transaction of the wake-up. */
const WAKE_CHUNK = 1000;

/** resume the suspended tasks whose time has come (a sleep over, an event wait timed out); how many */
export async function wakeDue(shared: Shared): Promise<number> {
  // nothing due (an idle store, every few seconds): a read, no write lock
  if ((await read(() => stmt(shared.db, S.DUE_SUSPENDED).all(Date.now(), 1))).length === 0) return 0;
  let total = 0;
  for (;;) {
    const n = await shared.tx((tally, now) => {
      const due = stmt(shared.db, S.DUE_SUSPENDED).all(now, WAKE_CHUNK) as { id: number }[];
      for (const d of due) resume(shared.db, d.id, null, null, tally, now);
      return due.length;
    });
    total += n;
    if (n < WAKE_CHUNK) break;
  }
  if (total) shared.wake();
  return total;
}

/** an operator resumes a suspended task now (its sleep or wait returns null) */
export async function wake(shared: Shared, token: string, audit?: AuditWrite<WakeResult>): Promise<WakeResult> {
  const r = await shared.tx((tally, now): WakeResult => {
    const t = stmt(shared.db, S.SUSPENDED_BY_TOKEN).get(token) as { id: number; status: string; suspended: string | null } | undefined;
    if (!t) return 'not_found';
    return resume(shared.db, t.id, null, null, tally, now) !== null ? 'woken' : 'conflict';
  }, audit);
  if (r === 'woken') shared.wake();
  return r;
}

/** a task's steps in order (null: no such task) */
export function listSteps(shared: Shared, token: string): Promise<StepView[] | null> {
  return read(() => {
    const t = stmt(shared.db, S.SUSPENDED_BY_TOKEN).get(token) as { id: number } | undefined;
    if (!t) return null;
    return (stmt(shared.db, S.LIST_STEPS).all({ shown: STEP_RESULT_SHOWN, task: t.id }) as StepListRow[]).map(stepView);
  });
}

export function suspendedCounts(shared: Shared): Promise<SuspendedCount[]> {
  return read(() =>
    (stmt(shared.db, S.SUSPENDED_COUNTS).all() as { queue: string; sleeping: number; waiting_event: number }[]).map((r) => ({
      queue: r.queue,
      sleeping: r.sleeping,
      waitingEvent: r.waiting_event,
    })),
  );
}

/** A deleted task's steps go with it. */
export function deleteSteps(db: Db, taskId: number): void {
  stmt(db, S.DELETE_TASK_STEPS).run(taskId);
}

export const workerSlice = { loadSteps, recordStep } satisfies Slice<Shared, WorkerPort>;
export const maintenanceSlice = { wakeDue } satisfies Slice<Shared, MaintenancePort>;
export const commandSlice = { wake } satisfies Slice<Shared, CommandPort>;
export const readSlice = { listSteps, suspendedCounts } satisfies Slice<Shared, ReadModel>;
