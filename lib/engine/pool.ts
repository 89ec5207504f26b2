// The worker pool: N workers (the seeds' queue readers), each with its own session. One dispatcher
// claims for all idle workers in one store call and settles finished attempts in batches, so a busy
// pool pays one transaction per batch rather than two per task. While attempts are short it also claims
// ahead (`prefetch`): a few tasks more per idle worker, each started by its worker once the one before ends,
// so a small pool still fills a claim; a stopping pool runs them within its grace and gives back the rest.
import type { HandlerRegistry } from './handlers';
import { MAX_POOL_SIZE } from './limits';
import { silentLogger, type Logger } from './logger';
import { Maintenance } from './maintenance';
import { errorInfo } from './retry';
import type { MaintenancePort, WorkerPort } from './ports';
import type { AttemptResult, ClaimedTask, Settlement } from './types';
import { runTask } from './run';
import { applyHeartbeat, Heartbeats, leasesHeld } from './pool-heartbeat';
import { POOL_DEFAULTS, type PoolOptions, type PoolPorts } from './pool-options';
import { claimSlots, givenBack } from './pool-prefetch';
import { RateWake } from './pool-rate-wake';
import { type PoolWorker, WorkerSet } from './pool-workers';

export { slowBeatCause } from './pool-heartbeat';
export { POOL_DEFAULTS, PREFETCH_BELOW_MS, PREFETCH_HOLD_MS, type PoolOptions, type PoolPorts } from './pool-options';

export class Pool {
  readonly opts: PoolOptions;
  private readonly log: Logger;
  private readonly crew: WorkerSet;
  private readonly settled: AttemptResult[] = [];
  /** settlements handed to finish and not answered yet */
  private flushing: AttemptResult[] = [];
  private readonly idleWaiters = new Set<() => void>();
  private started = false;
  private stopping = false;
  private ticking = false;
  private again = false;
  private scheduled = false;
  private processed = 0;
  private pollTimer: NodeJS.Timeout | null = null;
  private beatTimer: NodeJS.Timeout | null = null;
  private readonly heartbeats: Heartbeats;
  private readonly rateWake: RateWake;
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
    this.crew = new WorkerSet(this.worker, this.opts);
    this.heartbeats = new Heartbeats(this.log, this.opts, () => this.renew());
    this.rateWake = new RateWake(this.worker, this.opts.queues ?? null, () => this.wake(), this.log);
  }

  private get workers(): PoolWorker[] {
    return this.crew.all;
  }

  get size(): number {
    return this.crew.size;
  }

  /** workers asked to leave by a shrink, still finishing their task */
  get retiring(): number {
    return this.crew.retiring;
  }

  get busy(): number {
    return this.crew.busy;
  }

  get processedCount(): number {
    return this.processed;
  }

  workerIds(): string[] {
    return this.crew.ids();
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    await this.worker.registerHandlers(this.registry.names());
    await this.crew.add(this.opts.concurrency);
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

  /** Change the number of workers while running. Shrinking never interrupts a task: a busy worker leaves when done. */
  resize(n: number): Promise<void> {
    if (!Number.isInteger(n) || n < 0 || n > MAX_POOL_SIZE) {
      return Promise.reject(new RangeError(`pool size must be an integer from 0 to ${MAX_POOL_SIZE}`));
    }
    this.resizing = this.resizing.then(async () => {
      if (this.stopping) return;
      await this.crew.resize(n, this.started);
      this.log.info({ workers: this.size }, 'pool resized');
      this.wake();
    });
    return this.resizing;
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
        if (this.workers.some((w) => w.retiring && !w.task)) await this.crew.removeRetired();
        const idle = this.workers.filter((w) => !w.task && !w.retiring);
        if (idle.length === 0) break;
        const claimed = await this.worker.claim(claimSlots(idle, this.avgRunMs, this.opts.prefetch), {
          leaseMs: this.opts.leaseMs,
          queues: this.opts.queues,
        });
        this.lastClaimEmpty = claimed.length === 0;
        const byId = new Map(idle.map((w) => [w.slot.workerId, w]));
        for (const task of claimed) {
          const w = byId.get(task.workerId)!;
          if (this.stopping) this.giveBack(task);
          else if (w.task) w.queue.push(task);
          else this.startTask(w, task);
        }
        if (claimed.length === 0) this.notifyIdle();
        // workers left idle: a rate limit may be what holds tasks back; wake when its next slot opens
        if (claimed.length < idle.length) this.rateWake.check();
      } while (this.again);
    } catch (err) {
      this.log.error({ err: errorInfo(err) }, 'dispatch failed; retrying on the next wake');
    } finally {
      this.ticking = false;
    }
  }

  /**
   * `claimedAhead`: it waited in its worker's buffer since its claim, so its start is sent with its end (no
   * other task: its claim is its start, on the store's clock).
   */
  private startTask(w: PoolWorker, task: ClaimedTask, claimedAhead = false): void {
    const controller = new AbortController();
    w.task = task;
    w.controller = controller;
    const startedAt = claimedAhead ? new Date() : undefined;
    const began = performance.now();
    void runTask(this.worker, this.registry, task, controller, { leaseMs: this.opts.leaseMs }).then((settlement) => {
      const ms = performance.now() - began;
      this.avgRunMs = this.avgRunMs === null ? ms : this.avgRunMs * 0.8 + ms * 0.2;
      this.settle(w, task, settlement, startedAt);
    });
  }

  private settle(w: PoolWorker, task: ClaimedTask, settlement: Settlement, startedAt: Date | undefined): void {
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
  private giveBack(task: ClaimedTask): void {
    this.settled.push(givenBack(task));
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

  /** Renew the heartbeat and every lease this pool holds (one beat at a time: `Heartbeats`). */
  private async beat(): Promise<void> {
    if (!this.started) return;
    await this.heartbeats.beat();
  }

  /** Renew; how long the database itself worked on it, when the store says. */
  private async renew(): Promise<number | undefined> {
    const running = leasesHeld(this.workers, [...this.flushing, ...this.settled]);
    let serverMs: number | undefined;
    try {
      const r = await this.worker.heartbeat({ workerIds: this.workerIds(), running, leaseMs: this.opts.leaseMs });
      serverMs = r.serverMs;
      applyHeartbeat(this.workers, running, r, (result) => {
        this.settled.push(result);
        this.wake();
      });
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
    this.rateWake.stop();
    this.unsubscribe?.();
    this.maintenance?.stop();
    await this.crew.drain(graceMs, (t) => this.giveBack(t));
    while (this.ticking) await new Promise((r) => setTimeout(r, 5));
    await this.flush().catch((err) => this.log.error({ err: errorInfo(err) }, 'could not record the last results'));
    if (this.beatTimer) clearInterval(this.beatTimer);
    await this.crew.deregisterAll();
    this.log.info({ processed: this.processed }, 'pool stopped');
  }
}
