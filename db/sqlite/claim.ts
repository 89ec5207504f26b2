// The claim: which due tasks the idle workers take, all in one write transaction.
//  - capacity: queues that are paused or have no room left are skipped, so they block nobody else; a
//    limited queue's room is its limit less its running tasks with a live lease, token or not (a task
//    claimed while the queue was unlimited holds none), so a limit set or lowered while tasks run grants
//    nothing until running < limit;
//  - lanes: unbatched tasks with no concurrency key form one lane, the unbatched tasks of each (queue, key)
//    another (KEY_LANES of them per round, least recently served first, full keys and full per-key rate
//    windows filtered out before the LIMIT), each live batch another (its active stage only, within its
//    maxParallel, never past a failed stage of a batch that aborts); only batches with a due task the
//    claim may take become lanes; lanes are merged by priority, ties going to the least recently served
//    lane, so one large batch or key cannot starve another (keys take turns: ConcurrencyKeys.served_at);
//  - throttle, for every task started (a keyed task of a batch too): its key's running tasks with a live
//    lease stay under the queue's per-key limit, and a rate-limited queue's start takes a rate slot
//    (throttle.ts) — a task that cannot start is skipped, no attempt spent; a queue whose window is full is
//    excluded like a full one;
//  - a task of a limited queue starts only with a token granted in this transaction (Taskling's way:
//    the queue row is written first, its lock column serialising grants for the queue).
//  - claiming ahead (opts.ahead): past the slots, up to `ahead.count` more tasks are `claimed` by the claimer for
//    its pool's local queue — the same rules, token and key room, a lease, but no attempt and no ExecutionLog row:
//    the attempt starts when a slot starts it (settle.ts records the start), or the task is given back.
// Tokens are released by the attempt's end (queues.ts releaseToken).
// The claim rules are listed once, by name, in lib/engine/claim-rules.ts; their SQLite fragments are in
// sql/claim.ts (CLAIM_RULE_SQL), whose statements are composed of them.
import type { ClaimedTask, ClaimOptions, RateLimit, TaskKind, WorkerSlot } from '../../lib/engine/types';
import { stageTimes } from './batches';
import { readParents } from './edges';
import type { Db, Shared } from './connection';
import { freeSlot, rateKeyOf, rateOf, type RateRow, takeSlot } from './throttle';
import * as S from './sql/claim';
import { stmt } from './stmt';
import type { Tally } from './tally';

interface Candidate {
  id: number;
  token: string;
  queue: string;
  kind: string;
  command: string;
  payload: string | null;
  priority: number;
  attempts: number;
  max_attempts: number;
  timeout_ms: number | null;
  created_at: number;
  run_after: number;
  batch_id: number | null;
  stage: number | null;
  concurrency_key: string | null;
  /** its edges: its parents are read for its context only when it has some */
  parent_count: number;
  /** the trace context stored at enqueue, and its last attempt's span (migration 18) */
  trace_parent: string | null;
  trace_state: string | null;
  attempt_trace: string | null;
}

interface LaneState {
  batchId: number | null;
  stage: number | null;
  /** a key lane's (queue, key); null for the unkeyed lane and batches */
  key: { queue: string; name: string } | null;
  servedAt: number;
  room: number;
  items: Candidate[];
  /** a key lane read its head only: the tasks after it are read once it is taken and the lane has room */
  more: boolean;
}

let serveSeq = 0;
/** a strictly increasing "served" stamp (ms × 1000 + a counter) */
const stamp = (now: number) => now * 1000 + (serveSeq = (serveSeq + 1) % 1000);
let unbatchedServedAt = 0;

/**
 * Key lanes read per claim round, least recently served first: priority wins across these (and the unkeyed lane
 * and batches); a key served less recently than the rest of them cannot wait behind more than one turn.
 */
export const KEY_LANES = 64;

/**
 * claim at most one due task per slot, each starting an attempt logged in ExecutionLog, then up to
 * `opts.ahead.count` more claimed ahead (not started)
 */
