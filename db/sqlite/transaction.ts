// Enqueue inside the caller's transaction (withTransaction) on SQLite: the caller's statements and the
// tasks it enqueues commit together or not at all, in the same file as the caller's own tables.
//
// Design. The store has one connection, used synchronously by everything in this process (claims,
// settlements, heartbeats, reads); each of its write transactions is short and never spans an await. A
// caller's transaction does span awaits, so it cannot run there: whatever the pool wrote meanwhile would
// land inside it and be rolled back with it. So a caller's transaction runs on a second connection of
// the store's (opened on first use, kept for the next one), BEGIN IMMEDIATE: it holds the file's one write
// lock from its first statement to its end. Meanwhile:
// - this process's own writers (shared.tx, sql tasks) wait on the store's WriteGate (connection.ts)
//   instead of spinning on SQLITE_BUSY — each try would block the event loop for the busy timeout, the
//   transaction's own callback included — and write as soon as it ends; reads go on (WAL: they see what
//   was committed before it);
// - other processes' writers get SQLITE_BUSY and retry without blocking for up to 30 s (writeTx);
// - the transaction is rolled back once open `timeoutMs` (default 10 s, at most 20 s — below those 30 s,
//   and below the worker lease of 30 s that a waiting heartbeat must renew), its later calls then fail.
//   That is the bound: a writer waits at most as long as the longest transaction it queues behind.
// This process's caller transactions take the gate one at a time, in order (and with the big writes written
// in slices on the same second connection, big-write.ts), so they never fight over the write lock either.
// The enqueue is the store's own (enqueue.ts) on the second connection, its kept aggregates (tally.ts)
// flushed inside the caller's transaction, so they commit or vanish with the tasks; each call is a savepoint
// of its own. A write on the store's connection from inside the callback (e.g.
// rp.enqueue instead of tx.enqueue) would wait for the transaction it runs in: it is refused at once
// (the gate recognises the callback's async context), as is a nested withTransaction.
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
import { read, sqliteErrorNumber, type Db, type WriteGate } from './connection';
import { enqueueIn } from './enqueue';
import { createFlowIn } from './flow-commands';
import { admit } from './intake';
import { settleBatches } from './settle';
import { BEGIN_IMMEDIATE, COMMIT, ROLLBACK, TOTAL_CHANGES } from './sql/transaction';
import { stmt } from './stmt';
import { Tally } from './tally';

/**
 * Run `fn` with the kept aggregates it collects, flushed (and the batches whose tasks moved settled)
 * before returning; inside a write transaction of the caller's. The intake is moved into Tasks before `fn`.
 */
export function tallied<T>(db: Db, fn: (tally: Tally, now: number) => T): T {
  const tally = new Tally();
  const now = Date.now();
  // the tasks appended to the intake first: a write never sees Tasks without one enqueued before it (intake.ts)
  admit(db, tally, now);
  const out = fn(tally, now);
  closeTally(db, tally, now);
  return out;
}

/** The kept aggregates a write collected flushed, and the batches whose tasks moved settled (before it commits). */
export function closeTally(db: Db, tally: Tally, now: number): void {
  tally.flush(db);
  if (tally.batches.size) {
    settleBatches(db, tally.batches, tally, now);
    tally.flush(db);
  }
}

/** `enqueue(input, { transaction })`: a transaction opened elsewhere is SQL Server's; here, withTransaction. */
export function refuseExternal(opts: EnqueueCallOptions | undefined): void {
  if (opts?.transaction !== undefined && opts.transaction !== null) {
    throw new ValidationError('transaction', 'an mssql Transaction is for SQL Server; on SQLite enqueue inside rp.withTransaction');
  }
}

/** Statements that would end or nest the transaction withTransaction owns. */
const TX_CONTROL = /^\s*(BEGIN|COMMIT|END|ROLLBACK|SAVEPOINT|RELEASE)\b/i;

type State = 'open' | 'committed' | 'rolled_back' | 'timed_out';

export class SqliteTransaction implements StoreTransaction {
  state: State = 'open';
  created = false;

  constructor(
    private readonly db: Db,
    private readonly timeoutMs: number,
  ) {}

  private check(): void {
    if (this.state === 'timed_out') throw this.timeoutError();
    if (this.state !== 'open') throw new Error(`withTransaction: the transaction is already ${this.state.replace('_', ' ')}`);
  }

  timeoutError(): Error {
    return new Error(`withTransaction: rolled back after ${this.timeoutMs} ms open (timeoutMs); nothing of it was committed`);
  }

