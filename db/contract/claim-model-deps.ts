// Dependencies in the randomized claim walk (claim-model.ts): some unbatched tasks are enqueued after others
// (1 to 3 parents drawn from the walk's tasks, each with a failure policy), so the walk holds waiting tasks
// that its settles, cancels, retries and rescues release, cancel and re-arm. The model holds a waiting task
// unclaimable (the `pending` rule); these checks add, on each state, what the edges themselves must say:
//  - a waiting or pending task with parents counts as left exactly the parents not done — a parent is done
//    once it succeeded, or failed (dead, cancelled) under `run` — and it waits exactly while one is left (or while
//    its durable handler is suspended, its parents all done);
//  - "why" of a waiting task answers `waiting`, with its left and total parent counts;
//  - a claimed task's parents (ClaimedTask.parents) are all finished, one per edge.
import { expect } from 'vitest';
import type { Store } from '../../lib/engine/ports';
import type { ClaimedTask, Dependency, TaskLink, TaskView } from '../../lib/engine/types';
import { PARENT_FAILURE_POLICIES, TERMINAL_STATUSES } from '../../lib/engine/types';
import type { Why } from '../../lib/engine/why';
import type { Rng } from './prng';

/**
 * An unbatched task's dependencies, at random: none (half the time), or 1 to 3 distinct tasks of the walk, most
 * of them running ones; a task with parents is due and often of the top priority (so that the walk's settles
 * release children the claim then takes).
 */
export function drawDependencies(
  rng: Rng,
  tokens: readonly string[],
  running: readonly string[],
): { dependsOn?: Dependency[]; runAt?: Date; priority?: number } {
  if (tokens.length === 0 || !rng.chance(0.5)) return {};
  const picked = new Set<string>();
  for (let n = 1 + rng.int(3); n > 0; n--) picked.add(rng.pick(running.length && rng.chance(0.7) ? running : tokens));
  const dependsOn = [...picked].map((token) => ({ token, onParentFailure: rng.pick(PARENT_FAILURE_POLICIES) }));
  return { dependsOn, runAt: new Date(Date.now() - 1000), ...(rng.chance(0.5) ? { priority: 2 } : {}) };
}

/** whether an edge no longer holds its child back */
const edgeDone = (p: TaskLink) =>
  p.status === 'succeeded' || (p.onParentFailure === 'run' && (p.status === 'dead' || p.status === 'cancelled'));

/**
 * The edges of every waiting or pending task with parents, read back by getTask, against the task's counters
 * and status. `views`: the snapshot's tasks.
 */
export async function checkEdges(store: Store, views: readonly TaskView[], where: string): Promise<number> {
  let checked = 0;
  for (const v of views) {
    if (v.status !== 'waiting' && v.status !== 'pending') continue;
    // a task its durable handler suspended waits for its time or its event: it ran, its parents were done
    if (v.suspended) {
      expect(v.status, `${where}: suspended #${v.id}`).toBe('waiting');
      expect(v.parentsLeft, `${where}: suspended #${v.id}'s parents left`).toBe(0);
      continue;
    }
    if (v.parentCount === 0) {
      expect(v.status, `${where}: #${v.id} has no parent`).toBe('pending');
      continue;
    }
    const t = (await store.reads.getTask(v.token))!;
    expect(t.parents, `${where}: #${v.id}'s parents`).toHaveLength(t.parentCount);
    const left = t.parents.filter((p) => !edgeDone(p)).length;
    const edges = t.parents.map((p) => `${p.token.slice(0, 8)} ${p.status}/${p.onParentFailure}`).join(', ');
    expect({ status: t.status, parentsLeft: t.parentsLeft }, `${where}: #${v.id} (${t.status}) after ${edges}`).toEqual({
      status: left > 0 ? 'waiting' : 'pending',
      parentsLeft: left,
    });
    checked++;
  }
  return checked;
}

/**
 * "why" of a waiting task: `waiting`, with its parents left and in all — or, suspended by its durable handler,
 * `sleeping` / `waiting_event`.
 */
export function checkWaitingWhy(task: TaskView, why: Why, where: string): void {
  if (task.status !== 'waiting') return;
  if (task.suspended) {
    const reason = task.suspended === 'sleep' ? 'sleeping' : 'waiting_event';
    expect(why.reason, `${where}: why of suspended #${task.id}: ${why.text}`).toBe(reason);
    return;
  }
  expect(why.reason, `${where}: why of waiting #${task.id}: ${why.text}`).toBe('waiting');
  expect(why.detail, `${where}: why of waiting #${task.id}`).toMatchObject({ left: task.parentsLeft, total: task.parentCount });
}

/** A claimed task's parents: one per edge, each finished (a task starts only after its parents). */
export function checkClaimedParents(c: ClaimedTask, view: TaskView | undefined, where: string): void {
  expect(c.parents, `${where}: the parents of claimed #${c.id}`).toHaveLength(view?.parentCount ?? 0);
  for (const p of c.parents) {
    expect(TERMINAL_STATUSES, `${where}: claimed #${c.id} while its parent ${p.token} is ${p.status}`).toContain(p.status);
  }
}