export async function claim(shared: Shared, slots: WorkerSlot[], opts: ClaimOptions): Promise<ClaimedTask[]> {
  if (slots.length + (opts.ahead?.count ?? 0) === 0) return [];
  return shared.tx((tally, now) => claimIn(shared.db, slots, opts, tally, now));
}

/** The priority of a lane's head (null: nothing more it may start); a key lane reads its next tasks when needed. */
function head(db: Db, l: LaneState, now: number): number | null {
  if (l.room <= 0) return null;
  if (l.items.length === 0 && l.more) {
    l.more = false;
    l.items = stmt(db, S.KEY_HEADS).all({ queue: l.key!.queue, key: l.key!.name, now, limit: l.room }) as Candidate[];
  }
  return l.items[0]?.priority ?? null;
}

function claimIn(db: Db, slots: WorkerSlot[], opts: ClaimOptions, tally: Tally, now: number): ClaimedTask[] {
  const out: ClaimedTask[] = [];
  /** claimed tasks with parents, whose results their attempts see */
  const children: ClaimedTask[] = [];
  const backoff = new Map<string, number>();
  const throttle = new Throttle(db, now);
  /**
   * past the slots, tasks are claimed ahead (lib/engine/pool-queue.ts): such a task starts when a slot frees, so a
   * rate-limited queue never gives one (its rate slot would be dated before the start)
   */
  const total = slots.length + Math.max(0, opts.ahead?.count ?? 0);
  const queuesJson = opts.queues?.length ? JSON.stringify(opts.queues) : null;
  /** tasks started per batch in this transaction: the kept stage counts (BatchStages) see them only at commit */
  const startedIn = new Map<number, number>();
  /** rate-limited queues met while claiming ahead: left out of the next round once only tasks ahead are left */
  const noAhead = new Set<string>();
  // two rounds at most: a queue can run out of tokens part-way through the first; and one more for each
  // rate-limited queue a claim ahead met (its lanes are read again without it)
  for (let round = 0; round < 2 + noAhead.size && out.length < total; round++) {
    const want = total - out.length;
    const cap = capacity(db, now);
    if (out.length >= slots.length) cap.excluded.push(...noAhead);
    const excluded = JSON.stringify(cap.excluded);
    const noKey = JSON.stringify(cap.noKey);
    const lanes: LaneState[] = [];
    const unbatched = stmt(db, S.UNBATCHED_HEADS).all({ excluded, noKey, queues: queuesJson, now, limit: want });
    if (unbatched.length) lanes.push(lane(null, null, null, unbatchedServedAt, want, unbatched as Candidate[]));
    // no key row at all (no keyed task pending or running): no key lane to read
    const keyed = stmt(db, S.ANY_KEY).get() ? keyLanes(db, { excluded, queues: queuesJson, now, limit: Math.max(want, KEY_LANES) }) : [];
    const heads = keyed.length
      ? new Map((stmt(db, S.HEADS_BY_ID).all(JSON.stringify(keyed.map((k) => k.head_id))) as Candidate[]).map((c) => [c.id, c]))
      : new Map<number, Candidate>();
    for (const k of keyed) {
      const room = k.per_key_limit === null ? want : Math.min(want, k.per_key_limit - k.running);
      const l = lane(null, null, { queue: k.queue, name: k.concurrency_key }, k.served_at, room, [heads.get(k.head_id)!]);
      lanes.push({ ...l, more: room > 1 });
    }
    for (const l of batchLanes(db, want, { excluded, noKey, queues: queuesJson, now }, startedIn)) {
      const items = stmt(db, S.BATCH_HEADS).all({
        excluded,
        noKey,
        queues: queuesJson,
        batch: l.batchId,
        stage: l.stage,
        now,
        limit: l.room,
      });
      if (items.length) lanes.push(lane(l.batchId, l.stage, null, l.servedAt, l.room, items as Candidate[]));
    }
    if (lanes.length === 0) break;
    let starved = false;
    while (out.length < total) {
      // the highest-priority head; among equals the least recently served lane
      let best: LaneState | null = null;
      let top = 0;
      for (const l of lanes) {
        const p = head(db, l, now);
        if (p === null) continue;
        if (!best || p > top || (p === top && l.servedAt < best.servedAt)) {
          best = l;
          top = p;
        }
      }
      if (!best) break;
      const c = best.items.shift()!;
      const ahead = out.length >= slots.length;
      const slot = ahead ? opts.ahead!.claimer : slots[out.length]!;
      const attempt = c.attempts + 1;
      // the key's per-key limit and the queue's rate window, for every task (keyed tasks of a batch too)
      if (!throttle.mayStart(c, best.key !== null, ahead)) {
        if (best.key) best.room = 0;
        if (ahead && throttle.rateLimited(c.queue) && !noAhead.has(c.queue)) {
          noAhead.add(c.queue);
          starved = true;
          // a lane is read only as deep as its room: the task behind this one (another queue's) was not read
          break;
        }
        continue;
      }
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
      throttle.started(c);
      let b = backoff.get(c.queue);
      if (b === undefined) backoff.set(c.queue, (b = backoffOf(db, c.queue)));
      const task = ahead
        ? claimAhead(db, c, slot, attempt, tokenNo, b, opts.leaseMs, tally, now)
        : start(db, c, slot, attempt, tokenNo, b, opts.leaseMs, tally, now);
      out.push(task);
      if (c.parent_count > 0) children.push(task);
      best.room--;
      best.servedAt = stamp(now);
      if (c.concurrency_key !== null) stmt(db, S.MARK_KEY_SERVED).run(best.servedAt, c.queue, c.concurrency_key);
      if (best.batchId === null && best.key === null) unbatchedServedAt = best.servedAt;
      else if (best.batchId !== null) {
        stmt(db, S.MARK_SERVED).run(best.servedAt, best.batchId);
        startedIn.set(best.batchId, (startedIn.get(best.batchId) ?? 0) + 1);
      }
    }
    if (!starved) break;
  }
  if (children.length) readParents(db, children);
  return out;
}