  async execute<Row = Record<string, unknown>>(sql: string, params?: ExecuteParams): Promise<ExecuteResult<Row>> {
    this.check();
    if (TX_CONTROL.test(sql)) throw new ValidationError('sql', 'withTransaction begins, commits and rolls back itself');
    const db = this.db;
    const args: unknown[] = params === undefined ? [] : Array.isArray(params) ? params : [params];
    try {
      const s = db.prepare(sql);
      if (!s.reader) return { rows: [], rowsAffected: s.run(...args).changes };
      const before = (stmt(db, TOTAL_CHANGES).get() as { n: number }).n;
      const rows = s.all(...args) as Row[];
      return { rows, rowsAffected: (stmt(db, TOTAL_CHANGES).get() as { n: number }).n - before };
    } catch (err) {
      const e = err as Error & { code?: string; number?: number | null };
      e.number = sqliteErrorNumber(e.code);
      throw e;
    } finally {
      if (!db.inTransaction) this.state = 'rolled_back';
    }
  }

  async enqueue(input: EnqueueInput): Promise<EnqueueResult> {
    return this.enqueueIn([input], true)[0]!;
  }

  async enqueueMany(inputs: EnqueueInput[]): Promise<EnqueueResult[]> {
    return this.enqueueIn(inputs, false);
  }

  private enqueueIn(inputs: EnqueueInput[], single: boolean): EnqueueResult[] {
    this.check();
    if (inputs.length === 0) return [];
    const r = this.savepoint((tally, now) => enqueueIn(this.db, inputs, tally, now, single));
    if (r.some((x) => x.created)) this.created = true;
    return r;
  }

  async createFlow(input: FlowInput): Promise<FlowResult> {
    this.check();
    const r = this.savepoint((tally, now) => createFlowIn(this.db, input, tally, now));
    this.created = true;
    return r;
  }

  /** The store's own write inside the transaction (a savepoint): a transactional step's record (steps.ts). */
  write<T>(fn: (db: Db) => T): T {
    this.check();
    return this.db.transaction(() => fn(this.db))();
  }

  /** A savepoint (better-sqlite3 nests a transaction in an open one): a failed call leaves nothing behind. */
  private savepoint<T>(fn: (tally: Tally, now: number) => T): T {
    return this.db.transaction(() => tallied(this.db, fn))();
  }

  /** End it: commit or roll back; a no-op once ended. */
  end(how: 'committed' | 'rolled_back' | 'timed_out'): void {
    if (this.state !== 'open') return;
    if (how === 'committed') this.db.exec(COMMIT);
    else if (this.db.inTransaction) this.db.exec(ROLLBACK);
    this.state = how;
  }
}

/** withTransaction on one SQLite store (see the header). */
export class Transactions {
  constructor(
    private readonly path: string,
    /** the store's second connection (opened on first use, kept for the next one) */
    private readonly connection: () => Db,
    private readonly gate: WriteGate,
    private readonly wake: () => void,
  ) {}

  run<T>(fn: (tx: StoreTransaction) => Promise<T>, opts: TransactionOptions = {}): Promise<T> {
    return this.runOwn(fn, opts);
  }

  /** `run`, handing the store's own code the transaction itself (a transactional step records itself in it). */
  async runOwn<T>(fn: (tx: SqliteTransaction) => Promise<T>, opts: TransactionOptions = {}): Promise<T> {
    if (this.gate.insideOwn) throw new Error('withTransaction: already inside a transaction of this store (they do not nest)');
    if (this.path === ':memory:') throw new Error('withTransaction needs a database file (an in-memory database has one connection)');
    const timeoutMs = Math.min(opts.timeoutMs ?? TRANSACTION_TIMEOUT_MS, MAX_TRANSACTION_TIMEOUT_MS);
    const release = await this.gate.take();
    let tx: SqliteTransaction;
    try {
      const db = this.connection();
      // another process may hold the write lock for a moment: retried without blocking, as writeTx does
      await read(() => db.exec(BEGIN_IMMEDIATE));
      tx = new SqliteTransaction(db, timeoutMs);
    } catch (err) {
      release();
      throw err;
    }
    const timer = setTimeout(() => {
      tx.end('timed_out');
      release();
    }, timeoutMs);
    try {
      const out = await this.gate.runInside(() => fn(tx));
      if (tx.state === 'timed_out') throw tx.timeoutError();
      if (tx.state !== 'open') throw new Error('withTransaction: a statement ended the transaction; it was not committed');
      tx.end('committed');
      if (tx.created) this.wake();
      return out;
    } catch (err) {
      tx.end('rolled_back');
      throw err;
    } finally {
      clearTimeout(timer);
      release();
    }
  }
}
