// The embedded SQLite Store, composed from one module per concern. One connection per process
// (better-sqlite3 is synchronous, so every transaction is short and serial); BEGIN IMMEDIATE makes each
// write transaction the single writer across processes sharing the file. All SQL is in sql/.
import type { CommandPort, MaintenancePort, ReadModel, Store, WorkerPort } from '../../lib/engine/ports';
import type { DoctorCheck, TaskKind } from '../../lib/engine/types';
import * as attemptLogs from './attempt-logs';
import * as alerts from './alerts';
import { evaluateAlerts } from '../../lib/engine/alerts';
import * as audit from './audit';
import * as poolSettings from './pool-settings';
import * as batches from './batches';
import * as bulk from './bulk';
import { claim } from './claim';
import { openDatabase, writeTx, WriteGate, type Db, type Shared } from './connection';
import { diagnoseSqlite } from './doctor';
import * as enqueue from './enqueue';
import * as failures from './failures';
import * as history from './history';
import * as maintenance from './maintenance';
import { migrate } from './migrations';
import * as operators from './operators';
import * as queues from './queues';
import * as reads from './reads';
import * as run from './run';
import * as schedules from './schedules';
import { finish } from './settle';
import { withPayloadPreview } from './running-preview';
import { refuseExternal, tallied, Transactions } from './transaction';
import * as workers from './workers';

export class SqliteStore implements Store {
  readonly dialect = 'sqlite' as const;
  readonly kinds: readonly TaskKind[] = ['handler', 'sql'];
  readonly description: string;
  readonly worker: WorkerPort;
  readonly maintenance: MaintenancePort;
  readonly commands: CommandPort;
  readonly reads: ReadModel;
  readonly sqlServer = null;
  private readonly db: Db;
  private readonly listeners = new Set<() => void>();
  private readonly transactions: Transactions;
  private closed = false;

