// Enqueueing on SQL Server: one or many tasks as a JSON array that readpast.Enqueue_<hash> (sql/hot.ts: the
// statement ENQUEUE_WRITE, installed) reads (OPENJSON) in one transaction; procedure tasks are checked
// against the catalog first.
import { ConflictError, ValidationError } from '../../lib/engine/errors';
import type { EnqueueInput, EnqueueResult } from '../../lib/engine/types';
import { sql, type IProcedureResult, type OutParam, type Param, type Shared } from './connection';
import { serverMessage } from './errors';
import type { ProcedureCatalog } from './procs';
import { isoUtc, toJson, token } from './rows';
import { HOT, hotName } from './sql/hot';
import { newToken } from './tokens';

export const DEFAULT_QUEUE = 'default';

/** A dependency as the enqueue procedure reads it: a parent by token, or (a flow's node) by its ord in the call. */
export type DependencyRow = { n: number; token: string | null; ord: number | null; onParentFailure: string };

/** One element of the enqueue procedure's @tasks. */
export function enqueueRow(input: EnqueueInput, ord: number, prefix = '', flowNode: string | null = null, deps?: DependencyRow[]) {
  const batchId = input.batchId ?? null;
  if (batchId === null && input.stage !== undefined && input.stage !== null) {
    throw new ValidationError(prefix ? `${prefix}.stage` : 'stage', 'a stage needs a batch');
  }
  const given = input.dependsOn as unknown;
  if (given !== undefined && given !== null && !Array.isArray(given)) {
    throw new ValidationError(prefix ? `${prefix}.dependsOn` : 'dependsOn', 'must be an array of dependencies');
  }
  return {
    ord,
    token: newToken(),
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
    concurrencyKey: input.concurrencyKey ?? null,
    caller: input.caller ? input.caller.slice(0, 200) : null,
    batchId,
    stage: batchId === null ? null : (input.stage ?? 0),
    flowNode,
    dependsOn: deps ?? input.dependsOn?.map((d, n) => ({ n, token: d.token, ord: null, onParentFailure: d.onParentFailure })) ?? null,
    // absent unless it has one: no bytes on the wire for an enqueue that is not traced
    ...(input.trace && { traceParent: input.trace.traceparent, traceState: input.trace.tracestate }),
  };
}

/** Enqueue's @results (JSON [{ord, token, created}]) → results in input order. */
export function enqueueResults(rows: { ord: number; token: string; created: number }[], n: number): EnqueueResult[] {
  const out: EnqueueResult[] = new Array(n);
  for (const r of rows) out[r.ord] = { token: token(r.token), created: r.created === 1 };
  return out;
}

/** The batch and key errors the enqueue raises (ENQUEUE_WRITE), as the engine's errors. */
export function enqueueError(err: unknown, prefix: (ord: number) => string = () => ''): unknown {
  const m = serverMessage(err);
  if (m.number === 51001) return new ValidationError('batchId', m.message);
  if (m.number === 51002 || m.number === 51003) return new ConflictError(m.message);
  // a key longer than the bound, given or found in the payload by the queue's keyFrom
  if (m.number === 51005) return new ValidationError('payload', m.message);
  // a dependency naming no task (or one deleted meanwhile): `task <ord>, dependsOn.<n>: …`; a dependsOn that is not a
  // JSON array of objects: `task <ord>, dependsOn: …`
  if (m.number === 51006) {
    const x = /^task (\d+), (dependsOn(?:\.\d+)?): (.*)$/s.exec(m.message);
    if (x) return new ValidationError(`${prefix(Number(x[1]))}${x[2]}`, x[3]!);
    return new ValidationError('dependsOn', m.message);
  }
  return err;
}

/** Calls the enqueue procedure: on the shared pool (retried after a deadlock), or in a caller's transaction (transaction.ts). */
export type EnqueueRunner = (name: string, params: readonly Param[], outputs: readonly OutParam[]) => Promise<IProcedureResult<unknown>>;

/** The procedure every enqueue calls. */
export const ENQUEUE_PROCEDURE = hotName(HOT.enqueue);

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
  return callEnqueue(shared, procs, inputs, rows, prefix, run);
}

/** Check procedure tasks, then run the enqueue procedure on rows made by enqueueRow. */
export async function callEnqueue(
  shared: Shared,
  procs: ProcedureCatalog,
  inputs: EnqueueInput[],
  rows: ReturnType<typeof enqueueRow>[],
  prefix: (i: number) => string,
  run?: EnqueueRunner,
): Promise<EnqueueResult[]> {
  for (const [i, input] of inputs.entries()) {
    if (input.kind === 'procedure') await procs.validate(input.command, input.payload ?? null, prefix(i));
  }
  try {
    const params: Param[] = [['tasks', sql.NVarChar(sql.MAX), JSON.stringify(rows)]];
    const outputs: OutParam[] = [['results', sql.NVarChar(sql.MAX)]];
    const r = run ? await run(ENQUEUE_PROCEDURE, params, outputs) : await shared.callWrite(ENQUEUE_PROCEDURE, params, outputs);
    const out = (r.output as { results?: string | null }).results;
    if (!run) shared.wake();
    return enqueueResults(out ? (JSON.parse(out) as { ord: number; token: string; created: number }[]) : [], inputs.length);
  } catch (err) {
    throw enqueueError(err, (i) => (prefix(i) ? `${prefix(i)}.` : ''));
  }
}

export async function enqueue(shared: Shared, procs: ProcedureCatalog, input: EnqueueInput): Promise<EnqueueResult> {
  return (await insertTasks(shared, procs, [input], () => ''))[0]!;
}

export async function enqueueMany(shared: Shared, procs: ProcedureCatalog, inputs: EnqueueInput[]): Promise<EnqueueResult[]> {
  if (inputs.length === 0) return [];
  return insertTasks(shared, procs, inputs, (i) => `tasks.${i}`);
}
