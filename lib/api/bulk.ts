// Bulk actions on tasks and editing a task before a retry — the front door's part: requests validated,
// a filter (the Tasks page's query string, task-query.ts) walked with keyset pages and applied BULK_CHUNK
// tokens per store transaction, the exact count previewed and checked against what the operator confirmed,
// one audit row per action. Failure groups (fingerprints) are read here too.
import { z } from 'zod';
import { ConflictError, NotFoundError, ValidationError } from '../engine/errors';
import { fingerprint } from '../engine/fingerprint';
import { BULK_CHUNK, MAX_ATTEMPTS, MAX_BULK_FILTER, MAX_BULK_TOKENS, MAX_PRIORITY, MIN_ATTEMPTS, MIN_PRIORITY } from '../engine/limits';
import type { Store } from '../engine/ports';
import type { BulkAction, BulkOutcome, EditTaskResult, FailureGroupQuery, FingerprintGroup, TaskPatch, TaskView } from '../engine/types';
import { intIn, parseWith, queueName, token as tokenSchema, validateEnqueue } from '../engine/validation';
import type { Audit } from './audit';
import { taskJson } from './present';
import { parseTaskQuery, TASK_PAGE_MAX, taskQueryString } from './task-query';

export const BULK_ACTIONS = ['retry', 'cancel', 'delete', 'run_now', 'priority'] as const satisfies readonly BulkAction[];

const priority = intIn(MIN_PRIORITY, MAX_PRIORITY);

/** `POST /api/tasks/bulk` and `…/bulk/preview`: an action on tokens or on everything a filter matches. */
export const bulkRequest = z
  .strictObject({
    action: z.enum(BULK_ACTIONS),
    tokens: z.array(tokenSchema).min(1, 'give at least one token').max(MAX_BULK_TOKENS, `at most ${MAX_BULK_TOKENS} tokens`).optional(),
    /** the Tasks page's query string, without '?' */
    filter: z.string().max(4000).optional(),
    priority: priority.optional(),
    /** the count the operator confirmed (from preview) */
    expected: z.number().int().min(0).optional(),
  })
  .refine((r) => (r.tokens === undefined) !== (r.filter === undefined), {
    message: 'give tokens or filter (one of them)',
    path: ['tokens'],
  })
  .refine((r) => r.action !== 'priority' || r.priority !== undefined, { message: 'required for action priority', path: ['priority'] });

export type BulkRequest = z.input<typeof bulkRequest>;

/** Whether an action changes a task in this state (what the stores do, sql/bulk.ts). */
export function eligible(action: BulkAction, t: Pick<TaskView, 'status' | 'runAfter'>, now = Date.now()): boolean {
  switch (action) {
    case 'retry':
      return t.status === 'dead' || t.status === 'cancelled';
    case 'cancel':
      return t.status === 'pending' || t.status === 'running';
    case 'delete':
      return t.status === 'succeeded' || t.status === 'dead' || t.status === 'cancelled';
    case 'run_now':
      return t.status === 'pending' && t.runAfter.getTime() > now;
    case 'priority':
      return t.status === 'pending' || t.status === 'dead' || t.status === 'cancelled';
  }
}

interface Selection {
  /** the tokens the action will be applied to */
  tokens: string[];
  /** tasks the selection names or the filter matched (any state) */
  matched: number;
  /** audit target */
  target: string;
  describe: unknown;
}

async function select(store: Store, r: z.output<typeof bulkRequest>): Promise<Selection> {
  if (r.tokens) {
    const tokens = [...new Set(r.tokens.map((t) => t.toLowerCase()))];
    const found: string[] = [];
    for (let i = 0; i < tokens.length; i += 50) {
      const tasks = await Promise.all(tokens.slice(i, i + 50).map((t) => store.reads.getTask(t)));
      for (const t of tasks) if (t && eligible(r.action, t)) found.push(t.token);
    }
    return { tokens: found, matched: tokens.length, target: `tokens:${tokens.length}`, describe: { tokens } };
  }
  const filter = parseTaskQuery(new URLSearchParams(r.filter ?? ''));
  delete filter.cursor;
  const query = taskQueryString(filter);
  const out: string[] = [];
  let matched = 0;
  let cursor: number | undefined;
  const now = Date.now();
  for (;;) {
    const page = await store.reads.listTasks({ ...filter, limit: TASK_PAGE_MAX, cursor });
    matched += page.items.length;
    if (matched > MAX_BULK_FILTER) {
      throw new ValidationError('filter', `matches more than ${MAX_BULK_FILTER.toLocaleString('en')} tasks; narrow it first`);
    }
    for (const t of page.items) if (eligible(r.action, t, now)) out.push(t.token);
    if (page.nextCursor === null) break;
    cursor = page.nextCursor;
  }
  return { tokens: out, matched, target: `filter:${query}`, describe: { filter: query } };
}

/** How many tasks an action would change (and how many the selection matched in any state). */
export async function bulkPreview(store: Store, raw: unknown): Promise<{ action: BulkAction; count: number; matched: number }> {
  const r = parseWith(bulkRequest, raw);
  const s = await select(store, r);
  return { action: r.action, count: s.tokens.length, matched: s.matched };
}

export interface BulkResultJson extends BulkOutcome {
  action: BulkAction;
  /** what the preview said (what the operator confirmed), or null */
  expected: number | null;
  /** tasks the action was applied to after the walk (done + skipped + missing: moved meanwhile) */
  count: number;
}

