// Ending attempts on SQL Server: a worker's settlements (FINISH, installed as readpast.Finish_<hash>:
// sql/hot.ts; fenced on task, worker and attempt; the attempt's token released), then the batches whose
// tasks moved are settled — completed once all their tasks are finished, or aborted — in a transaction
// of their own (SETTLE_BATCHES). An attempt that ended suspended (a durable handler's sleep or wait) writes its
// step in FINISH too, and is resumed there at once by a matching event sent since it began (sql/events.ts).
import { fingerprint } from '../../lib/engine/fingerprint';
import { NO_TIMEOUT, type AttemptResult, type StepWrite } from '../../lib/engine/types';
import { query, sql, type Runner, type Shared } from './connection';
import { retrying } from './errors';
import { id, isoUtc, toJson, type Id } from './rows';
import { HOT, hotName } from './sql/hot';
import { SETTLE_BATCHES } from './sql/settle';

const cap = (s: string | null | undefined, n: number) => (s === null || s === undefined ? null : s.slice(0, n));

/** A step as FINISH's @results carries it (`$.step`: sql/steps.ts STEP_FIELDS). */
export function stepJson(s: StepWrite) {
  return {
    seq: s.seq,
    name: s.name,
    kind: s.kind,
    status: s.status,
    startedAt: isoUtc(s.startedAt),
    endedAt: s.endedAt === null ? null : isoUtc(s.endedAt),
    result: toJson(s.result),
    errorNumber: s.error?.number ?? null,
    errorMessage: s.error?.message?.slice(0, 4000) ?? null,
    errorDetail: s.error?.detail ?? null,
    wakeAt: s.wakeAt === null ? null : isoUtc(s.wakeAt),
    event: s.event,
    match: s.match === null ? null : JSON.stringify(s.match),
  };
}

/** One element of FINISH's @results. */
export function finishRow(r: AttemptResult, ord: number) {
  const s = r.settlement;
  // a task is never claimed ahead here (capabilities.prefetch is 0): every attempt's start was recorded by its claim
  if (r.start || s.kind === 'started') throw new Error('the SQL Server store never claims ahead: no claimed task to start');
  const base = { ord, taskId: r.taskId, workerId: r.workerId, attempt: r.attempt, startedAt: null, ...(r.trace && { trace: r.trace }) };
  switch (s.kind) {
    case 'succeeded':
      return {
        ...base,
        kind: 'succeeded',
        outcome: 'succeeded',
        result: toJson(s.result),
        runAfter: null,
        errorNumber: null,
        errorMessage: null,
        errorDetail: null,
      };
    case 'retry':
    case 'dead':
      return {
        ...base,
        kind: s.kind,
        outcome: s.outcome,
        result: null,
        runAfter: s.kind === 'retry' ? isoUtc(s.runAfter) : null,
        errorNumber: s.error.number,
        errorMessage: cap(s.error.message, 4000),
        errorDetail: cap(s.error.detail, 64_000),
        fingerprint: fingerprint(s.error.number, s.error.message),
      };
    case 'given_back':
      return {
        ...base,
        kind: 'given_back',
        outcome: 'given_back',
        result: null,
        runAfter: null,
        errorNumber: null,
        errorMessage: null,
        errorDetail: null,
      };
    case 'cancelled':
      return {
        ...base,
        kind: 'cancelled',
        outcome: 'cancelled',
        result: null,
        runAfter: null,
        errorNumber: s.error?.number ?? null,
        errorMessage: cap(s.error?.message, 4000),
        errorDetail: cap(s.error?.detail, 64_000),
      };
    case 'suspended':
      // a durable handler's sleep or event wait (types/durable.ts): waiting until run_after (NO_TIMEOUT: an event
      // wait with none) or its event; the step it suspends on is written with it
      return {
        ...base,
        kind: 'suspended',
        outcome: 'suspended',
        result: null,
        runAfter: isoUtc(s.until ?? NO_TIMEOUT),
        errorNumber: null,
        errorMessage: null,
        errorDetail: null,
        step: stepJson(s.step),
      };
  }
}

/** Results per call of the finish procedure: its statements over them stay far below lock escalation (sql/chunks.ts). */
export const FINISH_BATCH = 500;

/** Settle attempts; false where the attempt no longer owns its task or its lease expired. */
export async function finish(shared: Shared, results: AttemptResult[]): Promise<boolean[]> {
  const accepted = new Array<boolean>(results.length).fill(false);
  let wake = false;
  for (let from = 0; from < results.length; from += FINISH_BATCH) {
    const part = results.slice(from, from + FINISH_BATCH);
    const r = await shared.callWrite(
      hotName(HOT.finish),
      [['results', sql.NVarChar(sql.MAX), JSON.stringify(part.map(finishRow))]],
      [],
      shared.statementTimeoutMs,
    );
    const rows = (r.recordsets as unknown as { ord: number; ok: number; frees: number; released?: number }[][])[0] ?? [];
    for (const row of rows) {
      accepted[from + row.ord] = row.ok === 1;
      // children of these tasks became pending (sql/edges.ts)
      if ((row.released ?? 0) > 0) wake = true;
      const res = part[row.ord]!;
      const s = res.settlement;
      const due = s.kind === 'given_back' || (s.kind === 'retry' && s.runAfter.getTime() <= Date.now());
      if (row.ok === 1 && (row.frees === 1 || due)) wake = true;
    }
    await settleTouched(shared, r.recordsets);
  }
  if (wake) shared.wake();
  return accepted;
}

/** Settle the batches a writing batch touched (its last result set, TOUCHED). */
export async function settleTouched(shared: Shared, recordsets: unknown): Promise<void> {
  const ids = touchedBatches(recordsets);
  if (ids.length) await retrying(async () => settleBatches(await shared.runner(), ids));
}

/** Complete or abort the given batches where their tasks allow it. */
export async function settleBatches(pool: Runner, ids: Iterable<number>): Promise<void> {
  const list = [...new Set(ids)];
  if (list.length === 0) return;
  await query(pool, SETTLE_BATCHES, [['batches', sql.NVarChar(sql.MAX), JSON.stringify(list)]]);
}

/** The batch ids of a writing batch's last result set (TOUCHED). */
export function touchedBatches(recordsets: unknown): number[] {
  const sets = recordsets as { batch_id: Id | null }[][];
  const last = sets[sets.length - 1] ?? [];
  return last.filter((r) => r.batch_id !== null && r.batch_id !== undefined).map((r) => id(r.batch_id));
}
