// `queue set`'s throttle flags → a queue patch, checked before the database is opened; each bad value is a
// UsageError naming its flag. `none` clears a setting:
//   --per-key-limit N|none   running tasks of each concurrency key, at most
//   --key-from PATH|none     a JSON path ($.customerId) a task without a key gets its key from
//   --rate LIMIT/PERIOD|none at most LIMIT attempt starts in any window of PERIOD (60/1m, 20/2s, 1000/1h;
//                            `20/2s per key` or --rate-per-key: a window per key)
import { ValidationError } from '../lib/engine/errors';
import { keyFromProblem, parseRate } from '../lib/engine/keys';
import { MAX_PER_KEY_LIMIT, MIN_PER_KEY_LIMIT } from '../lib/engine/limits';
import type { RateLimit } from '../lib/engine/types';
import { UsageError } from './errors';

export interface ThrottleFlags {
  'per-key-limit'?: string;
  'key-from'?: string;
  rate?: string;
  'rate-per-key'?: boolean;
}

export interface ThrottlePatch {
  perKeyLimit?: number | null;
  keyFrom?: string | null;
  rateLimit?: RateLimit | null;
}

/** Request field (as ValidationError names it, `rateLimit.limit` included) → the flag that set it. */
export function throttleFlagOf(field: string): string | null {
  if (field === 'perKeyLimit') return '--per-key-limit';
  if (field === 'keyFrom') return '--key-from';
  if (field === 'rateLimit' || field.startsWith('rateLimit.')) return '--rate';
  return null;
}

const isNone = (v: string) => v.trim().toLowerCase() === 'none';

function perKeyLimit(value: string): number | null {
  if (isNone(value)) return null;
  const text = value.trim();
  const n = /^\+?\d{1,6}$/.test(text) ? Number(text) : NaN;
  if (!(n >= MIN_PER_KEY_LIMIT && n <= MAX_PER_KEY_LIMIT))
    throw new UsageError(
      '--per-key-limit',
      `must be an integer from ${MIN_PER_KEY_LIMIT} to ${MAX_PER_KEY_LIMIT}, or none (got ${JSON.stringify(value)})`,
    );
  return n;
}

function keyFrom(value: string): string | null {
  if (isNone(value)) return null;
  const problem = keyFromProblem(value.trim());
  if (problem) throw new UsageError('--key-from', `${problem} (got ${JSON.stringify(value.slice(0, 80))}), or none`);
  return value.trim();
}

function rate(value: string, perKey: boolean): RateLimit | null {
  let r: RateLimit | null;
  try {
    r = parseRate(value, '--rate');
  } catch (err) {
    if (err instanceof ValidationError)
      throw new UsageError('--rate', `${err.message.slice(err.field.length + 2)} (got ${JSON.stringify(value)})`);
    throw err;
  }
  if (r === null && perKey) throw new UsageError('--rate-per-key', 'needs a rate (--rate LIMIT/PERIOD), not none');
  return r && (perKey ? { ...r, perKey: true } : r);
}

/** The throttle part of a queue patch (empty when no flag of it is given). */
export function throttlePatch(values: ThrottleFlags): ThrottlePatch {
  const patch: ThrottlePatch = {};
  if (values['per-key-limit'] !== undefined) patch.perKeyLimit = perKeyLimit(values['per-key-limit']);
  if (values['key-from'] !== undefined) patch.keyFrom = keyFrom(values['key-from']);
  if (values.rate !== undefined) patch.rateLimit = rate(values.rate, values['rate-per-key'] === true);
  else if (values['rate-per-key']) throw new UsageError('--rate-per-key', 'needs --rate LIMIT/PERIOD');
  return patch;
}

/** parseArgs options of the throttle flags. */
export const THROTTLE_OPTIONS = {
  'per-key-limit': { type: 'string' },
  'key-from': { type: 'string' },
  rate: { type: 'string' },
  'rate-per-key': { type: 'boolean' },
} as const;
