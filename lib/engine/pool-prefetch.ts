// Claiming ahead: the pool's one local queue (graphile-worker's localQueue is the model). While attempts are short,
// a claim asks for the idle slots plus a bounded lookahead; the tasks claimed ahead wait here, `claimed` in the
// store (a lease, no attempt), and whichever slot frees first takes the oldest. A task no slot started within
// AHEAD_MAX_MS of its claim — or every one, once no slot is free to start them soon — is given back: pending
// again, nothing counted, so another process can take it. Never bound to a slot behind a task that may run long.
import { PREFETCH_BELOW_MS, PREFETCH_HOLD_MS } from './pool-options';
import type { PoolWorker } from './pool-workers';
import type { AttemptResult, ClaimedTask } from './types';

/** A task claimed ahead that no slot has started this long after its claim (ms) is given back. */
export const AHEAD_MAX_MS = 300;

/** How often (ms) the pool looks at its local queue while it holds tasks: their age, slots running long. */
export const AHEAD_CHECK_MS = 50;

interface Ahead {
  task: ClaimedTask;
  /** when the claim that took it was sent (performance.now()) */
  at: number;
}

/** The pool's tasks claimed ahead, oldest first. */
export class LocalQueue {
  private items: Ahead[] = [];

  get length(): number {
    return this.items.length;
  }

  push(tasks: ClaimedTask[], at: number): void {
    for (const task of tasks) this.items.push({ task, at });
  }

  /** The oldest, for a slot that frees. */
  take(): ClaimedTask | undefined {
    return this.items.shift()?.task;
  }

  /** Everything it holds, emptied (a stop, attempts that became long). */
  drain(): ClaimedTask[] {
    return this.items.splice(0).map((a) => a.task);
  }

  /** Those claimed more than `maxMs` before `now`, removed. */
  expired(now: number, maxMs = AHEAD_MAX_MS): ClaimedTask[] {
    let n = 0;
    while (n < this.items.length && now - this.items[n]!.at > maxMs) n++;
    return this.items.splice(0, n).map((a) => a.task);
  }

  /** Keep only those `keep` says (the store no longer gives the others to this pool: cancelled, claim lapsed). */
  retain(keep: (t: ClaimedTask) => boolean): void {
    this.items = this.items.filter((a) => keep(a.task));
  }

  tasks(): ClaimedTask[] {
    return this.items.map((a) => a.task);
  }
}

/** A slot that can start a task soon: idle, or running an attempt that has not run long (PREFETCH_BELOW_MS). */
export function fastSlot(w: PoolWorker, now: number): boolean {
  return !w.retiring && (!w.task || now - w.began < PREFETCH_BELOW_MS);
}

/**
 * How many tasks the local queue should hold: while attempts are short on average (`avgRunMs`), what the slots
 * that can start one soon get through in PREFETCH_HOLD_MS, and never more than `prefetch`; 0 when attempts are long
 * or no slot is free to start one soon (every slot on an attempt that runs long).
 */
export function lookahead(workers: PoolWorker[], avgRunMs: number | null, prefetch: number, now: number): number {
  if (prefetch <= 0 || avgRunMs === null || avgRunMs >= PREFETCH_BELOW_MS) return 0;
  let fast = 0;
  for (const w of workers) if (fastSlot(w, now)) fast++;
  return Math.min(prefetch, fast * Math.floor(PREFETCH_HOLD_MS / Math.max(avgRunMs, 0.01)));
}

/** The result that gives a task back to pending with nothing counted (a task claimed ahead, or an attempt never run). */
export function givenBack(task: ClaimedTask, reason: string): AttemptResult {
  return { taskId: task.id, workerId: task.workerId, attempt: task.attempt, settlement: { kind: 'given_back', reason } };
}
