// The embedded SQLite Store: one connection per process (better-sqlite3 is synchronous, so every
// transaction is short and serial); BEGIN IMMEDIATE makes each write transaction the single writer
// across processes sharing the file.
import { v7 as uuidv7 } from 'uuid';
import type { CancelResult, DeleteResult, RetryResult, Store } from '../../lib/engine/store';
import type {
  AttemptFilter, AttemptResult, AttemptView, ClaimedTask, ClaimOptions, EnqueueInput, EnqueueResult, FailureFilter,
  FailureGroup, HeartbeatInput, HeartbeatResult, MetricPoint, Page, PruneResult, QueueCounts, QueueSettings,
  RescueResult, RunningView, SqlRunResult, TaskDetail, TaskFilter, TaskKind, TaskView, WorkerRegistration,
  WorkerSession, WorkerSlot, WorkerView,
} from '../../lib/engine/types';
import { migrate, openDatabase, read, sqliteErrorNumber, writeTx, type Db } from './connection';
import { queueSettings, toJson, type QueueRow } from './rows';
import { Tally, stmt } from './tally';
import * as views from './views';
import { failureWhere } from './views';

const DEFAULT_QUEUE = 'default';
const LIVE = "status IN ('pending', 'running')";

interface ClaimRow {
  id: number; token: string; queue: string; kind: string; command: string; payload: string | null; priority: number;
  attempts: number; max_attempts: number; timeout_ms: number | null; created_at: number; run_after: number; backoff_ms: number;
}

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

  private tx<T>(fn: (tally: Tally, now: number) => T): Promise<T> {
    return writeTx(this.db, () => {
      const tally = new Tally();
      const out = fn(tally, Date.now());
      tally.flush(this.db);
      return out;
    });
  }

  private s(sql: string) {
    return stmt(this.db, sql);
  }

  // ---- producers -------------------------------------------------------------------------

  private queueRow(name: string, now: number, cache?: Map<string, QueueRow>): QueueRow {
    const hit = cache?.get(name);
    if (hit) return hit;
    this.s('INSERT INTO Queues (name, created_at) VALUES (?, ?) ON CONFLICT (name) DO NOTHING').run(name, now);
    const row = this.s('SELECT name, concurrency_limit, paused, max_attempts, timeout_ms, backoff_ms FROM Queues WHERE name = ?').get(name) as QueueRow;
    cache?.set(name, row);
    return row;
  }

  private insertTask(input: EnqueueInput, tally: Tally, now: number, cache?: Map<string, QueueRow>): EnqueueResult {
    const queue = input.queue ?? DEFAULT_QUEUE;
    const q = this.queueRow(queue, now, cache);
    if (input.dedupKey) {
      const existing = this.s(`SELECT token FROM Tasks WHERE dedup_key = ? AND dedup_key IS NOT NULL AND ${LIVE}`).get(input.dedupKey) as { token: string } | undefined;
      if (existing) return { token: existing.token, created: false };
    }
    // time-ordered (v7): new tokens append to the token index instead of landing at random pages
    const token = uuidv7();
    const runAfter = input.runAt ? input.runAt.getTime() : now;
    this.s(`INSERT INTO Tasks (token, queue, kind, command, payload, status, priority, run_after, max_attempts, timeout_ms,
        dedup_key, caller, created_at) VALUES (?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?)`).run(
      token, queue, input.kind, input.command, toJson(input.payload), input.priority ?? 0, runAfter,
      input.maxAttempts ?? q.max_attempts, input.timeoutMs === undefined ? q.timeout_ms : input.timeoutMs,
      input.dedupKey ?? null, input.caller ?? null, now);
    tally.count(queue, 'pending', 1);
    tally.metric(now, 'enqueued');
    return { token, created: true };
  }

  async enqueue(input: EnqueueInput): Promise<EnqueueResult> {
    const r = await this.tx((tally, now) => this.insertTask(input, tally, now));
    this.wake();
    return r;
  }

  async enqueueMany(inputs: EnqueueInput[]): Promise<EnqueueResult[]> {
    if (inputs.length === 0) return [];
    const r = await this.tx((tally, now) => {
      const cache = new Map<string, QueueRow>();
      return inputs.map((i) => this.insertTask(i, tally, now, cache));
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
    return this.tx((tally, now) => {
      const rows = (opts.queues?.length
        ? this.s(`SELECT t.id, t.token, t.queue, t.kind, t.command, t.payload, t.priority, t.attempts, t.max_attempts,
              t.timeout_ms, t.created_at, t.run_after, 0 AS backoff_ms
            FROM Tasks t WHERE t.status = 'pending' AND t.run_after <= ?
              AND t.queue IN (SELECT value FROM json_each(?))
              AND t.queue NOT IN (SELECT name FROM Queues WHERE paused = 1)
            ORDER BY t.priority DESC, t.id LIMIT ?`).all(now, JSON.stringify(opts.queues), slots.length)
        : this.s(`SELECT t.id, t.token, t.queue, t.kind, t.command, t.payload, t.priority, t.attempts, t.max_attempts,
              t.timeout_ms, t.created_at, t.run_after, 0 AS backoff_ms
            FROM Tasks t WHERE t.status = 'pending' AND t.run_after <= ?
              AND t.queue NOT IN (SELECT name FROM Queues WHERE paused = 1)
            ORDER BY t.priority DESC, t.id LIMIT ?`).all(now, slots.length)) as ClaimRow[];
      if (rows.length === 0) return [];
      const take = this.s(`UPDATE Tasks SET status = 'running', attempts = attempts + 1, worker_id = ?, lease_until = ?,
          started_at = ?, cancel_requested = 0 WHERE id = ?`);
      const log = this.s(`INSERT INTO ExecutionLog (task_id, attempt, queue, kind, command, worker_id, session, started_at, outcome)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'running')`);
      const backoff = this.s('SELECT backoff_ms FROM Queues WHERE name = ?');
      const backoffs = new Map<string, number>();
      const startedAt = new Date(now);
      const out: ClaimedTask[] = [];
      for (let i = 0; i < rows.length; i++) {
        const r = rows[i]!;
        const slot = slots[i]!;
        const attempt = r.attempts + 1;
        take.run(slot.workerId, now + opts.leaseMs, now, r.id);
        log.run(r.id, attempt, r.queue, r.kind, r.command, slot.workerId, slot.session, now);
        tally.move(r.queue, 'pending', 'running');
        tally.started(now, now - r.run_after);
        let b = backoffs.get(r.queue);
        if (b === undefined) backoffs.set(r.queue, (b = (backoff.get(r.queue) as { backoff_ms: number } | undefined)?.backoff_ms ?? 1000));
        out.push({
          id: r.id, token: r.token, queue: r.queue, kind: r.kind as TaskKind, command: r.command,
          payload: r.payload === null ? null : JSON.parse(r.payload), priority: r.priority, attempt,
          maxAttempts: r.max_attempts, timeoutMs: r.timeout_ms, backoffMs: b, workerId: slot.workerId,
          session: slot.session, createdAt: new Date(r.created_at), runAfter: new Date(r.run_after), startedAt,
        });
      }
      return out;
    });
  }

  async finish(results: AttemptResult[]): Promise<boolean[]> {
    if (results.length === 0) return [];
    let wake = false;
    const out = await this.tx((tally, now) => {
      const endLog = this.s(`UPDATE ExecutionLog SET ended_at = ?, outcome = ?, error_number = ?, error_message = ?, error_detail = ?
          WHERE task_id = ? AND attempt = ?`);
      const fence = "WHERE id = ? AND worker_id = ? AND attempts = ? AND status = 'running' RETURNING queue";
      return results.map((r) => {
        const s = r.settlement;
        let row: { queue: string } | undefined;
        let outcome: string;
        let err: { number: number | null; message: string; detail: string | null } | null = null;
        let status: string;
        if (s.kind === 'succeeded') {
          row = this.s(`UPDATE Tasks SET status = 'succeeded', finished_at = ?, result = ?, lease_until = NULL ${fence}`)
            .get(now, toJson(s.result), r.taskId, r.workerId, r.attempt) as typeof row;
          outcome = 'succeeded';
          status = 'succeeded';
        } else if (s.kind === 'retry') {
          err = s.error;
          row = this.s(`UPDATE Tasks SET status = 'pending', run_after = ?, lease_until = NULL, error_number = ?, error_message = ?,
              error_detail = ? ${fence}`).get(s.runAfter.getTime(), err.number, err.message, err.detail, r.taskId, r.workerId, r.attempt) as typeof row;
          outcome = s.outcome;
          status = 'pending';
          if (s.runAfter.getTime() <= now) wake = true;
        } else if (s.kind === 'dead') {
          err = s.error;
          row = this.s(`UPDATE Tasks SET status = 'dead', finished_at = ?, lease_until = NULL, error_number = ?, error_message = ?,
              error_detail = ? ${fence}`).get(now, err.number, err.message, err.detail, r.taskId, r.workerId, r.attempt) as typeof row;
          outcome = s.outcome;
          status = 'dead';
        } else {
          err = s.error;
          row = this.s(`UPDATE Tasks SET status = 'cancelled', finished_at = ?, lease_until = NULL ${fence}`)
            .get(now, r.taskId, r.workerId, r.attempt) as typeof row;
          outcome = 'cancelled';
          status = 'cancelled';
        }
        if (!row) return false;
        endLog.run(now, outcome, err?.number ?? null, err?.message ?? null, err?.detail ?? null, r.taskId, r.attempt);
        tally.move(row.queue, 'running', status);
        tally.metric(now, outcome === 'succeeded' ? 'succeeded' : 'failed');
        return true;
      });
    });
    if (wake) this.wake();
    return out;
  }

  async runSql(_slot: WorkerSlot, text: string, signal: AbortSignal): Promise<SqlRunResult> {
    signal.throwIfAborted();
    const db = this.db;
    try {
      let stmt;
      try {
        stmt = db.prepare(text);
      } catch (err) {
        if (!/more than one statement/i.test(String((err as Error).message))) throw err;
        const before = db.prepare('SELECT total_changes() AS n').get() as { n: number };
        db.exec(text);
        const after = db.prepare('SELECT total_changes() AS n').get() as { n: number };
        return { rowsAffected: after.n - before.n, rows: [] };
      }
      if (stmt.reader) {
        const rows: Record<string, unknown>[] = [];
        for (const row of stmt.iterate() as Iterable<Record<string, unknown>>) {
          rows.push(row);
          if (rows.length >= 100) break;
        }
        return { rowsAffected: 0, rows };
      }
      return { rowsAffected: stmt.run().changes, rows: [] };
    } catch (err) {
      const e = err as Error & { code?: string; number?: number | null };
      e.number = sqliteErrorNumber(e.code);
      throw e;
    } finally {
      // leave the session clean for the next task, as on SQL Server
      if (db.inTransaction) db.exec('ROLLBACK');
    }
  }

  // ---- maintenance -------------------------------------------------------------------------

  async rescueExpired(): Promise<RescueResult> {
    const r = await this.tx((tally, now) => {
      const expired = this.s(`SELECT t.id, t.queue, t.attempts, t.max_attempts, t.worker_id FROM ExecutionLog l
          JOIN Tasks t ON t.id = l.task_id AND t.attempts = l.attempt
          WHERE l.ended_at IS NULL AND t.status = 'running' AND t.lease_until < ?`).all(now) as
        { id: number; queue: string; attempts: number; max_attempts: number; worker_id: string | null }[];
      const res = { retried: 0, dead: 0 };
      for (const t of expired) {
        const message = `lease expired: worker ${t.worker_id ?? '?'} stopped renewing it (crashed, killed or cut off)`;
        this.s(`UPDATE ExecutionLog SET ended_at = ?, outcome = 'abandoned', error_message = ? WHERE task_id = ? AND attempt = ?`)
          .run(now, message, t.id, t.attempts);
        const dead = t.attempts >= t.max_attempts;
        this.s(`UPDATE Tasks SET status = ?, run_after = CASE WHEN ? THEN run_after ELSE ? END, finished_at = CASE WHEN ? THEN ? ELSE NULL END,
            lease_until = NULL, error_number = NULL, error_message = ?, error_detail = NULL WHERE id = ?`)
          .run(dead ? 'dead' : 'pending', dead ? 1 : 0, now, dead ? 1 : 0, now, message, t.id);
        tally.move(t.queue, 'running', dead ? 'dead' : 'pending');
        tally.metric(now, 'failed');
        if (dead) res.dead++; else res.retried++;
      }
      // attempts left open by a task that was settled elsewhere (should not happen; keeps ExecutionStatus true)
      this.s(`UPDATE ExecutionLog SET ended_at = ?, outcome = 'abandoned', error_message = 'attempt no longer owns its task'
          WHERE ended_at IS NULL AND task_id IN (SELECT l.task_id FROM ExecutionLog l JOIN Tasks t ON t.id = l.task_id
            WHERE l.ended_at IS NULL AND (t.status <> 'running' OR t.attempts <> l.attempt))
          AND NOT EXISTS (SELECT 1 FROM Tasks t WHERE t.id = ExecutionLog.task_id AND t.status = 'running' AND t.attempts = ExecutionLog.attempt)`).run(now);
      return res;
    });
    if (r.retried) this.wake();
    return r;
  }

  async markLostWorkers(staleMs: number): Promise<number> {
    return this.tx((_t, now) =>
      this.s("UPDATE Workers SET state = 'lost' WHERE state IN ('running', 'stopping') AND heartbeat_at < ?").run(now - staleMs).changes);
  }

  async prune(olderThan: Date): Promise<PruneResult> {
    const cutoff = olderThan.getTime();
    const total = { tasks: 0, attempts: 0 };
    for (;;) {
      const r = await this.tx((tally) => {
        const rows = this.s(`SELECT id, queue, status FROM Tasks WHERE status IN ('succeeded', 'dead', 'cancelled')
            AND finished_at < ? LIMIT 2000`).all(cutoff) as { id: number; queue: string; status: string }[];
        let attempts = 0;
        const delLog = this.s('DELETE FROM ExecutionLog WHERE task_id = ?');
        const delTask = this.s('DELETE FROM Tasks WHERE id = ?');
        for (const t of rows) {
          attempts += delLog.run(t.id).changes;
          delTask.run(t.id);
          tally.count(t.queue, t.status, -1);
        }
        return { tasks: rows.length, attempts };
      });
      total.tasks += r.tasks;
      total.attempts += r.attempts;
      if (r.tasks < 2000) break;
    }
    await this.tx(() => {
      this.s("DELETE FROM Workers WHERE state IN ('stopped', 'lost') AND heartbeat_at < ?").run(cutoff);
      this.s('DELETE FROM Metrics WHERE sec < ?').run(Math.floor((Date.now() - 24 * 3600 * 1000) / 1000));
      this.s("DELETE FROM QueueCounts WHERE n = 0 AND status IN ('succeeded', 'dead', 'cancelled')").run();
    });
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

  async cancel(token: string): Promise<CancelResult> {
    return this.tx((tally, now) => {
      const t = this.s('SELECT id, queue, status FROM Tasks WHERE token = ?').get(token) as { id: number; queue: string; status: string } | undefined;
      if (!t) return 'not_found';
      if (t.status === 'pending') {
        this.s("UPDATE Tasks SET status = 'cancelled', finished_at = ? WHERE id = ?").run(now, t.id);
        tally.move(t.queue, 'pending', 'cancelled');
        return 'cancelled';
      }
      if (t.status === 'running') {
        this.s('UPDATE Tasks SET cancel_requested = 1 WHERE id = ?').run(t.id);
        return 'cancel_requested';
      }
      return 'conflict';
    });
  }

  /** dead/cancelled → pending with one more attempt if exhausted; skipped where a live task holds the dedup key */
  private retryWhere(where: string, params: unknown[], now: number): { queue: string }[] {
    return this.s(`UPDATE Tasks SET status = 'pending', run_after = ?, finished_at = NULL, cancel_requested = 0,
        max_attempts = MAX(max_attempts, attempts + 1)
        WHERE ${where} AND (dedup_key IS NULL OR NOT EXISTS (SELECT 1 FROM Tasks o WHERE o.dedup_key = Tasks.dedup_key
          AND o.dedup_key IS NOT NULL AND o.status IN ('pending', 'running')))
        RETURNING queue`).all(now, ...params) as { queue: string }[];
  }

  async retry(token: string): Promise<RetryResult> {
    const r = await this.tx((tally, now) => {
      const t = this.s('SELECT id, queue, status FROM Tasks WHERE token = ?').get(token) as { id: number; queue: string; status: string } | undefined;
      if (!t) return 'not_found' as const;
      if (t.status !== 'dead' && t.status !== 'cancelled') return 'conflict' as const;
      if (this.retryWhere('id = ?', [t.id], now).length === 0) return 'conflict' as const;
      tally.move(t.queue, t.status, 'pending');
      return 'retried' as const;
    });
    if (r === 'retried') this.wake();
    return r;
  }

  async retryFailed(filter: FailureFilter): Promise<number> {
    const n = await this.tx((tally, now) => {
      const { where, params } = failureWhere(filter);
      const rows = this.retryWhere(where, params, now);
      for (const r of rows) tally.move(r.queue, 'dead', 'pending');
      return rows.length;
    });
    if (n) this.wake();
    return n;
  }

  async deleteTask(token: string): Promise<DeleteResult> {
    return this.tx((tally) => {
      const t = this.s('SELECT id, queue, status FROM Tasks WHERE token = ?').get(token) as { id: number; queue: string; status: string } | undefined;
      if (!t) return 'not_found';
      if (t.status === 'pending' || t.status === 'running') return 'conflict';
      this.s('DELETE FROM ExecutionLog WHERE task_id = ?').run(t.id);
      this.s('DELETE FROM Tasks WHERE id = ?').run(t.id);
      tally.count(t.queue, t.status, -1);
      return 'deleted';
    });
  }

  async deleteFailed(filter: FailureFilter): Promise<number> {
    return this.tx((tally) => {
      const { where, params } = failureWhere(filter);
      const rows = this.s(`DELETE FROM Tasks WHERE ${where} RETURNING id, queue`).all(...params) as { id: number; queue: string }[];
      const delLog = this.s('DELETE FROM ExecutionLog WHERE task_id = ?');
      for (const r of rows) {
        delLog.run(r.id);
        tally.count(r.queue, 'dead', -1);
      }
      return rows.length;
    });
  }

  async getQueue(name: string): Promise<QueueSettings | null> {
    return read(() => {
      const row = this.s('SELECT name, concurrency_limit, paused, max_attempts, timeout_ms, backoff_ms FROM Queues WHERE name = ?').get(name) as QueueRow | undefined;
      return row ? queueSettings(row) : null;
    });
  }

  async listQueues(): Promise<QueueSettings[]> {
    return read(() => (this.s('SELECT name, concurrency_limit, paused, max_attempts, timeout_ms, backoff_ms FROM Queues ORDER BY name').all() as QueueRow[]).map(queueSettings));
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
