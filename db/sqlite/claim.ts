// The claim: which due tasks the idle workers take, all in one write transaction.
//  - lanes: unbatched tasks form one lane, each live batch another (its active stage only, within its
//    maxParallel); lanes are merged by priority, ties going to the least recently served lane, so one
//    large batch cannot starve another;
//  - queues that are paused or have no token left are skipped, so they block nobody else;
//  - a task of a limited queue starts only with a token granted in this transaction.
import type { ClaimedTask, ClaimOptions, TaskKind, WorkerSlot } from '../../lib/engine/types';
import { lanes as liveLanes, markServed, stageTimes } from './batches';
import type { Db } from './connection';
import { stmt, type Tally } from './tally';
import { capacity, grantToken } from './tokens';

interface Candidate {
  id: number; token: string; queue: string; kind: string; command: string; payload: string | null; priority: number;
  attempts: number; max_attempts: number; timeout_ms: number | null; created_at: number; run_after: number;
  batch_id: number | null; stage: number | null;
}

const COLUMNS = `t.id, t.token, t.queue, t.kind, t.command, t.payload, t.priority, t.attempts, t.max_attempts, t.timeout_ms,
  t.created_at, t.run_after, t.batch_id, t.stage`;
const QUEUE_FILTER = `AND t.queue NOT IN (SELECT value FROM json_each(@excluded))
  AND (@queues IS NULL OR t.queue IN (SELECT value FROM json_each(@queues)))`;

interface LaneState { key: string; batchId: number | null; stage: number | null; servedAt: number; room: number; items: Candidate[] }

let serveSeq = 0;
/** a strictly increasing "served" stamp (ms × 1000 + a counter) */
const stamp = (now: number) => now * 1000 + (serveSeq = (serveSeq + 1) % 1000);
let unbatchedServedAt = 0;

export function claim(db: Db, slots: WorkerSlot[], opts: ClaimOptions, tally: Tally, now: number): ClaimedTask[] {
  const out: ClaimedTask[] = [];
  const backoff = new Map<string, number>();
  const queuesJson = opts.queues?.length ? JSON.stringify(opts.queues) : null;
  // two rounds at most: a queue can run out of tokens part-way through the first
  for (let round = 0; round < 2 && out.length < slots.length; round++) {
    const want = slots.length - out.length;
    const cap = capacity(db, now);
    const excluded = JSON.stringify(cap.excluded);
    const lanes: LaneState[] = [];
    const unbatched = stmt(db, `SELECT ${COLUMNS} FROM Tasks t WHERE t.status = 'pending' AND t.batch_id IS NULL
        AND t.run_after <= @now ${QUEUE_FILTER} ORDER BY t.priority DESC, t.id LIMIT @limit`)
      .all({ excluded, queues: queuesJson, now, limit: want }) as Candidate[];
    if (unbatched.length) lanes.push({ key: 'u', batchId: null, stage: null, servedAt: unbatchedServedAt, room: want, items: unbatched });
    for (const l of liveLanes(db, want)) {
      const items = stmt(db, `SELECT ${COLUMNS} FROM Tasks t WHERE t.status = 'pending' AND t.batch_id = @batch AND t.stage = @stage
          AND t.batch_id IS NOT NULL AND t.run_after <= @now ${QUEUE_FILTER} ORDER BY t.priority DESC, t.id LIMIT @limit`)
        .all({ excluded, queues: queuesJson, batch: l.batchId, stage: l.stage, now, limit: l.room }) as Candidate[];
      if (items.length) lanes.push({ key: 'b' + l.batchId, batchId: l.batchId, stage: l.stage, servedAt: l.servedAt, room: l.room, items });
    }
    if (lanes.length === 0) break;
    let starved = false;
    while (out.length < slots.length) {
      // the highest-priority head; among equals the least recently served lane
      let best: LaneState | null = null;
      for (const l of lanes) {
        if (l.room <= 0 || l.items.length === 0) continue;
        const h = l.items[0]!;
        if (!best || h.priority > best.items[0]!.priority || (h.priority === best.items[0]!.priority && l.servedAt < best.servedAt)) best = l;
      }
      if (!best) break;
      const c = best.items.shift()!;
      const slot = slots[out.length]!;
      const attempt = c.attempts + 1;
      let tokenNo: number | null = null;
      const free = cap.free.get(c.queue);
      if (free !== undefined) {
        tokenNo = free > 0 ? grantToken(db, c.queue, { taskId: c.id, attempt, workerId: slot.workerId }, now) : null;
        if (tokenNo === null) {
          cap.free.set(c.queue, 0);
          starved = true;
          continue;
        }
        cap.free.set(c.queue, free - 1);
      }
      let b = backoff.get(c.queue);
      if (b === undefined) backoff.set(c.queue, (b = backoffOf(db, c.queue)));
      out.push(start(db, c, slot, attempt, tokenNo, b, opts.leaseMs, tally, now));
      best.room--;
      best.servedAt = stamp(now);
      if (best.batchId === null) unbatchedServedAt = best.servedAt;
      else markServed(db, best.batchId, best.servedAt);
    }
    if (!starved) break;
  }
  return out;
}

function start(
  db: Db, c: Candidate, slot: WorkerSlot, attempt: number, tokenNo: number | null, backoffMs: number, leaseMs: number, tally: Tally, now: number,
): ClaimedTask {
  stmt(db, `UPDATE Tasks SET status = 'running', attempts = ?, worker_id = ?, token_no = ?, lease_until = ?, started_at = ?,
      cancel_requested = 0 WHERE id = ?`).run(attempt, slot.workerId, tokenNo, now + leaseMs, now, c.id);
  stmt(db, `INSERT INTO ExecutionLog (task_id, attempt, queue, kind, command, worker_id, session, token_no, batch_id, stage, started_at, outcome)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'running')`)
    .run(c.id, attempt, c.queue, c.kind, c.command, slot.workerId, slot.session, tokenNo, c.batch_id, c.stage, now);
  tally.task(c, 'pending', 'running');
  tally.started(now, now - c.run_after);
  if (c.batch_id !== null && c.stage !== null) stageTimes(db, c.batch_id, c.stage, now, null);
  return {
    id: c.id, token: c.token, queue: c.queue, kind: c.kind as TaskKind, command: c.command,
    payload: c.payload === null ? null : JSON.parse(c.payload), priority: c.priority, attempt, maxAttempts: c.max_attempts,
    timeoutMs: c.timeout_ms, backoffMs, workerId: slot.workerId, session: slot.session,
    createdAt: new Date(c.created_at), runAfter: new Date(c.run_after), startedAt: new Date(now),
  };
}

function backoffOf(db: Db, queue: string): number {
  return (stmt(db, 'SELECT backoff_ms FROM Queues WHERE name = ?').get(queue) as { backoff_ms: number } | undefined)?.backoff_ms ?? 1000;
}
