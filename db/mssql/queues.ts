// Queue settings on SQL Server: limits, pause, per-key limits, keyFrom and rate limits (recorded), queue views
// with their rate windows, change history, tokens.
import { ValidationError } from '../../lib/engine/errors';
import { keyFromProblem } from '../../lib/engine/keys';
import {
  MAX_PER_KEY_LIMIT,
  MAX_RATE_LIMIT,
  MAX_RATE_PERIOD_SECONDS,
  MIN_PER_KEY_LIMIT,
  MIN_RATE_LIMIT,
  MIN_RATE_PERIOD_SECONDS,
} from '../../lib/engine/limits';
import { rateUsage, type RateRow } from './throttle';
import type { QueueChange, QueuePatch, QueueSettings, QueueView, TokenView } from '../../lib/engine/types';
import { query, sql, type Runner, type Shared } from './connection';
import { retrying } from './errors';
import { type ChangeRow, id, type Id, queueChange, type QueueRow, queueSettings, token } from './rows';
import * as S from './sql/queues';
import type { CommandPort, ReadModel } from '../../lib/engine/ports';
import type { Slice } from '../shared/bind';
import { auditedCommand } from './audit';

/** A token's holder whose worker has not beaten for this long is shown as probably dead. */
const STALE_WORKER_MS = 15_000;

/** The most tokens a limited queue may have (the claim creates them from a 10,000-row tally). */
export const MAX_CONCURRENCY_LIMIT = 10_000;

const intIn = (v: number, min: number, max: number) => Number.isInteger(v) && v >= min && v <= max;

/** The throttle fields of a patch, checked as the API checks them (a store may be called directly). */
function checkFlow(patch: QueuePatch): void {
  const k = patch.perKeyLimit;
  if (k !== undefined && k !== null && !intIn(k, MIN_PER_KEY_LIMIT, MAX_PER_KEY_LIMIT))
    throw new ValidationError('perKeyLimit', `must be an integer from ${MIN_PER_KEY_LIMIT} to ${MAX_PER_KEY_LIMIT}, or null for none`);
  const problem = patch.keyFrom ? keyFromProblem(patch.keyFrom) : null;
  if (problem) throw new ValidationError('keyFrom', problem);
  const r = patch.rateLimit;
  if (r && !intIn(r.limit, MIN_RATE_LIMIT, MAX_RATE_LIMIT))
    throw new ValidationError('rateLimit', `the limit must be from ${MIN_RATE_LIMIT} to ${MAX_RATE_LIMIT}`);
  if (r && !intIn(r.periodSeconds, MIN_RATE_PERIOD_SECONDS, MAX_RATE_PERIOD_SECONDS))
    throw new ValidationError('rateLimit', `the period must be from ${MIN_RATE_PERIOD_SECONDS} s to ${MAX_RATE_PERIOD_SECONDS} s`);
}

/** Change a queue (run again after a deadlock); a raised limit or a resumed queue may free work at once. */
export async function setQueue(shared: Shared, name: string, patch: QueuePatch, changedBy: string): Promise<QueueSettings> {
  const q = await retrying(async () => changeQueue(await shared.runner(), name, patch, changedBy));
  shared.wake();
  return q;
}

