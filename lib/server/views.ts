// JSON shapes the API has beyond lib/engine/present.ts, and the reads behind the heavier GET routes.
import { taskJson, workerJson } from '@/lib/engine/present';
import type { FailureFilter, FailureGroup } from '@/lib/engine/types';
import type { ServerEngine } from './engine';
import { poolInfo } from './engine';

export const MAX_DEAD_LISTED = 200;

export function failureGroupJson(g: FailureGroup) {
  return { ...g, lastAt: g.lastAt.toISOString() };
}

/** Failed & poison: recent failures grouped by message, and the newest dead tasks. */
export async function failuresView({ readpast }: ServerEngine, filter: FailureFilter) {
  const [groups, dead] = await Promise.all([
    readpast.store.failureGroups(filter),
    readpast.store.listTasks({ status: 'dead', queue: filter.queue, q: filter.q ?? filter.message, limit: MAX_DEAD_LISTED }),
  ]);
  return { groups: groups.map(failureGroupJson), dead: dead.items.map(taskJson) };
}

/** Workers: every registered worker, this process's pool, and whether live session state is visible. */
export async function workersView({ readpast, pool }: ServerEngine) {
  const now = Date.now();
  const [workers, liveStatus] = await Promise.all([
    readpast.store.listWorkers(),
    readpast.store.liveStatusAvailable ? readpast.store.liveStatusAvailable() : Promise.resolve(null),
  ]);
  return { workers: workers.map((w) => workerJson(w, now)), pool: poolInfo(pool), liveStatus };
}

/** Handler names: this process's registry and those registered by worker processes. */
export async function handlerNames({ readpast }: ServerEngine): Promise<string[]> {
  const remote = await readpast.store.knownHandlers();
  return [...new Set([...readpast.registry.names(), ...remote])].sort();
}
