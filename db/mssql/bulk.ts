// Bulk commands on tasks and editing a task before a retry, on SQL Server: a chunk of tokens per batch in
// one transaction (sql/bulk.ts); the batches a batch touched are settled right after it.
import type { BulkAction, BulkOutcome, EditTaskResult, TaskPatch } from '../../lib/engine/types';
import { sql, type IResult, type Shared } from './connection';
import { getTask } from './reads';
import { toJson, UUID } from './rows';
import { settleTouched } from './settle';
import * as S from './sql/bulk';
import { BULK_BATCH } from './sql/operators';
import type { CommandPort } from '../../lib/engine/ports';
import type { Slice } from '../shared/bind';
import { auditedCommand } from './audit';

const TEXT: Record<BulkAction, string> = {
  retry: S.BULK_RETRY,
  cancel: S.BULK_CANCEL,
  delete: S.BULK_DELETE,
  run_now: S.BULK_RUN_NOW,
  priority: S.BULK_PRIORITY,
};

const first = <T>(r: IResult<unknown>): T | undefined => (r.recordsets as unknown as T[][])[0]?.[0];

/**
 * At most BULK_BATCH tokens per batch (the front door sends BULK_CHUNK at a time; a caller of the port may send more): a
 * statement over them then stays far below lock escalation (sql/chunks.ts). Inside an audited command the batches
 * share its one transaction.
 */
export async function bulk(shared: Shared, action: BulkAction, tokens: string[], opts: { priority?: number }): Promise<BulkOutcome> {
  const given = new Set(tokens.map((t) => t.toLowerCase()));
  const valid = [...given].filter((t) => UUID.test(t));
  const total = { done: 0, found: 0, held: 0 };
  for (let i = 0; i < valid.length; i += BULK_BATCH) {
    const params = [
      ['tokens', sql.NVarChar(sql.MAX), JSON.stringify(valid.slice(i, i + BULK_BATCH))] as const,
      ...(action === 'priority' ? [['priority', sql.Int, opts.priority ?? 0] as const] : []),
    ];
    const r = await shared.write(TEXT[action], params);
    const row = first<{ done: number; found: number; held?: number }>(r) ?? { done: 0, found: 0 };
    await settleTouched(shared, r.recordsets);
    total.done += row.done;
    total.found += row.found;
    total.held += row.held ?? 0;
  }
  if (total.done && (action === 'retry' || action === 'run_now' || action === 'priority')) shared.wake();
  return { done: total.done, skipped: total.found - total.done, missing: given.size - total.found, dedupKeyHeld: total.held };
}

export async function editTask(shared: Shared, token: string, patch: TaskPatch, retry: boolean): Promise<EditTaskResult> {
  const before = await getTask(shared, token);
  if (!before) return { result: 'not_found' };
  if (before.status === 'running') return { result: 'running' };
  if (before.status === 'succeeded') return { result: 'conflict' };
  const back = retry && (before.status === 'dead' || before.status === 'cancelled');
  const r = await shared.write(S.EDIT_TASK, [
    ['token', sql.UniqueIdentifier, token],
    ['from_status', sql.VarChar(10), before.status],
    ['retry', sql.Bit, back ? 1 : 0],
    ['queue', sql.NVarChar(64), patch.queue ?? before.queue],
    ['set_payload', sql.Bit, patch.payload === undefined ? 0 : 1],
    ['payload', sql.NVarChar(sql.MAX), patch.payload === undefined ? null : toJson(patch.payload)],
    ['priority', sql.Int, patch.priority ?? before.priority],
    ['run_after', sql.DateTime2(3), patch.runAt ?? null],
    ['max_attempts', sql.Int, patch.maxAttempts ?? before.maxAttempts],
  ]);
  const row = first<{ edited: number }>(r);
  await settleTouched(shared, r.recordsets);
  if (!row?.edited) {
    const now = await getTask(shared, token);
    if (!now) return { result: 'not_found' };
    return { result: now.status === 'running' ? 'running' : 'conflict' };
  }
  const after = await getTask(shared, token);
  if (!after) return { result: 'not_found' };
  if (after.status === 'pending') shared.wake();
  const { history: _h, ...b } = before;
  const { history: _a, ...a } = after;
  return { result: back ? 'retried' : 'edited', before: b, after: a };
}

/** this module's part of the CommandPort (store.ts binds it to the store's Shared) */
export const commandSlice = { editTask: auditedCommand(editTask, 3), bulk: auditedCommand(bulk, 3) } satisfies Slice<Shared, CommandPort>;
