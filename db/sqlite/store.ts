// The embedded SQLite Store: one connection per process (better-sqlite3 is synchronous, so every
// transaction is short and serial); BEGIN IMMEDIATE makes each write transaction the single writer
// across processes sharing the file.
import { v7 as uuidv7 } from 'uuid';
import { ValidationError } from '../../lib/engine/errors';
import type { CancelResult, DeleteResult, RetryResult, Store } from '../../lib/engine/store';
import type {
  AttemptFilter, AttemptResult, AttemptView, BatchInput, BatchStatus, BatchView, ClaimedTask, ClaimOptions, EnqueueInput,
  EnqueueResult, FailureFilter, FailureGroup, HeartbeatInput, HeartbeatResult, MetricPoint, Page, PruneResult, QueueChange,
  QueueCounts, QueuePatch, QueueSettings, QueueView, RescueResult, RunningView, SqlRunResult, TaskDetail, TaskFilter,
  TaskKind, TaskView, TokenView, WorkerRegistration, WorkerSession, WorkerSlot, WorkerView,
} from '../../lib/engine/types';
import * as batches from './batches';
import { claim } from './claim';
import { migrate, openDatabase, read, writeTx, type Db } from './connection';
import * as ops from './operators';
import { toJson, type QueueRow } from './rows';
import { finish, rescueExpired } from './settle';
import { runSql } from './sql-task';
import { Tally, stmt } from './tally';
import * as tokens from './tokens';
import * as views from './views';

const DEFAULT_QUEUE = 'default';
const TASK_VALUES = "(?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?, ?)";
const INSERT_CHUNK = 50;
const MULTI_VALUES = Array(INSERT_CHUNK).fill(TASK_VALUES).join(', ');
const STALE_WORKER_MS = 15_000;

export class SqliteStore implements Store {
  readonly dialect = 'sqlite' as const;
  readonly kinds: readonly TaskKind[] = ['handler', 'sql'];
  readonly description: string;
  private readonly db: Db;
  private readonly listeners = new Set<() => void>();
  private closed = false;

  constructor(readonly path: string) {
    this.db = openDatabase(path);
    this.description = `sqlite:${path}`;
  }

