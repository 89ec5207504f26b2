// A claim that comes back late: its tasks' leases were counted from when the store took them, and no heartbeat
// renews a lease the pool does not know of yet, so a claim whose round trip ate most of the lease hands over tasks
// that may be rescued — and run again elsewhere — while their handlers run here. Such a task is never started:
// one whose lease has surely lapsed is dropped (the rescue owns it), one with less than a safe margin left is given
// back (fenced on its claim: pending, nothing counted — an attempt the claim started is undone).
import type { Logger } from './logger';
import type { PoolOptions } from './pool-options';
import type { ClaimedTask } from './types';

/**
 * What is left of a lease must cover this much for the pool to start the task: two heartbeats, or a quarter of it —
 * never more than half of it (heartbeats slower than the lease are a configuration the pool still runs with).
 */
export function leaseMargin(opts: Pick<PoolOptions, 'leaseMs' | 'heartbeatMs'>): number {
  return Math.min(opts.leaseMs / 2, Math.max(2 * opts.heartbeatMs, opts.leaseMs / 4));
}

export interface LateClaim {
  /** tasks to start or queue */
  keep: ClaimedTask[];
  /** tasks to give back (fenced on their claim) */
  giveBack: ClaimedTask[];
  reason: string;
}

/**
 * Sort a claim's tasks by what is left of their leases after a round trip of `rttMs` (at least leaseMs − rttMs:
 * each lease began after the claim was sent). Logs the round trip against the lease when it was late.
 */
export function lateClaim(
  claimed: ClaimedTask[],
  rttMs: number,
  opts: Pick<PoolOptions, 'leaseMs' | 'heartbeatMs'>,
  log: Logger,
): LateClaim {
  const left = opts.leaseMs - rttMs;
  const margin = leaseMargin(opts);
  const reason = `its claim took ${Math.round(rttMs)} ms of a ${opts.leaseMs} ms lease: too little was left to run it`;
  if (claimed.length === 0 || left >= margin) return { keep: claimed, giveBack: [], reason };
  const lapsed = left <= 0;
  log.warn(
    { rttMs: Math.round(rttMs), leaseMs: opts.leaseMs, marginMs: margin, tasks: claimed.map((t) => t.id) },
    lapsed
      ? 'claim returned after its lease lapsed: its tasks are not started (the lease rescue puts them back)'
      : 'claim returned with less than a safe margin of its lease left: its tasks are given back, not started',
  );
  return { keep: [], giveBack: lapsed ? [] : claimed, reason };
}
