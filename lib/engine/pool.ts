// The worker pool: N workers (the seeds' queue readers), each with its own session. One dispatcher
// claims for all idle workers in one store call and settles finished attempts in batches, so a busy
// pool pays one transaction per batch rather than two per task. While attempts are short it also claims
// ahead (`prefetch`, pool-prefetch.ts): a bounded lookahead waits in the pool's one local queue, `claimed` in the
// store and not started, and whichever slot frees first takes the oldest; its attempt starts then (pool-starts.ts).
// What no slot starts soon is given back, with nothing counted — at once when the pool stops.
import type { HandlerRegistry } from './handlers';
import { MAX_POOL_SIZE } from './limits';
import { silentLogger, type Logger } from './logger';
import { Maintenance } from './maintenance';
import { errorInfo } from './retry';
import type { MaintenancePort, WorkerPort } from './ports';
import type { AttemptResult, ClaimedTask, Settlement } from './types';
import { runTask, StopReason } from './run';
import { applyHeartbeat, Heartbeats, leasesHeld, type Unrecorded } from './pool-heartbeat';
import { lateClaim } from './pool-late';
import { POOL_DEFAULTS, type PoolOptions, type PoolPorts } from './pool-options';
import { AHEAD_CHECK_MS, givenBack, LocalQueue, lookahead } from './pool-prefetch';
import { RateWake } from './pool-rate-wake';
import { PendingStart, START_WRITE_MS, stillRunning } from './pool-starts';
import { type PoolWorker, WorkerSet } from './pool-workers';

export { slowBeatCause } from './pool-heartbeat';
export { POOL_DEFAULTS, PREFETCH_BELOW_MS, PREFETCH_HOLD_MS, type PoolOptions, type PoolPorts } from './pool-options';

/** A settled attempt waiting for the next flush, with its start when that is not recorded yet. */
interface Settled extends Unrecorded {
  pending: PendingStart | null;
}

export class Pool {
  readonly opts: PoolOptions;
  private readonly log: Logger;
  private readonly crew: WorkerSet;
  private readonly settled: Settled[] = [];
  /** settlements handed to finish and not answered yet */
  private flushing: Settled[] = [];
  /** tasks claimed ahead, waiting for a free slot */
  private readonly ahead = new LocalQueue();
  private readonly idleWaiters = new Set<() => void>();
  private started = false;
  private stopping = false;
  private ticking = false;
  private again = false;
  private scheduled = false;
  private processed = 0;
  private pollTimer: NodeJS.Timeout | null = null;
  private beatTimer: NodeJS.Timeout | null = null;
  /** while tasks wait in the local queue: their age and the slots are watched */
  private aheadTimer: NodeJS.Timeout | null = null;
  /** a claimed task's attempt runs with its start not recorded: a flush is due */
  private startTimer: NodeJS.Timeout | null = null;
  private readonly heartbeats: Heartbeats;
  private readonly rateWake: RateWake;
  private unsubscribe: (() => void) | null = null;
  private maintenance: Maintenance | null = null;
  private resizing: Promise<void> = Promise.resolve();
  /** the last claim found nothing due (used by runUntilIdle) */
  private lastClaimEmpty = false;
  /** the last claim got fewer tasks than it asked for: no refill of the local queue until a poll or a store's wake */
  private dry = false;
  /** average run time of recent attempts (ms; null until one ended): prefetch only while it is short */
  private avgRunMs: number | null = null;

  /** an attempt's output waits for its start to be recorded */
  private readonly hurried = () => this.wake();
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