/** Apply an action in chunks; refused (409) when more tasks would change than the operator confirmed. */
export async function bulkTasks(store: Store, audit: Audit, raw: unknown): Promise<BulkResultJson> {
  const r = parseWith(bulkRequest, raw);
  const s = await select(store, r);
  if (r.expected !== undefined && s.tokens.length > r.expected) {
    throw new ConflictError(
      `the selection now matches ${s.tokens.length} tasks, more than the ${r.expected} confirmed; look again and confirm the new count`,
    );
  }
  const total: BulkOutcome = { done: 0, skipped: 0, missing: 0, dedupKeyHeld: 0 };
  const add = (a: BulkOutcome, b: BulkOutcome): BulkOutcome => ({
    done: a.done + b.done,
    skipped: a.skipped + b.skipped,
    missing: a.missing + b.missing,
    dedupKeyHeld: a.dedupKeyHeld + b.dedupKeyHeld,
  });
  const before = { ...(s.describe as object), ...(r.priority !== undefined ? { priority: r.priority } : {}), expected: r.expected ?? null };
  // one row for the action, written with its first chunk and brought up to date by each later one
  const written = audit.of((o: BulkOutcome) => {
    const sum = add(total, o);
    return { action: `tasks.bulk_${r.action}`, target: s.target, before, after: sum, count: sum.done };
  });
  for (let i = 0; i < s.tokens.length; i += BULK_CHUNK) {
    Object.assign(
      total,
      add(total, await store.commands.bulk(r.action, s.tokens.slice(i, i + BULK_CHUNK), { priority: r.priority }, written)),
    );
  }
  return { action: r.action, ...total, expected: r.expected ?? null, count: s.tokens.length };
}

// ---- edit before retry ---------------------------------------------------------------------------

/** `PATCH /api/tasks/{token}`: what to change; `retry` also puts a dead or cancelled task back to pending. */
export const taskPatchRequest = z
  .strictObject({
    payload: z.unknown().optional(),
    queue: queueName.optional(),
    priority: priority.optional(),
    runAt: z.union([z.iso.datetime({ offset: true }), z.date()]).optional(),
    maxAttempts: intIn(MIN_ATTEMPTS, MAX_ATTEMPTS).optional(),
    retry: z.boolean().optional(),
  })
  .refine((p) => Object.keys(p).some((k) => k !== 'retry') || p.retry === true, { message: 'give something to change' });

export type TaskPatchRequest = z.input<typeof taskPatchRequest>;

const EDITED = ['queue', 'payload', 'priority', 'runAfter', 'maxAttempts', 'status'] as const;
const pick = (t: ReturnType<typeof taskJson>) => Object.fromEntries(EDITED.map((k) => [k, t[k]]));

/** Edit a task that is not running (validated as enqueue validates); the old and new values are audited. */
export async function editTask(store: Store, audit: Audit, token: string, raw: unknown) {
  const p = parseWith(taskPatchRequest, raw);
  const current = await store.reads.getTask(token);
  if (!current) throw new NotFoundError(`no task with token ${token}`);
  // the same checks as at enqueue, on the task as it would be (its command is not changed)
  const v = await validateEnqueue(
    {
      kind: current.kind,
      command: current.command,
      payload: p.payload === undefined ? (current.payload ?? undefined) : p.payload,
      queue: p.queue ?? current.queue,
      priority: p.priority ?? current.priority,
      maxAttempts: p.maxAttempts ?? current.maxAttempts,
      ...(p.runAt !== undefined ? { runAt: p.runAt } : {}),
    },
    { kinds: store.kinds, knowsHandler: () => true },
  );
  const patch: TaskPatch = {};
  if (p.payload !== undefined) patch.payload = v.payload;
  if (p.queue !== undefined) patch.queue = v.queue;
  if (p.priority !== undefined) patch.priority = v.priority;
  if (p.maxAttempts !== undefined) patch.maxAttempts = v.maxAttempts;
  if (p.runAt !== undefined) patch.runAt = v.runAt;
  // the edit and, when it put the task back, its retry: both rows written in the edit's transaction
  const r = await store.commands.editTask(
    token,
    patch,
    p.retry === true,
    audit.of((e: EditTaskResult) => {
      if (!('after' in e)) return null;
      const edit = { action: 'task.edit', target: token, before: pick(taskJson(e.before)), after: pick(taskJson(e.after)), count: 1 };
      return e.result === 'retried' ? [edit, { action: 'task.retry', target: token, count: 1 }] : edit;
    }),
  );
  if (r.result === 'not_found') throw new NotFoundError(`no task with token ${token}`);
  if (r.result === 'running') throw new ConflictError('the task is running; edit it once it has stopped');
  if (r.result === 'conflict') {
    throw new ConflictError(
      p.retry
        ? 'this task cannot be retried now (finished, in a finished or aborted batch, or its dedup key is taken)'
        : 'finished tasks cannot be edited',
    );
  }
  if (!('after' in r)) throw new ConflictError('the task changed meanwhile');
  return { result: r.result, task: taskJson(r.after) };
}

// ---- failure groups --------------------------------------------------------------------------------

export function fingerprintGroupJson(g: FingerprintGroup) {
  return { ...g, firstAt: g.firstAt.toISOString(), lastAt: g.lastAt.toISOString() };
}

/** A page of failure groups by fingerprint (largest first). */
export async function failureGroupPage(store: Store, filter: FailureGroupQuery) {
  const page = await store.reads.failureGroupPage(filter);
  return { items: page.items.map(fingerprintGroupJson), nextCursor: page.nextCursor };
}

/** The fingerprint of a dead task's last error, for the page to match tasks to their group. */
export function taskFingerprint(t: { lastError: { number: number | null; message: string } | null }): string | null {
  return t.lastError ? fingerprint(t.lastError.number, t.lastError.message) : null;
}
