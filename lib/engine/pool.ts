// The worker pool: N workers (the seeds' queue readers), each with its own session. One dispatcher
// claims for all idle workers in one store call and settles finished attempts in batches, so a busy
// pool pays one transaction per batch rather than two per task. While attempts are short it also claims
// ahead (`prefetch`): a few tasks more per idle worker, each started by its worker once the one before ends,
// so a small pool still fills a claim; a stopping pool runs them within its grace and gives back the rest.
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { HandlerRegistry } from './handlers';
import { MAX_POOL_SIZE } from './limits';
import { silentLogger, type Logger } from './logger';
import { Maintenance } from './maintenance';
import { errorInfo } from './retry';
import type { MaintenancePort, StoreCapabilities, WorkerPort } from './ports';
import type { AttemptResult, ClaimedTask, Settlement, WorkerSlot } from './types';
import { runTask, StopReason } from './run';

export interface PoolOptions {
  concurrency: number;
  leaseMs: number;
  heartbeatMs: number;
  pollMs: number;
  role: string;
  queues?: string[];
  shutdownGraceMs: number;
  maintenance: boolean;
  retentionMs: number;
  /**
   * Tasks a pool may claim ahead of its idle workers, spread over them, while its attempts are short (see
   * PREFETCH_BELOW_MS), and never more than PREFETCH_HOLD_MS of work per worker at their average run time: a
   * pool of 4 then pays one claim transaction per many tasks. A prefetched task is running with a lease in the
   * store; its worker starts it as soon as the task before it ends. 0: never.
   * Default: the store's (StoreCapabilities.prefetch: PREFETCH_SQLITE on SQLite, whose one claim transaction
   * serves every slot; 0 on SQL Server, whose claim takes one round trip per slot anyway).
   */
  prefetch: number;
  logger: Logger;
}

export const POOL_DEFAULTS: Omit<PoolOptions, 'logger'> = {
  concurrency: 4,
  leaseMs: 30_000,
  heartbeatMs: 1_000,
  pollMs: 500,
  role: 'worker',
  shutdownGraceMs: 10_000,
  maintenance: true,
  retentionMs: 7 * 24 * 3600 * 1000,
  prefetch: 0,
};

/**
 * At most this much work (ms, at the recent average run time) is claimed ahead per worker: what a prefetched
 * task can wait behind its worker's earlier ones, and what another process's idle workers cannot take meanwhile.
 */
export const PREFETCH_HOLD_MS = 50;

/**
 * Claim ahead only while attempts take less than this on average (ms): a prefetched task waits for the one
 * before it, so longer ones would sit claimed while another process could run them.
 */
export const PREFETCH_BELOW_MS = 2;

/** How a prefetched task not started by the end of the shutdown grace is given back (pending, run at once). */
const NOT_STARTED = 'worker shut down before the prefetched task started';

/** What a pool needs of a store: a Store satisfies it. */
export interface PoolPorts {
  worker: WorkerPort;
  maintenance: MaintenancePort;
  /** printed in the pool's start line */
  description: string;
  /** what the store supports (a Store has it): its `prefetch` is the pool's default */
  capabilities?: Pick<StoreCapabilities, 'prefetch'>;
}

interface Worker {
  slot: WorkerSlot;
  task: ClaimedTask | null;
  controller: AbortController | null;
  /** claimed ahead for this worker (running in the store, with a lease), started one after the other */
  queue: ClaimedTask[];
  /** set when the pool shrinks: the worker leaves once its task is done */
  retiring: boolean;
}

export class Pool {
  readonly opts: PoolOptions;
  private readonly log: Logger;
  private readonly workers: Worker[] = [];
  private readonly settled: AttemptResult[] = [];
  /** settlements handed to finish and not answered yet */
  private flushing: AttemptResult[] = [];
  private readonly idleWaiters = new Set<() => void>();
  private readonly instance = randomBytes(3).toString('hex');
  private seq = 0;
  private started = false;
  private stopping = false;
  private ticking = false;
  private again = false;
  private scheduled = false;
  private processed = 0;
  private pollTimer: NodeJS.Timeout | null = null;
  private beatTimer: NodeJS.Timeout | null = null;
  /** a heartbeat is in flight, and how many were due meanwhile */
  private beating = false;
  private beatsSkipped = 0;
  /** a heartbeat slower than half the lease was logged with its cause; again only after a beat back in time */
  private slowBeatLogged = false;
  private unsubscribe: (() => void) | null = null;
  private maintenance: Maintenance | null = null;
  private resizing: Promise<void> = Promise.resolve();
  /** the last claim found nothing due (used by runUntilIdle) */
  private lastClaimEmpty = false;
  /** average run time of recent attempts (ms; null until one ended): prefetch only while it is short */
  private avgRunMs: number | null = null;

