// Concurrency keys and rate limits: the parts with no SQL. A queue's `keyFrom` is a JSON path into a task's
// payload — a subset every store evaluates the same way (SQLite's json_extract, SQL Server's JSON_VALUE and
// keyOf below): `$` then `.name` (letters, digits, `_`, not starting with a digit) or `[n]` steps. The value
// found becomes the key when it is a string, a number or a boolean (as JSON writes it); an object, a list,
// null or nothing found gives no key. A rate is written `60/1m`, `20/2s`, `1000/1h`, `5/1d` (or `60/60`: seconds).
import { ValidationError } from './errors';
import {
  MAX_CONCURRENCY_KEY_LENGTH,
  MAX_KEY_FROM_LENGTH,
  MAX_RATE_LIMIT,
  MAX_RATE_PERIOD_SECONDS,
  MIN_RATE_LIMIT,
  MIN_RATE_PERIOD_SECONDS,
} from './limits';
import type { RateLimit } from './types';

/** `$` followed by `.name` or `[index]` steps, at least one. */
export const KEY_FROM = /^\$(?:\.[A-Za-z_][A-Za-z0-9_]*|\[\d{1,6}\])+$/;

/** Why `path` is not a keyFrom path we accept, or null. */
export function keyFromProblem(path: string): string | null {
  if (path.length > MAX_KEY_FROM_LENGTH) return `at most ${MAX_KEY_FROM_LENGTH} characters`;
  if (!KEY_FROM.test(path)) return 'must be a JSON path like $.customerId or $.order.tenant or $.items[0].id';
  return null;
}

/** The steps of a keyFrom path: property names and list indexes. */
export function keyFromSteps(path: string): (string | number)[] {
  const steps: (string | number)[] = [];
  for (const m of path.slice(1).matchAll(/\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]/g)) steps.push(m[1] !== undefined ? m[1] : Number(m[2]));
  return steps;
}

/**
 * The concurrency key a payload yields through `path` (null: none). A key longer than the bound is refused
 * (a ValidationError naming `payload`), never cut: two different values must not become one key.
 */
export function keyOf(payload: unknown, path: string): string | null {
  let v: unknown = payload;
  for (const step of keyFromSteps(path)) {
    if (v === null || typeof v !== 'object') return null;
    if (typeof step === 'number') {
      if (!Array.isArray(v)) return null;
      v = v[step];
    } else {
      if (Array.isArray(v) || !Object.hasOwn(v, step)) return null;
      v = (v as Record<string, unknown>)[step];
    }
  }
  let key: string;
  if (typeof v === 'string') key = v;
  else if (typeof v === 'number' && Number.isFinite(v)) key = JSON.stringify(v);
  else if (typeof v === 'boolean') key = String(v);
  else return null;
  if (key.length === 0) return null;
  if (key.length > MAX_CONCURRENCY_KEY_LENGTH)
    throw new ValidationError('payload', `the concurrency key at ${path} is longer than ${MAX_CONCURRENCY_KEY_LENGTH} characters`);
  return key;
}

/** The key a task gets: the one given, else the one its queue derives from the payload, else none. */
export function taskKey(given: string | null | undefined, payload: unknown, keyFrom: string | null): string | null {
  if (given != null) return given;
  return keyFrom === null ? null : keyOf(payload, keyFrom);
}

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/**
 * A rate written `LIMIT/PERIOD` (`60/1m`, `20/2s`, `100/30`: seconds; a trailing ` per key` or `/key` makes it
 * per key), or `none` (null). Throws a ValidationError naming `field`.
 */
export function parseRate(text: string, field = 'rate'): RateLimit | null {
  const t = text.trim().toLowerCase();
  if (t === 'none' || t === 'off') return null;
  const m = /^(\d{1,7})\s*\/\s*(\d{1,6})?\s*([smhd])?(\s*(?:\/\s*key|per[\s-]+key))?$/.exec(t);
  if (!m || (m[2] === undefined && m[3] === undefined))
    throw new ValidationError(field, 'must be LIMIT/PERIOD, e.g. 60/1m, 20/2s or 1000/1h (or none)');
  const limit = Number(m[1]);
  const periodSeconds = Number(m[2] ?? 1) * UNIT_SECONDS[m[3] ?? 's']!;
  if (limit < MIN_RATE_LIMIT || limit > MAX_RATE_LIMIT)
    throw new ValidationError(field, `the limit must be from ${MIN_RATE_LIMIT} to ${MAX_RATE_LIMIT}`);
  if (periodSeconds < MIN_RATE_PERIOD_SECONDS || periodSeconds > MAX_RATE_PERIOD_SECONDS)
    throw new ValidationError(field, `the period must be from ${MIN_RATE_PERIOD_SECONDS} s to ${MAX_RATE_PERIOD_SECONDS} s (1 day)`);
  return { limit, periodSeconds, perKey: m[4] !== undefined };
}

/** A period in the largest unit that divides it: `60 s` → `1m`, `7200` → `2h`, `90` → `90s`. */
export function periodText(seconds: number): string {
  for (const [u, n] of [
    ['d', 86_400],
    ['h', 3600],
    ['m', 60],
  ] as const)
    if (seconds % n === 0) return `${seconds / n}${u}`;
  return `${seconds}s`;
}

/** A rate as `parseRate` reads it back: `60/1m`, `20/2s per key`, or `none`. */
export function rateText(r: RateLimit | null): string {
  return r === null ? 'none' : `${r.limit}/${periodText(r.periodSeconds)}${r.perKey ? ' per key' : ''}`;
}
