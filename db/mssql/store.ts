// The SQL Server Store. A shared pool serves producers, operators, heartbeats and views; every
// worker has its own connection (session.ts) for its claims and its sql and procedure tasks, so
// ExecutionLog.session is the SPID that ran the attempt. All T-SQL comes from sql.ts.
import { NonRetryableError, ValidationError } from '../../lib/engine/errors';
import type { CancelResult, DeleteResult, RetryResult, Store } from '../../lib/engine/store';
import type {
  AttemptFilter, AttemptResult, AttemptView, BatchInput, BatchStatus, BatchView, ClaimedTask, ClaimOptions, EnqueueInput,
  EnqueueResult, FailureFilter, FailureGroup, HeartbeatInput, HeartbeatResult, MetricPoint, Page,
  ProcedureParameter, PruneResult, QueueChange, QueueCounts, QueuePatch, QueueSettings, QueueView, RescueResult,
  RunningView, SqlRunResult, TaskDetail, TaskFilter, TaskKind, TaskView, TokenView, WorkerRegistration, WorkerSession,
  WorkerSlot, WorkerView,
} from '../../lib/engine/types';
import * as batches from './batches';
import { query, sql, type ConnectionPool, type Param } from './driver';
import { retrying } from './errors';
import { listRunning, Live } from './live';
import { migrate } from './migrations';
import * as ops from './operators';
import { ProcedureCatalog } from './procs';
import * as queues from './queues';
import { claimedTask, id, type ClaimRow, type Id } from './rows';
import { idleTag, leavesSessionState, runRpc, runScript, taskTag, WorkerConnection, type Logger, type SessionInfo } from './session';
import * as S from './sql';
import { enqueueError, enqueueResults, enqueueRow, finishRow } from './tasks';
import { describeTarget, parseMssqlUrl, toConfig, type MssqlTarget } from './url';
import * as views from './views';

const STALE_WORKER_MS = 15_000;
const big = (v: unknown) => JSON.stringify(v);

interface Current { taskId: number; attempt: number; session: number }

export interface MssqlStoreOptions {
  log?: Logger;
}

export class MssqlStore implements Store {
  readonly dialect = 'mssql' as const;
  readonly kinds: readonly TaskKind[] = ['handler', 'sql', 'procedure'];
  readonly description: string;
  private readonly pool: ConnectionPool;
  private connecting: Promise<ConnectionPool> | null = null;
  private readonly workers = new Map<string, WorkerConnection>();
  /** the attempt each worker of this process claimed last (its tag, its session) */
  private readonly current = new Map<string, Current>();
  private readonly listeners = new Set<() => void>();
  private readonly procs = new ProcedureCatalog(() => this.shared());
  private readonly live = new Live(() => this.shared(), (r) => this.finish(r), () => this.target);
  private unbatchedServed = 0;
  private readonly log: Logger;

  constructor(private readonly target: MssqlTarget, opts: MssqlStoreOptions = {}) {
    this.description = describeTarget(target);
    this.log = opts.log ?? ((m, e) => console.warn(`readpast (SQL Server): ${m}${e ? `: ${(e as Error).message ?? e}` : ''}`));
    const cfg = toConfig(target, { appName: 'readpast', pool: { min: 0, max: 10 } });
    cfg.validateConnection = 'socket';
    cfg.options = { ...cfg.options, abortTransactionOnError: true };
    this.pool = new sql.ConnectionPool(cfg);
    this.pool.on('error', (err: unknown) => this.log('connection error', err));
  }

  private shared(): Promise<ConnectionPool> {
    this.connecting ??= this.pool.connect().catch((err: unknown) => {
      this.connecting = null;
      throw err;
    });
    return this.connecting;
  }

  private async q<T = Record<string, unknown>>(text: string, params: readonly Param[] = []) {
    return query<T>(await this.shared(), text, params);
  }

  private write<T = Record<string, unknown>>(text: string, params: readonly Param[] = []) {
    return retrying(() => this.q<T>(text, params));
  }

  /** What operators.ts needs of the store. */
  private readonly ctx: ops.StoreContext = {
    write: (text, params) => this.write(text, params),
    settle: (recordsets) => this.settle(recordsets),
    wake: () => this.wake(),
  };

  async migrate(): Promise<void> {
    await migrate(toConfig(this.target, { appName: 'readpast migrate' }));
  }

  async close(): Promise<void> {
    this.listeners.clear();
    const conns = [...this.workers.values()];
    this.workers.clear();
    await Promise.all(conns.map((c) => c.close()));
    await this.live.close();
    if (this.connecting) await this.pool.close().catch(() => {});
    this.connecting = null;
  }