  private readonly worker: WorkerPort;
  private readonly housekeeping: MaintenancePort;
  private readonly label: string;

  /** The pool sees the worker port (and the maintenance port, when it runs housekeeping) and nothing else. */
  constructor(
    ports: PoolPorts,
    readonly registry: HandlerRegistry,
    opts: Partial<PoolOptions> = {},
  ) {
    this.worker = ports.worker;
    this.housekeeping = ports.maintenance;
    this.label = ports.description;
    const prefetch = ports.capabilities?.prefetch ?? POOL_DEFAULTS.prefetch;
    this.opts = { ...POOL_DEFAULTS, prefetch, logger: silentLogger, ...opts };
    this.log = this.opts.logger;
    if (!Number.isInteger(this.opts.concurrency) || this.opts.concurrency < 0 || this.opts.concurrency > MAX_POOL_SIZE) {
      throw new RangeError(`concurrency must be an integer from 0 to ${MAX_POOL_SIZE}`);
    }
  }

  get size(): number {
    return this.workers.filter((w) => !w.retiring).length;
  }

  /** workers asked to leave by a shrink, still finishing their task */
  get retiring(): number {
    return this.workers.filter((w) => w.retiring).length;
  }

  get busy(): number {
    return this.workers.filter((w) => w.task).length;
  }

  get processedCount(): number {
    return this.processed;
  }

  workerIds(): string[] {
    return this.workers.map((w) => w.slot.workerId);
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    await this.worker.registerHandlers(this.registry.names());
    await this.addWorkers(this.opts.concurrency);
    this.unsubscribe = this.worker.onWake(() => this.wake());
    this.pollTimer = setInterval(() => this.wake(), this.opts.pollMs);
    this.beatTimer = setInterval(() => void this.beat(), this.opts.heartbeatMs);
    this.pollTimer.unref?.();
    this.beatTimer.unref?.();
    if (this.opts.maintenance) {
      this.maintenance = new Maintenance(this.housekeeping, {
        retentionMs: this.opts.retentionMs,
        staleWorkerMs: Math.max(15_000, this.opts.heartbeatMs * 10),
        logger: this.log,
      });
      this.maintenance.start();
    }
    this.log.info({ workers: this.size, role: this.opts.role, store: this.label }, 'pool started');
    this.wake();
  }

  /**
   * Register n workers at once (each opens its own session: one after the other, start-up would take n
   * logins end to end). Those registered join even when another fails; the first failure is thrown.
   */
  private async addWorkers(n: number): Promise<void> {
    const host = hostname();
    const ids = Array.from({ length: n }, () => `${host}-${process.pid}-${this.instance}-${++this.seq}`);
    const results = await Promise.allSettled(
      ids.map((workerId) =>
        this.worker.registerWorker({
          workerId,
          host,
          pid: process.pid,
          role: this.opts.role,
          queues: this.opts.queues ?? null,
        }),
      ),
    );
    let failure: unknown = null;
    results.forEach((r, i) => {
      if (r.status === 'fulfilled') {
        this.workers.push({
          slot: { workerId: ids[i]!, session: r.value.session },
          task: null,
          controller: null,
          queue: [],
          retiring: false,
        });
      } else failure ??= r.reason;
    });
    if (failure) throw failure;
  }

