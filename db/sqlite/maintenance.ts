// Housekeeping, safe to run from every process at once: lease rescue, lost workers, the depth sample,
// and pruning (in chunks, each a short transaction of its own; whole flows as a big write, big-write.ts).
import { AUDIT_KEEP_MS } from '../../lib/engine/limits';
import { Slices } from '../../lib/engine/slices';
import type { Steps } from './big-write';
import type { AbandonedCount, AbandonReason, PruneResult, RescueResult } from '../../lib/engine/types';
import { read, type Db, type Shared } from './connection';
import { parentsFailed } from './edges';
import { endAttempt, type Ended } from './settle';
import { pruneEvents } from './events';
import { pruneThrottle } from './throttle';
import { pruneHistory, rollDue, rollHistory } from './history';
import { depthSample, lastDepth } from '../shared/depth';
import { remove } from './operators';
import { releaseToken } from './queues';
import { PRUNE_AUDIT } from './sql/audit';
import * as S from './sql/maintenance';
import { stmt } from './stmt';
import type { MaintenancePort, ReadModel } from '../../lib/engine/ports';
import type { Slice } from '../shared/bind';
import type { Tally, TaskKey } from './tally';

/** Terminal tasks deleted per transaction while pruning. */
const PRUNE_CHUNK = 2000;
/** Finished flows deleted per transaction while pruning (each with all its tasks). */
const PRUNE_FLOWS = 20;

const iso = (ms: number | null) => (ms === null ? 'never' : new Date(ms).toISOString());

/**
 * Why an expired lease's attempt is abandoned, as the SQL Server store says it too (sql/maintenance.ts):
 * its worker heard from at or after the lease's end was alive while its lease lapsed (`lease_lost`);
 * otherwise it stopped (`worker_lost`). The message stays one per worker (failure groups); the times go
 * in the detail.
 */
export function abandoned(
  workerId: string | null,
  leaseUntil: number,
  heartbeatAt: number | null,
): { reason: AbandonReason; message: string; detail: string } {
  const w = workerId ?? '?';
  const detail = `worker ${w}: last heartbeat ${iso(heartbeatAt)}; lease ended ${iso(leaseUntil)}`;
  if (heartbeatAt !== null && heartbeatAt >= leaseUntil) {
    return { reason: 'lease_lost', message: `lease lost while its worker was alive: worker ${w} renewed it too late`, detail };
  }
  return { reason: 'worker_lost', message: `lease expired: worker ${w} stopped renewing it (crashed, killed or cut off)`, detail };
}

/**
 * Expired leases: the attempt is abandoned; the task goes back to pending, or to dead without attempts left
 * (its children's policies applied).
 */
export async function rescueExpired(shared: Shared): Promise<RescueResult> {
  // nothing expired, no attempt left open (an idle or healthy store, every second): a read, no write lock
  if (!(await read(() => stmt(shared.db, S.RESCUE_DUE).get(Date.now())))) return { retried: 0, dead: 0 };
  const r = await shared.tx((tally, now) => rescue(shared.db, tally, now));
  if (r.retried || r.dead || r.released) shared.wake();
  return r;
}

function rescue(db: Db, tally: Tally, now: number): RescueResult {
  const expired = stmt(db, S.EXPIRED_ATTEMPTS).all(now) as (Ended & {
    id: number;
    attempts: number;
    suspensions: number;
    max_attempts: number;
    worker_id: string | null;
    lease_until: number;
    heartbeat_at: number | null;
  })[];
  const res: RescueResult = { retried: 0, dead: 0 };
  const died: number[] = [];
  for (const t of expired) {
    const { reason, message, detail } = abandoned(t.worker_id, t.lease_until, t.heartbeat_at);
    // attempts that ended suspended (a durable handler's sleeps and waits) are not failures
    const dead = t.attempts - t.suspensions >= t.max_attempts;
    stmt(db, S.RESCUE_TASK).run(dead ? 'dead' : 'pending', dead ? 1 : 0, now, dead ? 1 : 0, now, message, t.id);
    endAttempt(db, t, t.id, t.attempts, 'abandoned', { number: null, message, detail }, dead ? 'dead' : 'pending', tally, now);
    stmt(db, S.SET_ABANDON_REASON).run(reason, t.id, t.attempts);
    if (dead) {
      res.dead++;
      died.push(t.id);
    } else res.retried++;
  }
  parentsFailed(db, died, tally, now);
  stmt(db, S.CLOSE_ORPHAN_ATTEMPTS).run(now);
  // a lapsed claim ahead: back to pending with nothing counted (no attempt began)
  const claims = stmt(db, S.EXPIRED_CLAIMS).all(now) as (Ended & { id: number; attempts: number })[];
  for (const t of claims) {
    stmt(db, S.RELEASE_CLAIM).run(t.id);
    if (t.token_no !== null) releaseToken(db, t.queue, t.token_no, t.id, t.attempts + 1);
    tally.task(t, 'claimed', 'pending');
  }
  if (claims.length) res.released = claims.length;
  return res;
}

/** Attempts the rescue abandoned since `since`, by queue and reason. */
export function abandonedSince(shared: Shared, since: Date): Promise<AbandonedCount[]> {
  return read(() => stmt(shared.db, S.ABANDONED_SINCE).all(since.getTime()) as AbandonedCount[]);
}

