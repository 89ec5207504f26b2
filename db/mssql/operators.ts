// Operator actions on SQL Server: cancel, retry and delete, one task or every dead task matching a
// failure filter. Each is one short transaction per call or per bulk round; the batches a round
// touched are settled right after it.
import type { CancelResult, DeleteResult, RetryResult } from '../../lib/engine/ports';
import type { FailureFilter } from '../../lib/engine/types';
import { sql, type IResult, type Param, type Shared } from './connection';
import { failureParams } from './reads';
import { UUID } from './rows';
import { settleTouched } from './settle';
import { BULK_BATCH, CANCEL, DELETE_ONE, deleteFailedSql, RETRY_ONE, retryFailedSql } from './sql/operators';

const first = <T>(r: IResult<unknown>): T | undefined => (r.recordsets as unknown as T[][])[0]?.[0];

export async function cancel(shared: Shared, token: string): Promise<CancelResult> {
  if (!UUID.test(token)) return 'not_found';
  const r = await shared.write(CANCEL, [['token', sql.UniqueIdentifier, token]]);
  const row = first<{ old_status: string | null; found: number }>(r);
  await settleTouched(shared, r.recordsets);
  if (row?.old_status === 'pending') return 'cancelled';
  if (row?.old_status === 'running') return 'cancel_requested';
  return row?.found ? 'conflict' : 'not_found';
}

export async function retry(shared: Shared, token: string): Promise<RetryResult> {
  if (!UUID.test(token)) return 'not_found';
  const r = await shared.write(RETRY_ONE, [['token', sql.UniqueIdentifier, token]]);
  const row = first<{ retried: number; status_now: string | null; past_abort: number }>(r);
  if (row && row.retried > 0) {
    shared.wake();
    return 'retried';
  }
  if (row?.past_abort === 1) return 'batch_aborted';
  return row?.status_now ? 'conflict' : 'not_found';
}

/** Run a bulk statement until a round does less than a full batch; returns the total. */
async function bulk(shared: Shared, text: string, params: Param[], column: string): Promise<number> {
  let n = 0;
  for (;;) {
    const r = await shared.write(text, params);
    const got = Number(first<Record<string, number>>(r)?.[column] ?? 0);
    n += got;
    await settleTouched(shared, r.recordsets);
    if (got < BULK_BATCH) return n;
  }
}

export async function retryFailed(shared: Shared, filter: FailureFilter): Promise<number> {
  const { shape, params } = failureParams(filter);
  const n = await bulk(shared, retryFailedSql(shape), params, 'retried');
  if (n) shared.wake();
  return n;
}

export async function deleteTask(shared: Shared, token: string): Promise<DeleteResult> {
  if (!UUID.test(token)) return 'not_found';
  const r = await shared.write(DELETE_ONE, [['token', sql.UniqueIdentifier, token]]);
  const row = first<{ deleted: number; found: number }>(r);
  if (row && row.deleted > 0) return 'deleted';
  return row?.found ? 'conflict' : 'not_found';
}

export function deleteFailed(shared: Shared, filter: FailureFilter): Promise<number> {
  const { shape, params } = failureParams(filter);
  return bulk(shared, deleteFailedSql(shape), params, 'deleted');
}
