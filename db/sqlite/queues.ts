// Queues: settings (limit, pause, per-key limit, keyFrom, rate limit) with every change recorded, Taskling's concurrency tokens, the queue
// views and their change history. A limited queue owns tokens 1..limit in ConcurrencyTokens; the claim
// grants them (claim.ts), an ending attempt releases its own here. Unlimited queues have no tokens and
// pay nothing.
import type { AuditWrite, CommandPort, ReadModel } from '../../lib/engine/ports';
import type { QueueChange, QueuePatch, QueueSettings, QueueView, TokenView } from '../../lib/engine/types';
import { rateText } from '../../lib/engine/keys';
import { read, type Db, type Shared } from './connection';
import { rateUsage, seedSlots } from './throttle';
import { type ChangeRow, queueChange, type QueueRow, queueSettings } from './rows';
import * as S from './sql/queues';
import { stmt } from './stmt';
import type { Slice } from '../shared/bind';

/** A token's holder whose worker has not beaten for this long is shown as probably dead. */
const STALE_WORKER_MS = 15_000;

/** The queue's settings, creating it with the defaults if needed. */
export function ensureQueue(db: Db, name: string, now: number): QueueRow {
  return ensured(db, name, now, S.GET_QUEUE) as QueueRow;
}

/** What an enqueue takes from its queue's row (task defaults, keyFrom), creating it with the defaults if needed. */
export type QueueDefaults = Pick<QueueRow, 'max_attempts' | 'timeout_ms' | 'key_from'>;

/** `ensureQueue` for an enqueue: the columns a task's row needs, not the queue's every setting (a narrower read). */
export function enqueueDefaults(db: Db, name: string, now: number): QueueDefaults {
  return ensured(db, name, now, S.GET_QUEUE_DEFAULTS) as QueueDefaults;
}

/** The queue's row as `read` selects it, the queue created with the defaults first when it is new. */
function ensured(db: Db, name: string, now: number, read: string): unknown {
  // read first: the queue exists but for a producer's first task to it
  const q = stmt(db, read).get(name);
  if (q) return q;
  stmt(db, S.ENSURE_QUEUE).run(name, now);
  return stmt(db, read).get(name);
}

/** Change a queue's limit / pause (creating the queue if needed); every change is recorded. A raised limit may free work at once. */
export async function setQueue(
  shared: Shared,
  name: string,
  patch: QueuePatch,
  changedBy: string,
  audit?: AuditWrite<QueueSettings>,
): Promise<QueueSettings> {
  const q = await shared.tx((_t, now) => changeQueue(shared.db, name, patch, changedBy, now), audit);
  shared.wake();
  return q;
}

function changeQueue(db: Db, name: string, patch: QueuePatch, changedBy: string, now: number): QueueSettings {
  const before = ensureQueue(db, name, now);
  const log = stmt(db, S.RECORD_QUEUE_CHANGE);
  const show = (v: number | null) => (v === null ? 'unlimited' : String(v));
  if (patch.concurrencyLimit !== undefined && patch.concurrencyLimit !== before.concurrency_limit) {
    stmt(db, S.SET_LIMIT).run(patch.concurrencyLimit, name);
    log.run(name, now, changedBy, 'concurrencyLimit', show(before.concurrency_limit), show(patch.concurrencyLimit));
    if (patch.concurrencyLimit === null) stmt(db, S.DROP_FREE_TOKENS).run(name);
    else stmt(db, S.DROP_FREE_TOKENS_ABOVE).run(name, patch.concurrencyLimit);
  }
  if (patch.paused !== undefined && (patch.paused ? 1 : 0) !== before.paused) {
    stmt(db, S.SET_PAUSED).run(patch.paused ? 1 : 0, name);
    log.run(name, now, changedBy, 'paused', String(before.paused === 1), String(patch.paused));
  }
  const was = queueSettings(before);
  if (patch.perKeyLimit !== undefined && patch.perKeyLimit !== was.perKeyLimit) {
    stmt(db, S.SET_PER_KEY_LIMIT).run(patch.perKeyLimit, name);
    log.run(name, now, changedBy, 'perKeyLimit', show(was.perKeyLimit), show(patch.perKeyLimit));
  }
  if (patch.keyFrom !== undefined && patch.keyFrom !== was.keyFrom) {
    stmt(db, S.SET_KEY_FROM).run(patch.keyFrom, name);
    log.run(name, now, changedBy, 'keyFrom', was.keyFrom ?? 'none', patch.keyFrom ?? 'none');
  }
  if (patch.rateLimit !== undefined && rateText(patch.rateLimit) !== rateText(was.rateLimit)) {
    const r = patch.rateLimit;
    stmt(db, S.SET_RATE).run(r?.limit ?? null, r?.periodSeconds ?? null, r?.perKey ? 1 : 0, name);
    log.run(name, now, changedBy, 'rateLimit', rateText(was.rateLimit), rateText(r));
    // the new window starts from the attempts already started in it
    seedSlots(db, name, r, now);
  }
  return queueSettings(stmt(db, S.GET_QUEUE).get(name) as QueueRow);
}

