// Batches on SQL Server: create, look up, list, release, cancel. Settling a batch (complete or
// abort) after its tasks moved is in settle.ts.
import type { CommandPort, ReadModel, ReleaseResult } from '../../lib/engine/ports';
import type { BatchInput, BatchStatus, BatchView, Page } from '../../lib/engine/types';
import { sql, type Param, type Shared } from './connection';
import { retrying } from './errors';
import { type BatchRow, batchView, type Id, id, type StageRow } from './rows';
import { settleBatches } from './settle';
import * as S from './sql/batches';
import type { Slice } from '../shared/bind';
import { auditedCommand } from './audit';

export async function createBatch(shared: Shared, input: BatchInput): Promise<BatchView> {
  const r = await shared.query<{ id: Id }>(S.CREATE_BATCH, [
    ['caller', sql.NVarChar(200), input.caller?.slice(0, 200) ?? null],
    ['max_parallel', sql.Int, input.maxParallel ?? null],
    ['on_failure', sql.VarChar(10), input.onFailure ?? 'continue'],
  ]);
  const row = r.recordset[0];
  if (!row) throw new Error('SQL Server did not return the new batch id');
  return (await getBatch(shared, id(row.id)))!;
}

export async function getBatch(shared: Shared, batchId: number): Promise<BatchView | null> {
  const r = await shared.query(S.GET_BATCH, [['id', sql.BigInt, batchId]]);
  const sets = r.recordsets as unknown as [BatchRow[], StageRow[]];
  const b = sets[0]?.[0];
  return b ? batchView(b, sets[1] ?? []) : null;
}

export async function listBatches(shared: Shared, f: { status?: BatchStatus; cursor?: number; limit?: number }): Promise<Page<BatchView>> {
  const limit = Math.min(200, Math.max(1, Math.floor(f.limit ?? 50)));
  const text = S.listBatchesSql({ status: f.status !== undefined, cursor: f.cursor !== undefined });
  const params: Param[] = [['limit', sql.Int, limit + 1]];
  if (f.status !== undefined) params.push(['status', sql.VarChar(10), f.status]);
  if (f.cursor !== undefined) params.push(['cursor', sql.BigInt, f.cursor]);
  const rows = (await shared.query<BatchRow>(text, params)).recordset;
  const page = rows.slice(0, limit);
  const stages = page.length
    ? (await shared.query<StageRow>(S.BATCH_STAGES, [['ids', sql.NVarChar(sql.MAX), JSON.stringify(page.map((b) => id(b.id)))]])).recordset
    : [];
  const items = page.map((b) =>
    batchView(
      b,
      stages.filter((s) => id(s.batch_id) === id(b.id)),
    ),
  );
  return { items, nextCursor: rows.length > limit ? items[items.length - 1]!.id : null };
}

/** No more tasks; the batch is settled at once (it may be complete already). */
export async function releaseBatch(shared: Shared, batchId: number): Promise<ReleaseResult> {
  const r = await shared.query<{ old_status: string | null; released: number }>(S.RELEASE_BATCH, [['id', sql.BigInt, batchId]]);
  const row = r.recordset[0];
  if (!row || row.old_status === null) return 'not_found';
  if (!(row.released > 0)) return 'conflict';
  await retrying(async () => settleBatches(await shared.runner(), [batchId]));
  return 'released';
}

type CancelBatchResult = 'cancelled' | 'not_found' | 'conflict';

/** Pending tasks cancelled, running ones asked to stop (run again after a deadlock). */
export async function cancelBatch(shared: Shared, batchId: number): Promise<{ result: CancelBatchResult; cancelled: number }> {
  const r = await retrying(() =>
    shared.query<{ old_status: string | null; cancelled: number }>(S.CANCEL_BATCH, [['id', sql.BigInt, batchId]]),
  );
  const row = r.recordset[0];
  if (!row || row.old_status === null) return { result: 'not_found', cancelled: 0 };
  if (row.old_status === 'completed' || row.old_status === 'cancelled') return { result: 'conflict', cancelled: 0 };
  return { result: 'cancelled', cancelled: row.cancelled };
}

/** this module's part of the CommandPort (store.ts binds it to the store's Shared) */
export const commandSlice = {
  createBatch: auditedCommand(createBatch, 1),
  releaseBatch: auditedCommand(releaseBatch, 1),
  cancelBatch: auditedCommand(cancelBatch, 1),
} satisfies Slice<Shared, CommandPort>;

/** this module's part of the ReadModel (store.ts binds it to the store's Shared) */
export const readSlice = { getBatch, listBatches } satisfies Slice<Shared, ReadModel>;
