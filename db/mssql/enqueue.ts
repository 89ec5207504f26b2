// Enqueueing on SQL Server: one or many tasks as a JSON array that ENQUEUE reads (OPENJSON) in one
// transaction; procedure tasks are checked against the catalog first.
import { randomUUID } from 'node:crypto';
import { ConflictError, ValidationError } from '../../lib/engine/errors';
import type { EnqueueInput, EnqueueResult } from '../../lib/engine/types';
import { sql, type IResult, type Param, type Shared } from './connection';
import { serverMessage } from './errors';
import type { ProcedureCatalog } from './procs';
import { isoUtc, toJson, token } from './rows';
import { ENQUEUE } from './sql/enqueue';

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
    stage: batchId === null ? null : (input.stage ?? 0),
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

/** Runs ENQUEUE: on the shared pool (retried after a deadlock), or in a caller's transaction (transaction.ts). */
export type EnqueueRunner = (text: string, params: readonly Param[]) => Promise<IResult<unknown>>;

/**
 * Store the tasks (after checking procedure tasks); `prefix(i)` names input i in validation errors. With
 * `run` (a caller's transaction) the in-process pool is woken by its commit, not here.
 */
export async function insertTasks(
  shared: Shared,
  procs: ProcedureCatalog,
  inputs: EnqueueInput[],
  prefix: (i: number) => string,
  run?: EnqueueRunner,
): Promise<EnqueueResult[]> {
  const rows = inputs.map((input, i) => enqueueRow(input, i, prefix(i)));
  for (const [i, input] of inputs.entries()) {
    if (input.kind === 'procedure') await procs.validate(input.command, input.payload ?? null, prefix(i));
  }
  try {
    const params: Param[] = [['tasks', sql.NVarChar(sql.MAX), JSON.stringify(rows)]];
    const r = run ? await run(ENQUEUE, params) : await shared.write(ENQUEUE, params);
    const sets = r.recordsets as unknown as { ord: number; token: string; created: number }[][];
    if (!run) shared.wake();
    return enqueueResults(sets[0] ?? [], inputs.length);
  } catch (err) {
    throw enqueueError(err);
  }
}

export async function enqueue(shared: Shared, procs: ProcedureCatalog, input: EnqueueInput): Promise<EnqueueResult> {
  return (await insertTasks(shared, procs, [input], () => ''))[0]!;
}

export async function enqueueMany(shared: Shared, procs: ProcedureCatalog, inputs: EnqueueInput[]): Promise<EnqueueResult[]> {
  if (inputs.length === 0) return [];
  return insertTasks(shared, procs, inputs, (i) => `tasks.${i}`);
}
