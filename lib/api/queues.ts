// Queues: their limits and pause (a command, audited as `queue.update` with only the fields that changed),
// the recorded changes, the concurrency tokens, and why their work waits (lib/api/why.ts).
import { NotFoundError } from '../engine/errors';
import type { QueueSettings } from '../engine/types';
import { parseWith, queueName, queuePatch } from '../engine/validation';
import type { Core } from './core';
import { queueChangeJson, queueJson, tokenJson } from './present';
import { queueHealth, queueHealthOf } from './why';

export const MAX_CHANGES_LISTED = 500;
export const DEFAULT_CHANGES_LISTED = 200;

export class Queues {
  constructor(private readonly core: Core) {}

  async setQueue(name: unknown, patch: unknown, changedBy: string) {
    const { store, audit } = this.core;
    const n = parseWith(queueName, name, 'name');
    const p = parseWith(queuePatch, patch);
    const old = (await store.reads.listQueues()).find((v) => v.name === n);
    const before = { concurrencyLimit: old?.concurrencyLimit ?? null, paused: old?.paused ?? false };
    const written = audit.of(
      (settings: QueueSettings) => {
        const after = { concurrencyLimit: settings.concurrencyLimit, paused: settings.paused };
        const changed = (Object.keys(after) as (keyof typeof after)[]).filter((k) => before[k] !== after[k]);
        if (!changed.length) return null;
        return {
          action: 'queue.update',
          target: n,
          before: Object.fromEntries(changed.map((k) => [k, before[k]])),
          after: Object.fromEntries(changed.map((k) => [k, after[k]])),
          count: 1,
        };
      },
      changedBy.slice(0, 200),
    );
    const settings = await store.commands.setQueue(n, p, changedBy.slice(0, 200) || 'unknown', written);
    return this.queue(settings.name);
  }

  /** every queue, and the recent limit / pause changes, newest first */
  async queues(changes: number) {
    const [queues, recent] = await Promise.all([this.core.store.reads.listQueues(), this.core.audit.queueChanges(null, changes)]);
    return { queues: queues.map(queueJson), changes: recent.map(queueChangeJson) };
  }

  /** one queue as `queues()` lists it */
  async queue(name: unknown) {
    const n = parseWith(queueName, name, 'name');
    const q = (await this.core.store.reads.listQueues()).find((v) => v.name === n);
    if (!q) throw new NotFoundError(`no queue ${n}`);
    return queueJson(q);
  }

  /** NotFoundError for a queue that does not exist (what is asked of one queue answers 404 / exit 3, never an empty list) */
  private async knownQueue(name: string): Promise<void> {
    if (!(await this.core.store.reads.listQueues()).some((v) => v.name === name)) throw new NotFoundError(`no queue ${name}`);
  }

  async queueChanges(name: unknown, limit: number) {
    const n = name === null ? null : parseWith(queueName, name, 'name');
    if (n !== null) await this.knownQueue(n);
    const changes = await this.core.audit.queueChanges(n, Math.min(Math.max(1, limit), MAX_CHANGES_LISTED));
    return changes.map(queueChangeJson);
  }

  async tokens(queue: unknown) {
    const q = queue === undefined ? null : parseWith(queueName, queue, 'queue');
    if (q !== null) await this.knownQueue(q);
    return (await this.core.store.reads.listTokens(q)).map(tokenJson);
  }

  /** every queue's pending split, oldest ready age, no-live-worker warning and why its work waits */
  queueHealth() {
    return queueHealth(this.core.store.reads);
  }

  /** one queue's health (`queueHealth()`) */
  queueWhy(name: string) {
    return queueHealthOf(this.core.store.reads, name);
  }
}
