// The one bulk command of the front door: an action (retry, cancel, delete, run_now, priority) on a selection
// — tokens, a filter (the Tasks page's query string, task-query.ts) or a failure selection (a failure group or
// any failure filter). Tokens and filters are walked with keyset pages and applied BULK_CHUNK tokens per store
// transaction, the exact count previewed and checked against what the operator confirmed; a failure selection
// is retried or deleted by the store set-wise. Each writes one audit row in the store's own transaction(s).
import { z } from 'zod';
import { ConflictError, ValidationError } from '../engine/errors';
import { BULK_CHUNK, MAX_BULK_FILTER, MAX_BULK_TOKENS, MAX_PRIORITY, MIN_PRIORITY } from '../engine/limits';
import type { Store } from '../engine/ports';
import type { BulkAction, BulkOutcome, FailureFilter, RetryFailedResult, TaskView } from '../engine/types';
import { intIn, parseWith, token as tokenSchema } from '../engine/validation';
import type { Audit } from './audit';
import { failureFilter } from './requests';
import { parseTaskQuery, TASK_PAGE_MAX, taskQueryString } from './task-query';

export const BULK_ACTIONS = ['retry', 'cancel', 'delete', 'run_now', 'priority'] as const satisfies readonly BulkAction[];

const priority = intIn(MIN_PRIORITY, MAX_PRIORITY);

/** the actions a failure selection takes (the store's set-wise commands) */
const FAILURE_ACTIONS: readonly BulkAction[] = ['retry', 'delete'];

/**
 * `POST /api/tasks/bulk` and `…/bulk/preview`, and every bulk action of the dashboard: an action on tokens, on
 * everything a filter matches, or on the dead tasks of a failure selection (`failures`: a failure filter).
 */
export const bulkRequest = z
  .strictObject({
    action: z.enum(BULK_ACTIONS),
    tokens: z.array(tokenSchema).min(1, 'give at least one token').max(MAX_BULK_TOKENS, `at most ${MAX_BULK_TOKENS} tokens`).optional(),
    /** the Tasks page's query string, without '?' */
    filter: z.string().max(4000).optional(),
    /** dead tasks: a failure group ({queue, fingerprint, command}) or any failure filter ({} = all); retry or delete */
    failures: failureFilter.optional(),
    priority: priority.optional(),
    /** the count the operator confirmed (from preview) */
    expected: z.number().int().min(0).optional(),
  })
  .refine((r) => r.failures !== undefined || (r.tokens === undefined) !== (r.filter === undefined), {
    message: 'give tokens or filter (one of them)',
    path: ['tokens'],
  })
  .refine((r) => r.failures === undefined || (r.tokens === undefined && r.filter === undefined), {
    message: 'give tokens, filter or failures (one of them)',
    path: ['failures'],
  })
  .refine((r) => r.failures === undefined || FAILURE_ACTIONS.includes(r.action), {
    message: 'a failure selection takes retry or delete',
    path: ['action'],
  })
  .refine((r) => r.failures === undefined || r.expected === undefined, {
    message: 'a failure selection is not previewed (GET /api/failures counts its groups); give no expected count',
    path: ['expected'],
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

type Request = z.output<typeof bulkRequest>;

/**
 * A turn of the event loop between the pages of a walk and the chunks of an action: a store that answers at
 * once (SQLite is synchronous) would otherwise hold the process — every other request — for the whole of it.
 */
const turn = () => new Promise<void>((r) => setImmediate(r));

async function select(store: Store, r: Request): Promise<Selection> {
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
    await turn();
  }
  return { tokens: out, matched, target: `filter:${query}`, describe: { filter: query } };
}

/** How many tasks an action would change (and how many the selection matched in any state). */
export async function bulkPreview(store: Store, raw: unknown): Promise<{ action: BulkAction; count: number; matched: number }> {
  const r = parseWith(bulkRequest, raw);
  if (r.failures) throw new ValidationError('failures', 'a failure selection is not previewed (GET /api/failures counts its groups)');
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

/** The bulk command: validated, applied to its selection, audited; refused (409) when more tasks would change than confirmed. */
export async function bulkTasks(store: Store, audit: Audit, raw: unknown): Promise<BulkResultJson> {
  const r = parseWith(bulkRequest, raw);
  return r.failures ? onFailures(store, audit, r.action, r.failures) : inChunks(store, audit, r);
}

/** Tokens or a filter: the selection walked, then applied BULK_CHUNK tokens per store transaction. */
async function inChunks(store: Store, audit: Audit, r: Request): Promise<BulkResultJson> {
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
    if (i > 0) await turn();
    Object.assign(
      total,
      add(total, await store.commands.bulk(r.action, s.tokens.slice(i, i + BULK_CHUNK), { priority: r.priority }, written)),
    );
  }
  return { action: r.action, ...total, expected: r.expected ?? null, count: s.tokens.length };
}

/** A failure selection: retried (the newest per dedup key; the others skipped and counted) or deleted. */
async function onFailures(store: Store, audit: Audit, action: BulkAction, filter: FailureFilter): Promise<BulkResultJson> {
  if (action === 'delete') {
    const n = await deleteFailures(store, audit, filter);
    return { action, done: n, skipped: 0, missing: 0, dedupKeyHeld: 0, expected: null, count: n };
  }
  const r = await retryFailures(store, audit, filter);
  const held = r.skipped.dedupKeyHeld;
  return { action, done: r.retried, skipped: held, missing: 0, dedupKeyHeld: held, expected: null, count: r.retried + held };
}

/** Retry every dead task a (validated) failure filter matches, audited as `failures.retry`. */
export function retryFailures(store: Store, audit: Audit, filter: FailureFilter): Promise<RetryFailedResult> {
  const target = `filter:${JSON.stringify(filter)}`;
  const written = audit.of((r: RetryFailedResult) => ({
    action: 'failures.retry',
    target,
    before: filter,
    after: { skipped: r.skipped },
    count: r.retried,
  }));
  return store.commands.retryFailed(filter, written);
}

/** Delete every dead task a (validated) failure filter matches, audited as `failures.delete`; how many. */
export function deleteFailures(store: Store, audit: Audit, filter: FailureFilter): Promise<number> {
  const target = `filter:${JSON.stringify(filter)}`;
  return store.commands.deleteFailed(
    filter,
    audit.of((n: number) => ({ action: 'failures.delete', target, before: filter, count: n })),
  );
}

/** `retryFailed` / `deleteFailed` of the front door: a failure filter on its own (errors name its fields). */
export const parseFailureFilter = (raw: unknown): FailureFilter => parseWith(failureFilter, raw);
