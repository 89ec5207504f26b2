// Running `sql` and `procedure` tasks on SQL Server, on the worker's own session (session.ts),
// tagged with the attempt they run. A script runs as raw batches split on GO, streamed, every
// message captured; a procedure as an RPC with typed inputs and outputs. If the connection was
// replaced since the claim, the attempt's ExecutionLog row is moved to the new session (written on that
// session: every attempt write of a worker goes on its own connection or the heartbeat's, never the shared pool).
import { NonRetryableError, ValidationError } from '../../lib/engine/errors';
import type { RunningAttempt } from '../../lib/engine/ports';
import type { OutputStream, SqlRunResult } from '../../lib/engine/types';
import { captureMessages, recordFailure } from './attempt-logs';
import { query, requestWithTimeout, sql, type ConnectionPool, type ISqlType } from './connection';
import { batchError, connectionLost, isConnectionError, requestError, retrying, serverMessage, type ServerMessage } from './errors';
import { jsonValue } from './params';
import { parentsJson } from '../../lib/engine/flows';
import type { ProcedureCatalog } from './procs';
import { splitBatches } from './script';
import { idleTag, taskTag } from './session';
import { UPDATE_ATTEMPT_SESSION } from './sql/session';
import type { Workers } from './workers';

export const MAX_ROWS = 100;

/** Where a running attempt's server messages go (RunningAttempt.output). */
type OutputSink = (stream: OutputStream, line: string) => void;

/**
 * Run work for an attempt on its worker's session, tagged with the attempt. An attempt with task
 * id 0 stands for statements outside any task: the session stays tagged idle and nothing is recorded.
 */
function onSession<T>(workers: Workers, attempt: RunningAttempt, fn: (pool: ConnectionPool) => Promise<T>, fresh = false): Promise<T> {
  const conn = workers.connection(attempt.workerId);
  const inTask = attempt.taskId > 0;
  const tag = inTask ? taskTag(attempt.taskId, attempt.attempt, attempt.workerId) : idleTag(attempt.workerId);
  return conn.withTask(
    tag,
    async (pool, info) => {
      if (inTask && info.session !== attempt.session) {
        // the connection was replaced since the claim: the attempt runs on the new session, recorded from that
        // session itself (never the shared pool), bounded by the worker pool's request timeout (Shared.statementTimeoutMs)
        await retrying(() =>
          query(pool, UPDATE_ATTEMPT_SESSION, [
            ['session', sql.Int, info.session],
            ['task_id', sql.BigInt, attempt.taskId],
            ['attempt', sql.Int, attempt.attempt],
            ['worker_id', sql.NVarChar(256), attempt.workerId],
          ]),
        );
      }
      return fn(pool);
    },
    fresh,
  );
}

/** A `sql` task's text; a script that may leave session state gets a new connection after it. */
export function runSql(workers: Workers, attempt: RunningAttempt, text: string, signal: AbortSignal): Promise<SqlRunResult> {
  const parents = parentsJson(attempt.parents ?? []);
  return onSession(workers, attempt, (pool) => runScript(pool, text, signal, attempt.output, parents), leavesSessionState(text));
}

/** A `procedure` task, its parameters checked against the catalog again (the procedure may have changed). */
export async function runProcedure(
  workers: Workers,
  procs: ProcedureCatalog,
  attempt: RunningAttempt,
  name: string,
  params: Record<string, unknown>,
  signal: AbortSignal,
): Promise<ProcedureOutcome> {
  let checked;
  try {
    checked = await procs.validate(name, params);
  } catch (err) {
    // the procedure changed since the task was enqueued: no retry can fix that
    if (err instanceof ValidationError) throw new NonRetryableError(err.message, { cause: err });
    throw err;
  }
  // the parents' results (ctx.parents) as JSON text, when the procedure declares @Parents and the payload gives none
  const declared = checked.info.params.find((p) => p.name.toLowerCase() === 'parents' && !p.isOutput);
  if (declared && !checked.call.inputs.some((i) => i.name.toLowerCase() === 'parents')) {
    checked.call.inputs.push({ name: declared.name, type: sql.NVarChar(sql.MAX), value: parentsJson(attempt.parents ?? []) });
  }
  return onSession(workers, attempt, (pool) => runRpc(pool, checked.info.quotedName, checked.call, signal, attempt.output));
}

/** A row as JSON-friendly values (binary as base64). */
function plainRow(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) out[k] = Buffer.isBuffer(v) ? v.toString('base64') : v;
  return out;
}

/**
 * Whether a script may leave session state the clean-up cannot reset: #temp tables, cursors,
 * session context, session app locks. Such a script gets a new connection after it.
 */
export function leavesSessionState(script: string): boolean {
  return /#|\bCURSOR\b|sp_set_session_context|sp_getapplock/i.test(script);
}

