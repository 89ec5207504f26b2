// Batches: the seeds' scheduler handles. A batch's tasks sit in ordered stages; per-stage counts are
// kept (BatchStages) as tasks move, so the claim can find each batch's active stage and running count
// with a lookup (claim.ts), and a batch completes (or aborts) in the transaction that settles its last
// task (settle.ts).
import type { AuditWrite, CancelBatchResult, CommandPort, ReadModel, ReleaseResult } from '../../lib/engine/ports';
import { ConflictError, ValidationError } from '../../lib/engine/errors';
import type { BatchInput, BatchStatus, BatchView, Page } from '../../lib/engine/types';
import { read, type Db, type Shared } from './connection';
import { parentsFailed } from './edges';
import { releaseToken } from './queues';
import type { TaskKey } from './tally';
import * as S from './sql/batches';
import { stmt } from './stmt';
import type { Slice } from '../shared/bind';
import { batchView, type BatchRow, type StageRow } from './rows';

function batchById(db: Db, id: number): BatchView | null {
  const b = stmt(db, S.GET_BATCH).get(id) as BatchRow | undefined;
  if (!b) return null;
  return batchView(b, stmt(db, S.BATCH_STAGES).all(id) as StageRow[]);
}

export function createBatch(shared: Shared, input: BatchInput, audit?: AuditWrite<BatchView>): Promise<BatchView> {
  return shared.tx((_t, now) => {
    const r = stmt(shared.db, S.CREATE_BATCH).get(input.caller ?? null, input.maxParallel ?? null, input.onFailure ?? 'continue', now) as {
      id: number;
    };
    return batchById(shared.db, r.id)!;
  }, audit);
}

export function getBatch(shared: Shared, id: number): Promise<BatchView | null> {
  return read(() => batchById(shared.db, id));
}

export function listBatches(shared: Shared, f: { status?: BatchStatus; cursor?: number; limit?: number }): Promise<Page<BatchView>> {
  return read(() => {
    const db = shared.db;
    const limit = Math.min(200, Math.max(1, Math.floor(f.limit ?? 50)));
    const rows = stmt(db, S.LIST_BATCHES).all(
      f.status ?? null,
      f.status ?? null,
      f.cursor ?? null,
      f.cursor ?? null,
      limit + 1,
    ) as BatchRow[];
    const page = rows.slice(0, limit);
    const stages = page.length ? (stmt(db, S.STAGES_OF_BATCHES).all(JSON.stringify(page.map((b) => b.id))) as StageRow[]) : [];
    const items = page.map((b) =>
      batchView(
        b,
        stages.filter((s) => s.batch_id === b.id),
      ),
    );
    return { items, nextCursor: rows.length > limit ? page[page.length - 1]!.id : null };
  });
}

/** No more tasks: the batch completes once all its tasks are terminal (settled before this transaction commits). */
export function releaseBatch(shared: Shared, id: number, audit?: AuditWrite<ReleaseResult>): Promise<ReleaseResult> {
  return shared.tx((tally, now): ReleaseResult => {
    const b = stmt(shared.db, S.BATCH_STATUS).get(id) as { status: string } | undefined;
    if (!b) return 'not_found';
    if (b.status !== 'open') return 'conflict';
    stmt(shared.db, S.RELEASE_BATCH).run(now, id);
    tally.batches.add(id);
    return 'released';
  }, audit);
}

/** Cancel a batch: its pending and claimed tasks are cancelled, running ones asked to stop; no new tasks. */
export function cancelBatch(shared: Shared, id: number, audit?: AuditWrite<CancelBatchResult>): Promise<CancelBatchResult> {
  return shared.tx((tally, now): CancelBatchResult => {
    const db = shared.db;
    const b = stmt(db, S.BATCH_STATUS).get(id) as { status: string } | undefined;
    if (!b) return { result: 'not_found', cancelled: 0 };
    if (b.status === 'completed' || b.status === 'cancelled') return { result: 'conflict', cancelled: 0 };
    const rows = stmt(db, S.CANCEL_BATCH_PENDING).all(now, id) as { id: number; queue: string; batch_id: number; stage: number }[];
    for (const t of rows) tally.task(t, 'pending', 'cancelled');
    const claimed = stmt(db, S.CANCEL_BATCH_CLAIMED).all(now, id) as (TaskKey & {
      id: number;
      token_no: number | null;
      attempts: number;
    })[];
    for (const t of claimed) {
      if (t.token_no !== null) releaseToken(db, t.queue, t.token_no, t.id, t.attempts + 1);
      tally.task(t, 'claimed', 'cancelled');
      rows.push({ id: t.id, queue: t.queue, batch_id: t.batch_id!, stage: t.stage! });
    }
    parentsFailed(
      db,
      rows.map((t) => t.id),
      tally,
      now,
    );
    stmt(db, S.REQUEST_CANCEL_BATCH_RUNNING).run(id);
    stmt(db, S.CANCEL_BATCH).run(now, id);
    return { result: 'cancelled', cancelled: rows.length };
  }, audit);
}

/**
 * Check that a task may be enqueued into stage `stage` of this batch: the batch exists, still takes
 * tasks, and no later stage has started yet (its tasks started believing every earlier stage was done).
 */
export function checkOpen(db: Db, batchId: number, stage: number): void {
  const b = stmt(db, S.BATCH_STATUS).get(batchId) as { status: string } | undefined;
  if (!b) throw new ValidationError('batchId', `no batch ${batchId}`);
  if (b.status !== 'open') throw new ConflictError(`batch ${batchId} is ${b.status}; only an open batch takes new tasks`);
  const later = stmt(db, S.LATER_STARTED_STAGE).get(batchId, stage) as { stage: number | null };
  if (later.stage !== null) {
    throw new ConflictError(`stage ${later.stage} of batch ${batchId} has already started; add tasks to stage ${later.stage} or later`);
  }
}

/** A stage's first start and last end, kept as its tasks start and end. */
export function stageTimes(db: Db, batchId: number, stage: number, started: number | null, ended: number | null): void {
  if (started !== null) stmt(db, S.STAGE_STARTED).run(started, batchId, stage);
  if (ended !== null) stmt(db, S.STAGE_ENDED).run(ended, batchId, stage);
}

/** this module's part of the CommandPort (store.ts binds it to the store's Shared) */
export const commandSlice = { createBatch, releaseBatch, cancelBatch } satisfies Slice<Shared, CommandPort>;

/** this module's part of the ReadModel (store.ts binds it to the store's Shared) */
export const readSlice = { getBatch, listBatches } satisfies Slice<Shared, ReadModel>;
