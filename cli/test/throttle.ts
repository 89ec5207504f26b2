// Throttle measures over the ExecutionLog (keys, rate windows, turns): attempts with their task's
// concurrency key, and the most starts any sliding window holds.
import { readModelOf, type Readpast } from '../../lib/api/readpast';
import type { AttemptView, TaskView } from '../../lib/engine/types';
import { allPages } from './helpers';

/** An attempt with its task's concurrency key (null: none). */
export type KeyedAttempt = AttemptView & { key: string | null };

export const queueAttempts = (lib: Readpast, queue: string): Promise<AttemptView[]> =>
  allPages((cursor) => readModelOf(lib).listAttempts({ queue, cursor, limit: 500 }));

export const queueTasks = (lib: Readpast, queue: string): Promise<TaskView[]> =>
  allPages((cursor) => readModelOf(lib).listTasks({ queue, cursor, limit: 500 }));

/** Every attempt of `queue`, oldest start first, each with its task's key. */
export async function keyedAttempts(lib: Readpast, queue: string): Promise<KeyedAttempt[]> {
  const keyOf = new Map((await queueTasks(lib, queue)).map((t) => [t.token, t.concurrencyKey]));
  const attempts = await queueAttempts(lib, queue);
  return attempts
    .map((a) => {
      if (!keyOf.has(a.token)) throw new Error(`attempt of ${a.token}: no such task in ${queue}`);
      return { ...a, key: keyOf.get(a.token) ?? null };
    })
    .sort((a, b) => startMs(a) - startMs(b) || a.id - b.id);
}

export const startMs = (a: { startedAt: Date | string }): number => new Date(a.startedAt).getTime();

/** Attempts grouped by key (attempts with no key are left out). */
export function byKey(attempts: KeyedAttempt[]): Map<string, KeyedAttempt[]> {
  const out = new Map<string, KeyedAttempt[]>();
  for (const a of attempts) if (a.key !== null) out.set(a.key, [...(out.get(a.key) ?? []), a]);
  return out;
}

/**
 * The most of `starts` (ms, any order) inside one window [t, t + windowMs), over every t: the densest window
 * always begins at a start, so checking the windows that begin at each start is exhaustive.
 */
export function maxStartsInWindow(starts: number[], windowMs: number): { count: number; from: number } {
  const s = [...starts].sort((a, b) => a - b);
  let best = { count: 0, from: Number.NaN };
  let j = 0;
  for (let i = 0; i < s.length; i++) {
    while (j < s.length && s[j]! < s[i]! + windowMs) j++;
    if (j - i > best.count) best = { count: j - i, from: s[i]! };
  }
  return best;
}