/** Run a `sql` task's script (split on GO) on the worker's session, streaming, capturing every message. */
export async function runScript(
  pool: ConnectionPool,
  script: string,
  signal: AbortSignal,
  output?: OutputSink,
  parents?: string,
): Promise<SqlRunResult> {
  let batches: string[];
  try {
    batches = splitBatches(script);
  } catch (err) {
    throw batchError([err]);
  }
  let rowsAffected = 0;
  let rows: Record<string, unknown>[] = [];
  for (const text of batches) {
    signal.throwIfAborted();
    const r = await runBatch(pool, text, signal, output, parents);
    if (signal.aborted) throw signal.reason;
    const lost = r.errors.find(isConnectionError);
    if (lost && !r.errors.some((e) => serverMessage(e).number !== null)) throw connectionLost(lost);
    if (r.errors.length) throw batchError(r.errors, r.infos);
    rowsAffected += r.rowsAffected;
    if (r.sawRecordset) rows = r.rows;
  }
  return { rowsAffected, rows };
}

interface BatchOutcome {
  rowsAffected: number;
  rows: Record<string, unknown>[];
  sawRecordset: boolean;
  errors: unknown[];
  infos: ServerMessage[];
}

/** A batch that names @Parents (any case, as T-SQL variables compare): it gets the parents' results bound. */
export const NAMES_PARENTS = /@parents\b/i;

/**
 * One batch of a script: sent as it is (a raw batch, no parameters) — or, when it names @Parents and `parents` is
 * given, through sp_executesql with @Parents bound as nvarchar(max) (never spliced into the text); SET options and
 * #temp tables made inside such a batch then end with it.
 */
function runBatch(pool: ConnectionPool, text: string, signal: AbortSignal, output?: OutputSink, parents?: string): Promise<BatchOutcome> {
  const req = requestWithTimeout(pool, 0);
  const bind = parents !== undefined && NAMES_PARENTS.test(text);
  if (bind) req.input('Parents', sql.NVarChar(sql.MAX), parents);
  req.stream = true;
  // PRINT / RAISERROR … WITH NOWAIT and each error, into the attempt's output as they arrive
  const detach = captureMessages(req, output);
  const out: BatchOutcome = { rowsAffected: 0, rows: [], sawRecordset: false, errors: [], infos: [] };
  let countBelongsToRecordset = false;
  req.on('recordset', () => {
    out.rows = [];
    out.sawRecordset = true;
    countBelongsToRecordset = true;
  });
  req.on('row', (row: Record<string, unknown>) => {
    if (out.rows.length < MAX_ROWS) out.rows.push(plainRow(row));
  });
  req.on('rowsaffected', (n: number) => {
    if (countBelongsToRecordset) countBelongsToRecordset = false;
    else out.rowsAffected += n;
  });
  req.on('info', (m: unknown) => {
    if (out.infos.length < 200) out.infos.push(serverMessage(m));
  });
  req.on('error', (e: unknown) => {
    out.errors.push(e);
  });
  const onAbort = () => {
    try {
      req.cancel();
    } catch {
      /* already finished */
    }
  };
  signal.addEventListener('abort', onAbort, { once: true });
  return (bind ? req.query(text) : req.batch(text))
    .then(
      () => out,
      (e: unknown) => {
        out.errors.push(e);
        return out;
      },
    )
    .finally(() => {
      signal.removeEventListener('abort', onAbort);
      detach();
    });
}

export interface ProcedureOutcome {
  returnValue: number | null;
  output: Record<string, unknown>;
  rowsAffected: number;
  rows: Record<string, unknown>[];
}

/** Execute a procedure (RPC) with typed inputs and outputs on the worker's session. */
export async function runRpc(
  pool: ConnectionPool,
  quotedName: string,
  call: { inputs: { name: string; type: ISqlType; value: unknown }[]; outputs: { name: string; type: ISqlType; value: unknown }[] },
  signal: AbortSignal,
  output?: OutputSink,
): Promise<ProcedureOutcome> {
  signal.throwIfAborted();
  const req = requestWithTimeout(pool, 0);
  // PRINT / RAISERROR … WITH NOWAIT as they arrive; a procedure's errors come with its end (recordFailure)
  const detach = captureMessages(req, output);
  for (const i of call.inputs) req.input(i.name, i.type, i.value);
  for (const o of call.outputs) req.output(o.name, o.type, o.value);
  const infos: ServerMessage[] = [];
  req.on('info', (m: unknown) => {
    if (infos.length < 200) infos.push(serverMessage(m));
  });
  const onAbort = () => {
    try {
      req.cancel();
    } catch {
      /* already finished */
    }
  };
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    const r = await req.execute(quotedName);
    const output: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(r.output ?? {})) output[k] = jsonValue(v);
    const sets = (r.recordsets ?? []) as unknown as Record<string, unknown>[][];
    const last = sets[sets.length - 1] ?? [];
    return {
      returnValue: typeof r.returnValue === 'number' ? r.returnValue : null,
      output,
      rowsAffected: (r.rowsAffected ?? []).reduce((a, b) => a + b, 0),
      rows: last.slice(0, MAX_ROWS).map(plainRow),
    };
  } catch (err) {
    if (!signal.aborted) recordFailure(err, output);
    if (signal.aborted) throw signal.reason;
    if (isConnectionError(err) && serverMessage(err).number === null) throw connectionLost(err);
    throw requestError(err, infos);
  } finally {
    signal.removeEventListener('abort', onAbort);
    detach();
  }
}
