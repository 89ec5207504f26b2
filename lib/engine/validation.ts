// What a caller may send to create a task, checked the same way for the CLI, the HTTP API,
// server actions and the library. Every rejection names the field.
import { z } from 'zod';
import { ValidationError } from './errors';
import {
  MAX_ATTEMPTS,
  MAX_BATCH_PARALLEL,
  MAX_CONCURRENCY_KEY_LENGTH,
  MAX_CONCURRENCY_LIMIT,
  MAX_DEDUP_KEY_LENGTH,
  MAX_PER_KEY_LIMIT,
  MAX_RATE_LIMIT,
  MAX_RATE_PERIOD_SECONDS,
  MAX_HANDLER_NAME_LENGTH,
  MAX_PARENTS,
  MAX_PAYLOAD_BYTES,
  MAX_PRIORITY,
  MAX_SQL_CHARS,
  MAX_STAGE,
  MAX_TIMEOUT_MS,
  MIN_ATTEMPTS,
  MIN_BATCH_PARALLEL,
  MIN_CONCURRENCY_LIMIT,
  MIN_PER_KEY_LIMIT,
  MIN_PRIORITY,
  MIN_RATE_LIMIT,
  MIN_RATE_PERIOD_SECONDS,
  MIN_STAGE,
  MIN_TIMEOUT_MS,
  PROCEDURE_NAME,
  QUEUE_NAME,
  QUEUE_NAME_RULE,
} from './limits';
import { keyFromProblem } from './keys';
import { findIllFormed } from './text';
import { canonicalZone, cronProblem } from './schedules';
import { PARENT_FAILURE_POLICIES, type Dependency, type EnqueueInput, type ScheduleInput, type TaskKind } from './types';

// the bounds live in ./limits (client-safe); re-exported for existing importers
export { MAX_PAYLOAD_BYTES, MAX_SQL_CHARS, PROCEDURE_NAME, QUEUE_NAME };

/**
 * A whole number in [min, max] whose every failure states the range in plain words: zod's defaults for a
 * non-number, a fraction or a number past the safe-integer range name its internals instead.
 */
export function intIn(min: number, max: number) {
  const range = `must be a whole number from ${min} to ${max}`;
  return z
    .number({ error: (iss) => (iss.input === undefined ? 'required' : range) })
    .int({ error: (iss) => (iss.code === 'too_big' ? `at most ${max}` : iss.code === 'too_small' ? `at least ${min}` : range) })
    .min(min, `at least ${min}`)
    .max(max, `at most ${max}`);
}

export const queueName = z.string().regex(QUEUE_NAME, `${QUEUE_NAME_RULE}, starting with a letter or digit`);
export const token = z.uuid('not a task token (uuid)');

export const parentFailurePolicy = z.enum(PARENT_FAILURE_POLICIES);

/** A dependency as given: a task's token, or `{ token, onParentFailure }`. */
const dependency = z.union([token, z.strictObject({ token, onParentFailure: parentFailurePolicy.optional() })]);

export const enqueueRequest = z.strictObject({
  kind: z.enum(['handler', 'sql', 'procedure']).default('handler'),
  command: z.string().trim().min(1, 'required'),
  payload: z.unknown().optional(),
  queue: queueName.default('default'),
  priority: intIn(MIN_PRIORITY, MAX_PRIORITY).default(0),
  runAt: z.union([z.iso.datetime({ offset: true }), z.date()]).optional(),
  maxAttempts: intIn(MIN_ATTEMPTS, MAX_ATTEMPTS).optional(),
  timeoutMs: intIn(MIN_TIMEOUT_MS, MAX_TIMEOUT_MS).optional(),
  dedupKey: z.string().min(1).max(MAX_DEDUP_KEY_LENGTH).optional(),
  concurrencyKey: z.string().min(1).max(MAX_CONCURRENCY_KEY_LENGTH).optional(),
  batchId: intIn(1, Number.MAX_SAFE_INTEGER).optional(),
  stage: intIn(MIN_STAGE, MAX_STAGE).optional(),
  dependsOn: z.array(dependency).max(MAX_PARENTS).optional(),
  /** the policy of every dependency that names none (default cancel) */
  onParentFailure: parentFailurePolicy.optional(),
});

