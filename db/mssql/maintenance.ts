// Housekeeping on SQL Server, safe to run from every process at once: lease rescue, lost workers,
// pruning and the depth sample. Each round is one short transaction.
import type { AbandonedCount, PruneResult, RescueResult } from '../../lib/engine/types';
import { sql, type IResult, type Param, type Shared } from './connection';
import { intMs } from './rows';
import { settleTouched } from './settle';
import {
  ABANDONED_SINCE,
  CLOSE_ORPHAN_ATTEMPTS,
  LOST_WORKERS_DUE,
  MARK_LOST_WORKERS,
  PENDING_DEPTH,
  PRUNE_BATCH,
  PRUNE_REST,
  PRUNE_TASKS,
  RESCUE_BATCH,
  RESCUE_DUE,
  RESCUE_EXPIRED,
  SAMPLE_DEPTH,
} from './sql/maintenance';
import { depthSample, lastDepth } from '../shared/depth';
import { pruneHistory, rollHistoryIfDue } from './history';
import type { MaintenancePort, ReadModel } from '../../lib/engine/ports';
import type { Slice } from '../shared/bind';

const first = <T>(r: IResult<unknown>): T | undefined => (r.recordsets as unknown as T[][])[0]?.[0];

/** Attempts the rescue abandoned since `since`, by queue and reason. */
export async function abandonedSince(shared: Shared, since: Date): Promise<AbandonedCount[]> {
  const r = await shared.query<AbandonedCount>(ABANDONED_SINCE, [['since', sql.DateTime2(3), since]]);
  return r.recordset.map((x) => ({ queue: x.queue, reason: x.reason, n: Number(x.n) }));
}

export async function rescueExpired(shared: Shared): Promise<RescueResult> {
  const total = { retried: 0, dead: 0 };
  // nothing expired, no attempt left open (an idle or healthy store, every second): one read, no writing batch
  if (!(await shared.query<{ due: number }>(RESCUE_DUE)).recordset?.[0]?.due) return total;
  for (;;) {
    const r = await shared.write(RESCUE_EXPIRED);
    const row = first<{ retried: number; dead: number }>(r) ?? { retried: 0, dead: 0 };
    total.retried += row.retried;
    total.dead += row.dead;
    await settleTouched(shared, r.recordsets);
    if (row.retried + row.dead < RESCUE_BATCH) break;
  }
  await shared.write(CLOSE_ORPHAN_ATTEMPTS);
  if (total.retried || total.dead) shared.wake();
  return total;
}

export async function markLostWorkers(shared: Shared, staleMs: number): Promise<number> {
  const stale: Param[] = [['stale_ms', sql.Int, intMs(staleMs)]];
  if (!(await shared.query<{ due: number }>(LOST_WORKERS_DUE, stale)).recordset?.[0]?.due) return 0;
  const r = await shared.write<{ n: number }>(MARK_LOST_WORKERS, stale);
  return r.recordset[0]?.n ?? 0;
}

export async function prune(shared: Shared, olderThan: Date): Promise<PruneResult> {
  const total = { tasks: 0, attempts: 0 };
  for (;;) {
    const r = await shared.write(PRUNE_TASKS, [['cutoff', sql.DateTime2(3), olderThan]]);
    const row = first<{ tasks: number; attempts: number | null }>(r);
    total.tasks += row?.tasks ?? 0;
    total.attempts += row?.attempts ?? 0;
    if ((row?.tasks ?? 0) < PRUNE_BATCH) break;
  }
  await shared.write(PRUNE_REST, [['cutoff', sql.DateTime2(3), olderThan]]);
  await pruneHistory(shared);
  return total;
}

/** The depth, written only when it changed since this store's last sample (db/shared/depth.ts); the history's roll when due. */
export async function sampleDepth(shared: Shared): Promise<void> {
  const now = Date.now();
  const depth = Number((await shared.query<{ depth: number | string }>(PENDING_DEPTH)).recordset?.[0]?.depth ?? 0);
  if (depthSample(shared, depth, now)) {
    await shared.write(SAMPLE_DEPTH, [['depth', sql.BigInt, depth]]);
    lastDepth.set(shared, { depth, at: now });
  }
  await rollHistoryIfDue(shared);
}

/** this module's part of the MaintenancePort (store.ts binds it to the store's Shared) */
export const maintenanceSlice = { rescueExpired, markLostWorkers, prune, sampleDepth } satisfies Slice<Shared, MaintenancePort>;

/** this module's part of the ReadModel (store.ts binds it to the store's Shared) */
export const readSlice = { abandonedSince } satisfies Slice<Shared, ReadModel>;
