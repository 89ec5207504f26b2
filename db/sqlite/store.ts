// The embedded SQLite Store, composed from one module per concern. One connection per process
// (better-sqlite3 is synchronous, so every transaction is short and serial); BEGIN IMMEDIATE makes each
// write transaction the single writer across processes sharing the file. All SQL is in sql/.
import { basename } from 'node:path';
import type { CommandPort, MaintenancePort, ReadModel, Store, StoreCapabilities, WorkerPort } from '../../lib/engine/ports';
import type { DoctorCheck, MigrateReport, TaskKind } from '../../lib/engine/types';
import * as attemptLogs from './attempt-logs';
import * as alerts from './alerts';
import { evaluateAlerts } from '../../lib/engine/alerts';
import * as audit from './audit';
import * as poolSettings from './pool-settings';
import * as batches from './batches';
import * as bulk from './bulk';
import { claim } from './claim';
import { autocommitWrite, openDatabase, refuseInsideOwn, writeTx, WriteGate, type Db, type Shared } from './connection';
import { diagnoseSqlite } from './doctor';
import * as enqueue from './enqueue';
import * as events from './events';
import * as failures from './failures';
import * as throttle from './throttle';
import * as flowCommands from './flow-commands';
import * as history from './history';
import * as maintenance from './maintenance';
import { migrate } from './migrations';
import * as operators from './operators';
import * as queues from './queues';
import * as reads from './reads';
import * as flowReads from './flow-reads';
import * as run from './run';
import * as schedules from './schedules';
import * as steps from './steps';
import { transactionStep } from './step-transaction';
import { finish } from './settle';
import { withPayloadPreview } from './running-preview';
import { closeTally, refuseExternal, tallied, Transactions } from './transaction';
import { admit, intakeWaiting } from './intake';
import { BIG_WRITE_ROWS, runSteps, slicedTx } from './big-write';
import { Tally } from './tally';
import * as workers from './workers';
import { bindPort, slicesOf } from '../shared/bind';

/** The concern modules whose slices make the ports (db/shared/bind.ts). */
const concerns = [
  workers,
  attemptLogs,
  maintenance,
  schedules,
  operators,
  queues,
  batches,
  audit,
  alerts,
  bulk,
  poolSettings,
  reads,
  flowReads,
  history,
  failures,
  throttle,
  flowCommands,
  steps,
  events,
];

/**
 * The default `prefetch` of a pool on the embedded SQLite store: a pool of 4 claims up to 256 tasks at once
 * (`npm run bench:peers`: a pool drains 15–25 % more than with 60, the claim's fixed cost spread wider).
 */
export const PREFETCH_SQLITE = 252;

/** How long a read waits for another process's write lock to move the intake first (intake.ts) before it reads anyway. */
export const ADMIT_WAIT_MS = 1_000;

/** A port (every method async) with `first` awaited before each of its methods but the clock. */
function admitFirst<P extends object>(first: () => Promise<void>, port: P): P {
  const out: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(port as Record<string, (...a: unknown[]) => Promise<unknown>>)) {
    out[name] =
      name === 'clock'
        ? fn
        : async (...args: unknown[]) => {
            await first();
            return fn(...args);
          };
  }
  return out as P;
}

export class SqliteStore implements Store {
  readonly dialect = 'sqlite' as const;
  readonly kinds: readonly TaskKind[] = ['handler', 'sql'];
  /** one claim transaction serves every slot: claiming ahead pays */
  readonly capabilities: StoreCapabilities = { prefetch: PREFETCH_SQLITE };
  readonly description: string;
  readonly worker: WorkerPort;
  readonly maintenance: MaintenancePort;
  readonly commands: CommandPort;
  readonly reads: ReadModel;
  readonly sqlServer = null;
  private readonly db: Db;
  private readonly listeners = new Set<() => void>();
  /** the second connection: withTransaction's, and big writes' (opened on first use) */
  private side: Db | null = null;
  private closed = false;

