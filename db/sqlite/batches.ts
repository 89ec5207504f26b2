// Batches: the seeds' scheduler handles. A batch's tasks sit in ordered stages; per-stage counts are
// kept (BatchStages) as tasks move, so the claim can find each batch's active stage and running count
// with a lookup, and a batch completes (or aborts) in the transaction that settles its last task.
import { ConflictError, ValidationError } from '../../lib/engine/errors';
import type { BatchInput, BatchStatus, BatchView, OnFailure, Page, StageCounts } from '../../lib/engine/types';
import type { Db } from './connection';
import { stmt, type Tally } from './tally';

interface BatchRow {
  id: number; caller: string | null; max_parallel: number | null; on_failure: string; status: string;
  created_at: number; released_at: number | null; completed_at: number | null;
}

interface StageRow {
  batch_id: number; stage: number; total: number; pending: number; running: number; succeeded: number; dead: number;
  cancelled: number; first_started_at: number | null; last_ended_at: number | null;
}

const LIVE = "('open', 'released', 'aborted')";

export function createBatch(db: Db, input: BatchInput, now: number): number {
  const r = stmt(db, 'INSERT INTO Batches (caller, max_parallel, on_failure, status, created_at) VALUES (?, ?, ?, \'open\', ?) RETURNING id')
    .get(input.caller ?? null, input.maxParallel ?? null, input.onFailure ?? 'continue', now) as { id: number };
  return r.id;
}

/**
 * Check that a task may be enqueued into stage `stage` of this batch: the batch exists, still takes
 * tasks, and no later stage has started yet (its tasks started believing every earlier stage was done).
 */
export function checkOpen(db: Db, batchId: number, stage: number): void {
  const b = stmt(db, 'SELECT status FROM Batches WHERE id = ?').get(batchId) as { status: string } | undefined;
  if (!b) throw new ValidationError('batchId', `no batch ${batchId}`);
  if (b.status !== 'open') throw new ConflictError(`batch ${batchId} is ${b.status}; only an open batch takes new tasks`);
  const later = stmt(db, 'SELECT MIN(stage) AS stage FROM BatchStages WHERE batch_id = ? AND stage > ? AND first_started_at IS NOT NULL')
    .get(batchId, stage) as { stage: number | null };
  if (later.stage !== null) {
    throw new ConflictError(`stage ${later.stage} of batch ${batchId} has already started; add tasks to stage ${later.stage} or later`);
  }
}

function stageView(s: StageRow): StageCounts {
  return {
    stage: s.stage, total: s.total, pending: s.pending, running: s.running, succeeded: s.succeeded, dead: s.dead,
    cancelled: s.cancelled,
    firstStartedAt: s.first_started_at === null ? null : new Date(s.first_started_at),
    lastEndedAt: s.last_ended_at === null ? null : new Date(s.last_ended_at),
  };
}

function batchView(b: BatchRow, stages: StageRow[]): BatchView {
  const live = stages.filter((s) => s.pending + s.running > 0);
  return {
    id: b.id,
    caller: b.caller,
    maxParallel: b.max_parallel,
    onFailure: b.on_failure as OnFailure,
    status: b.status as BatchStatus,
    activeStage: live.length ? Math.min(...live.map((s) => s.stage)) : null,
    createdAt: new Date(b.created_at),
    releasedAt: b.released_at === null ? null : new Date(b.released_at),
    completedAt: b.completed_at === null ? null : new Date(b.completed_at),
    stages: stages.filter((s) => s.total > 0).map(stageView),
  };
}

export function getBatch(db: Db, id: number): BatchView | null {
  const b = stmt(db, 'SELECT * FROM Batches WHERE id = ?').get(id) as BatchRow | undefined;
  if (!b) return null;
  return batchView(b, stmt(db, 'SELECT * FROM BatchStages WHERE batch_id = ? ORDER BY stage').all(id) as StageRow[]);
}

export function listBatches(db: Db, f: { status?: BatchStatus; cursor?: number; limit?: number }): Page<BatchView> {
  const limit = Math.min(200, Math.max(1, Math.floor(f.limit ?? 50)));
  const rows = stmt(db, `SELECT * FROM Batches WHERE (? IS NULL OR status = ?) AND (? IS NULL OR id < ?)
      ORDER BY id DESC LIMIT ?`).all(f.status ?? null, f.status ?? null, f.cursor ?? null, f.cursor ?? null, limit + 1) as BatchRow[];
  const page = rows.slice(0, limit);
  const stages = page.length
    ? (stmt(db, 'SELECT * FROM BatchStages WHERE batch_id IN (SELECT value FROM json_each(?)) ORDER BY batch_id, stage')
      .all(JSON.stringify(page.map((b) => b.id))) as StageRow[])
    : [];
  const items = page.map((b) => batchView(b, stages.filter((s) => s.batch_id === b.id)));
  return { items, nextCursor: rows.length > limit ? page[page.length - 1]!.id : null };
}

export interface Lane {
  batchId: number;
  stage: number;
  /** how many more of its tasks may start now (maxParallel − running) */
  room: number;
  servedAt: number;
}

