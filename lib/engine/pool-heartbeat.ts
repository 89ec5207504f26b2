// The pool's heartbeat: one beat at a time (a slow one is reported, with where its time went), the leases
// it renews, and what the store's answer means for the pool's tasks (cancelled, lease lost).
import type { Logger } from './logger';
import type { PoolOptions } from './pool-options';
import type { LocalQueue } from './pool-prefetch';
import type { PoolWorker } from './pool-workers';
import type { AttemptResult, ClaimedTask, HeartbeatInput, HeartbeatResult } from './types';
import { StopReason } from './run';

/** One lease the pool holds: renewed by each heartbeat. */
export type HeldLease = HeartbeatInput['running'][number];

/**
 * Beats one at a time: a beat still waiting when the next is due is not doubled (the store gives heartbeats
 * a connection of their own, so a wait means the database is slow or locked, and a slow beat is logged with
 * how long it took).
 */
export class Heartbeats {
  /** a heartbeat is in flight, and how many were due meanwhile */
  private beating = false;
  private beatsSkipped = 0;
  /** a heartbeat slower than half the lease was logged with its cause; again only after a beat back in time */
  private slowBeatLogged = false;

  /** `renew` renews the heartbeat and every lease, and says how long the database itself worked on it. */
  constructor(
    private readonly log: Logger,
    private readonly opts: Pick<PoolOptions, 'leaseMs'>,
    private readonly renew: () => Promise<number | undefined>,
  ) {}

  async beat(): Promise<void> {
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
}

/** A settled attempt not yet recorded, and the worker that claimed it ahead (null: its own claim). */
export interface Unrecorded {
  result: AttemptResult;
  claimer: string | null;
}

/**
 * The leases a heartbeat renews: every task the workers run, every task claimed ahead in the local queue (`ahead`:
 * renewed on its claimer while `claimed`), and every attempt settled but not yet recorded (`unrecorded`) — the
 * store refuses a finish whose lease lapsed (and never renews one that did), so a result reached in time must not
 * expire while it waits. A task claimed ahead whose start is not recorded yet carries its claimer, so its lease is
 * renewed whichever of `claimed` or `running` it is in the store when the beat arrives.
 */
export function leasesHeld(workers: PoolWorker[], ahead: ClaimedTask[], unrecorded: Unrecorded[]): HeldLease[] {
  const held: HeldLease[] = [];
  for (const w of workers) {
    if (!w.task) continue;
    const lease: HeldLease = { taskId: w.task.id, workerId: w.task.workerId, attempt: w.task.attempt };
    if (w.claimer !== null) lease.claimer = w.claimer;
    held.push(lease);
  }
  for (const t of ahead) held.push({ taskId: t.id, workerId: t.workerId, attempt: t.attempt, claimer: t.workerId });
  for (const { result: r, claimer } of unrecorded) {
    const lease: HeldLease = { taskId: r.taskId, workerId: r.workerId, attempt: r.attempt };
    if (claimer !== null) lease.claimer = claimer;
    held.push(lease);
  }
  return held;
}

/**
 * Act on the store's answer to a heartbeat that asked for `running`: a running task an operator cancelled, or
 * whose lease was lost, is aborted; a task claimed ahead the store no longer gives this pool (cancelled at once by
 * an operator, or its claim lapsed) leaves the local queue (`ahead`).
 */
export function applyHeartbeat(
  workers: PoolWorker[],
  ahead: LocalQueue,
  running: HeldLease[],
  r: Pick<HeartbeatResult, 'owned' | 'cancelRequested'>,
): void {
  const owned = new Set(r.owned);
  const cancel = new Set(r.cancelRequested);
  const asked = new Set(running.map((x) => x.taskId));
  // a task claimed after this heartbeat was sent is not in `running`: kept
  ahead.retain((t) => owned.has(t.id) || !asked.has(t.id));
  for (const w of workers) {
    if (!w.task || !w.controller) continue;
    const id = w.task.id;
    if (cancel.has(id)) w.controller.abort(new StopReason('cancelled', 'cancelled by an operator'));
    else if (!owned.has(id) && asked.has(id)) {
      w.controller.abort(
        new StopReason('lease_lost', 'the lease was lost (it expired before a heartbeat renewed it; the task is retried)'),
      );
    }
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
