// Enqueue inside the caller's transaction on SQL Server: withTransaction (a transaction of ours on the
// shared pool) and `enqueue(input, { transaction })` (one the caller opened with mssql).
//
// withTransaction: a `sql.Transaction` on the store's shared pool pins one pooled connection from
// begin to commit/rollback; the caller's statements (tx.execute) and the enqueue procedure (readpast.Enqueue_<hash>,
// sql/hot.ts, whose own BEGIN/COMMIT TRANSACTION nest inside it) run on that connection, so they commit together. A
// Transaction takes one request at a time (EREQINPROG otherwise): calls are queued here and run in
// turn, whatever the callback awaits. Any error of a statement ends the transaction on the server (the
// shared pool sets XACT_ABORT ON, abortTransactionOnError; the procedure sets it too), so a failed call is
// never followed by a commit: the callback's error rolls back (a no-op when the server already did) and
// is rethrown. Nothing is retried inside the transaction — a deadlock victim has lost the whole of it.
// The transaction holds its locks until it ends: the queue's kept-count rows of its slot (sql/tally.ts),
// a new queue's key, a batch it adds to; claims skip its uncommitted tasks (READPAST). So it is bounded
// like SQLite's: rolled back once open `timeoutMs` (the rollback waits for a statement still running).
//
// `enqueue(input, { transaction })`: the enqueue procedure runs on the caller's `sql.Transaction` (the same driver
// module: instanceof); committing or rolling back is the caller's, and its 'commit' event wakes the pool.
import { ValidationError } from '../../lib/engine/errors';
import { MAX_TRANSACTION_TIMEOUT_MS, TRANSACTION_TIMEOUT_MS } from '../../lib/engine/limits';
import type { EnqueueCallOptions, StoreTransaction } from '../../lib/engine/ports';
import type {
  EnqueueInput,
  EnqueueResult,
  ExecuteParams,
  ExecuteResult,
  FlowInput,
  FlowResult,
  TransactionOptions,
} from '../../lib/engine/types';
import { createFlowOn } from './flows';
import { callOn, sql, type ConnectionPool, type Shared } from './connection';
import { insertTasks, type EnqueueRunner } from './enqueue';
import type { ProcedureCatalog } from './procs';

type MssqlTransaction = InstanceType<typeof sql.Transaction>;

/** The enqueue procedure as one request on the transaction; not retried. */
function runner(t: MssqlTransaction): EnqueueRunner {
  return (name, params, outputs) => callOn(t, name, params, outputs);
}

/** The caller's transaction from `opts`, checked; null when there is none. */
export function externalTransaction(opts: EnqueueCallOptions | undefined): MssqlTransaction | null {
  const t = opts?.transaction;
  if (t === undefined || t === null) return null;
  if (!(t instanceof sql.Transaction)) {
    throw new ValidationError('transaction', 'expected an mssql Transaction (new sql.Transaction(pool), begun)');
  }
  return t;
}

/** Enqueue on a transaction the caller opened: the pool wakes when the caller commits it. */
export async function enqueueOn(
  shared: Shared,
  procs: ProcedureCatalog,
  t: MssqlTransaction,
  inputs: EnqueueInput[],
  prefix: (i: number) => string,
): Promise<EnqueueResult[]> {
  if (inputs.length === 0) return [];
  const r = await insertTasks(shared, procs, inputs, prefix, runner(t));
  if (r.some((x) => x.created)) t.once('commit', () => shared.wake());
  return r;
}

/** Statements that would end the transaction withTransaction owns (a batch may still hide one: don't). */
const TX_CONTROL = /^\s*(COMMIT|ROLLBACK|BEGIN\s+(TRAN|TRANSACTION|DISTRIBUTED)\b)/i;