  /** Change the number of workers while running. Shrinking never interrupts a task: a busy worker leaves when done. */
  resize(n: number): Promise<void> {
    if (!Number.isInteger(n) || n < 0 || n > MAX_POOL_SIZE) {
      return Promise.reject(new RangeError(`pool size must be an integer from 0 to ${MAX_POOL_SIZE}`));
    }
    this.resizing = this.resizing.then(async () => {
      if (this.stopping) return;
      const active = this.workers.filter((w) => !w.retiring);
      if (n > active.length) {
        // un-retire busy workers first, then add new ones
        for (const w of this.workers) if (w.retiring && this.size < n) w.retiring = false;
        if (this.started) await this.addWorkers(n - this.size);
        else this.opts.concurrency = n;
      } else {
        const surplus = active.length - n;
        const ordered = [...active].sort((a, b) => Number(!!a.task) - Number(!!b.task) || b.slot.session - a.slot.session);
        for (const w of ordered.slice(0, surplus)) w.retiring = true;
        await this.removeRetired();
      }
      this.log.info({ workers: this.size }, 'pool resized');
      this.wake();
    });
    return this.resizing;
  }

  private async removeRetired(): Promise<void> {
    for (const w of [...this.workers]) {
      if (!w.retiring || w.task) continue;
      this.workers.splice(this.workers.indexOf(w), 1);
      await this.worker.deregisterWorker(w.slot.workerId);
    }
  }

