// The pure rules of durable handlers (types/durable.ts): step names, durations, event names, payloads and
// matches, a step's JSON result, and what a recorded step means for the run that reaches it. No I/O.
import { NonRetryableError, ValidationError } from './errors';
import {
  EVENT_NAME,
  EVENT_NAME_RULE,
  MAX_EVENT_PAYLOAD_BYTES,
  MAX_MATCH_FIELDS,
  MAX_RESULT_BYTES,
  MAX_SLEEP_MS,
  MAX_STEP_NAME_LENGTH,
} from './limits';
import type { EventMatch, MatchValue, StepKind, StepRecord } from './types';

/** A step name: 1–200 characters, no control characters. A bad one is the handler's bug: not retried. */
export function checkStepName(name: unknown): string {
  if (typeof name !== 'string' || name.length === 0 || name.length > MAX_STEP_NAME_LENGTH || /\p{Cc}/u.test(name)) {
    throw new NonRetryableError(
      `step name ${JSON.stringify(name)}: a string of 1 to ${MAX_STEP_NAME_LENGTH} characters, no control characters`,
    );
  }
  return name;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/;

/** `500`, `'90s'`, `'3d'`, `'1h30m'` → milliseconds; null when it is none of those. */
export function durationMs(value: number | string): number | null {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? Math.round(value) : null;
  let rest = value.trim();
  if (rest === '') return null;
  let total = 0;
  while (rest) {
    const m = DURATION.exec(rest);
    if (!m) return null;
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    rest = rest.slice(m[0].length).trimStart();
  }
  return Math.round(total);
}

/** When a sleep of `value` (ms, a duration text, or a Date) started at `now` ends; `field` names it in errors. */
export function wakeTime(value: unknown, now: Date, field: string): Date {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new NonRetryableError(`${field}: an invalid Date`);
    if (value.getTime() - now.getTime() > MAX_SLEEP_MS) throw new NonRetryableError(`${field}: at most a year ahead`);
    return value;
  }
  const ms = typeof value === 'number' || typeof value === 'string' ? durationMs(value) : null;
  if (ms === null) throw new NonRetryableError(`${field}: milliseconds, a duration such as '90s', '3d' or '1h30m', or a Date`);
  if (ms > MAX_SLEEP_MS) throw new NonRetryableError(`${field}: at most a year`);
  return new Date(now.getTime() + ms);
}

/** An event name (`order.paid`). */
export function checkEventName(name: unknown, field = 'event'): string {
  if (typeof name !== 'string' || !EVENT_NAME.test(name)) throw new ValidationError(field, EVENT_NAME_RULE);
  return name;
}

function jsonBytes(value: unknown): number | null {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? null : Buffer.byteLength(text, 'utf8');
  } catch {
    return null;
  }
}

/** An event payload: JSON of at most MAX_EVENT_PAYLOAD_BYTES (absent: null). */
export function checkEventPayload(payload: unknown, field = 'payload'): unknown {
  if (payload === undefined) return null;
  const bytes = jsonBytes(payload);
  if (bytes === null) throw new ValidationError(field, 'must be JSON');
  if (bytes > MAX_EVENT_PAYLOAD_BYTES) throw new ValidationError(field, `${bytes} bytes, over the ${MAX_EVENT_PAYLOAD_BYTES} byte limit`);
  return payload;
}

const isScalar = (v: unknown): v is MatchValue =>
  v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));

/**
 * A match: a flat object of at most MAX_MATCH_FIELDS fields, each a string, a finite number, a boolean or null
 * (absent: {} — any payload). Compared with the payload's top-level fields of the same names.
 */
export function checkMatch(match: unknown, field = 'match'): EventMatch {
  if (match === undefined || match === null) return {};
  if (typeof match !== 'object' || Array.isArray(match)) throw new ValidationError(field, 'an object of fields to compare');
  const entries = Object.entries(match);
  if (entries.length > MAX_MATCH_FIELDS) throw new ValidationError(field, `at most ${MAX_MATCH_FIELDS} fields`);
  for (const [k, v] of entries) {
    if (k.length === 0 || k.length > 200) throw new ValidationError(field, 'field names of 1 to 200 characters');
    if (!isScalar(v)) throw new ValidationError(`${field}.${k}`, 'a string, number, boolean or null');
  }
  return match as EventMatch;
}

/** Whether a payload contains the match: each field present at its top level with an equal scalar. */
export function matches(payload: unknown, match: EventMatch): boolean {
  const entries = Object.entries(match);
  if (entries.length === 0) return true;
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return false;
  const p = payload as Record<string, unknown>;
  return entries.every(([k, v]) => Object.hasOwn(p, k) && p[k] === v);
}

/**
 * A step's result as it is recorded and as every run sees it: its JSON round trip (undefined → null; a Date
 * becomes its ISO text), so the first run and a replay return the same thing. Too large or not JSON: the attempt
 * fails and is not retried (the same code would make the same result).
 */
export function stepResult(value: unknown, step: string): unknown {
  if (value === undefined) return null;
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (err) {
    throw new NonRetryableError(`step ${JSON.stringify(step)}: its result is not JSON (${(err as Error).message})`);
  }
  if (text === undefined) return null;
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_RESULT_BYTES) {
    throw new NonRetryableError(`step ${JSON.stringify(step)}: its result is ${bytes} bytes, over the ${MAX_RESULT_BYTES} byte limit`);
  }
  return JSON.parse(text);
}

/** What a run does at a step: replay the recorded result, or run it (not recorded, or recorded failed). */
export type StepPlan = { replay: true; record: StepRecord } | { replay: false; record: StepRecord | null };

/**
 * The recorded step at this step's place, checked against the call: another name or kind there means the code
 * changed between runs (or calls steps in an order that depends on something other than their results).
 */
export function planStep(recorded: StepRecord | undefined, seq: number, name: string, kind: StepKind): StepPlan {
  if (!recorded) return { replay: false, record: null };
  if (recorded.name !== name || recorded.kind !== kind) {
    throw new NonRetryableError(
      `step ${seq} was recorded as ${recorded.kind} ${JSON.stringify(recorded.name)}; this run calls ${kind} ${JSON.stringify(name)} ` +
        'there: the handler changed its steps between runs (a durable handler must call them in the same order)',
    );
  }
  if (recorded.status === 'failed') return { replay: false, record: recorded };
  // succeeded — or sleeping / waiting on a task that runs again: its wait is over (resumed, timed out or woken)
  return { replay: true, record: recorded };
}