  async migrate(): Promise<void> {
    await migrate(this.db);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.listeners.clear();
    this.db.close();
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

  /** a write transaction; kept aggregates are flushed and batches settled before it commits */
  private tx<T>(fn: (tally: Tally, now: number) => T): Promise<T> {
    return writeTx(this.db, () => {
      const tally = new Tally();
      const now = Date.now();
      const out = fn(tally, now);
      tally.flush(this.db);
      if (tally.batches.size) {
        batches.settleBatches(this.db, tally.batches, tally, now);
        tally.flush(this.db);
      }
      return out;
    });
  }

  private s(sql: string) {
    return stmt(this.db, sql);
  }

  // ---- producers -------------------------------------------------------------------------

  /**
   * Validate one task against its queue and batch, and return its INSERT parameters — or, when its
   * dedup key is held by an unfinished task, that task's token.
   */
  private taskRow(input: EnqueueInput, tally: Tally, now: number, cache: Map<string, QueueRow>): { token: string; params: unknown[] } | EnqueueResult {
    const queue = input.queue ?? DEFAULT_QUEUE;
    let q = cache.get(queue);
    if (!q) cache.set(queue, (q = tokens.ensureQueue(this.db, queue, now)));
    const batchId = input.batchId ?? null;
    const stage = batchId === null ? null : input.stage ?? 0;
    if (batchId === null && input.stage != null) throw new ValidationError('stage', 'a stage needs a batch');
    if (batchId !== null) batches.checkOpen(this.db, batchId, stage!);
    if (input.dedupKey) {
      const existing = this.s(`SELECT token FROM Tasks WHERE dedup_key = ? AND dedup_key IS NOT NULL
          AND status IN ('pending', 'running')`).get(input.dedupKey) as { token: string } | undefined;
      if (existing) return { token: existing.token, created: false };
    }
    // time-ordered (v7): new tokens append to the token index instead of landing on random pages
    const token = uuidv7();
    tally.task({ queue, batch_id: batchId, stage }, null, 'pending');
    tally.metric(now, 'enqueued');
    return {
      token,
      params: [token, queue, input.kind, input.command, toJson(input.payload), input.priority ?? 0, input.runAt ? input.runAt.getTime() : now,
        input.maxAttempts ?? q.max_attempts, input.timeoutMs === undefined ? q.timeout_ms : input.timeoutMs,
        input.dedupKey ?? null, input.caller ?? null, batchId, stage, now],
    };
  }

  /** INSERT `rows` tasks at once (multi-row VALUES: far fewer statement executions for bulk enqueue) */
  private insertRows(params: unknown[][]): void {
    for (let i = 0; i < params.length; ) {
      const n = params.length - i >= INSERT_CHUNK ? INSERT_CHUNK : 1;
      const values = n === 1 ? TASK_VALUES : MULTI_VALUES;
      this.s(`INSERT INTO Tasks (token, queue, kind, command, payload, status, priority, run_after, max_attempts, timeout_ms,
          dedup_key, caller, batch_id, stage, created_at) VALUES ${values}`).run(...params.slice(i, i + n).flat());
      i += n;
    }
  }

  async enqueue(input: EnqueueInput): Promise<EnqueueResult> {
    const r = await this.tx((tally, now) => {
      const row = this.taskRow(input, tally, now, new Map());
      if (!('params' in row)) return row;
      this.insertRows([row.params]);
      return { token: row.token, created: true };
    });
    this.wake();
    return r;
  }

  async enqueueMany(inputs: EnqueueInput[]): Promise<EnqueueResult[]> {
    if (inputs.length === 0) return [];
    const r = await this.tx((tally, now) => {
      const cache = new Map<string, QueueRow>();
      let pending: unknown[][] = [];
      const results = inputs.map((input): EnqueueResult => {
        // a dedup key must see every task before it, so rows still buffered are written first
        if (input.dedupKey && pending.length) { this.insertRows(pending); pending = []; }
        const row = this.taskRow(input, tally, now, cache);
        if (!('params' in row)) return row;
        if (input.dedupKey) this.insertRows([row.params]);
        else pending.push(row.params);
        if (pending.length >= INSERT_CHUNK * 20) { this.insertRows(pending); pending = []; }
        return { token: row.token, created: true };
      });
      this.insertRows(pending);
      return results;
    });
    this.wake();
    return r;
  }

  // ---- workers -----------------------------------------------------------------------------

  async registerWorker(reg: WorkerRegistration): Promise<WorkerSession> {
    return this.tx((_t, now) => {
      const row = this.s(`INSERT INTO Workers (worker_id, host, pid, role, session, login_time, started_at, heartbeat_at, state)
          VALUES (?, ?, ?, ?, (SELECT COALESCE(MAX(session), 50) + 1 FROM Workers), ?, ?, ?, 'running')
          ON CONFLICT (worker_id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at, state = 'running', stopped_at = NULL
          RETURNING session, login_time`).get(reg.workerId, reg.host, reg.pid, reg.role, now, now, now) as { session: number; login_time: number };
      return { session: row.session, loginTime: new Date(row.login_time) };
    });
  }

  async deregisterWorker(workerId: string): Promise<void> {
    await this.tx((_t, now) => {
      this.s("UPDATE Workers SET state = 'stopped', stopped_at = ?, heartbeat_at = ? WHERE worker_id = ?").run(now, now, workerId);
    });
  }

  async registerHandlers(names: string[]): Promise<void> {
    await this.tx((_t, now) => {
      for (const n of names) this.s('INSERT INTO Handlers (name, seen_at) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET seen_at = excluded.seen_at').run(n, now);
    });
  }

  async knownHandlers(): Promise<string[]> {
    return read(() => (this.s('SELECT name FROM Handlers ORDER BY name').all() as { name: string }[]).map((r) => r.name));
  }

  async heartbeat(input: HeartbeatInput): Promise<HeartbeatResult> {
    return this.tx((_t, now) => {
      const beat = this.s("UPDATE Workers SET heartbeat_at = ?, state = CASE WHEN state = 'lost' THEN 'running' ELSE state END WHERE worker_id = ?");
      for (const w of input.workerIds) beat.run(now, w);
      const renew = this.s("UPDATE Tasks SET lease_until = ? WHERE id = ? AND worker_id = ? AND attempts = ? AND status = 'running' RETURNING cancel_requested");
      const owned: number[] = [];
      const cancelRequested: number[] = [];
      for (const r of input.running) {
        const row = renew.get(now + input.leaseMs, r.taskId, r.workerId, r.attempt) as { cancel_requested: number } | undefined;
        if (!row) continue;
        owned.push(r.taskId);
        if (row.cancel_requested === 1) cancelRequested.push(r.taskId);
      }
      return { owned, cancelRequested };
    });
  }

  async claim(slots: WorkerSlot[], opts: ClaimOptions): Promise<ClaimedTask[]> {
    if (slots.length === 0) return [];
    return this.tx((tally, now) => claim(this.db, slots, opts, tally, now));
  }

  async finish(results: AttemptResult[]): Promise<boolean[]> {
    if (results.length === 0) return [];
    const r = await this.tx((tally, now) => finish(this.db, results, tally, now));
    if (r.wake) this.wake();
    return r.accepted;
  }

  async runSql(_slot: WorkerSlot, text: string, signal: AbortSignal): Promise<SqlRunResult> {
    return runSql(this.db, text, signal);
  }

  // ---- maintenance -------------------------------------------------------------------------

  async rescueExpired(): Promise<RescueResult> {
    const r = await this.tx((tally, now) => rescueExpired(this.db, tally, now));
    if (r.retried || r.dead) this.wake();
    return r;
  }

  async markLostWorkers(staleMs: number): Promise<number> {
    return this.tx((_t, now) =>
      this.s("UPDATE Workers SET state = 'lost' WHERE state IN ('running', 'stopping') AND heartbeat_at < ?").run(now - staleMs).changes);
  }

  async prune(olderThan: Date): Promise<PruneResult> {
    const cutoff = olderThan.getTime();
    const total = { tasks: 0, attempts: 0 };
    const chunk = 2000;
    for (;;) {
      const r = await this.tx((tally) => ops.pruneChunk(this.db, cutoff, chunk, tally));
      total.tasks += r.tasks;
      total.attempts += r.attempts;
      if (r.tasks < chunk) break;
    }
    await this.tx((_t, now) => ops.pruneRest(this.db, cutoff, now));
    return total;
  }

  async sampleDepth(): Promise<void> {
    await this.tx((_t, now) => {
      const depth = (this.s("SELECT COALESCE(SUM(n), 0) AS n FROM QueueCounts WHERE status = 'pending'").get() as { n: number }).n;
      this.s('INSERT INTO Metrics (sec, depth) VALUES (?, ?) ON CONFLICT (sec) DO UPDATE SET depth = excluded.depth').run(Math.floor(now / 1000), depth);
    });
  }

  // ---- operators -------------------------------------------------------------------------

  async getTask(token: string): Promise<TaskDetail | null> {
    return read(() => views.taskDetail(this.db, token));
  }

  cancel(token: string): Promise<CancelResult> {
    return this.tx((tally, now) => ops.cancel(this.db, token, tally, now));
  }

  async retry(token: string): Promise<RetryResult> {
    const r = await this.tx((tally, now) => ops.retry(this.db, token, tally, now));
    if (r === 'retried') this.wake();
    return r;
  }

  async retryFailed(filter: FailureFilter): Promise<number> {
    const n = await this.tx((tally, now) => ops.retryFailed(this.db, filter, tally, now));
    if (n) this.wake();
    return n;
  }

  deleteTask(token: string): Promise<DeleteResult> {
    return this.tx((tally) => ops.deleteTask(this.db, token, tally));
  }

  deleteFailed(filter: FailureFilter): Promise<number> {
    return this.tx((tally) => ops.deleteFailed(this.db, filter, tally));
  }

  // ---- queues: limits, pause, tokens -------------------------------------------------------

  getQueue(name: string): Promise<QueueSettings | null> {
    return read(() => tokens.getQueue(this.db, name));
  }

  listQueues(): Promise<QueueSettings[]> {
    return read(() => tokens.listQueueViews(this.db, Date.now()).map(({ pending: _p, running: _r, granted: _g, ...q }) => q));
  }

  async setQueue(name: string, patch: QueuePatch, changedBy: string): Promise<QueueSettings> {
    const q = await this.tx((_t, now) => tokens.setQueue(this.db, name, patch, changedBy, now));
    this.wake();
    return q;
  }

  listQueueViews(): Promise<QueueView[]> {
    return read(() => tokens.listQueueViews(this.db, Date.now()));
  }

  queueChanges(queue: string | null, limit: number): Promise<QueueChange[]> {
    return read(() => tokens.queueChanges(this.db, queue, limit));
  }

  listTokens(queue: string | null): Promise<TokenView[]> {
    return read(() => tokens.listTokens(this.db, queue, Date.now(), STALE_WORKER_MS));
  }

  // ---- batches -----------------------------------------------------------------------------

  async createBatch(input: BatchInput): Promise<BatchView> {
    return this.tx((_t, now) => batches.getBatch(this.db, batches.createBatch(this.db, input, now))!);
  }

  getBatch(id: number): Promise<BatchView | null> {
    return read(() => batches.getBatch(this.db, id));
  }

  listBatches(filter: { status?: BatchStatus; cursor?: number; limit?: number }): Promise<Page<BatchView>> {
    return read(() => batches.listBatches(this.db, filter));
  }

  async releaseBatch(id: number): Promise<'released' | 'not_found' | 'conflict'> {
    return this.tx((tally, now) => {
      const r = batches.releaseBatch(this.db, id, now);
      if (r === 'released') tally.batches.add(id);
      return r;
    });
  }

  cancelBatch(id: number): Promise<{ result: 'cancelled' | 'not_found' | 'conflict'; cancelled: number }> {
    return this.tx((tally, now) => batches.cancelBatch(this.db, id, tally, now));
  }

  // ---- views -------------------------------------------------------------------------------

  countsByQueue(): Promise<QueueCounts[]> { return read(() => views.countsByQueue(this.db)); }
  listTasks(filter: TaskFilter): Promise<Page<TaskView>> { return read(() => views.listTasks(this.db, filter)); }
  listAttempts(filter: AttemptFilter): Promise<Page<AttemptView>> { return read(() => views.listAttempts(this.db, filter)); }
  listRunning(): Promise<RunningView[]> { return read(() => views.listRunning(this.db)); }
  listWorkers(): Promise<WorkerView[]> { return read(() => views.listWorkers(this.db)); }
  failureGroups(filter: FailureFilter): Promise<FailureGroup[]> { return read(() => views.failureGroups(this.db, filter)); }
  metrics(since: Date): Promise<MetricPoint[]> { return read(() => views.metrics(this.db, since)); }
}

export async function openSqliteStore(path: string): Promise<SqliteStore> {
  const store = new SqliteStore(path);
  await store.migrate();
  return store;
}