/** Release the token an attempt holds (fenced on the attempt); a token above a lowered limit is dropped. */
export function releaseToken(db: Db, queue: string, tokenNo: number, taskId: number, attempt: number): void {
  stmt(db, S.RELEASE_TOKEN).run(queue, tokenNo, taskId, attempt);
  stmt(db, S.DROP_RELEASED_TOKEN).run(queue, tokenNo, queue);
}

export function listQueues(shared: Shared): Promise<QueueView[]> {
  return read(() => {
    const now = Date.now();
    const rows = stmt(shared.db, S.LIST_QUEUES).all(now) as (QueueRow & { pending: number; running: number; granted: number })[];
    return rows.map((r) => {
      const q = queueSettings(r);
      return { ...q, pending: r.pending, running: r.running, granted: r.granted, rate: rateUsage(shared.db, r.name, q.rateLimit, now) };
    });
  });
}

export function queueChanges(shared: Shared, queue: string | null, limit: number): Promise<QueueChange[]> {
  return read(() => {
    const rows = queue ? stmt(shared.db, S.QUEUE_CHANGES).all(queue, limit) : stmt(shared.db, S.QUEUE_CHANGES_ALL).all(limit);
    return (rows as ChangeRow[]).map(queueChange);
  });
}

interface TokenRow {
  queue: string;
  token_no: number;
  status: string;
  attempt: number | null;
  worker_id: string | null;
  granted_at: number | null;
  token: string | null;
  session: number | null;
  heartbeat_at: number | null;
  worker_state: string | null;
  lost: number;
}

export function listTokens(shared: Shared, queue: string | null): Promise<TokenView[]> {
  return read(() => {
    const now = Date.now();
    const rows = stmt(shared.db, S.LIST_TOKENS).all(now, queue, queue) as TokenRow[];
    return rows.map((r) => ({
      queue: r.queue,
      tokenNo: r.token_no,
      status: r.status as TokenView['status'],
      token: r.status === 'granted' ? r.token : null,
      attempt: r.attempt,
      workerId: r.worker_id,
      session: r.session,
      grantedAt: r.granted_at === null ? null : new Date(r.granted_at),
      holderDead:
        r.status === 'granted' &&
        (r.lost === 1 ||
          r.worker_state === 'lost' ||
          r.worker_state === 'stopped' ||
          (r.heartbeat_at !== null && now - r.heartbeat_at > STALE_WORKER_MS)),
    }));
  });
}

/** this module's part of the CommandPort (store.ts binds it to the store's Shared) */
export const commandSlice = { setQueue } satisfies Slice<Shared, CommandPort>;

/** this module's part of the ReadModel (store.ts binds it to the store's Shared) */
export const readSlice = { listQueues, queueChanges, listTokens } satisfies Slice<Shared, ReadModel>;