/** workers in state `running` whose heartbeat is older than `staleMs` become `lost`; returns how many */
export async function markLostWorkers(shared: Shared, staleMs: number): Promise<number> {
  if (!(await read(() => stmt(shared.db, S.LOST_WORKERS_DUE).get(Date.now() - staleMs)))) return 0;
  return shared.tx((_t, now) => stmt(shared.db, S.MARK_LOST_WORKERS).run(now - staleMs).changes);
}

/**
 * delete terminal tasks finished before `olderThan`, with their log rows and edges — not one an unfinished task
 * depends on; a flow's tasks go all at once, when none is unfinished and the last finished before the cutoff —;
 * old stopped workers, metrics, batches
 */
export async function prune(shared: Shared, olderThan: Date): Promise<PruneResult> {
  const cutoff = olderThan.getTime();
  const total = { tasks: 0, attempts: 0 };
  // a chunk is a short transaction; between them the event loop runs (the process answers while a backlog goes)
  const slices = new Slices();
  for (;;) {
    const r = await shared.tx((tally) => pruneChunk(shared.db, cutoff, PRUNE_CHUNK, tally));
    total.tasks += r.tasks;
    total.attempts += r.attempts;
    if (r.tasks < PRUNE_CHUNK) break;
    if (slices.due) await slices.pause();
  }
  for (;;) {
    // whole flows (up to 10,000 tasks each): a big write, in slices (big-write.ts), when there is one to prune
    if ((await read(() => stmt(shared.db, S.PRUNABLE_FLOWS).all(cutoff, cutoff, 1))).length === 0) break;
    const r = await shared.write(Infinity, (db, tally) => pruneFlows(db, cutoff, PRUNE_FLOWS, tally));
    total.tasks += r.tasks;
    total.attempts += r.attempts;
    if (r.flows < PRUNE_FLOWS) break;
  }
  await shared.tx((_t, now) => pruneRest(shared.db, cutoff, now));
  return total;
}

/** Delete up to `chunk` terminal tasks finished before the cutoff, with their log rows. */
function pruneChunk(db: Db, cutoff: number, chunk: number, tally: Tally): PruneResult {
  const rows = stmt(db, S.PRUNE_TASKS).all(cutoff, chunk) as (TaskKey & { id: number; status: string })[];
  let attempts = 0;
  for (const t of rows) attempts += remove(db, t, tally);
  return { tasks: rows.length, attempts };
}

/** Delete up to `chunk` whole flows, finished before the cutoff, with their tasks, log rows and edges. */
function* pruneFlows(db: Db, cutoff: number, chunk: number, tally: Tally): Steps<PruneResult & { flows: number }> {
  const flows = stmt(db, S.PRUNABLE_FLOWS).all(cutoff, cutoff, chunk) as { id: number }[];
  const out = { flows: flows.length, tasks: 0, attempts: 0 };
  for (const f of flows) {
    const rows = stmt(db, S.FLOW_TASKS).all(f.id) as (TaskKey & { id: number; status: string })[];
    for (const t of rows) {
      out.attempts += remove(db, t, tally);
      yield;
    }
    out.tasks += rows.length;
    stmt(db, S.DELETE_FLOW).run(f.id);
  }
  return out;
}

function pruneRest(db: Db, cutoff: number, now: number): void {
  stmt(db, S.PRUNE_WORKERS).run(cutoff);
  pruneEvents(db, cutoff);
  stmt(db, S.PRUNE_METRICS).run(Math.floor((now - 24 * 3600 * 1000) / 1000));
  stmt(db, S.PRUNE_QUEUE_COUNTS).run();
  stmt(db, S.PRUNE_BATCH_STAGES).run(cutoff);
  stmt(db, S.PRUNE_BATCHES).run(cutoff);
  stmt(db, S.PRUNE_QUEUE_CHANGES).run(cutoff);
  stmt(db, PRUNE_AUDIT).run(now - AUDIT_KEEP_MS);
  pruneHistory(db, now);
  pruneThrottle(db, now);
}

/**
 * Record the pending depth for the current second of the metrics series — only when it changed since this store's
 * last sample (or that one is DEPTH_REFRESH_MS old): the readers carry a sample forward (history.ts, reads.ts), so
 * an idle store writes nothing here. Then the history's quarter-hour roll, when one is due.
 */
export async function sampleDepth(shared: Shared): Promise<void> {
  const now = Date.now();
  const depth = await read(() => (stmt(shared.db, S.PENDING_DEPTH).get() as { n: number }).n);
  const sample = depthSample(shared, depth, now);
  const roll = await read(() => rollDue(shared.db, now));
  if (!sample && !roll) return;
  await shared.tx((_t, at) => {
    if (sample) stmt(shared.db, S.SAMPLE_DEPTH).run(Math.floor(at / 1000), depth);
    if (roll) rollHistory(shared.db, at);
  });
  if (sample) lastDepth.set(shared, { depth, at: now });
}

/** this module's part of the MaintenancePort (store.ts binds it to the store's Shared) */
export const maintenanceSlice = { rescueExpired, markLostWorkers, prune, sampleDepth } satisfies Slice<Shared, MaintenancePort>;

/** this module's part of the ReadModel (store.ts binds it to the store's Shared) */
export const readSlice = { abandonedSince } satisfies Slice<Shared, ReadModel>;