/** Batches with a pending task in their active stage, least recently served first. */
export function lanes(db: Db, max: number): Lane[] {
  const rows = stmt(db, `SELECT b.id, b.max_parallel, b.served_at,
      (SELECT MIN(s.stage) FROM BatchStages s WHERE s.batch_id = b.id AND s.pending + s.running > 0) AS stage,
      (SELECT COALESCE(SUM(s.running), 0) FROM BatchStages s WHERE s.batch_id = b.id) AS running
      FROM Batches b WHERE b.status IN ${LIVE} ORDER BY b.served_at, b.id LIMIT 500`).all() as
    { id: number; max_parallel: number | null; served_at: number; stage: number | null; running: number }[];
  const out: Lane[] = [];
  for (const r of rows) {
    if (r.stage === null) continue;
    const pending = (stmt(db, 'SELECT pending FROM BatchStages WHERE batch_id = ? AND stage = ?').get(r.id, r.stage) as { pending: number }).pending;
    if (pending <= 0) continue;
    const room = Math.min(max, pending, r.max_parallel === null ? max : r.max_parallel - r.running);
    if (room > 0) out.push({ batchId: r.id, stage: r.stage, room, servedAt: r.served_at });
  }
  return out;
}

export function markServed(db: Db, batchId: number, servedAt: number): void {
  stmt(db, 'UPDATE Batches SET served_at = ? WHERE id = ?').run(servedAt, batchId);
}

export function stageTimes(db: Db, batchId: number, stage: number, started: number | null, ended: number | null): void {
  if (started !== null) stmt(db, 'UPDATE BatchStages SET first_started_at = COALESCE(first_started_at, ?) WHERE batch_id = ? AND stage = ?').run(started, batchId, stage);
  if (ended !== null) stmt(db, 'UPDATE BatchStages SET last_ended_at = MAX(COALESCE(last_ended_at, 0), ?) WHERE batch_id = ? AND stage = ?').run(ended, batchId, stage);
}

/**
 * After a transaction's counts are flushed: a batch with `onFailure: abort` and a dead task cancels its
 * pending tasks of later stages; a released (or aborted) batch whose tasks are all terminal completes.
 */
export function settleBatches(db: Db, ids: Iterable<number>, tally: Tally, now: number): void {
  for (const id of ids) {
    const b = stmt(db, 'SELECT status, on_failure FROM Batches WHERE id = ?').get(id) as { status: string; on_failure: string } | undefined;
    if (!b) continue;
    if (b.on_failure === 'abort' && (b.status === 'open' || b.status === 'released')) {
      const failed = stmt(db, 'SELECT MIN(stage) AS stage FROM BatchStages WHERE batch_id = ? AND dead > 0').get(id) as { stage: number | null };
      if (failed.stage !== null) {
        const cancelled = stmt(db, `UPDATE Tasks SET status = 'cancelled', finished_at = ?, error_message = ?
            WHERE batch_id = ? AND batch_id IS NOT NULL AND stage > ? AND status = 'pending' RETURNING queue, batch_id, stage`)
          .all(now, `batch ${id} aborted: a task of stage ${failed.stage} failed`, id, failed.stage) as
          { queue: string; batch_id: number; stage: number }[];
        for (const t of cancelled) tally.task(t, 'pending', 'cancelled');
        stmt(db, "UPDATE Batches SET status = 'aborted' WHERE id = ?").run(id);
        tally.flush(db);
      }
    }
    const cur = stmt(db, 'SELECT status FROM Batches WHERE id = ?').get(id) as { status: string };
    if (cur.status === 'released' || cur.status === 'aborted') {
      const live = stmt(db, 'SELECT COALESCE(SUM(pending + running), 0) AS n FROM BatchStages WHERE batch_id = ?').get(id) as { n: number };
      if (live.n === 0) {
        stmt(db, `UPDATE Batches SET status = CASE status WHEN 'aborted' THEN 'aborted' ELSE 'completed' END, completed_at = ?
            WHERE id = ?`).run(now, id);
      }
    }
  }
}

export function releaseBatch(db: Db, id: number, now: number): 'released' | 'not_found' | 'conflict' {
  const b = stmt(db, 'SELECT status FROM Batches WHERE id = ?').get(id) as { status: string } | undefined;
  if (!b) return 'not_found';
  if (b.status !== 'open') return 'conflict';
  stmt(db, "UPDATE Batches SET status = 'released', released_at = ? WHERE id = ?").run(now, id);
  return 'released';
}

/** Cancel a batch: its pending tasks are cancelled, running ones asked to stop; no new tasks. */
export function cancelBatch(db: Db, id: number, tally: Tally, now: number): { result: 'cancelled' | 'not_found' | 'conflict'; cancelled: number } {
  const b = stmt(db, 'SELECT status FROM Batches WHERE id = ?').get(id) as { status: string } | undefined;
  if (!b) return { result: 'not_found', cancelled: 0 };
  if (b.status === 'completed' || b.status === 'cancelled') return { result: 'conflict', cancelled: 0 };
  const rows = stmt(db, `UPDATE Tasks SET status = 'cancelled', finished_at = ? WHERE batch_id = ? AND batch_id IS NOT NULL
      AND status = 'pending' RETURNING queue, batch_id, stage`).all(now, id) as { queue: string; batch_id: number; stage: number }[];
  for (const t of rows) tally.task(t, 'pending', 'cancelled');
  stmt(db, "UPDATE Tasks SET cancel_requested = 1 WHERE batch_id = ? AND batch_id IS NOT NULL AND status = 'running'").run(id);
  stmt(db, "UPDATE Batches SET status = 'cancelled', completed_at = ? WHERE id = ?").run(now, id);
  return { result: 'cancelled', cancelled: rows.length };
}
