// Claiming ahead: how many slots one claim asks for while attempts are short, and how a prefetched task
// that never started is given back.
import { PREFETCH_BELOW_MS, PREFETCH_HOLD_MS } from './pool-options';
import type { PoolWorker } from './pool-workers';
import type { AttemptResult, ClaimedTask, WorkerSlot } from './types';

/** How a prefetched task not started by the end of the shutdown grace is given back (pending, run at once). */
const NOT_STARTED = 'worker shut down before the prefetched task started';

/**
 * The slots of one claim: each idle worker once, then — while attempts are short (`avgRunMs`, the recent
 * average run time) — round after round of them again, up to `prefetch` more (the store fills slots in
 * order, so a short claim spreads evenly).
 */
export function claimSlots(idle: PoolWorker[], avgRunMs: number | null, prefetch: number): WorkerSlot[] {
  const slots = idle.map((w) => w.slot);
  if (avgRunMs === null || avgRunMs >= PREFETCH_BELOW_MS) return slots;
  const rounds = Math.min(Math.floor(prefetch / idle.length), Math.floor(PREFETCH_HOLD_MS / Math.max(avgRunMs, 0.01)));
  for (let r = 0; r < rounds; r++) for (const w of idle) slots.push(w.slot);
  return slots;
}

/** The result that gives a prefetched task that never started back to pending, to run at once. */
export function givenBack(task: ClaimedTask, error = NOT_STARTED): AttemptResult {
  return {
    taskId: task.id,
    workerId: task.workerId,
    attempt: task.attempt,
    settlement: { kind: 'retry', outcome: 'abandoned', error: { number: null, message: error, detail: null }, runAfter: new Date() },
  };
}
