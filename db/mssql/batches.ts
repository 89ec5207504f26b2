// Batches on SQL Server: create, look up, list, release, cancel, and settle (complete or abort)
// after their tasks moved.
import type { BatchInput, BatchStatus, BatchView, OnFailure, Page, StageCounts } from '../../lib/engine/types';
import { query, sql, type ConnectionPool, type Param } from './driver';
import { id, type Id } from './rows';
import * as S from './sql';

interface BatchRow {
  id: Id; caller: string | null; max_parallel: number | null; on_failure: string; status: string; created_at: Date;
  released_at: Date | null; completed_at: Date | null;
}

interface StageRow {
  batch_id: Id; stage: number; total: number; pending: number; running: number; succeeded: number; dead: number;
  cancelled: number; first_started_at: Date | null; last_ended_at: Date | null;
}

function stageView(s: StageRow): StageCounts {
  return {
    stage: s.stage, total: s.total, pending: s.pending, running: s.running, succeeded: s.succeeded, dead: s.dead,
    cancelled: s.cancelled, firstStartedAt: s.first_started_at, lastEndedAt: s.last_ended_at,
  };
}

function batchView(b: BatchRow, stages: StageRow[]): BatchView {
  const live = stages.filter((s) => s.pending + s.running > 0);
  return {
    id: id(b.id),
    caller: b.caller,
    maxParallel: b.max_parallel,
    onFailure: b.on_failure as OnFailure,
    status: b.status as BatchStatus,
    activeStage: live.length ? Math.min(...live.map((s) => s.stage)) : null,
    createdAt: b.created_at,
    releasedAt: b.released_at,
    completedAt: b.completed_at,
    stages: stages.filter((s) => s.total > 0).map(stageView),
  };
}

export async function createBatch(pool: ConnectionPool, input: BatchInput): Promise<number> {
  const r = await query<{ id: Id }>(pool, S.CREATE_BATCH, [
    ['caller', sql.NVarChar(200), input.caller?.slice(0, 200) ?? null],
    ['max_parallel', sql.Int, input.maxParallel ?? null],
    ['on_failure', sql.VarChar(10), input.onFailure ?? 'continue'],
  ]);
  const row = r.recordset[0];
  if (!row) throw new Error('SQL Server did not return the new batch id');
  return id(row.id);
}

export async function getBatch(pool: ConnectionPool, batchId: number): Promise<BatchView | null> {
  const r = await query(pool, S.GET_BATCH, [['id', sql.BigInt, batchId]]);
  const sets = r.recordsets as unknown as [BatchRow[], StageRow[]];
  const b = sets[0]?.[0];
  return b ? batchView(b, sets[1] ?? []) : null;
}

export async function listBatches(
  pool: ConnectionPool,
  f: { status?: BatchStatus; cursor?: number; limit?: number },
): Promise<Page<BatchView>> {
  const limit = Math.min(200, Math.max(1, Math.floor(f.limit ?? 50)));
  const text = S.listBatchesSql({ status: f.status !== undefined, cursor: f.cursor !== undefined });
  const params: Param[] = [['limit', sql.Int, limit + 1]];
  if (f.status !== undefined) params.push(['status', sql.VarChar(10), f.status]);
  if (f.cursor !== undefined) params.push(['cursor', sql.BigInt, f.cursor]);
  const rows = (await query<BatchRow>(pool, text, params)).recordset;
  const page = rows.slice(0, limit);
  const stages = page.length
    ? (await query<StageRow>(pool, S.BATCH_STAGES, [['ids', sql.NVarChar(sql.MAX), JSON.stringify(page.map((b) => id(b.id)))]])).recordset
    : [];
  const items = page.map((b) => batchView(b, stages.filter((s) => id(s.batch_id) === id(b.id))));
  return { items, nextCursor: rows.length > limit ? items[items.length - 1]!.id : null };
}

export async function releaseBatch(pool: ConnectionPool, batchId: number): Promise<'released' | 'not_found' | 'conflict'> {
  const row = (await query<{ old_status: string | null; released: number }>(pool, S.RELEASE_BATCH, [['id', sql.BigInt, batchId]])).recordset[0];
  if (!row || row.old_status === null) return 'not_found';
  return row.released > 0 ? 'released' : 'conflict';
}

export async function cancelBatch(pool: ConnectionPool, batchId: number): Promise<{ result: 'cancelled' | 'not_found' | 'conflict'; cancelled: number }> {
  const row = (await query<{ old_status: string | null; cancelled: number }>(pool, S.CANCEL_BATCH, [['id', sql.BigInt, batchId]])).recordset[0];
  if (!row || row.old_status === null) return { result: 'not_found', cancelled: 0 };
  if (row.old_status === 'completed' || row.old_status === 'cancelled') return { result: 'conflict', cancelled: 0 };
  return { result: 'cancelled', cancelled: row.cancelled };
}

/** Complete or abort the given batches where their tasks allow it. */
export async function settleBatches(pool: ConnectionPool, ids: Iterable<number>): Promise<void> {
  const list = [...new Set(ids)];
  if (list.length === 0) return;
  await query(pool, S.SETTLE_BATCHES, [['batches', sql.NVarChar(sql.MAX), JSON.stringify(list)]]);
}

/** The batch ids of a writing batch's last result set (TOUCHED). */
export function touchedBatches(recordsets: unknown): number[] {
  const sets = recordsets as { batch_id: Id | null }[][];
  const last = sets[sets.length - 1] ?? [];
  return last.filter((r) => r.batch_id !== null && r.batch_id !== undefined).map((r) => id(r.batch_id));
}