function lane(
  batchId: number | null,
  stage: number | null,
  key: LaneState['key'],
  servedAt: number,
  room: number,
  items: Candidate[],
): LaneState {
  return { batchId, stage, key, servedAt, room, items, more: false };
}

// ---- capacity -----------------------------------------------------------------------------------

interface Capacity {
  /** queues no task may be claimed from now: paused, limited with no room left, or rate limited with a full window */
  excluded: string[];
  /** queues whose tasks with no key may not start now: a per-key rate whose window of the tasks with no key is full */
  noKey: string[];
  /** tasks that may still start per limited queue: its limit less its running tasks with a live lease */
  free: Map<string, number>;
}

function capacity(db: Db, now: number): Capacity {
  const queues = stmt(db, S.PAUSED_OR_LIMITED_QUEUES).all() as (RateRow & {
    name: string;
    concurrency_limit: number | null;
    paused: number;
  })[];
  const excluded: string[] = [];
  const noKey: string[] = [];
  const free = new Map<string, number>();
  for (const q of queues) {
    if (q.paused) {
      excluded.push(q.name);
      continue;
    }
    const rate = rateOf(q);
    if (rate) {
      if (freeSlot(db, q.name, '', rate, now) === null) {
        (rate.perKey ? noKey : excluded).push(q.name);
        if (!rate.perKey) continue;
      }
    }
    if (q.concurrency_limit === null) continue;
    const running = (stmt(db, S.RUNNING_LIVE).get(q.name, now) as { n: number }).n;
    const n = Math.max(0, q.concurrency_limit - running);
    free.set(q.name, n);
    if (n === 0) excluded.push(q.name);
  }
  return { excluded, noKey, free };
}

/** Key lanes that may start a task now (sql/claim.ts KEY_LANES). */
function keyLanes(db: Db, filter: { excluded: string; queues: string | null; now: number; limit: number }) {
  return stmt(db, S.KEY_LANES).all(filter) as {
    queue: string;
    concurrency_key: string;
    served_at: number;
    per_key_limit: number | null;
    head_id: number;
    running: number;
  }[];
}

/**
 * A claim's throttle: whether a task may start under its key's per-key limit and its queue's rate window,
 * and the rate slot its start takes. Counted in the transaction, so tasks this claim started count too.
 */
