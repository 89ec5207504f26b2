// Opening the embedded database: WAL, a short busy timeout, and an async retry path for SQLITE_BUSY
// so a locked database never blocks the event loop for long; and what every concern of the store shares.
import Database from 'better-sqlite3';
import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { AuditWrite } from '../../lib/engine/ports';
import type { Tally } from './tally';

export type Db = Database.Database;

/**
 * What every concern of the store shares (built in store.ts): the one connection, its write
 * transaction, and the wake-up signal an in-process worker pool listens to.
 */
export interface Shared {
  readonly db: Db;
  /**
   * A write transaction (BEGIN IMMEDIATE, tried again while another process writes); the kept
   * aggregates collected in `tally` are flushed, and the batches whose tasks moved settled, before it commits.
   * With `audit`, the audit row built from `fn`'s outcome is written in the same transaction (audit.ts).
   */
  tx<T>(fn: (tally: Tally, now: number) => T, audit?: AuditWrite<T>): Promise<T>;
  /**
   * A write of `rows` rows (tasks) whose work is steps (big-write.ts), on the connection it is given: from
   * BIG_WRITE_ROWS rows one transaction written in slices on the store's second connection, the event loop
   * free between them; below that, as `tx`.
   */
  write<T>(rows: number, fn: (db: Db, tally: Tally, now: number) => Generator<void, T, void>, audit?: AuditWrite<T>): Promise<T>;
  /** One statement that writes, in a transaction of its own (autocommitWrite): an append to the intake (intake.ts). */
  append<T>(fn: () => T): Promise<T>;
  /** Something this store committed may have become claimable. */
  wake(): void;
  /**
   * Throws when called inside withTransaction's callback, as `tx` would (a write on the store's connection from
   * there would wait for the transaction it runs in): for a write that `tx` runs later, outside the caller's context.
   */
  refuseInsideOwn(): void;
}

const BUSY_TIMEOUT_MS = 50;
const BUSY_RETRY_FOR_MS = 30_000;

export function openDatabase(path: string): Db {
  if (path !== ':memory:') mkdirSync(dirname(resolve(path)), { recursive: true });
  const db = new Database(path);
  // Opening may meet another process's lock: the first opener rebuilding the WAL index, a process holding the file
  // exclusively, a writer descheduled while it holds the lock on a busy machine. These pragmas have no async retry
  // around them, so they wait the whole retry time in SQLite's busy handler — once, at open; then the short timeout.
  db.pragma(`busy_timeout = ${BUSY_RETRY_FOR_MS}`);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = OFF');
  db.pragma('cache_size = -32000');
  db.pragma('temp_store = MEMORY');
  // checkpoint (which syncs the file) every ~40 MB of WAL rather than every 4 MB; keep the WAL
  // file itself from growing past 64 MB once checkpointed
  db.pragma('wal_autocheckpoint = 10000');
  db.pragma('journal_size_limit = 67108864');
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  return db;
}

export function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The write lock of this process's long transactions: a caller's transaction (transaction.ts) and a big write
 * written in slices (big-write.ts) each hold it, one at a time and in the order they asked, for as long as it
 * holds the file's write lock on the store's second connection across awaits. The store's short writers wait
 * here while it is held (and never spin on SQLITE_BUSY against it, each try blocking the event loop for the
 * busy timeout) — and go first when it is released: the next holder takes it a turn of the event loop later,
 * so a claim or a heartbeat waits for one long transaction at most, never for a queue of them. Code running
 * inside the holder's callback is recognised (AsyncLocalStorage), as a write there on the store's connection
 * would wait for its own transaction.
 */
export class WriteGate {
  /** the holder's mark while the gate is held (which its callback's async context carries) */
  private holder: object | null = null;
  /** those waiting to hold it, first come first served */
  private readonly takers: (() => void)[] = [];
  /** those waiting for it to be free (short writers) */
  private waiters: (() => void)[] = [];
  /** released, the next taker not in yet (the short writers' turn) */
  private handing = false;
  private readonly inside = new AsyncLocalStorage<object>();

  get busy(): boolean {
    return this.holder !== null;
  }

  /** Resolves once the gate is not held; how long that took (ms). */
  async free(): Promise<number> {
    const t0 = Date.now();
    while (this.holder) await new Promise<void>((r) => this.waiters.push(r));
    return Date.now() - t0;
  }

  /** Wait for the gate and take it; the returned release may be called more than once. */
  take(): Promise<() => void> {
    const mark = {};
    const release = () => {
      if (this.holder !== mark) return;
      this.holder = null;
      const waiters = this.waiters;
      this.waiters = [];
      for (const w of waiters) w();
      if (this.takers.length && !this.handing) {
        this.handing = true;
        setImmediate(() => {
          this.handing = false;
          this.takers.shift()?.();
        });
      }
    };
    if (!this.holder && !this.handing && this.takers.length === 0) {
      this.holder = mark;
      return Promise.resolve(release);
    }
    return new Promise((resolve) =>
      this.takers.push(() => {
        this.holder = mark;
        resolve(release);
      }),
    );
  }