async function changeQueue(pool: Runner, name: string, patch: QueuePatch, changedBy: string): Promise<QueueSettings> {
  const limit = patch.concurrencyLimit;
  if (limit !== undefined && limit !== null && (!Number.isInteger(limit) || limit < 1 || limit > MAX_CONCURRENCY_LIMIT)) {
    throw new ValidationError('concurrencyLimit', `must be an integer from 1 to ${MAX_CONCURRENCY_LIMIT}, or null for unlimited`);
  }
  checkFlow(patch);
  const rate = patch.rateLimit;
  const r = await query<QueueRow>(pool, S.SET_QUEUE, [
    ['name', sql.NVarChar(64), name],
    ['set_limit', sql.Bit, limit !== undefined],
    ['limit', sql.Int, limit ?? null],
    ['set_paused', sql.Bit, patch.paused !== undefined],
    ['paused', sql.Bit, patch.paused ?? false],
    ['set_key_limit', sql.Bit, patch.perKeyLimit !== undefined],
    ['key_limit', sql.Int, patch.perKeyLimit ?? null],
    ['set_key_from', sql.Bit, patch.keyFrom !== undefined],
    ['key_from', sql.NVarChar(200), patch.keyFrom ?? null],
    ['set_rate', sql.Bit, rate !== undefined],
    ['rate_limit', sql.Int, rate?.limit ?? null],
    ['rate_period', sql.Int, rate?.periodSeconds ?? null],
    ['rate_per_key', sql.Bit, rate?.perKey ?? false],
    ['changed_by', sql.NVarChar(200), changedBy.slice(0, 200)],
  ]);
  const row = r.recordset[0];
  if (!row) throw new Error(`queue ${name} vanished while it was being changed`);
  return queueSettings(row);
}

export async function listQueues(shared: Shared): Promise<QueueView[]> {
  type Row = QueueRow & { pending: Id; running: Id; granted: number } & Omit<RateRow, 'started' | 'next_at'> & {
      rate_limit: number | null;
      rate_period_s: number | null;
      rate_started: number;
      rate_next_at: Date | null;
    };
  const rows = (await shared.query<Row>(S.LIST_QUEUES)).recordset;
  return rows.map((r) => ({
    ...queueSettings(r),
    pending: id(r.pending),
    running: id(r.running),
    granted: r.granted,
    rate:
      r.rate_limit === null || r.rate_period_s === null
        ? null
        : rateUsage({ ...r, rate_limit: r.rate_limit, rate_period_s: r.rate_period_s, started: r.rate_started, next_at: r.rate_next_at }),
  }));
}

export async function queueChanges(shared: Shared, queue: string | null, limit: number): Promise<QueueChange[]> {
  const n = Math.min(1000, Math.max(1, Math.floor(limit)));
  const r =
    queue === null
      ? await shared.query<ChangeRow>(S.QUEUE_CHANGES_ALL, [['limit', sql.Int, n]])
      : await shared.query<ChangeRow>(S.QUEUE_CHANGES, [
          ['limit', sql.Int, n],
          ['queue', sql.NVarChar(64), queue],
        ]);
  return r.recordset.map(queueChange);
}

interface TokenRow {
  queue: string;
  token_no: number;
  status: string;
  attempt: number | null;
  worker_id: string | null;
  granted_at: Date | null;
  token: string | null;
  session: number | null;
  worker_state: string | null;
  heartbeat_age_ms: Id | null;
  lost: number;
}

export async function listTokens(shared: Shared, queue: string | null): Promise<TokenView[]> {
  const r =
    queue === null
      ? await shared.query<TokenRow>(S.LIST_TOKENS_ALL)
      : await shared.query<TokenRow>(S.LIST_TOKENS, [['queue', sql.NVarChar(64), queue]]);
  return r.recordset.map((t) => {
    const granted = t.status === 'granted';
    return {
      queue: t.queue,
      tokenNo: t.token_no,
      status: t.status as TokenView['status'],
      token: granted && t.token ? token(t.token) : null,
      attempt: t.attempt,
      workerId: t.worker_id,
      session: t.session,
      grantedAt: t.granted_at,
      holderDead:
        granted &&
        (t.lost === 1 ||
          t.worker_state === 'lost' ||
          t.worker_state === 'stopped' ||
          (t.heartbeat_age_ms !== null && id(t.heartbeat_age_ms) > STALE_WORKER_MS)),
    };
  });
}

/** this module's part of the CommandPort (store.ts binds it to the store's Shared) */
export const commandSlice = { setQueue: auditedCommand(setQueue, 3) } satisfies Slice<Shared, CommandPort>;

/** this module's part of the ReadModel (store.ts binds it to the store's Shared) */
export const readSlice = { listQueues, queueChanges, listTokens } satisfies Slice<Shared, ReadModel>;
