// Operator actions on SQL Server: cancel, retry and delete, one task or every dead task matching a
// failure filter. Each is one short transaction per call or per bulk round; the batches a round
// touched are settled right after it. A bulk action's audit row is written in its first round and
// brought up to date in each later one (audit.ts).
import { auditVia } from '../../lib/engine/audit';
import type { AuditWrite, CancelResult, CommandPort, DeleteResult, RetryResult } from '../../lib/engine/ports';
import type { FailureFilter, RetryFailedResult, TaskStatus } from '../../lib/engine/types';
import { audited, auditedCommand } from './audit';
import { sql, type IResult, type Param, type Shared } from './connection';
import { failureParams } from './reads';
import { UUID } from './rows';
import { settleTouched } from './settle';
import { BULK_BATCH, CANCEL, DELETE_ONE, deleteFailedSql, RETRY_ONE, retryFailedSql } from './sql/operators';
import type { Slice } from '../shared/bind';

const first = <T>(r: IResult<unknown>): T | undefined => (r.recordsets as unknown as T[][])[0]?.[0];

export async function cancel(shared: Shared, token: string): Promise<CancelResult> {
  if (!UUID.test(token)) return 'not_found';
  const r = await shared.write(CANCEL, [['token', sql.UniqueIdentifier, token]]);
  const row = first<{ old_status: string | null; found: number }>(r);
  await settleTouched(shared, r.recordsets);
  if (row?.old_status === 'pending' || row?.old_status === 'waiting') {
    // a child under `run` may have become pending (sql/edges.ts)
    shared.wake();
    return 'cancelled';
  }
  if (row?.old_status === 'running') return 'cancel_requested';
  return row?.found ? 'conflict' : 'not_found';
}

export async function retry(shared: Shared, token: string): Promise<RetryResult> {
  if (!UUID.test(token)) return 'not_found';
  const r = await shared.write(RETRY_ONE, [['token', sql.UniqueIdentifier, token]]);
  const row = first<{
    retried: number;
    status_now: string | null;
    past_abort: number;
    held_key: string | null;
    held_by: string | null;
    held_status: string | null;
  }>(r);
  if (row && row.retried > 0) {
    shared.wake();
    return 'retried';
  }
  if (row?.past_abort === 1) return 'batch_aborted';
  if (row?.held_by && row.held_key !== null) {
    return { result: 'dedup_key_held', dedupKey: row.held_key, token: row.held_by.toLowerCase(), status: row.held_status as TaskStatus };
  }
  return row?.status_now ? 'conflict' : 'not_found';
}

/**
 * Run a bulk statement until a round does less than a full batch, each round in its own transaction
 * with the action's audit row (built from the totals so far); returns the total and the last round's row.
 */
async function rounds(
  shared: Shared,
  text: string,
  params: Param[],
  column: string,
  audit: AuditWrite<[number, Record<string, number>]> | undefined,
): Promise<[number, Record<string, number>]> {
  let n = 0;
  for (;;) {
    const [got, row] = await audited(
      shared,
      auditVia(audit, ([got, row]: [number, Record<string, number>]) => [n + got, row] as [number, Record<string, number>]),
      async (s): Promise<[number, Record<string, number>]> => {
        const r = await s.write(text, params);
        const row = first<Record<string, number>>(r) ?? {};
        await settleTouched(s, r.recordsets);
        return [Number(row[column] ?? 0), row];
      },
    );
    n += got;
    if (got < BULK_BATCH) return [n, row];
  }
}

/**
 * Retry the newest dead task per dedup key (skipping a key an unfinished task holds); the tasks skipped so
 * are counted by the last round, which sees every one of them (still dead, their key held).
 */
export async function retryFailed(
  shared: Shared,
  filter: FailureFilter,
  audit?: AuditWrite<RetryFailedResult>,
): Promise<RetryFailedResult> {
  const { shape, params } = failureParams(filter);
  const result = ([n, row]: [number, Record<string, number>]): RetryFailedResult => ({
    retried: n,
    skipped: { dedupKeyHeld: Number(row.held ?? 0) },
  });
  const out = result(await rounds(shared, retryFailedSql(shape), params, 'retried', auditVia(audit, result)));
  if (out.retried) shared.wake();
  return out;
}

export async function deleteTask(shared: Shared, token: string): Promise<DeleteResult> {
  if (!UUID.test(token)) return 'not_found';
  const r = await shared.write(DELETE_ONE, [['token', sql.UniqueIdentifier, token]]);
  const row = first<{ deleted: number; found: number }>(r);
  if (row && row.deleted > 0) return 'deleted';
  return row?.found ? 'conflict' : 'not_found';
}

export async function deleteFailed(shared: Shared, filter: FailureFilter, audit?: AuditWrite<number>): Promise<number> {
  const { shape, params } = failureParams(filter);
  const [n] = await rounds(
    shared,
    deleteFailedSql(shape),
    params,
    'deleted',
    auditVia(audit, ([n]: [number, Record<string, number>]) => n),
  );
  return n;
}

/** this module's part of the CommandPort (store.ts binds it to the store's Shared) */
export const commandSlice = {
  cancel: auditedCommand(cancel, 1),
  retry: auditedCommand(retry, 1),
  retryFailed,
  deleteTask: auditedCommand(deleteTask, 1),
  deleteFailed,
} satisfies Slice<Shared, CommandPort>;