  /** Ask for a dispatch soon; calls coalesce. */
  wake(): void {
    if (!this.started || this.stopping) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.tick();
    });
  }

  private async tick(): Promise<void> {
    if (this.ticking) {
      this.again = true;
      return;
    }
    this.ticking = true;
    try {
      do {
        this.again = false;
        await this.flush();
        if (this.stopping) break;
        if (this.workers.some((w) => w.retiring && !w.task)) await this.removeRetired();
        const idle = this.workers.filter((w) => !w.task && !w.retiring);
        if (idle.length === 0) break;
        const claimed = await this.worker.claim(this.claimSlots(idle), { leaseMs: this.opts.leaseMs, queues: this.opts.queues });
        this.lastClaimEmpty = claimed.length === 0;
        const byId = new Map(idle.map((w) => [w.slot.workerId, w]));
        for (const task of claimed) {
          const w = byId.get(task.workerId)!;
          if (this.stopping) this.giveBack(task);
          else if (w.task) w.queue.push(task);
          else this.startTask(w, task);
        }
        if (claimed.length === 0) this.notifyIdle();
      } while (this.again);
    } catch (err) {
      this.log.error({ err: errorInfo(err) }, 'dispatch failed; retrying on the next wake');
    } finally {
      this.ticking = false;
    }
  }

  /**
   * The slots of one claim: each idle worker once, then — while attempts are short — round after round of
   * them again, up to `prefetch` more (the store fills slots in order, so a short claim spreads evenly).
   */
  private claimSlots(idle: Worker[]): WorkerSlot[] {
    const slots = idle.map((w) => w.slot);
    if (this.avgRunMs === null || this.avgRunMs >= PREFETCH_BELOW_MS) return slots;
    const rounds = Math.min(Math.floor(this.opts.prefetch / idle.length), Math.floor(PREFETCH_HOLD_MS / Math.max(this.avgRunMs, 0.01)));
    for (let r = 0; r < rounds; r++) for (const w of idle) slots.push(w.slot);
    return slots;
  }

  /**
   * `claimedAhead`: it waited in its worker's buffer since its claim, so its start is sent with its end (no
   * other task: its claim is its start, on the store's clock).
   */
  private startTask(w: Worker, task: ClaimedTask, claimedAhead = false): void {
    const controller = new AbortController();
    w.task = task;
    w.controller = controller;
    const startedAt = claimedAhead ? new Date() : undefined;
    const began = performance.now();
    void runTask(this.worker, this.registry, task, controller).then((settlement) => {
      const ms = performance.now() - began;
      this.avgRunMs = this.avgRunMs === null ? ms : this.avgRunMs * 0.8 + ms * 0.2;
      this.settle(w, task, settlement, startedAt);
    });
  }

  private settle(w: Worker, task: ClaimedTask, settlement: Settlement, startedAt: Date | undefined): void {
    w.task = null;
    w.controller = null;
    this.processed++;
    this.settled.push({ taskId: task.id, workerId: task.workerId, attempt: task.attempt, settlement, ...(startedAt && { startedAt }) });
    // the next prefetched task of this worker starts at once (also while the pool stops, within its grace)
    const next = w.queue.shift();
    if (next) this.startTask(w, next, true);
    this.wake();
  }

  /** A prefetched task that never started goes back to pending, to run at once (recorded by the next flush). */
  private giveBack(task: ClaimedTask, error = NOT_STARTED): void {
    this.settled.push({
      taskId: task.id,
      workerId: task.workerId,
      attempt: task.attempt,
      settlement: { kind: 'retry', outcome: 'abandoned', error: { number: null, message: error, detail: null }, runAfter: new Date() },
    });
  }

  private async flush(): Promise<void> {
    if (this.settled.length === 0) return;
    const batch = this.settled.splice(0, this.settled.length);
    this.flushing = batch;
    try {
      const ok = await this.worker.finish(batch);
      ok.forEach((accepted, i) => {
        if (!accepted) {
          const r = batch[i]!;
          this.log.warn(
            { taskId: r.taskId, attempt: r.attempt, workerId: r.workerId },
            'attempt lost its lease; its result was not recorded',
          );
        }
      });
    } catch (err) {
      // keep them for the next flush: a settled attempt must reach the store
      this.settled.unshift(...batch);
      throw err;
    } finally {
      this.flushing = [];
    }
  }

  /**
   * Renew the heartbeat and every lease this pool holds. One at a time: a beat still waiting when the
   * next is due is not doubled (the store gives heartbeats a connection of their own, so a wait means
   * the database is slow or locked, and a slow beat is logged with how long it took).
   */
  private async beat(): Promise<void> {
    if (!this.started) return;
    if (this.beating) {
      this.beatsSkipped++;
      return;
    }
    this.beating = true;
    const began = Date.now();
    let serverMs: number | undefined;
    try {
      serverMs = await this.renew();
    } finally {
      this.beating = false;
      const ms = Date.now() - began;
      const leaseMs = this.opts.leaseMs;
      if (ms > leaseMs / 4) {
        this.log.warn(
          { ms, leaseMs, serverMs, skipped: this.beatsSkipped },
          'slow heartbeat: leases were renewed late (a lease expires if no heartbeat gets through within it)',
        );
      }
      if (ms > leaseMs / 2 && !this.slowBeatLogged) {
        this.slowBeatLogged = true;
        const cause = slowBeatCause(ms, serverMs);
        this.log.error(
          { ms, leaseMs, serverMs, waitMs: serverMs === undefined ? undefined : ms - serverMs, cause: cause.kind },
          `heartbeat slower than half the lease (${ms} ms of ${leaseMs}): ${cause.text}; leases lapse if it gets slower`,
        );
      } else if (ms <= leaseMs / 4) this.slowBeatLogged = false;
      this.beatsSkipped = 0;
    }
  }

  /** Renew; how long the database itself worked on it, when the store says. */
  private async renew(): Promise<number | undefined> {
    const running = this.workers
      .flatMap((w) => (w.task ? [w.task, ...w.queue] : w.queue))
      .map((t) => ({ taskId: t.id, workerId: t.workerId, attempt: t.attempt }));
    // an attempt settled but not yet recorded keeps its lease too: the store refuses a finish whose lease
    // lapsed (and never renews one that did), so a result reached in time must not expire while it waits
    for (const r of [...this.flushing, ...this.settled]) running.push({ taskId: r.taskId, workerId: r.workerId, attempt: r.attempt });
    let serverMs: number | undefined;
    try {
      const r = await this.worker.heartbeat({ workerIds: this.workerIds(), running, leaseMs: this.opts.leaseMs });
      serverMs = r.serverMs;
      const owned = new Set(r.owned);
      const cancel = new Set(r.cancelRequested);
      const asked = new Set(running.map((x) => x.taskId));
      for (const w of this.workers) {
        // prefetched tasks not started: a cancelled one is settled as cancelled, one whose lease was lost is dropped
        w.queue = w.queue.filter((t) => {
          if (cancel.has(t.id)) {
            this.settled.push({
              taskId: t.id,
              workerId: t.workerId,
              attempt: t.attempt,
              settlement: { kind: 'cancelled', error: { number: null, message: 'cancelled by an operator', detail: null } },
            });
            this.wake();
            return false;
          }
          // a task claimed after this heartbeat was sent is not in `running`: kept
          return owned.has(t.id) || !asked.has(t.id);
        });
        if (!w.task || !w.controller) continue;
        const id = w.task.id;
        if (cancel.has(id)) w.controller.abort(new StopReason('cancelled', 'cancelled by an operator'));
        else if (!owned.has(id) && running.some((x) => x.taskId === id)) {
          w.controller.abort(
            new StopReason('lease_lost', 'the lease was lost (it expired before a heartbeat renewed it; the task is retried)'),
          );
        }
      }
    } catch (err) {
      this.log.warn({ err: errorInfo(err) }, 'heartbeat failed');
    }
    return serverMs;
  }

  private notifyIdle(): void {
    if (this.busy > 0 || this.settled.length > 0) return;
    for (const fn of this.idleWaiters) fn();
  }

  /**
   * Process due tasks until none is left or `maxMs` has passed, then stop (for deployments where a
   * long-lived pool cannot run). In-flight tasks get the rest of the time, then are given back.
   */
  async runUntilIdle(maxMs: number): Promise<{ processed: number }> {
    const deadline = Date.now() + maxMs;
    await this.start();
    await new Promise<void>((resolve) => {
      const check = () => {
        if (this.lastClaimEmpty && this.busy === 0 && this.settled.length === 0 && !this.ticking) done();
      };
      const timer = setTimeout(() => done(), maxMs);
      const interval = setInterval(check, 20);
      const done = () => {
        clearTimeout(timer);
        clearInterval(interval);
        this.idleWaiters.delete(check);
        resolve();
      };
      this.idleWaiters.add(check);
    });
    await this.stop(Math.max(0, deadline - Date.now()));
    return { processed: this.processed };
  }

  /**
   * Graceful shutdown: stop claiming, let running tasks — and then those claimed ahead — finish within
   * `graceMs`, then give back what has not started and abort the rest (pending, run at once) so nothing
   * stays stuck as running.
   */
  async stop(graceMs = this.opts.shutdownGraceMs): Promise<void> {
    if (!this.started || this.stopping) return;
    this.stopping = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.unsubscribe?.();
    this.maintenance?.stop();
    // each worker finishes its task and then those it claimed ahead (short ones: attempts were short when they
    // were claimed), within the grace; what has not started by then goes back to pending, to run at once
    // (their leases are renewed until recorded), before the running ones are cut short
    const deadline = Date.now() + graceMs;
    while (this.busy > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    for (const w of this.workers) for (const t of w.queue.splice(0)) this.giveBack(t);
    for (const w of this.workers) w.controller?.abort(new StopReason('shutdown', 'worker shut down before the task finished'));
    while (this.busy > 0) await new Promise((r) => setTimeout(r, 5));
    while (this.ticking) await new Promise((r) => setTimeout(r, 5));
    await this.flush().catch((err) => this.log.error({ err: errorInfo(err) }, 'could not record the last results'));
    if (this.beatTimer) clearInterval(this.beatTimer);
    for (const w of this.workers.splice(0)) {
      await this.worker.deregisterWorker(w.slot.workerId).catch(() => {});
    }
    this.log.info({ processed: this.processed }, 'pool stopped');
  }
}

/**
 * Where a slow heartbeat's time went, as far as this process can see: in the database (lock waits, a busy
 * server) or before it (waiting for a connection or the write lock, a login, the network, a compile).
 */
export function slowBeatCause(ms: number, serverMs: number | undefined): { kind: 'server' | 'connection' | 'unknown'; text: string } {
  if (serverMs === undefined) return { kind: 'unknown', text: 'the store did not say where the time went (the heartbeat failed?)' };
  if (serverMs >= ms / 2) return { kind: 'server', text: `server time: ${serverMs} ms in the database (lock waits or a busy server)` };
  return {
    kind: 'connection',
    text: `connection wait: ${ms - serverMs} ms before the database worked on it (a connection, the write lock, a login or the network)`,
  };
}