export class OnTransaction implements StoreTransaction {
  created = false;
  timedOut = false;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly shared: Shared,
    private readonly procs: ProcedureCatalog,
    readonly t: MssqlTransaction,
    private readonly timeoutMs: number,
  ) {}

  /** one request at a time, in the order the calls were made */
  inTurn<T>(fn: () => Promise<T>, unlessTimedOut = true): Promise<T> {
    const p = this.chain.then(() => {
      if (unlessTimedOut && this.timedOut) throw this.timeoutError();
      return fn();
    });
    this.chain = p.catch(() => {});
    return p;
  }

  timeoutError(): Error {
    return new Error(`withTransaction: rolled back after ${this.timeoutMs} ms open (timeoutMs); nothing of it was committed`);
  }

  execute<Row = Record<string, unknown>>(text: string, params?: ExecuteParams): Promise<ExecuteResult<Row>> {
    if (TX_CONTROL.test(text)) {
      return Promise.reject(new ValidationError('sql', 'withTransaction begins, commits and rolls back itself'));
    }
    if (Array.isArray(params)) {
      return Promise.reject(new ValidationError('params', 'SQL Server takes named parameters: an object, @name in the SQL'));
    }
    return this.inTurn(async () => {
      const req = new sql.Request(this.t);
      for (const [name, value] of Object.entries(params ?? {})) req.input(name, value);
      const r = await req.query<Row>(text);
      return { rows: r.recordset ? [...r.recordset] : [], rowsAffected: r.rowsAffected.reduce((a, b) => a + b, 0) };
    });
  }

  async enqueue(input: EnqueueInput): Promise<EnqueueResult> {
    return (await this.enqueueIn([input], () => ''))[0]!;
  }

  enqueueMany(inputs: EnqueueInput[]): Promise<EnqueueResult[]> {
    return this.enqueueIn(inputs, (i) => `tasks.${i}`);
  }

  private async enqueueIn(inputs: EnqueueInput[], prefix: (i: number) => string): Promise<EnqueueResult[]> {
    if (inputs.length === 0) return [];
    const r = await this.inTurn(() => insertTasks(this.shared, this.procs, inputs, prefix, runner(this.t)));
    if (r.some((x) => x.created)) this.created = true;
    return r;
  }

  /** a flow in this transaction (its CREATE_FLOW's own BEGIN/COMMIT nest in it) */
  async createFlow(input: FlowInput): Promise<FlowResult> {
    const r = await this.inTurn(() => createFlowOn(this.shared, this.procs, input, this.t));
    this.created = true;
    return r;
  }

  /** roll back, once no request runs; a no-op when the server already ended the transaction */
  rollback(): Promise<void> {
    return this.inTurn(async () => {
      const aborted = (this.t as unknown as { _aborted?: boolean })._aborted === true;
      if (!aborted) await this.t.rollback().catch(() => {});
    }, false).catch(() => {});
  }
}

/** The StoreTransaction over an mssql Transaction (tests: what is checked before anything is sent). */
export function transactionFor(t: MssqlTransaction, shared?: Shared, procs?: ProcedureCatalog): StoreTransaction {
  return new OnTransaction(shared as Shared, procs as ProcedureCatalog, t, TRANSACTION_TIMEOUT_MS);
}

/** withTransaction on the shared pool (see the header). */
export async function transaction<T>(
  shared: Shared,
  procs: ProcedureCatalog,
  fn: (tx: StoreTransaction) => Promise<T>,
  opts: TransactionOptions = {},
): Promise<T> {
  const timeoutMs = Math.min(opts.timeoutMs ?? TRANSACTION_TIMEOUT_MS, MAX_TRANSACTION_TIMEOUT_MS);
  const { out, created } = await transactionOn(shared, procs, await shared.pool(), fn, timeoutMs);
  if (created) shared.wake();
  return out;
}

/**
 * One transaction on `pool` (the shared pool, or a worker's own session: a transactional step) around `fn`, rolled
 * back when `fn` throws or once open `timeoutMs`; `created`: it enqueued something.
 */
export async function transactionOn<T>(
  shared: Shared,
  procs: ProcedureCatalog,
  pool: ConnectionPool,
  fn: (tx: OnTransaction) => Promise<T>,
  timeoutMs: number,
): Promise<{ out: T; created: boolean }> {
  const t = new sql.Transaction(pool);
  await t.begin();
  const tx = new OnTransaction(shared, procs, t, timeoutMs);
  let rolledBack: Promise<void> | null = null;
  const timer = setTimeout(() => {
    tx.timedOut = true;
    rolledBack = tx.rollback();
  }, timeoutMs);
  try {
    const out = await fn(tx);
    await tx.inTurn(() => t.commit());
    clearTimeout(timer);
    return { out, created: tx.created };
  } catch (err) {
    clearTimeout(timer);
    await (rolledBack ?? tx.rollback());
    throw tx.timedOut ? tx.timeoutError() : err;
  }
}