  constructor(readonly path: string) {
    const db = (this.db = openDatabase(path));
    this.description = `sqlite:${path}`;
    const listeners = this.listeners;
    // a caller's transaction (withTransaction) holds the write lock on its own connection: writers wait for it
    const gate = new WriteGate();
    // the second connection: withTransaction's and big writes' (big-write.ts), opened on first use
    const side = () => (this.side ??= openDatabase(path));
    const shared: Shared = {
      db,
      /** a write transaction; kept aggregates are flushed and batches settled before it commits */
      tx: async (fn, audited) => {
        let id: number | undefined;
        const out = await writeTx(
          db,
          () =>
            tallied(db, (tally, now) => {
              const r = fn(tally, now);
              if (audited) id = audit.writeAudit(db, now, audited, r);
              return r;
            }),
          gate,
        );
        // known once committed: a later transaction of the same action rewrites this row
        if (audited && id !== undefined) audited.id = id;
        return out;
      },
      write: async (rows, fn, audited) => {
        if (rows < BIG_WRITE_ROWS || path === ':memory:') return shared.tx((tally, now) => runSteps(fn(db, tally, now)), audited);
        let id: number | undefined;
        const out = await slicedTx(side, gate, function* (conn) {
          const tally = new Tally();
          const now = Date.now();
          admit(conn, tally, now);
          const r = yield* fn(conn, tally, now);
          closeTally(conn, tally, now);
          if (audited) id = audit.writeAudit(conn, now, audited, r);
          return r;
        });
        if (audited && id !== undefined) audited.id = id;
        return out;
      },
      append: (fn) => autocommitWrite(fn, gate),
      refuseInsideOwn: () => refuseInsideOwn(gate),
      wake: () => {
        for (const l of listeners) {
          try {
            l();
          } catch {
            /* a listener's failure is its own */
          }
        }
      },
    };

    const transactions = new Transactions(path, side, gate, shared.wake);
    // each port: its concern modules' slices bound to `shared` (db/shared/bind.ts), and what is the store's own
    this.worker = bindPort<WorkerPort, Shared>(shared, {
      ...slicesOf('workerSlice', concerns),
      claim,
      finish,
      // one connection: every attempt runs on this process's session (after a caller's transaction ends)
      runSql: async (_, attempt, text, signal) => {
        // a traced attempt's database span: the file and the session it ran on
        attempt.db?.report({ system: 'sqlite', namespace: basename(path), session: attempt.session });
        await gate.free();
        return run.runSql(db, text, signal, attempt.parents);
      },
      runProcedure: () => run.runProcedure(),
      // on the transaction connection, as withTransaction: this process's other writers wait for it (timeoutMs)
      transactionStep: (_, attempt, step, fn, timeoutMs) => transactionStep(transactions, attempt, step, fn, timeoutMs),
      onWake: (_, listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    });
    this.commands = bindPort<CommandPort, Shared>(shared, {
      ...slicesOf('commandSlice', concerns),
      enqueue: async (_, input, opts, audited) => {
        refuseExternal(opts);
        return enqueue.enqueue(shared, input, audited);
      },
      enqueueMany: async (_, inputs, opts, audited) => {
        refuseExternal(opts);
        return enqueue.enqueueMany(shared, inputs, audited);
      },
      createFlow: async (_, input, opts, audited) => {
        refuseExternal(opts);
        return flowCommands.createFlow(shared, input, audited);
      },
      transaction: (_, fn, opts) => transactions.run(fn, opts),
    });
    // a read sees what producers appended to the intake: moved into Tasks first (intake.ts), by a write transaction
    // taken only when the intake holds a task and this process's gate is free (not inside withTransaction's callback,
    // which would wait for its own transaction, nor beside this process's caller transaction or big write), waiting
    // ADMIT_WAIT_MS at most for another process's write lock. Past that, or on a file this process cannot write, the
    // read shows Tasks as they are (getTask finds an unmoved task in the intake; a write says why it cannot)
    const admitted = async () => {
      if (gate.busy || !intakeWaiting(db)) return;
      try {
        await writeTx(db, () => tallied(db, () => undefined), gate, ADMIT_WAIT_MS);
      } catch {
        /* read as they are */
      }
    };
    // maintenance reads the pending depth outside a transaction: it sees them as well
    this.maintenance = admitFirst(
      admitted,
      bindPort<MaintenancePort, Shared>(shared, {
        ...slicesOf('maintenanceSlice', concerns),
        evaluateAlerts: (_, now) => evaluateAlerts(this, now),
      }),
    );
    this.reads = admitFirst(
      admitted,
      bindPort<ReadModel, Shared>(shared, {
        ...slicesOf('readSlice', concerns),
        listRunning: () => attemptLogs.withProgress(shared, withPayloadPreview(shared, reads.listRunning(shared))),
        // the times SQLite's store writes are this process's clock (connection.ts tx)
        clock: async () => new Date(),
      }),
    );
  }

  /** what opening the file migrated, not yet reported: the first migrate() call reports it too */
  private opened: MigrateReport | null = null;

  async migrate(): Promise<MigrateReport> {
    const now = await migrate(this.db);
    const before = this.opened;
    this.opened = null;
    return before ? { applied: [...before.applied, ...now.applied], installed: [...before.installed, ...now.installed], dropped: [] } : now;
  }

  /** Migrate on open (every SQLite store does), keeping the report for the first migrate() call. */
  async migrateOnOpen(): Promise<void> {
    this.opened = await migrate(this.db);
  }

  diagnose(): Promise<DoctorCheck[]> {
    return diagnoseSqlite(this.path, this.db);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.listeners.clear();
    this.side?.close();
    this.side = null;
    this.db.close();
  }
}

/** `readpast doctor` on a file without opening a store: a missing file is not created, a damaged one is reported. */
export function diagnoseSqliteFile(path: string): Promise<DoctorCheck[]> {
  return diagnoseSqlite(path);
}

/** Open the database file (created if missing) and migrate it; a file a newer readpast migrated is refused. */
export async function openSqliteStore(path: string): Promise<SqliteStore> {
  const store = new SqliteStore(path);
  try {
    await store.migrateOnOpen();
  } catch (err) {
    await store.close();
    throw err;
  }
  return store;
}