class Throttle {
  private readonly queues = new Map<string, { perKeyLimit: number | null; rate: RateLimit | null }>();

  constructor(
    private readonly db: Db,
    private readonly now: number,
  ) {}

  private of(queue: string) {
    let q = this.queues.get(queue);
    if (!q) {
      const r = stmt(this.db, S.QUEUE_THROTTLE).get(queue) as (RateRow & { per_key_limit: number | null }) | undefined;
      q = { perKeyLimit: r?.per_key_limit ?? null, rate: rateOf(r) };
      this.queues.set(queue, q);
    }
    return q;
  }

  /** keys a batch's task of this claim started: a key lane's room, counted before, does not see them */
  private readonly batchStarts = new Set<string>();

  /**
   * `keyLane`: `c` heads a key lane, whose room already keeps its key under the per-key limit; `ahead`: the slot is
   * claimed ahead (a rate-limited queue's tasks start only when claimed)
   */
  mayStart(c: Candidate, keyLane: boolean, ahead: boolean): boolean {
    const q = this.of(c.queue);
    if (ahead && q.rate !== null) return false;
    const id = `${c.queue}\u0000${c.concurrency_key}`;
    if (c.concurrency_key !== null && q.perKeyLimit !== null && (!keyLane || this.batchStarts.has(id))) {
      const running = (stmt(this.db, S.KEY_RUNNING).get(c.queue, c.concurrency_key, this.now) as { n: number }).n;
      if (running >= q.perKeyLimit) return false;
    }
    return q.rate === null || freeSlot(this.db, c.queue, rateKeyOf(q.rate, c.concurrency_key), q.rate, this.now) !== null;
  }

  /** whether the queue has a rate limit (its tasks are never claimed ahead) */
  rateLimited(queue: string): boolean {
    return this.of(queue).rate !== null;
  }

  /** the start takes its rate slot (mayStart said there is one) */
  started(c: Candidate): void {
    const q = this.of(c.queue);
    if (c.batch_id !== null && c.concurrency_key !== null) this.batchStarts.add(`${c.queue}\u0000${c.concurrency_key}`);
    if (q.rate) takeSlot(this.db, c.queue, rateKeyOf(q.rate, c.concurrency_key), q.rate, c.id, this.now);
  }
}

// ---- lanes ----------------------------------------------------------------------------------------

interface BatchLane {
  batchId: number;
  stage: number;
  /** how many more of its tasks may start now (maxParallel − running) */
  room: number;
  servedAt: number;
}

/**
 * Batches with a due task in their active stage that this claim may take, least recently served first
 * (filtered in SQL before its LIMIT: batches that wait never crowd out one that can run). `startedIn`:
 * tasks this transaction already started per batch, which the kept running counts do not show yet.
 */
function batchLanes(
  db: Db,
  max: number,
  filter: { excluded: string; noKey: string; queues: string | null; now: number },
  startedIn: ReadonlyMap<number, number>,
): BatchLane[] {
  const rows = stmt(db, S.LIVE_BATCHES).all(filter) as {
    id: number;
    max_parallel: number | null;
    served_at: number;
    stage: number | null;
    running: number;
  }[];
  const out: BatchLane[] = [];
  for (const r of rows) {
    if (r.stage === null) continue;
    const pending = (stmt(db, S.STAGE_PENDING).get(r.id, r.stage) as { pending: number }).pending;
    if (pending <= 0) continue;
    const running = r.running + (startedIn.get(r.id) ?? 0);
    const room = Math.min(max, pending, r.max_parallel === null ? max : r.max_parallel - running);
    if (room > 0) out.push({ batchId: r.id, stage: r.stage, room, servedAt: r.served_at });
  }
  return out;
}

// ---- Taskling's token grant -------------------------------------------------------------------------

/**
 * Grant a token of `queue` to an attempt, in the claim's transaction. Returns the token number, or
 * null when none can be granted (then the task must not start).
 */
