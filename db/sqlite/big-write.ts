// Big writes — a flow of thousands of nodes, enqueueMany of thousands of tasks, every failure of a selection
// retried or deleted — without holding the event loop that serves every page of the dashboard.
//
// better-sqlite3 is synchronous: a write transaction runs to its end before anything else of this process
// does, which is right for the short ones (a claim, a settle, a heartbeat: a millisecond or so) and wrong for a
// 10,000-node flow (about a second; twenty of them queued made a page wait ten). A big write is therefore one
// transaction written in slices: its work is a generator (`Steps`) that yields between rows it has written,
// and the driver below lets the event loop run whenever a slice has taken SLICE_MS (lib/engine/slices.ts),
// then carries on. It stays
// ONE transaction, so a flow is created whole or not at all.
//
// Where it runs: on the store's second connection (the one withTransaction uses, transaction.ts), BEGIN
// IMMEDIATE, holding the store's WriteGate (connection.ts) from BEGIN to COMMIT. So, while it yields:
// - reads go on, on the store's connection, and see what was committed before it (WAL): never half a flow;
// - this process's short writers wait on the gate — and go first once it is released, before the next big
//   write begins (WriteGate), so they wait for one big write at most;
// - big writes and caller transactions queue on the gate, one at a time, in order;
// - other processes' writers get SQLITE_BUSY and retry without blocking (writeTx), as behind any writer.
// A write that is small (below BIG_WRITE_ROWS) is run at once, synchronously, on the store's connection, as
// every write was: it is over before a slice would be, and pays no gate and no second connection.
import { Slices } from '../../lib/engine/slices';
import { read, refuseInsideOwn, type Db, type WriteGate } from './connection';
import { BEGIN_IMMEDIATE, COMMIT, ROLLBACK } from './sql/transaction';

/** A write's work as steps: it yields (nothing) where it may pause, and returns its outcome. */
export type Steps<T> = Generator<void, T, void>;

/** From this many rows (tasks of a flow or an enqueueMany) a write is big: written in slices. */
export const BIG_WRITE_ROWS = 1000;

/** Run steps to their end at once (a small write, or one inside a transaction that cannot pause). */
export function runSteps<T>(steps: Steps<T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * Run `steps` on `connection()` in one BEGIN IMMEDIATE transaction, holding `gate` from BEGIN to COMMIT,
 * letting the event loop run between slices; rolled back (and the gate released) when a step throws.
 */
export async function slicedTx<T>(connection: () => Db, gate: WriteGate, steps: (db: Db) => Steps<T>): Promise<T> {
  refuseInsideOwn(gate);
  const release = await gate.take();
  try {
    const db = connection();
    // another process may hold the write lock for a moment: retried without blocking
    await read(() => db.exec(BEGIN_IMMEDIATE));
    try {
      const it = steps(db);
      const slices = new Slices();
      for (;;) {
        const r = it.next();
        if (r.done) {
          db.exec(COMMIT);
          return r.value;
        }
        if (slices.due) await slices.pause();
      }
    } catch (err) {
      if (db.inTransaction) db.exec(ROLLBACK);
      throw err;
    }
  } finally {
    release();
  }
}