  onWake(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private wake(): void {
    for (const l of this.listeners) {
      try { l(); } catch { /* a listener's failure is its own */ }
    }
  }

  private async settle(recordsets: unknown): Promise<void> {
    const ids = batches.touchedBatches(recordsets);
    if (ids.length) await retrying(async () => batches.settleBatches(await this.shared(), ids));
  }

  // ---- producers -------------------------------------------------------------------------

  private async insert(inputs: EnqueueInput[], prefix: (i: number) => string): Promise<EnqueueResult[]> {
    const rows = inputs.map((input, i) => enqueueRow(input, i, prefix(i)));
    for (const [i, input] of inputs.entries()) {
      if (input.kind === 'procedure') await this.procs.validate(input.command, input.payload ?? null, prefix(i));
    }
    try {
      const r = await this.write(S.ENQUEUE, [['tasks', sql.NVarChar(sql.MAX), big(rows)]]);
      const sets = r.recordsets as unknown as { ord: number; token: string; created: number }[][];
      this.wake();
      return enqueueResults(sets[0] ?? [], inputs.length);
    } catch (err) {
      throw enqueueError(err);
    }
  }

  enqueue(input: EnqueueInput): Promise<EnqueueResult> {
    return this.insert([input], () => '').then((r) => r[0]!);
  }

  async enqueueMany(inputs: EnqueueInput[]): Promise<EnqueueResult[]> {
    if (inputs.length === 0) return [];
    return this.insert(inputs, (i) => `tasks.${i}`);
  }

  // ---- workers -----------------------------------------------------------------------------

  private connection(workerId: string): WorkerConnection {
    let conn = this.workers.get(workerId);
    if (!conn) {
      conn = new WorkerConnection(this.target, workerId, (info, prev, expected) => this.sessionChanged(workerId, info, prev, expected), this.log);
      this.workers.set(workerId, conn);
    }
    return conn;
  }

  /** A worker's connection was replaced: record the new session (SPID + login time). */
  private async sessionChanged(workerId: string, info: SessionInfo, previous: SessionInfo | null, expected: boolean): Promise<void> {
    if (!previous) return;
    if (!expected) this.log(`worker ${workerId}: reconnected, now session ${info.session} (was ${previous.session})`);
    await this.write(S.UPDATE_WORKER_SESSION, [
      ['worker_id', sql.NVarChar(256), workerId], ['session', sql.Int, info.session], ['login_time', sql.DateTime, info.loginTime],
    ]);
  }

  async registerWorker(reg: WorkerRegistration): Promise<WorkerSession> {
    const old = this.workers.get(reg.workerId);
    if (old) {
      this.workers.delete(reg.workerId);
      await old.close();
    }
    const conn = this.connection(reg.workerId);
    const info = await conn.open();
    await this.write(S.REGISTER_WORKER, [
      ['worker_id', sql.NVarChar(256), reg.workerId], ['host', sql.NVarChar(256), reg.host.slice(0, 256)],
      ['pid', sql.Int, reg.pid], ['role', sql.NVarChar(32), reg.role.slice(0, 32)], ['session', sql.Int, info.session],
      ['login_time', sql.DateTime, info.loginTime],
    ]);
    return { session: info.session, loginTime: info.loginTime };
  }

  async deregisterWorker(workerId: string): Promise<void> {
    await this.write(S.DEREGISTER_WORKER, [['worker_id', sql.NVarChar(256), workerId]]);
    const conn = this.workers.get(workerId);
    this.workers.delete(workerId);
    this.current.delete(workerId);
    if (conn) await conn.close();
  }

  async registerHandlers(names: string[]): Promise<void> {
    if (names.length) await this.write(S.REGISTER_HANDLERS, [['names', sql.NVarChar(sql.MAX), big(names)]]);
  }

  async knownHandlers(): Promise<string[]> {
    return views.knownHandlers(await this.shared());
  }

  async heartbeat(input: HeartbeatInput): Promise<HeartbeatResult> {
    const r = await this.write<{ id: Id; cancel_requested: boolean }>(S.HEARTBEAT, [
      ['workers', sql.NVarChar(sql.MAX), big(input.workerIds)],
      ['running', sql.NVarChar(sql.MAX), big(input.running)],
      ['lease_ms', sql.Int, Math.min(2_147_483_647, Math.max(0, Math.round(input.leaseMs)))],
    ]);
    const owned = r.recordset.map((x) => id(x.id));
    const cancelRequested = r.recordset.filter((x) => x.cancel_requested).map((x) => id(x.id));
    return { owned, cancelRequested };
  }

  /** One slot's claim, on that worker's own connection. */
  private async claimOne(slot: WorkerSlot, opts: ClaimOptions): Promise<ClaimedTask | null> {
    const conn = this.connection(slot.workerId);
    await conn.ensureCurrent();
    const r = await retrying(() => conn.query(S.CLAIM, [
      ['worker_id', sql.NVarChar(256), slot.workerId],
      ['lease_ms', sql.Int, Math.min(2_147_483_647, Math.max(0, Math.round(opts.leaseMs)))],
      ['queues', sql.NVarChar(sql.MAX), opts.queues?.length ? big(opts.queues) : null],
      ['unbatched_served', sql.BigInt, this.unbatchedServed],
    ]));
    const sets = r.recordsets as unknown as ClaimRow[][];
    const row = sets[0]?.[0];
    if (!row) return null;
    if (row.batch_id === null) this.unbatchedServed = Math.max(this.unbatchedServed + 1, id(row.served_stamp));
    // the session that claimed it is the one that will run it; notice a reconnect now
    if (conn.info && row.session !== conn.info.session) await conn.tag(idleTag(slot.workerId));
    this.current.set(slot.workerId, { taskId: id(row.id), attempt: row.attempts, session: row.session });
    return claimedTask(row, slot.workerId);
  }

  /**
   * Slot by slot, each on its worker's own connection (so a second claim sees what the first one
   * served and granted, as one transaction would); stops at the first slot that finds nothing.
   */
  async claim(slots: WorkerSlot[], opts: ClaimOptions): Promise<ClaimedTask[]> {
    const out: ClaimedTask[] = [];
    let failure: unknown = null;
    for (const slot of slots) {
      try {
        const c = await this.claimOne(slot, opts);
        if (!c) break;
        out.push(c);
      } catch (err) {
        failure ??= err;
        this.log(`worker ${slot.workerId}: claim failed`, err);
      }
    }
    if (failure && out.length === 0) throw failure;
    return out;
  }

  async finish(results: AttemptResult[]): Promise<boolean[]> {
    if (results.length === 0) return [];
    const r = await this.write(S.FINISH, [['results', sql.NVarChar(sql.MAX), big(results.map(finishRow))]]);
    const rows = (r.recordsets as unknown as { ord: number; ok: number; frees: number }[][])[0] ?? [];
    const accepted = new Array<boolean>(results.length).fill(false);
    let wake = false;
    for (const row of rows) {
      accepted[row.ord] = row.ok === 1;
      const res = results[row.ord]!;
      const cur = this.current.get(res.workerId);
      if (cur && cur.taskId === res.taskId && cur.attempt === res.attempt) this.current.delete(res.workerId);
      if (row.ok === 1 && (row.frees === 1 || (res.settlement.kind === 'retry' && res.settlement.runAfter.getTime() <= Date.now()))) wake = true;
    }
    await this.settle(r.recordsets);
    if (wake) this.wake();
    return accepted;
  }

  /** Run work for the attempt a worker claimed, on its session, tagged with the attempt. */
  private onSession<T>(slot: WorkerSlot, fn: (pool: ConnectionPool) => Promise<T>, fresh = false): Promise<T> {
    const conn = this.connection(slot.workerId);
    const cur = this.current.get(slot.workerId);
    const tag = cur ? taskTag(cur.taskId, cur.attempt, slot.workerId) : idleTag(slot.workerId);
    return conn.withTask(tag, async (pool, info) => {
      if (cur && info.session !== cur.session) {
        // the connection was replaced since the claim: the attempt runs on the new session
        await this.write(S.UPDATE_ATTEMPT_SESSION, [['session', sql.Int, info.session], ['task_id', sql.BigInt, cur.taskId], ['attempt', sql.Int, cur.attempt]]);
        cur.session = info.session;
      }
      return fn(pool);
    }, fresh);
  }

  runSql(slot: WorkerSlot, text: string, signal: AbortSignal): Promise<SqlRunResult> {
    return this.onSession(slot, (pool) => runScript(pool, text, signal), leavesSessionState(text));
  }

  async runProcedure(slot: WorkerSlot, name: string, params: Record<string, unknown>, signal: AbortSignal): Promise<unknown> {
    let checked;
    try {
      checked = await this.procs.validate(name, params);
    } catch (err) {
      // the procedure changed since the task was enqueued: no retry can fix that
      if (err instanceof ValidationError) throw new NonRetryableError(err.message, { cause: err });
      throw err;
    }
    return this.onSession(slot, (pool) => runRpc(pool, checked.info.quotedName, checked.call, signal));
  }

  async describeProcedure(name: string): Promise<ProcedureParameter[] | null> {
    return (await this.procs.describe(name, true))?.params ?? null;
  }

  async validateProcedure(name: string, params: Record<string, unknown>): Promise<void> {
    await this.procs.validate(name, params);
  }

  // ---- maintenance and operators (operators.ts) -----------------------------------------

  rescueExpired(): Promise<RescueResult> { return ops.rescueExpired(this.ctx); }
  markLostWorkers(staleMs: number): Promise<number> { return ops.markLostWorkers(this.ctx, staleMs); }
  prune(olderThan: Date): Promise<PruneResult> { return ops.prune(this.ctx, olderThan); }
  async sampleDepth(): Promise<void> { await this.write(S.SAMPLE_DEPTH); }
  async getTask(token: string): Promise<TaskDetail | null> { return views.getTask(await this.shared(), token); }
  cancel(token: string): Promise<CancelResult> { return ops.cancel(this.ctx, token); }
  retry(token: string): Promise<RetryResult> { return ops.retry(this.ctx, token); }
  retryFailed(filter: FailureFilter): Promise<number> { return ops.retryFailed(this.ctx, filter); }
  deleteTask(token: string): Promise<DeleteResult> { return ops.deleteTask(this.ctx, token); }
  deleteFailed(filter: FailureFilter): Promise<number> { return ops.deleteFailed(this.ctx, filter); }

  // ---- queues ------------------------------------------------------------------------------

  async getQueue(name: string): Promise<QueueSettings | null> {
    return views.getQueue(await this.shared(), name);
  }

  async listQueues(): Promise<QueueSettings[]> {
    return (await this.listQueueViews()).map(({ pending: _p, running: _r, granted: _g, ...q }) => q);
  }

  async setQueue(name: string, patch: QueuePatch, changedBy: string): Promise<QueueSettings> {
    const q = await retrying(async () => queues.setQueue(await this.shared(), name, patch, changedBy));
    this.wake();
    return q;
  }

  async listQueueViews(): Promise<QueueView[]> { return queues.listQueueViews(await this.shared()); }
  async queueChanges(queue: string | null, limit: number): Promise<QueueChange[]> { return queues.queueChanges(await this.shared(), queue, limit); }
  async listTokens(queue: string | null): Promise<TokenView[]> { return queues.listTokens(await this.shared(), queue, STALE_WORKER_MS); }

  // ---- batches -----------------------------------------------------------------------------

  async createBatch(input: BatchInput): Promise<BatchView> {
    const pool = await this.shared();
    return (await batches.getBatch(pool, await batches.createBatch(pool, input)))!;
  }

  async getBatch(batchId: number): Promise<BatchView | null> { return batches.getBatch(await this.shared(), batchId); }

  async listBatches(filter: { status?: BatchStatus; cursor?: number; limit?: number }): Promise<Page<BatchView>> {
    return batches.listBatches(await this.shared(), filter);
  }

  async releaseBatch(batchId: number): Promise<'released' | 'not_found' | 'conflict'> {
    const pool = await this.shared();
    const r = await batches.releaseBatch(pool, batchId);
    if (r === 'released') await retrying(() => batches.settleBatches(pool, [batchId]));
    return r;
  }

  async cancelBatch(batchId: number): Promise<{ result: 'cancelled' | 'not_found' | 'conflict'; cancelled: number }> {
    return retrying(async () => batches.cancelBatch(await this.shared(), batchId));
  }

  // ---- views -------------------------------------------------------------------------------

  async countsByQueue(): Promise<QueueCounts[]> { return views.countsByQueue(await this.shared()); }
  async listTasks(filter: TaskFilter): Promise<Page<TaskView>> { return views.listTasks(await this.shared(), filter); }
  async listAttempts(filter: AttemptFilter): Promise<Page<AttemptView>> { return views.listAttempts(await this.shared(), filter); }
  async listWorkers(): Promise<WorkerView[]> { return views.listWorkers(await this.shared()); }
  async failureGroups(filter: FailureFilter): Promise<FailureGroup[]> { return views.failureGroups(await this.shared(), filter); }
  async metrics(since: Date): Promise<MetricPoint[]> { return views.metrics(await this.shared(), since); }

  async listRunning(): Promise<RunningView[]> {
    const caps = await this.live.capabilities();
    return listRunning(await this.shared(), caps.liveStatus);
  }

  // ---- live status and KILL (live.ts) -----------------------------------------------------

  async liveStatusAvailable(): Promise<{ available: boolean; reason: string | null }> {
    const c = await this.live.capabilities();
    return { available: c.liveStatus, reason: c.liveReason };
  }

  killSession(token: string): Promise<'killed' | 'not_found' | 'conflict'> {
    return this.live.kill(token);
  }
}

/** Parse the URL, connect, migrate. */
export async function openMssqlStore(url: string, opts: MssqlStoreOptions = {}): Promise<MssqlStore> {
  const store = new MssqlStore(parseMssqlUrl(url), opts);
  await store.migrate();
  return store;
}

