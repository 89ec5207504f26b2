// Queues: their limits, pause and throttle (per-key limit, keyFrom, rate limit) — a command, audited as
// `queue.update` with only the fields that changed —, the recorded changes, the concurrency tokens, the top
// concurrency keys, the rate window, and why their work waits (lib/api/why.ts).
import { NotFoundError } from '../engine/errors';
import { parseRate, rateText } from '../engine/keys';
import type { QueueSettings } from '../engine/types';
import { MAX_CONCURRENCY_KEY_LENGTH } from '../engine/limits';
import { intIn, parseWith, queueName, queuePatch, rateLimit } from '../engine/validation';
import { z } from 'zod';
import type { Core } from './core';
import { queueChangeJson, queueJson, tokenJson } from './present';
import { queueHealth, queueHealthOf } from './why';

export const MAX_CHANGES_LISTED = 500;
export const DEFAULT_CHANGES_LISTED = 200;
/** Top concurrency keys shown with each queue of the list, and at most asked of one queue. */
export const KEYS_LISTED = 5;
export const MAX_KEYS_LISTED = 100;

const keysLimit = z.preprocess((v) => (typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : v), intIn(1, MAX_KEYS_LISTED));
const concurrencyKey = z.string().min(1).max(MAX_CONCURRENCY_KEY_LENGTH);

/**
 * A patch's rateLimit checked on its own, so a bad part is named (`rateLimit.periodSeconds`), and written as text
 * (`60/1m`, `20/2s per key`, `none`) taken too: the object form queuePatch checks.
 */
function checkedRate(patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch) || !('rateLimit' in patch)) return patch;
  const r = patch.rateLimit;
  if (typeof r === 'string') return { ...patch, rateLimit: parseRate(r, 'rateLimit') };
  if (typeof r === 'object' && r !== null) return { ...patch, rateLimit: parseWith(rateLimit, r, 'rateLimit') };
  return patch;
}

/** The settings an operator changes live, as the audit and QueueChanges record them (rateLimit as `60/1m`). */
function liveSettings(q: Pick<QueueSettings, 'concurrencyLimit' | 'paused' | 'perKeyLimit' | 'keyFrom' | 'rateLimit'> | undefined) {
  return {
    concurrencyLimit: q?.concurrencyLimit ?? null,
    paused: q?.paused ?? false,
    perKeyLimit: q?.perKeyLimit ?? null,
    keyFrom: q?.keyFrom ?? null,
    rateLimit: rateText(q?.rateLimit ?? null),
  };
}

export class Queues {
  constructor(private readonly core: Core) {}

  async setQueue(name: unknown, patch: unknown, changedBy: string) {
    const { store, audit } = this.core;
    const n = parseWith(queueName, name, 'name');
    const p = parseWith(queuePatch, checkedRate(patch));
    const old = (await store.reads.listQueues()).find((v) => v.name === n);
    const before = liveSettings(old);
    const written = audit.of(
      (settings: QueueSettings) => {
        const after = liveSettings(settings);
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

  /** every queue with its top keys, and the recent changes, newest first */
  async queues(changes: number) {
    const { reads } = this.core.store;
    const [queues, recent] = await Promise.all([reads.listQueues(), this.core.audit.queueChanges(null, changes)]);
    // a queue with nothing pending or running has no key to show: no read for it
    const keys = await Promise.all(queues.map((q) => (q.pending + q.running > 0 ? reads.queueKeys(q.name, KEYS_LISTED) : [])));
    return { queues: queues.map((q, i) => queueJson(q, keys[i])), changes: recent.map(queueChangeJson) };
  }

  /** one queue as `queues()` lists it */
  async queue(name: unknown) {
    const n = parseWith(queueName, name, 'name');
    const q = (await this.core.store.reads.listQueues()).find((v) => v.name === n);
    if (!q) throw new NotFoundError(`no queue ${n}`);
    return queueJson(q, await this.core.store.reads.queueKeys(n, KEYS_LISTED));
  }

  /** a queue's concurrency keys with running or pending tasks: most running first, then most pending (top `limit`) */
  async queueKeys(name: unknown, limit: unknown = KEYS_LISTED) {
    const n = parseWith(queueName, name, 'name');
    const l = parseWith(keysLimit, limit, 'limit');
    await this.knownQueue(n);
    return (await this.core.store.reads.queueKeys(n, l)).map((k) => ({ ...k }));
  }

  /** a rate-limited queue's window now (null: no rate limit); `key`: whose window, for a per-key rate */
  async rateWindow(name: unknown, key: unknown = null) {
    const n = parseWith(queueName, name, 'name');
    const k = key === null || key === undefined ? null : parseWith(concurrencyKey, key, 'key');
    await this.knownQueue(n);
    const r = await this.core.store.reads.rateWindow(n, k);
    return r && { ...r, nextAt: r.nextAt ? r.nextAt.toISOString() : null };
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