/** The name of field `name` under `prefix` (`tasks.0.` …) */
const fieldAt = (prefix: string, name: string) => (prefix ? `${prefix}.${name}` : name);

/** The validated dependencies: distinct tokens (lower case), each with its policy. */
function dependencies(r: z.output<typeof enqueueRequest>, prefix: string): Dependency[] | undefined {
  if (r.dependsOn === undefined) {
    if (r.onParentFailure !== undefined) throw new ValidationError(fieldAt(prefix, 'onParentFailure'), 'needs dependsOn');
    return undefined;
  }
  if (r.batchId !== undefined && r.dependsOn.length > 0) {
    throw new ValidationError(fieldAt(prefix, 'dependsOn'), 'a task in a batch cannot depend on other tasks (stages order a batch)');
  }
  const seen = new Set<string>();
  return r.dependsOn.map((d, i) => {
    const dep = typeof d === 'string' ? { token: d } : d;
    const t = dep.token.toLowerCase();
    if (seen.has(t)) throw new ValidationError(fieldAt(prefix, `dependsOn.${i}`), `${t} is listed twice`);
    seen.add(t);
    return { token: t, onParentFailure: ('onParentFailure' in dep ? dep.onParentFailure : undefined) ?? r.onParentFailure ?? 'cancel' };
  });
}