function grantToken(db: Db, queue: string, grantee: { taskId: number; attempt: number; workerId: string }, now: number): number | null {
  // 1. write the queue row first: its lock serialises grants for this queue (on SQL Server for real)
  const q = stmt(db, S.LOCK_QUEUE).get(queue) as { concurrency_limit: number | null } | undefined;
  if (!q || q.concurrency_limit === null) return null;
  const limit = q.concurrency_limit;
  // 2. bring the tokens in line with the limit: create missing ones, drop free ones above it
  const have = (stmt(db, S.COUNT_TOKENS).get(queue, limit) as { n: number }).n;
  if (have < limit) {
    const add = stmt(db, S.ADD_TOKEN);
    for (let n = 1; n <= limit; n++) add.run(queue, n);
  }
  stmt(db, S.DROP_TOKENS_ABOVE_LIMIT).run(queue, limit, now);
  // 3. never more than the limit running, token or not (tasks claimed while the queue was unlimited hold none)
  const running = (stmt(db, S.RUNNING_LIVE).get(queue, now) as { n: number }).n;
  if (running >= limit) return null;
  // 4. the lowest token that is free, or whose grantee lost its task
  const tok = stmt(db, S.GRANTABLE_TOKEN).get(queue, limit, now) as { token_no: number } | undefined;
  if (!tok) return null;
  stmt(db, S.GRANT_TOKEN).run(grantee.taskId, grantee.attempt, grantee.workerId, now, queue, tok.token_no);
  return tok.token_no;
}

// ---- the start of an attempt ------------------------------------------------------------------------

function start(
  db: Db,
  c: Candidate,
  slot: WorkerSlot,
  attempt: number,
  tokenNo: number | null,
  backoffMs: number,
  leaseMs: number,
  tally: Tally,
  now: number,
): ClaimedTask {
  stmt(db, S.START_TASK).run(attempt, slot.workerId, tokenNo, now + leaseMs, now, c.id);
  stmt(db, S.LOG_ATTEMPT).run(c.id, attempt, c.queue, c.kind, c.command, slot.workerId, slot.session, tokenNo, c.batch_id, c.stage, now);
  tally.task(c, 'pending', 'running');
  tally.started(now, now - c.run_after);
  tally.historyStarted(now, c.queue, c.command, now - c.run_after);
  if (c.batch_id !== null && c.stage !== null) stageTimes(db, c.batch_id, c.stage, now, null);
  return claimedTask(c, slot, attempt, backoffMs, now);
}

/** A task claimed ahead by `claimer`: `claimed`, its lease and token, nothing logged, no attempt counted. */
function claimAhead(
  db: Db,
  c: Candidate,
  claimer: WorkerSlot,
  attempt: number,
  tokenNo: number | null,
  backoffMs: number,
  leaseMs: number,
  tally: Tally,
  now: number,
): ClaimedTask {
  stmt(db, S.CLAIM_AHEAD).run(claimer.workerId, tokenNo, now + leaseMs, c.id);
  tally.task(c, 'pending', 'claimed');
  const task = claimedTask(c, claimer, attempt, backoffMs, now);
  task.ahead = true;
  return task;
}

function claimedTask(c: Candidate, slot: WorkerSlot, attempt: number, backoffMs: number, now: number): ClaimedTask {
  return {
    id: c.id,
    token: c.token,
    queue: c.queue,
    kind: c.kind as TaskKind,
    command: c.command,
    payload: c.payload === null ? null : JSON.parse(c.payload),
    priority: c.priority,
    concurrencyKey: c.concurrency_key,
    attempt,
    maxAttempts: c.max_attempts,
    timeoutMs: c.timeout_ms,
    backoffMs,
    workerId: slot.workerId,
    session: slot.session,
    createdAt: new Date(c.created_at),
    runAfter: new Date(c.run_after),
    startedAt: new Date(now),
    // read for the whole claim at once (readParents), only when a claimed task has some
    parents: [],
    traceParent: c.trace_parent,
    traceState: c.trace_state,
    previousTrace: c.attempt_trace,
  };
}

function backoffOf(db: Db, queue: string): number {
  return (stmt(db, S.QUEUE_BACKOFF).get(queue) as { backoff_ms: number } | undefined)?.backoff_ms ?? 1000;
}
