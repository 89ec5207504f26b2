// The task browser's filter as a query string (the Tasks page's URL, GET /api/tasks, bulk actions over a
// filter): parsed and checked here into a TaskFilter; a bad parameter is a ValidationError naming it.
//
//   status=waiting|pending|running|succeeded|dead|cancelled   sub=ready|scheduled|retrying (pending only; implies it)
//     or sub=sleeping|event (waiting only, implies it: suspended by a durable handler on a sleep, on an event)
//   queue=  command= (exact)  key= (concurrency key, exact)  batch= stage=  flow= (a flow id)
//   priorityMin= priorityMax=
//   from= to= (ISO 8601 with offset, or YYYY-MM-DD = UTC midnight): finished_at for succeeded, dead and
//     cancelled, created_at for every other status and for no status
//   q= text: a token, or a substring of command, dedup key or last error message
//   payload=<path>=<value> (the scalar at the path equals value) or payload=<path>~<value> (contains);
//     path `customer.id`, `$.customer.id`, `items[0].sku`: letters, digits, _, dots and [n] only
//   cursor= (keyset: ids below it)  limit= (1–500, default 50)
import { z } from 'zod';
import { ValidationError } from '../engine/errors';
import { MAX_CONCURRENCY_KEY_LENGTH, MAX_PRIORITY, MIN_PRIORITY } from '../engine/limits';
import {
  JSON_PATH,
  PENDING_SUBS,
  TASK_STATUSES,
  WAITING_SUBS,
  type PayloadFilter,
  type TaskFilter,
  type WaitingSub,
} from '../engine/types';
import { parseWith, queueName } from '../engine/validation';

/** Every parameter parseTaskQuery reads (others are ignored). */
export const TASK_QUERY_KEYS = [
  'status',
  'sub',
  'queue',
  'command',
  'key',
  'batch',
  'stage',
  'flow',
  'priorityMin',
  'priorityMax',
  'from',
  'to',
  'q',
  'payload',
  'cursor',
  'limit',
] as const;
export type TaskQueryKey = (typeof TASK_QUERY_KEYS)[number];

export const TASK_PAGE_DEFAULT = 50;
export const TASK_PAGE_MAX = 500;
const MAX_PATH = 200;
const MAX_VALUE = 400;

const int = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^-?\d+$/, 'must be an integer')
    .transform(Number)
    .pipe(z.number().min(min).max(max));

const time = z
  .string()
  .trim()
  .refine((s) => /^\d{4}-\d{2}-\d{2}$/.test(s) || z.iso.datetime({ offset: true }).safeParse(s).success, {
    message: 'must be an ISO 8601 time with an offset (2026-01-31T09:00:00Z) or a date (2026-01-31)',
  })
  .transform((s) => new Date(/^\d{4}-\d{2}-\d{2}$/.test(s) ? `${s}T00:00:00Z` : s))
  .refine((d) => !Number.isNaN(d.getTime()), { message: 'not a valid time' });

const schema = z.object({
  status: z.enum(TASK_STATUSES).optional(),
  sub: z.enum([...PENDING_SUBS, ...(Object.keys(WAITING_SUBS) as WaitingSub[])]).optional(),
  queue: queueName.optional(),
  command: z.string().max(4000).optional(),
  key: z.string().max(MAX_CONCURRENCY_KEY_LENGTH).optional(),
  batch: int(1, Number.MAX_SAFE_INTEGER).optional(),
  stage: int(0, 1_000_000).optional(),
  flow: int(1, Number.MAX_SAFE_INTEGER).optional(),
  priorityMin: int(MIN_PRIORITY, MAX_PRIORITY).optional(),
  priorityMax: int(MIN_PRIORITY, MAX_PRIORITY).optional(),
  from: time.optional(),
  to: time.optional(),
  q: z.string().trim().max(200).optional(),
  payload: z
    .string()
    .max(MAX_PATH + MAX_VALUE + 1)
    .optional(),
  cursor: int(1, Number.MAX_SAFE_INTEGER).optional(),
  limit: int(1, TASK_PAGE_MAX).optional(),
});

/** `customer.id`, `$.customer.id`, `$.items[0]`, `[2].x` → the canonical `$.…` path; null when not a safe path. */
export function normalizeJsonPath(raw: string): string | null {
  let p = raw.trim();
  if (p === '' || p.length > MAX_PATH) return null;
  if (p.startsWith('$')) p = p.slice(1);
  else if (!p.startsWith('[')) p = `.${p}`;
  const path = `$${p}`;
  return JSON_PATH.test(path) ? path : null;
}