/** A queue's `keyFrom`: a JSON path into the payload (lib/engine/keys.ts). */
export const keyFrom = z.string().superRefine((path, ctx) => {
  const problem = keyFromProblem(path);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

/** A queue's rate limit: at most `limit` attempts start in any window of `periodSeconds`. */
export const rateLimit = z.strictObject({
  limit: intIn(MIN_RATE_LIMIT, MAX_RATE_LIMIT),
  periodSeconds: intIn(MIN_RATE_PERIOD_SECONDS, MAX_RATE_PERIOD_SECONDS),
  perKey: z.boolean().default(false),
});

const QUEUE_PATCH_FIELDS = ['concurrencyLimit', 'paused', 'perKeyLimit', 'keyFrom', 'rateLimit'] as const;

export const queuePatch = z
  .strictObject({
    concurrencyLimit: z.union([intIn(MIN_CONCURRENCY_LIMIT, MAX_CONCURRENCY_LIMIT), z.null()]).optional(),
    paused: z.boolean().optional(),
    perKeyLimit: z.union([intIn(MIN_PER_KEY_LIMIT, MAX_PER_KEY_LIMIT), z.null()]).optional(),
    keyFrom: z.union([keyFrom, z.null()]).optional(),
    rateLimit: z.union([rateLimit, z.null()]).optional(),
  })
  .refine((p) => QUEUE_PATCH_FIELDS.some((f) => p[f] !== undefined), { message: `give one or more of ${QUEUE_PATCH_FIELDS.join(', ')}` });

export const batchRequest = z.strictObject({
  maxParallel: z.union([intIn(MIN_BATCH_PARALLEL, MAX_BATCH_PARALLEL), z.null()]).optional(),
  onFailure: z.enum(['continue', 'abort']).default('continue'),
});

export const batchId = z.coerce.number().int().positive();

export type EnqueueRequest = z.input<typeof enqueueRequest>;

/** What a value must be, by zod's name of its type, in plain words. */
const KINDS: Record<string, string> = {
  number: 'a number',
  int: 'a whole number',
  string: 'a string',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
  date: 'a date',
  null: 'null',
};

/** zod's own wording ("Too big: expected int to be <=9007199254740991"), as opposed to a message of ours. */
const ZOD_DEFAULT = /^(Invalid|Too (big|small)|Unrecognized)\b/;

/**
 * An issue in plain words stating the real bound: messages of our own are kept; zod's defaults, which
 * name its internals (`expected int to be <=9007199254740991`, `Invalid option: expected one of "a"|"b"`),
 * are rewritten.
 */
export function plainMessage(issue: z.core.$ZodIssue): string {
  if (!ZOD_DEFAULT.test(issue.message)) return issue.message;
  switch (issue.code) {
    case 'invalid_type':
      if (/received undefined$/.test(issue.message)) return 'required';
      return `must be ${KINDS[issue.expected] ?? issue.expected}`;
    case 'too_big': {
      const max = Number(issue.maximum);
      if (issue.origin === 'string') return `at most ${max} characters`;
      if (issue.origin === 'array' || issue.origin === 'set') return `at most ${max} items`;
      return max >= Number.MAX_SAFE_INTEGER ? 'too large' : `at most ${max}`;
    }
    case 'too_small': {
      const min = Number(issue.minimum);
      if (issue.origin === 'string') return min <= 1 ? 'must not be empty' : `at least ${min} characters`;
      if (issue.origin === 'array' || issue.origin === 'set') return min <= 1 ? 'must not be empty' : `at least ${min} items`;
      return min <= -Number.MAX_SAFE_INTEGER ? 'too small' : `at least ${min}`;
    }
    case 'invalid_value':
      return `must be one of ${issue.values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ')}`;
    case 'invalid_format':
      if (issue.format === 'datetime') return 'must be an ISO-8601 date and time with its offset (e.g. 2026-01-05T10:00:00Z)';
      if (issue.format === 'regex') return 'has characters that are not allowed';
      return `must be ${issue.format === 'uuid' ? 'a uuid' : `a valid ${issue.format}`}`;
    case 'invalid_union': {
      // a value or null: say what the value must be, and that null is allowed
      const branches = issue.errors.map((b) => b[0]).filter((b): b is z.core.$ZodIssue => b !== undefined);
      const nullable = branches.some((b) => b.code === 'invalid_type' && b.expected === 'null');
      const first = branches.find((b) => !(b.code === 'invalid_type' && b.expected === 'null'));
      return first ? `${plainMessage(first)}${nullable ? ' (or null)' : ''}` : 'invalid value';
    }
    default:
      return 'invalid value';
  }
}

/**
 * Turn a zod error into a ValidationError naming the field: its first issue — of that field, the one that
 * states the field's own bound rather than the safe-integer range `.int()` checks — in plain words.
 */
export function toValidationError(err: z.ZodError, prefix = ''): ValidationError {
  const first = err.issues[0]!;
  const samePath = err.issues.filter((i) => i.path.join('.') === first.path.join('.'));
  const unsafeRange = (i: z.core.$ZodIssue) => (i.code === 'too_big' || i.code === 'too_small') && i.origin === 'int';
  let issue = samePath.find((i) => !unsafeRange(i)) ?? first;
  // a union whose value has one branch's shape but fails inside it (`{ id, onParentFailure: 'x' }`): that inner field
  if (issue.code === 'invalid_union') {
    const inner = issue.errors.map((b) => b[0]).find((b) => b !== undefined && (b.path.length > 0 || b.code === 'unrecognized_keys'));
    if (inner) issue = { ...inner, path: [...issue.path, ...inner.path] } as z.core.$ZodIssue;
  }
  let field = [prefix, ...issue.path.map(String)].filter(Boolean).join('.');
  let message = plainMessage(issue);
  if (issue.code === 'unrecognized_keys') {
    field = [prefix, ...issue.path.map(String), issue.keys[0]].filter(Boolean).join('.');
    message = 'unknown field';
  }
  return new ValidationError(field || 'body', message);
}

/** A ValidationError for the first string in `value` that is not well-formed Unicode (text.ts), or null. */
export function illFormedError(value: unknown, prefix = ''): ValidationError | null {
  const bad = findIllFormed(value);
  if (bad === null) return null;
  const field = [prefix, ...bad.path.map(String)].filter(Boolean).join('.');
  return new ValidationError(field || 'body', bad.message);
}

/**
 * `value` checked by `schema`; a ValidationError naming the field otherwise. Every string in it — whatever the
 * schema says of it, a payload's included — must be well-formed Unicode (text.ts).
 */
export function parseWith<T extends z.ZodType>(schema: T, value: unknown, prefix = ''): z.output<T> {
  const illFormed = illFormedError(value, prefix);
  if (illFormed) throw illFormed;
  const r = schema.safeParse(value);
  if (!r.success) throw toValidationError(r.error, prefix);
  return r.data;
}

export interface EnqueueContext {
  /** kinds the store can run */
  kinds: readonly TaskKind[];
  /** whether a handler name is known (local registry or a worker's registration) */
  knowsHandler: (name: string) => boolean | Promise<boolean>;
  caller?: string | null;
  /** refuse `sql` tasks (the dashboard does unless READPAST_ALLOW_SQL=1) */
  allowSql?: boolean;
}

/** Validate one raw enqueue request into an EnqueueInput; throws ValidationError naming the field. */
export async function validateEnqueue(raw: unknown, ctx: EnqueueContext, prefix = ''): Promise<EnqueueInput> {
  const r = parseWith(enqueueRequest, raw, prefix);
  if (!ctx.kinds.includes(r.kind)) {
    throw new ValidationError(
      fieldAt(prefix, 'kind'),
      r.kind === 'procedure'
        ? 'procedure tasks need SQL Server; this database is ' + (ctx.kinds.includes('sql') ? 'SQLite' : 'limited')
        : `this database cannot run ${r.kind} tasks`,
    );
  }
  let payload: unknown = r.payload ?? null;
  if (payload !== null) {
    let text: string | undefined;
    try {
      text = JSON.stringify(payload);
    } catch {
      throw new ValidationError(fieldAt(prefix, 'payload'), 'must be JSON-serialisable');
    }
    if (text === undefined) throw new ValidationError(fieldAt(prefix, 'payload'), 'must be JSON-serialisable');
    // what a toJSON or a class instance wrote (plain values were checked by parseWith): a lone surrogate is an escape
    if (text.includes('\\ud')) {
      const illFormed = illFormedError(JSON.parse(text), fieldAt(prefix, 'payload'));
      if (illFormed) throw illFormed;
    }
    // text.length ≤ bytes ≤ 3 × text.length for UTF-16 → UTF-8: count bytes only when it could matter
    if (text.length * 3 > MAX_PAYLOAD_BYTES && Buffer.byteLength(text, 'utf8') > MAX_PAYLOAD_BYTES) {
      throw new ValidationError(fieldAt(prefix, 'payload'), `larger than ${MAX_PAYLOAD_BYTES} bytes`);
    }
  }
  if (r.stage !== undefined && r.batchId === undefined) throw new ValidationError(fieldAt(prefix, 'stage'), 'a stage needs a batchId');
  if (r.kind === 'handler') {
    // the local registry answers at once: no promise to wait for then
    const known = ctx.knowsHandler(r.command);
    if (!(typeof known === 'boolean' ? known : await known)) {
      throw new ValidationError(
        fieldAt(prefix, 'command'),
        `unknown handler ${JSON.stringify(r.command.slice(0, MAX_HANDLER_NAME_LENGTH))}`,
      );
    }
  } else if (r.kind === 'sql') {
    if (ctx.allowSql === false)
      throw new ValidationError(fieldAt(prefix, 'kind'), 'sql tasks are disabled here (READPAST_ALLOW_SQL=1 enables them)');
    if (r.command.length > MAX_SQL_CHARS)
      throw new ValidationError(fieldAt(prefix, 'command'), `SQL longer than ${MAX_SQL_CHARS} characters`);
  } else if (r.kind === 'procedure') {
    if (!PROCEDURE_NAME.test(r.command)) throw new ValidationError(fieldAt(prefix, 'command'), 'not a procedure name (schema.name)');
    if (payload !== null && (typeof payload !== 'object' || Array.isArray(payload))) {
      throw new ValidationError(fieldAt(prefix, 'payload'), 'procedure parameters must be a JSON object of name → value');
    }
  }
  const input: EnqueueInput = {
    kind: r.kind,
    command: r.command,
    payload,
    queue: r.queue,
    priority: r.priority,
    runAt: r.runAt === undefined ? undefined : new Date(r.runAt),
    maxAttempts: r.maxAttempts,
    timeoutMs: r.timeoutMs,
    dedupKey: r.dedupKey ?? null,
    concurrencyKey: r.concurrencyKey ?? null,
    caller: ctx.caller ?? null,
    batchId: r.batchId ?? null,
    stage: r.batchId === undefined ? null : (r.stage ?? 0),
  };
  // present only when given, so that inputs without stay as they were
  const dependsOn = dependencies(r, prefix);
  if (dependsOn !== undefined) input.dependsOn = dependsOn;
  return input;
}

// ---- schedules -----------------------------------------------------------------------------------

/** A cron expression croner reads (5 fields, or 6 with seconds first) that fires at all. */
export const cronExpression = z
  .string()
  .trim()
  .superRefine((v, ctx) => {
    const problem = cronProblem(v);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

/** An IANA time zone, in its canonical spelling (`utc` → `UTC`). */
export const timeZone = z
  .string()
  .trim()
  .transform((v, ctx) => {
    const zone = canonicalZone(v);
    if (zone) return zone;
    ctx.addIssue({ code: 'custom', message: 'not an IANA time zone (e.g. UTC, Europe/Berlin, America/New_York)' });
    return z.NEVER;
  });

/** A schedule as the API, the CLI and a handlers module's `schedules` export give it; the task fields as for enqueue. */
export const scheduleRequest = z.strictObject({
  name: queueName,
  cron: cronExpression,
  timezone: timeZone.default('UTC'),
  misfire: z.enum(['skip', 'run_once']).default('skip'),
  overlap: z.enum(['allow', 'skip_if_running']).default('allow'),
  enabled: z.boolean().default(true),
  // checked by validateEnqueue, so that a schedule's task obeys the rules of an enqueued one
  kind: z.unknown().optional(),
  command: z.unknown().optional(),
  payload: z.unknown().optional(),
  queue: z.unknown().optional(),
  priority: z.unknown().optional(),
  maxAttempts: z.unknown().optional(),
  timeoutMs: z.unknown().optional(),
});

export type ScheduleRequest = z.input<typeof scheduleRequest>;

/** Validate a schedule (ValidationError names the field: `cron`, `timezone`, `command` …; `prefix.` before it). */
export async function validateSchedule(raw: unknown, ctx: EnqueueContext, prefix = ''): Promise<ScheduleInput> {
  const r = parseWith(scheduleRequest, raw, prefix);
  const task: Record<string, unknown> = {};
  for (const k of ['kind', 'command', 'payload', 'queue', 'priority', 'maxAttempts', 'timeoutMs'] as const) {
    // null: the queue's default (maxAttempts, timeoutMs) or no payload
    if (r[k] !== undefined && r[k] !== null) task[k] = r[k];
  }
  const t = await validateEnqueue(task, { ...ctx, caller: null }, prefix);
  return {
    name: r.name,
    cron: r.cron,
    timezone: r.timezone,
    kind: t.kind,
    command: t.command,
    payload: t.payload ?? null,
    queue: t.queue ?? 'default',
    priority: t.priority ?? 0,
    maxAttempts: t.maxAttempts ?? null,
    timeoutMs: t.timeoutMs ?? null,
    misfire: r.misfire,
    overlap: r.overlap,
    enabled: r.enabled,
  };
}