  constructor(readonly path: string) {
    const db = (this.db = openDatabase(path));
    this.description = `sqlite:${path}`;
    const listeners = this.listeners;
    // a caller's transaction (withTransaction) holds the write lock on its own connection: writers wait for it
    const gate = new WriteGate();
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

    const transactions = (this.transactions = new Transactions(path, gate, shared.wake));
    this.worker = {
      registerWorker: (reg) => workers.registerWorker(shared, reg),
      deregisterWorker: (workerId) => workers.deregisterWorker(shared, workerId),
      registerHandlers: (names) => workers.registerHandlers(shared, names),
      heartbeat: (input) => workers.heartbeat(shared, input),
      claim: (slots, opts) => claim(shared, slots, opts),
      finish: (results) => finish(shared, results),
      appendAttemptOutput: (batch) => attemptLogs.appendAttemptOutput(shared, batch),
      // one connection: every attempt runs on this process's session (after a caller's transaction ends)
      runSql: async (_attempt, text, signal) => {
        await gate.free();
        return run.runSql(db, text, signal);
      },
      runProcedure: () => run.runProcedure(),
      onWake: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    };

    this.maintenance = {
      rescueExpired: () => maintenance.rescueExpired(shared),
      markLostWorkers: (staleMs) => maintenance.markLostWorkers(shared, staleMs),
      prune: (olderThan) => maintenance.prune(shared, olderThan),
      sampleDepth: () => maintenance.sampleDepth(shared),
      fireDue: (now) => schedules.fireDue(shared, now),
      evaluateAlerts: (now) => evaluateAlerts(this, now),
    };

    this.commands = {
      enqueue: async (input, opts, audited) => {
        refuseExternal(opts);
        return enqueue.enqueue(shared, input, audited);
      },
      enqueueMany: async (inputs, opts, audited) => {
        refuseExternal(opts);
        return enqueue.enqueueMany(shared, inputs, audited);
      },
      transaction: (fn, opts) => transactions.run(fn, opts),
      cancel: (token, a) => operators.cancel(shared, token, a),
      retry: (token, a) => operators.retry(shared, token, a),
      retryFailed: (filter, a) => operators.retryFailed(shared, filter, a),
      deleteTask: (token, a) => operators.deleteTask(shared, token, a),
      deleteFailed: (filter, a) => operators.deleteFailed(shared, filter, a),
      setQueue: (name, patch, changedBy, a) => queues.setQueue(shared, name, patch, changedBy, a),
      createBatch: (input, a) => batches.createBatch(shared, input, a),
      releaseBatch: (id, a) => batches.releaseBatch(shared, id, a),
      cancelBatch: (id, a) => batches.cancelBatch(shared, id, a),
      createSchedule: (s, nextFireAt, by, a) => schedules.createSchedule(shared, s, nextFireAt, by, a),
      updateSchedule: (name, s, version, nextFireAt, by, a) => schedules.updateSchedule(shared, name, s, version, nextFireAt, by, a),
      deleteSchedule: (name, a) => schedules.deleteSchedule(shared, name, a),
      runSchedule: (name, by, a) => schedules.runSchedule(shared, name, by, a),
      recordAudit: (entries) => audit.recordAudit(shared, entries),
      createAlertRule: (input, by, a) => alerts.createAlertRule(shared, input, by, a),
      updateAlertRule: (id, input, by, a) => alerts.updateAlertRule(shared, id, input, by, a),
      deleteAlertRule: (id, a) => alerts.deleteAlertRule(shared, id, a),
      writeAlerts: (w, a) => alerts.writeAlerts(shared, w, a),
      editTask: (token, patch, retry, a) => bulk.editTask(shared, token, patch, retry, a),
      bulk: (action, tokens, opts, a) => bulk.bulk(shared, action, tokens, opts, a),
      setPoolSetting: (s, a) => poolSettings.setPoolSetting(shared, s, a),
    };

    this.reads = {
      getTask: (token) => reads.getTask(shared, token),
      listTasks: (filter) => reads.listTasks(shared, filter),
      listAttempts: (filter) => reads.listAttempts(shared, filter),
      listRunning: () => attemptLogs.withProgress(shared, withPayloadPreview(shared, reads.listRunning(shared))),
      listWorkers: () => reads.listWorkers(shared),
      knownHandlers: () => reads.knownHandlers(shared),
      metrics: (since) => reads.metrics(shared, since),
      history: (q) => history.history(shared, q),
      queueThroughput: (from, to, bucketMs) => history.queueThroughput(shared, from, to, bucketMs),
      historyTotals: () => history.historyTotals(shared),
      countsByQueue: () => reads.countsByQueue(shared),
      listQueues: () => queues.listQueues(shared),
      queueChanges: (queue, limit) => queues.queueChanges(shared, queue, limit),
      listTokens: (queue) => queues.listTokens(shared, queue),
      getBatch: (id) => batches.getBatch(shared, id),
      listBatches: (filter) => batches.listBatches(shared, filter),
      listSchedules: (recent) => schedules.listSchedules(shared, recent),
      getSchedule: (name, recent) => schedules.getSchedule(shared, name, recent),
      listAudit: (filter) => audit.listAudit(shared, filter),
      listAlertRules: () => alerts.listAlertRules(shared),
      getAlertRule: (id) => alerts.getAlertRule(shared, id),
      listAlertFirings: (filter) => alerts.listAlertFirings(shared, filter),
      deadTasksSince: (q) => alerts.deadTasksSince(shared, q),
      recentAttempts: (command, limit) => alerts.recentAttempts(shared, command, limit),
      attemptOutput: (token, attempt, afterSeq) => attemptLogs.attemptOutput(shared, token, attempt, afterSeq),
      failureGroupPage: (filter) => failures.failureGroupPage(shared, filter),
      getPoolSetting: (host, role) => poolSettings.getPoolSetting(shared, host, role),
      // the times SQLite's store writes are this process's clock (connection.ts tx)
      clock: async () => new Date(),
      abandonedSince: (since) => maintenance.abandonedSince(shared, since),
      pendingBreakdown: () => reads.pendingBreakdown(shared),
    };
  }

  async migrate(): Promise<void> {
    await migrate(this.db);
  }

  diagnose(): Promise<DoctorCheck[]> {
    return diagnoseSqlite(this.path, this.db);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.listeners.clear();
    this.transactions.close();
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
    await store.migrate();
  } catch (err) {
    await store.close();
    throw err;
  }
  return store;
}