/** `customer.id=42` (equals) or `customer.id~acme` (contains). Throws a ValidationError naming `payload`. */
export function parsePayloadFilter(raw: string): PayloadFilter {
  const at = raw.search(/[=~]/);
  if (at < 0) throw new ValidationError('payload', 'write <json path>=<value> (equals) or <json path>~<value> (contains)');
  const path = normalizeJsonPath(raw.slice(0, at));
  if (!path) {
    throw new ValidationError(
      'payload',
      'the JSON path may only hold letters, digits, _, dots and [n] (e.g. customer.id or $.items[0].sku)',
    );
  }
  const op = raw[at] === '=' ? 'eq' : 'contains';
  const value = raw.slice(at + 1);
  if (value.length > MAX_VALUE) throw new ValidationError('payload', `the value is longer than ${MAX_VALUE} characters`);
  if (op === 'contains' && value === '') throw new ValidationError('payload', 'give the text to look for after ~');
  return { path, op, value };
}

/** The payload filter back in its query-string form (`$.a.b=v`). */
export function formatPayloadFilter(p: PayloadFilter): string {
  return `${p.path}${p.op === 'eq' ? '=' : '~'}${p.value}`;
}

/** The task browser's query parameters → a checked TaskFilter. Empty parameters count as absent. */
export function parseTaskQuery(params: URLSearchParams | Record<string, string | undefined>): TaskFilter {
  const raw: Record<string, string> = {};
  const entries = params instanceof URLSearchParams ? [...params.entries()] : Object.entries(params);
  for (const [k, v] of entries) {
    if (v === undefined || v === '' || !(TASK_QUERY_KEYS as readonly string[]).includes(k)) continue;
    raw[k] = v;
  }
  const r = parseWith(schema, raw);
  const waitingSub = r.sub !== undefined && r.sub in WAITING_SUBS ? (r.sub as WaitingSub) : null;
  if (waitingSub && r.status && r.status !== 'waiting') throw new ValidationError('sub', 'sleeping and event are kinds of waiting tasks');
  if (r.sub && !waitingSub && r.status && r.status !== 'pending')
    throw new ValidationError('sub', 'ready, scheduled and retrying are kinds of pending tasks');
  if (r.priorityMin !== undefined && r.priorityMax !== undefined && r.priorityMin > r.priorityMax) {
    throw new ValidationError('priorityMax', 'must not be below priorityMin');
  }
  if (r.from && r.to && r.from.getTime() > r.to.getTime()) throw new ValidationError('to', 'must not be before from');
  if (r.stage !== undefined && r.batch === undefined) throw new ValidationError('stage', 'give batch as well');
  const f: TaskFilter = { limit: r.limit ?? TASK_PAGE_DEFAULT };
  if (r.status || r.sub) f.status = r.status ?? (waitingSub ? 'waiting' : 'pending');
  if (waitingSub) f.suspended = WAITING_SUBS[waitingSub];
  else if (r.sub) f.sub = r.sub as TaskFilter['sub'];
  if (r.queue) f.queue = r.queue;
  if (r.command) f.command = r.command;
  if (r.key) f.concurrencyKey = r.key;
  if (r.batch !== undefined) f.batchId = r.batch;
  if (r.stage !== undefined) f.stage = r.stage;
  if (r.flow !== undefined) f.flowId = r.flow;
  if (r.priorityMin !== undefined) f.priorityMin = r.priorityMin;
  if (r.priorityMax !== undefined) f.priorityMax = r.priorityMax;
  if (r.from) f.from = r.from;
  if (r.to) f.to = r.to;
  if (r.q) f.q = r.q;
  if (r.payload !== undefined) f.payload = parsePayloadFilter(r.payload);
  if (r.cursor !== undefined) f.cursor = r.cursor;
  return f;
}

/** A TaskFilter back as a query string (without cursor and limit unless asked), e.g. for `filter:<query>` audit targets. */
export function taskQueryString(f: TaskFilter, paging = false): string {
  const p = new URLSearchParams();
  if (f.status) p.set('status', f.status);
  if (f.sub) p.set('sub', f.sub);
  if (f.suspended) p.set('sub', f.suspended === 'sleep' ? 'sleeping' : 'event');
  if (f.queue) p.set('queue', f.queue);
  if (f.command) p.set('command', f.command);
  if (f.concurrencyKey) p.set('key', f.concurrencyKey);
  if (f.batchId !== undefined) p.set('batch', String(f.batchId));
  if (f.stage !== undefined) p.set('stage', String(f.stage));
  if (f.flowId !== undefined) p.set('flow', String(f.flowId));
  if (f.priorityMin !== undefined) p.set('priorityMin', String(f.priorityMin));
  if (f.priorityMax !== undefined) p.set('priorityMax', String(f.priorityMax));
  if (f.from) p.set('from', f.from.toISOString());
  if (f.to) p.set('to', f.to.toISOString());
  if (f.q) p.set('q', f.q);
  if (f.payload) p.set('payload', formatPayloadFilter(f.payload));
  if (paging && f.cursor !== undefined) p.set('cursor', String(f.cursor));
  if (paging && f.limit !== undefined) p.set('limit', String(f.limit));
  return p.toString();
}
