// The JSON the writing batches read (OPENJSON) and what their result sets mean: enqueue rows,
// settlements, heartbeats.
import { randomUUID } from 'node:crypto';
import { ConflictError, ValidationError } from '../../lib/engine/errors';
import type { AttemptResult, EnqueueInput, EnqueueResult } from '../../lib/engine/types';
import { serverMessage } from './errors';
import { isoUtc, toJson, token } from './rows';

export const DEFAULT_QUEUE = 'default';

/** One element of ENQUEUE's @tasks. */
export function enqueueRow(input: EnqueueInput, ord: number, prefix = '') {
  const batchId = input.batchId ?? null;
  if (batchId === null && input.stage !== undefined && input.stage !== null) {
    throw new ValidationError(prefix ? `${prefix}.stage` : 'stage', 'a stage needs a batch');
  }
  return {
    ord,
    token: randomUUID(),
    queue: input.queue ?? DEFAULT_QUEUE,
    kind: input.kind,
    command: input.command,
    payload: toJson(input.payload),
    priority: input.priority ?? 0,
    runAfter: input.runAt ? isoUtc(input.runAt) : null,
    maxAttempts: input.maxAttempts ?? null,
    timeoutGiven: input.timeoutMs === undefined ? 0 : 1,
    timeoutMs: input.timeoutMs ?? null,
    dedupKey: input.dedupKey ?? null,
    caller: input.caller ? input.caller.slice(0, 200) : null,
    batchId,
    stage: batchId === null ? null : input.stage ?? 0,
  };
}

/** ENQUEUE's first result set → results in input order. */
export function enqueueResults(rows: { ord: number; token: string; created: number }[], n: number): EnqueueResult[] {
  const out: EnqueueResult[] = new Array(n);
  for (const r of rows) out[r.ord] = { token: token(r.token), created: r.created === 1 };
  return out;
}

/** The batch errors ENQUEUE raises, as the engine's errors. */
export function enqueueError(err: unknown): unknown {
  const m = serverMessage(err);
  if (m.number === 51001) return new ValidationError('batchId', m.message);
  if (m.number === 51002 || m.number === 51003) return new ConflictError(m.message);
  return err;
}

const cap = (s: string | null | undefined, n: number) => (s === null || s === undefined ? null : s.slice(0, n));

/** One element of FINISH's @results. */
export function finishRow(r: AttemptResult, ord: number) {
  const s = r.settlement;
  const base = { ord, taskId: r.taskId, workerId: r.workerId, attempt: r.attempt };
  switch (s.kind) {
    case 'succeeded':
      return { ...base, kind: 'succeeded', outcome: 'succeeded', result: toJson(s.result), runAfter: null, errorNumber: null, errorMessage: null, errorDetail: null };
    case 'retry':
    case 'dead':
      return {
        ...base, kind: s.kind, outcome: s.outcome, result: null, runAfter: s.kind === 'retry' ? isoUtc(s.runAfter) : null,
        errorNumber: s.error.number, errorMessage: cap(s.error.message, 4000), errorDetail: cap(s.error.detail, 64_000),
      };
    case 'cancelled':
      return {
        ...base, kind: 'cancelled', outcome: 'cancelled', result: null, runAfter: null,
        errorNumber: s.error?.number ?? null, errorMessage: cap(s.error?.message, 4000), errorDetail: cap(s.error?.detail, 64_000),
      };
  }
}
