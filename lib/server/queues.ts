// Queues for the API and server actions: who a change is recorded as made by, one queue's view,
// and its recorded changes.
import type { Readpast } from '@/lib/engine/client';
import { NotFoundError } from '@/lib/engine/errors';
import { queueChangeJson, queueJson } from '@/lib/engine/present';
import { parseWith, queueName } from '@/lib/engine/validation';
import type { ServerConfig } from './config';

export const MAX_CHANGES_LISTED = 500;
export const DEFAULT_CHANGES_LISTED = 200;

/** The name a queue change is recorded under: the signed-in user when READPAST_AUTH is set, else where it came from. */
export function changedBy(config: Pick<ServerConfig, 'auth'>, origin: 'api' | 'dashboard'): string {
  return config.auth?.user ?? origin;
}

/** A queue name from a URL path segment (decoded when it still is percent-encoded), validated as `name`. */
export function queueNameParam(raw: string): string {
  let name = raw;
  if (name.includes('%')) {
    try {
      name = decodeURIComponent(name);
    } catch {
      // not valid percent-encoding: validated as is
    }
  }
  return parseWith(queueName, name, 'name');
}

/** One queue as GET /api/queues lists it: limit, paused, pending, running, granted tokens. */
export async function queueView(readpast: Readpast, name: string) {
  const q = (await readpast.store.listQueueViews()).find((v) => v.name === name);
  if (!q) throw new NotFoundError(`no queue ${name}`);
  return queueJson(q);
}

/** Change a queue's limit and/or pause state; the queue as GET /api/queues lists it. */
export async function patchQueue(readpast: Readpast, name: string, patch: unknown, who: string) {
  const settings = await readpast.setQueue(name, patch, who);
  return queueView(readpast, settings.name);
}

/** Recorded changes of one queue, newest first. */
export async function queueChangesOf(readpast: Readpast, name: string, limit = DEFAULT_CHANGES_LISTED) {
  const changes = await readpast.store.queueChanges(name, Math.min(Math.max(1, limit), MAX_CHANGES_LISTED));
  return changes.map(queueChangeJson);
}

export type QueueJson = ReturnType<typeof queueJson>;
