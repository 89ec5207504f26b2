// Maintenance and operator actions on SQL Server: lease rescue, lost workers, pruning, cancel,
// retry and delete (one or in bulk). Each is one short transaction per call or per bulk round.
import type { CancelResult, DeleteResult, RetryResult } from '../../lib/engine/store';
import type { FailureFilter, PruneResult, RescueResult } from '../../lib/engine/types';
import { sql, type IResult, type Param } from './driver';
import * as S from './sql';
import * as views from './views';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface StoreContext {
  /** a writing batch on the shared pool, run again after a deadlock */
  write<T = Record<string, unknown>>(text: string, params?: readonly Param[]): Promise<IResult<T>>;
  /** settle the batches a writing batch touched (its last result set) */
  settle(recordsets: unknown): Promise<void>;
  wake(): void;
}

const first = <T>(r: IResult<unknown>): T | undefined => (r.recordsets as unknown as T[][])[0]?.[0];

export async function rescueExpired(ctx: StoreContext): Promise<RescueResult> {
  const total = { retried: 0, dead: 0 };
  for (;;) {
    const r = await ctx.write(S.RESCUE_EXPIRED);
    const row = first<{ retried: number; dead: number }>(r) ?? { retried: 0, dead: 0 };
    total.retried += row.retried;
    total.dead += row.dead;
    await ctx.settle(r.recordsets);
    if (row.retried + row.dead < S.RESCUE_BATCH) break;
  }
  await ctx.write(S.CLOSE_ORPHAN_ATTEMPTS);
  if (total.retried || total.dead) ctx.wake();
  return total;
}

const clampInt = (n: number) => Math.min(2_147_483_647, Math.max(0, Math.round(n)));

export async function markLostWorkers(ctx: StoreContext, staleMs: number): Promise<number> {
  const r = await ctx.write<{ n: number }>(S.MARK_LOST_WORKERS, [['stale_ms', sql.Int, clampInt(staleMs)]]);
  return r.recordset[0]?.n ?? 0;
}

export async function prune(ctx: StoreContext, olderThan: Date): Promise<PruneResult> {
  const total = { tasks: 0, attempts: 0 };
  for (;;) {
    const r = await ctx.write(S.PRUNE_TASKS, [['cutoff', sql.DateTime2(3), olderThan]]);
    const row = first<{ tasks: number; attempts: number | null }>(r);
    total.tasks += row?.tasks ?? 0;
    total.attempts += row?.attempts ?? 0;
    if ((row?.tasks ?? 0) < S.PRUNE_BATCH) break;
  }
  await ctx.write(S.PRUNE_REST, [['cutoff', sql.DateTime2(3), olderThan]]);
  return total;
}

export async function cancel(ctx: StoreContext, token: string): Promise<CancelResult> {
  if (!UUID.test(token)) return 'not_found';
  const r = await ctx.write(S.CANCEL, [['token', sql.UniqueIdentifier, token]]);
  const row = first<{ old_status: string | null; found: number }>(r);
  await ctx.settle(r.recordsets);
  if (row?.old_status === 'pending') return 'cancelled';
  if (row?.old_status === 'running') return 'cancel_requested';
  return row?.found ? 'conflict' : 'not_found';
}

export async function retry(ctx: StoreContext, token: string): Promise<RetryResult> {
  if (!UUID.test(token)) return 'not_found';
  const r = await ctx.write(S.RETRY_ONE, [['token', sql.UniqueIdentifier, token]]);
  const row = first<{ retried: number; status_now: string | null }>(r);
  if (row && row.retried > 0) {
    ctx.wake();
    return 'retried';
  }
  return row?.status_now ? 'conflict' : 'not_found';
}

/** Run a bulk statement until a round does less than a full batch; returns the total. */
async function bulk(ctx: StoreContext, text: string, params: Param[], column: string): Promise<number> {
  let n = 0;
  for (;;) {
    const r = await ctx.write(text, params);
    const got = Number(first<Record<string, number>>(r)?.[column] ?? 0);
    n += got;
    await ctx.settle(r.recordsets);
    if (got < S.BULK_BATCH) return n;
  }
}

export async function retryFailed(ctx: StoreContext, filter: FailureFilter): Promise<number> {
  const { shape, params } = views.failureParams(filter);
  const n = await bulk(ctx, S.retryFailedSql(shape), params, 'retried');
  if (n) ctx.wake();
  return n;
}

export async function deleteTask(ctx: StoreContext, token: string): Promise<DeleteResult> {
  if (!UUID.test(token)) return 'not_found';
  const r = await ctx.write(S.DELETE_ONE, [['token', sql.UniqueIdentifier, token]]);
  const row = first<{ deleted: number; found: number }>(r);
  if (row && row.deleted > 0) return 'deleted';
  return row?.found ? 'conflict' : 'not_found';
}

export function deleteFailed(ctx: StoreContext, filter: FailureFilter): Promise<number> {
  const { shape, params } = views.failureParams(filter);
  return bulk(ctx, S.deleteFailedSql(shape), params, 'deleted');
}