  /** Run the holder's callback, marked as inside this gate's transaction. */
  runInside<T>(fn: () => Promise<T>): Promise<T> {
    return this.inside.run(this.holder ?? {}, fn);
  }

  /**
   * True inside the callback of the transaction holding the gate now (not in a timer the callback left
   * behind once that transaction has ended).
   */
  get insideOwn(): boolean {
    const mark = this.inside.getStore();
    return mark !== undefined && mark === this.holder;
  }
}

/** A write on the store's connection from inside withTransaction's callback would wait for the transaction it runs in. */
export function refuseInsideOwn(gate: WriteGate): void {
  if (gate.insideOwn) {
    throw new Error(
      'inside withTransaction, write through its tx (tx.enqueue, tx.execute): this call would wait for the transaction it runs in',
    );
  }
}

const runners = new WeakMap<Db, Database.Transaction<(fn: () => unknown) => unknown>>();

/** One transaction function per connection that runs what it is given (better-sqlite3 builds four wrappers per function). */
function runner(db: Db): Database.Transaction<(fn: () => unknown) => unknown> {
  let r = runners.get(db);
  if (!r) runners.set(db, (r = db.transaction((fn: () => unknown) => fn())));
  return r;
}

/**
 * Run `fn` in a BEGIN IMMEDIATE transaction; when the database is busy (another process writing),
 * wait a little without blocking the event loop and try again. With a `gate`, first wait while a caller
 * transaction of this process holds it (that wait is not counted against the busy deadline: it is
 * bounded by the transaction's own timeout, TransactionOptions). `retryForMs`: how long to try while another process writes.
 */
export function writeTx<T>(db: Db, fn: () => T, gate?: WriteGate, retryForMs = BUSY_RETRY_FOR_MS): Promise<T> {
  const tx = runner(db);
  return retryWrite(() => tx.immediate(fn) as T, gate, retryForMs);
}

/**
 * Run `fn`, one statement that writes, in a transaction of its own (autocommit: no BEGIN and COMMIT around it, which
 * cost as much as a small write); waits and retries as writeTx.
 */
export function autocommitWrite<T>(fn: () => T, gate: WriteGate): Promise<T> {
  return retryWrite(fn, gate, BUSY_RETRY_FOR_MS);
}

/** A write's waits: for this process's caller transaction (`gate`), then while another process writes, for `retryForMs`. */
async function retryWrite<T>(write: () => T, gate: WriteGate | undefined, retryForMs: number): Promise<T> {
  if (gate) refuseInsideOwn(gate);
  let deadline = Date.now() + retryForMs;
  for (let i = 0; ; i++) {
    if (gate?.busy) deadline += await gate.free();
    try {
      return write();
    } catch (err) {
      if (!isBusy(err) || Date.now() > deadline) throw err;
      await pause(Math.min(100, 2 + i * 3) * (0.5 + Math.random()));
    }
  }
}

/** Same retry path for a read (a WAL reader is rarely busy, but can be during a checkpoint or recovery). */
export async function read<T>(fn: () => T): Promise<T> {
  const deadline = Date.now() + BUSY_RETRY_FOR_MS;
  for (let i = 0; ; i++) {
    try {
      return fn();
    } catch (err) {
      if (!isBusy(err) || Date.now() > deadline) throw err;
      await pause(Math.min(100, 2 + i * 3));
    }
  }
}

const PRIMARY_CODES: Record<string, number> = {
  SQLITE_ERROR: 1,
  SQLITE_INTERNAL: 2,
  SQLITE_PERM: 3,
  SQLITE_ABORT: 4,
  SQLITE_BUSY: 5,
  SQLITE_LOCKED: 6,
  SQLITE_NOMEM: 7,
  SQLITE_READONLY: 8,
  SQLITE_INTERRUPT: 9,
  SQLITE_IOERR: 10,
  SQLITE_CORRUPT: 11,
  SQLITE_FULL: 13,
  SQLITE_CANTOPEN: 14,
  SQLITE_CONSTRAINT: 19,
  SQLITE_MISMATCH: 20,
  SQLITE_MISUSE: 21,
  SQLITE_RANGE: 25,
  SQLITE_NOTADB: 26,
};

/** SQLite's primary result code for an error code string like SQLITE_CONSTRAINT_UNIQUE. */
export function sqliteErrorNumber(code: unknown): number | null {
  if (typeof code !== 'string') return null;
  for (const [name, n] of Object.entries(PRIMARY_CODES)) if (code === name || code.startsWith(name + '_')) return n;
  return null;
}
