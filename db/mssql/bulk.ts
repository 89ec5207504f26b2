// Bulk commands on tasks and editing a task before a retry, on SQL Server: a chunk of tokens per batch in
// one transaction (sql/bulk.ts); the batches a batch touched are settled right after it.
import type { BulkAction, BulkOutcome, EditTaskResult, TaskPatch } from '../../lib/engine/types';
import { sql, type IResult, type Shared } from './connection';
import { getTask } from './reads';
import { toJson, UUID } from './rows';
import { settleTouched } from './settle';
import * as S from './sql/bulk';
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

export async function bulk(shared: Shared, action: BulkAction, tokens: string[], opts: { priority?: number }): Promise<BulkOutcome> {
  const given = new Set(tokens.map((t) => t.toLowerCase()));
  const valid = [...given].filter((t) => UUID.test(t));
  if (valid.length === 0) return { done: 0, skipped: 0, missing: given.size, dedupKeyHeld: 0 };
  const params = [
    ['tokens', sql.NVarChar(sql.MAX), JSON.stringify(valid)] as const,
    ...(action === 'priority' ? [['priority', sql.Int, opts.priority ?? 0] as const] : []),
  ];
  const r = await shared.write(TEXT[action], params);
  const row = first<{ done: number; found: number; held?: number }>(r) ?? { done: 0, found: 0 };
  await settleTouched(shared, r.recordsets);
  if (row.done && (action === 'retry' || action === 'run_now' || action === 'priority')) shared.wake();
  return { done: row.done, skipped: row.found - row.done, missing: given.size - row.found, dedupKeyHeld: row.held ?? 0 };
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
