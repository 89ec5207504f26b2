// The pool's workers (slots): each registered with its own session and what it runs, and the set of them —
// registered together, retired by a shrink once their task is done, drained at a stop. What the pool claimed
// ahead waits in its one local queue (pool-prefetch.ts), bound to no slot.
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { PoolOptions } from './pool-options';
import type { WorkerPort } from './ports';
import type { PendingStart } from './pool-starts';
import type { ClaimedTask, WorkerSlot } from './types';
import { StopReason } from './run';

export interface PoolWorker {
  slot: WorkerSlot;
  /** what it runs (a task claimed ahead: the runner's copy, its workerId and session this slot's) */
  task: ClaimedTask | null;
  controller: AbortController | null;
  /** when its task began (performance.now()) */
  began: number;
  /** a task claimed ahead: its start, until recorded */
  pending: PendingStart | null;
  /** the worker that claimed its task ahead (null: its own claim) */
  claimer: string | null;
  /** set when the pool shrinks: the worker leaves once its task is done */
  retiring: boolean;
}

export class WorkerSet {
  readonly all: PoolWorker[] = [];
  private readonly instance = randomBytes(3).toString('hex');
  private seq = 0;

  constructor(
    private readonly port: WorkerPort,
    private readonly opts: PoolOptions,
  ) {}

  get size(): number {
    return this.all.filter((w) => !w.retiring).length;
  }

  /** workers asked to leave by a shrink, still finishing their task */
  get retiring(): number {
    return this.all.filter((w) => w.retiring).length;
  }

  get busy(): number {
    return this.all.filter((w) => w.task).length;
  }

  ids(): string[] {
    return this.all.map((w) => w.slot.workerId);
  }

  /**
   * Register n workers at once (each opens its own session: one after the other, start-up would take n
   * logins end to end). Those registered join even when another fails; the first failure is thrown.
   */
  async add(n: number): Promise<void> {
    const host = hostname();
    const ids = Array.from({ length: n }, () => `${host}-${process.pid}-${this.instance}-${++this.seq}`);
    const results = await Promise.allSettled(
      ids.map((workerId) =>
        this.port.registerWorker({
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
        this.all.push({
          slot: { workerId: ids[i]!, session: r.value.session },
          task: null,
          controller: null,
          began: 0,
          pending: null,
          claimer: null,
          retiring: false,
        });
      } else failure ??= r.reason;
    });
    if (failure) throw failure;
  }

  async removeRetired(): Promise<void> {
    for (const w of [...this.all]) {
      if (!w.retiring || w.task) continue;
      this.all.splice(this.all.indexOf(w), 1);
      await this.port.deregisterWorker(w.slot.workerId);
    }
  }

  /**
   * Grow to n workers (busy retiring ones stay first, then new ones register; before the start only the
   * option changes) or retire the surplus, idle ones first: a busy one leaves once its task is done.
   */
  async resize(n: number, started: boolean): Promise<void> {
    const active = this.all.filter((w) => !w.retiring);
    if (n > active.length) {
      // un-retire busy workers first, then add new ones
      for (const w of this.all) if (w.retiring && this.size < n) w.retiring = false;
      if (started) await this.add(n - this.size);
      else this.opts.concurrency = n;
    } else {
      const surplus = active.length - n;
      const ordered = [...active].sort((a, b) => Number(!!a.task) - Number(!!b.task) || b.slot.session - a.slot.session);
      for (const w of ordered.slice(0, surplus)) w.retiring = true;
      await this.removeRetired();
    }
  }

  /**
   * The stop's grace (what was claimed ahead is given back before): each worker finishes its task within
   * `graceMs`; the ones still running then are cut short (pending, run at once).
   */
  async drain(graceMs: number): Promise<void> {
    const deadline = Date.now() + graceMs;
    while (this.busy > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    for (const w of this.all) w.controller?.abort(new StopReason('shutdown', 'worker shut down before the task finished'));
    while (this.busy > 0) await new Promise((r) => setTimeout(r, 5));
  }

  /** Every worker leaves (a stopping pool: failures are ignored). */
  async deregisterAll(): Promise<void> {
    for (const w of this.all.splice(0)) {
      await this.port.deregisterWorker(w.slot.workerId).catch(() => {});
    }
  }
}