  /** tasks claimed ahead, waiting in the local queue for a free slot */
  get claimedAhead(): number {
    return this.ahead.length;
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
    this.unsubscribe = this.worker.onWake(() => this.poke());
    this.pollTimer = setInterval(() => this.poke(), this.opts.pollMs);
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

  /** Something may have become claimable (a poll, the store's wake): claim again, the local queue too. */
  private poke(): void {
    this.dry = false;
    this.wake();
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
        this.dispatch();
        if (!(await this.claim())) break;
      } while (this.again);
    } catch (err) {
      this.log.error({ err: errorInfo(err) }, 'dispatch failed; retrying on the next wake');
    } finally {
      this.ticking = false;
    }
  }

  /**
   * One claim when a slot is idle or the local queue runs low: the idle slots (started at once) plus the lookahead
   * the queue lacks. False when nothing was asked.
   */
  private async claim(): Promise<boolean> {
    const now = performance.now();
    const idle = this.workers.filter((w) => !w.task && !w.retiring);
    const want = lookahead(this.workers, this.avgRunMs, this.opts.prefetch, now);
    // refill once the queue is down to half the lookahead (a slot idle means the queue is empty)
    const ahead = idle.length > 0 || this.ahead.length <= want / 2 ? Math.max(0, want - this.ahead.length) : 0;
    const claimer = this.workers.find((w) => !w.retiring);
    // no refill while the last claim came back short: until the next poll or a wake from the store
    if (idle.length === 0 && (ahead === 0 || !claimer || this.dry)) return false;
    const claimed = await this.worker.claim(
      idle.map((w) => w.slot),
      {
        leaseMs: this.opts.leaseMs,
        queues: this.opts.queues,
        ...(ahead > 0 && claimer && { ahead: { count: ahead, claimer: claimer.slot } }),
      },
    );
    this.lastClaimEmpty = claimed.length === 0;
    this.dry = claimed.length < idle.length + ahead;
    const late = lateClaim(claimed, performance.now() - now, this.opts, this.log);
    for (const t of late.giveBack) this.settle(null, givenBack(t, late.reason), t.ahead ? t.workerId : null);
    const byId = new Map(idle.map((w) => [w.slot.workerId, w]));
    const queued: ClaimedTask[] = [];
    for (const task of late.keep) {
      if (this.stopping) this.settle(null, givenBack(task, 'the pool stopped before the task started'), task.ahead ? task.workerId : null);
      else if (task.ahead) queued.push(task);
      else this.startTask(byId.get(task.workerId)!, task, null);
    }
    this.ahead.push(queued, now);
    this.dispatch();
    if (claimed.length === 0) this.notifyIdle();
    // workers left idle: a rate limit may be what holds tasks back; wake when its next slot opens
    if (claimed.length < idle.length) this.rateWake.check();
    return true;
  }

  /** Free slots take the oldest tasks claimed ahead. */
  private dispatch(): void {
    if (this.ahead.length === 0 || this.stopping) return;
    for (const w of this.workers) {
      if (w.task || w.retiring) continue;
      const t = this.ahead.take();
      if (!t) break;
      // the claim's object becomes the runner's: it has left the local queue, and its claimer is kept apart
      const claimer = t.workerId;
      t.workerId = w.slot.workerId;
      t.session = w.slot.session;
      t.startedAt = new Date();
      t.ahead = false;
      this.startTask(w, t, claimer);
    }
    this.watchAhead();
  }

  /**
   * Run a task on a slot. `claimer`: it was claimed ahead, by that worker: its start is recorded in a later flush,
   * with its end if it ends first.
   */
  private startTask(w: PoolWorker, task: ClaimedTask, claimer: string | null): void {
    const controller = new AbortController();
    const began = performance.now();
    const pending =
      claimer !== null
        ? new PendingStart({ at: task.startedAt, claimer, session: w.slot.session, due: task.runAfter }, began, this.hurried)
        : null;
    w.task = task;
    w.controller = controller;
    w.began = began;
    w.pending = pending;
    w.claimer = claimer;
    if (pending) this.armStartWrite(START_WRITE_MS);
    void runTask(this.worker, this.registry, task, controller, { leaseMs: this.opts.leaseMs }, pending ?? undefined).then(
      ({ settlement, trace }) => {
        const ms = performance.now() - began;
        this.avgRunMs = this.avgRunMs === null ? ms : this.avgRunMs * 0.8 + ms * 0.2;
        this.ended(w, task, settlement, trace);
      },
    );
  }

  private ended(w: PoolWorker, task: ClaimedTask, settlement: Settlement, trace: string | null): void {
    const pending = w.pending;
    const claimer = w.claimer;
    w.task = null;
    w.controller = null;
    w.pending = null;
    w.claimer = null;
    this.processed++;
    const { id: taskId, workerId, attempt } = task;
    this.settle(pending, { taskId, workerId, attempt, settlement, ...(trace && { trace }) }, claimer);
    // the oldest task claimed ahead starts at once on the slot just freed
    this.dispatch();
    this.wake();
  }

  /** `claimer`: the worker that claimed it ahead, while its lease may still be renewed on the claim */
  private settle(pending: PendingStart | null, result: AttemptResult, claimer: string | null): void {
    this.settled.push({ result, pending, claimer });
  }

  /** Give back what waits in the local queue (pending again, nothing counted); recorded by the next flush. */
  private giveBackAll(reason: string): number {
    const tasks = this.ahead.drain();
    for (const t of tasks) this.settle(null, givenBack(t, reason), t.workerId);
    if (tasks.length) this.log.info({ tasks: tasks.length, reason }, 'gave back tasks claimed ahead');
    return tasks.length;
  }

  /**
   * While tasks wait in the local queue: give back those claimed more than AHEAD_MAX_MS ago, and all of them once no
   * slot can start one soon (attempts became long, or every slot runs one that does).
   */
  private watchAhead(): void {
    if (this.aheadTimer || this.ahead.length === 0) return;
    this.aheadTimer = setTimeout(() => {
      this.aheadTimer = null;
      if (this.stopping) return;
      const now = performance.now();
      let back = 0;
      if (lookahead(this.workers, this.avgRunMs, this.opts.prefetch, now) === 0 && this.workers.every((w) => w.task || w.retiring)) {
        back = this.giveBackAll('no slot of its pool was free to start it: the attempts before it run long');
      } else {
        const reason = 'no slot of its pool started it in time';
        for (const t of this.ahead.expired(now)) {
          this.settle(null, givenBack(t, reason), t.workerId);
          back++;
        }
        if (back) this.log.info({ tasks: back, reason }, 'gave back tasks claimed ahead');
      }
      if (back > 0) this.wake();
      this.watchAhead();
    }, AHEAD_CHECK_MS);
    this.aheadTimer.unref?.();
  }

  /** A flush within `ms`, for the starts of claimed tasks' attempts that still run. */
  private armStartWrite(ms: number): void {
    if (this.startTimer) return;
    this.startTimer = setTimeout(
      () => {
        this.startTimer = null;
        this.wake();
      },
      Math.max(1, ms),
    );
    this.startTimer.unref?.();
  }

  /**
   * Record what happened: settlements (a claimed task's unrecorded start goes with its end), tasks given back, and
   * the starts of claimed tasks' attempts that still run after START_WRITE_MS (or whose output waits) — one call.
   */
  private async flush(): Promise<void> {
    const now = performance.now();
    const starts: { w: PoolWorker; pending: PendingStart }[] = [];
    let later = Number.POSITIVE_INFINITY;
    for (const w of this.workers) {
      const p = w.pending;
      if (!p || p.done || p.sending || !w.task) continue;
      const age = now - p.began;
      if (p.hurried || age >= START_WRITE_MS || this.stopping) starts.push({ w, pending: p });
      else later = Math.min(later, START_WRITE_MS - age);
    }
    if (later !== Number.POSITIVE_INFINITY) this.armStartWrite(later);
    if (this.settled.length === 0 && starts.length === 0) return;
    const batch = this.settled.splice(0, this.settled.length);
    const results = batch.map(({ result, pending }) => (pending && !pending.done ? { ...result, start: pending.start } : result));
    for (const s of starts) {
      s.pending.sending = true;
      results.push(stillRunning(s.w.task!, s.pending));
    }
    this.flushing = batch;
    try {
      const ok = await this.worker.finish(results);
      ok.forEach((accepted, i) => {
        if (accepted) return;
        const r = results[i]!;
        if (i >= batch.length) {
          // a claimed task whose start was refused: cancelled at once by an operator, or its claim lapsed
          const w = starts[i - batch.length]!.w;
          if (w.task?.id === r.taskId) {
            w.controller?.abort(new StopReason('lease_lost', 'its claim was cancelled or lapsed before its start was recorded'));
          }
        } else if (r.settlement.kind !== 'given_back') {
          this.log.warn(
            { taskId: r.taskId, attempt: r.attempt, workerId: r.workerId },
            'attempt lost its lease; its result was not recorded',
          );
        }
      });
      for (const s of starts) s.pending.settle();
      for (const b of batch) b.pending?.settle();
    } catch (err) {
      // keep them for the next flush: a settled attempt must reach the store
      this.settled.unshift(...batch);
      for (const s of starts) s.pending.sending = false;
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
    const running = leasesHeld(this.workers, this.ahead.tasks(), [...this.flushing, ...this.settled]);
    let serverMs: number | undefined;
    try {
      const r = await this.worker.heartbeat({ workerIds: this.workerIds(), running, leaseMs: this.opts.leaseMs });
      serverMs = r.serverMs;
      applyHeartbeat(this.workers, this.ahead, running, r);
    } catch (err) {
      this.log.warn({ err: errorInfo(err) }, 'heartbeat failed');
    }
    return serverMs;
  }

  private notifyIdle(): void {
    if (this.busy > 0 || this.settled.length > 0 || this.ahead.length > 0) return;
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
        if (this.lastClaimEmpty && this.busy === 0 && this.settled.length === 0 && this.ahead.length === 0 && !this.ticking) done();
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
   * Graceful shutdown: stop claiming, give back what was claimed ahead (first, so another process can take it), let
   * running tasks finish within `graceMs`, then abort the rest (pending, run at once) so nothing stays stuck as running.
   */
  async stop(graceMs = this.opts.shutdownGraceMs): Promise<void> {
    if (!this.started || this.stopping) return;
    this.stopping = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    if (this.aheadTimer) clearTimeout(this.aheadTimer);
    this.rateWake.stop();
    this.unsubscribe?.();
    this.maintenance?.stop();
    while (this.ticking) await new Promise((r) => setTimeout(r, 5));
    this.giveBackAll('the pool stopped before the task started');
    await this.flush().catch((err) => this.log.error({ err: errorInfo(err) }, 'could not give back the tasks claimed ahead'));
    // meanwhile results and starts are recorded as they come (the dispatcher has stopped)
    const recorder = setInterval(() => {
      if (this.ticking) return;
      this.ticking = true;
      void this.flush()
        .catch(() => {})
        .finally(() => (this.ticking = false));
    }, START_WRITE_MS);
    await this.crew.drain(graceMs);
    clearInterval(recorder);
    while (this.ticking) await new Promise((r) => setTimeout(r, 5));
    await this.flush().catch((err) => this.log.error({ err: errorInfo(err) }, 'could not record the last results'));
    if (this.startTimer) clearTimeout(this.startTimer);
    if (this.beatTimer) clearInterval(this.beatTimer);
    await this.crew.deregisterAll();
    this.log.info({ processed: this.processed }, 'pool stopped');
  }
}
