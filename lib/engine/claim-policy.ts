// The claim policy as a pure model: given a snapshot of tasks, queues and batches, which tasks may a
// single-slot claim return next? The rules themselves are listed once, by name, in claim-rules.ts (each
// dialect's claim SQL is composed of one fragment per rule: db/<dialect>/sql/claim.ts); this module
// applies that list to a snapshot, for tests to hold every store to (db/contract/claim-model.ts). No SQL,
// no I/O, no clock: `now` is part of the snapshot.
//
// A pending task is *eligible* when every rule lets it through. Eligible tasks form lanes:
// the unbatched tasks with no concurrency key are one lane, the unbatched tasks of each (queue, key)
// another (keys take turns), each batch another. A lane's head is its best task (higher
// priority first, then the older, i.e. lower id). A claim takes the head of a lane whose head has
// the top priority among all heads; which of several such lanes wins (the least recently served)
// is the store's to track, so the model answers with the set of those heads.
import { firstFailing, type RuleContext, type Verdict } from './claim-rules';
import type { BatchStatus, OnFailure, RateLimit, TaskStatus } from './types';

export { LIVE_BATCH, type Verdict } from './claim-rules';

export interface PolicyTask {
  id: number;
  queue: string;
  status: TaskStatus;
  priority: number;
  runAfter: Date;
  batchId: number | null;
  /** 0-based stage within the batch; null for unbatched tasks */
  stage: number | null;
  /** for running tasks: until when the lease holds (null otherwise) */
  leaseUntil: Date | null;
  /** null or absent: no concurrency key */
  concurrencyKey?: string | null;
}

export interface PolicyQueue {
  name: string;
  /** null = unlimited */
  limit: number | null;
  paused: boolean;
  /** null or absent: no per-key cap */
  perKeyLimit?: number | null;
  /** null or absent: no rate limit */
  rateLimit?: RateLimit | null;
}

export interface PolicyBatch {
  id: number;
  status: BatchStatus;
  maxParallel: number | null;
  onFailure: OnFailure;
}

export interface ClaimSnapshot {
  tasks: readonly PolicyTask[];
  /** queues absent here are unlimited and not paused */
  queues: readonly PolicyQueue[];
  batches: readonly PolicyBatch[];
  /** the claimer's queue filter; null or empty = every queue */
  only: readonly string[] | null;
  now: Date;
  /** attempt starts (a rate limit counts those in its window); absent: none */
  starts?: readonly { queue: string; key: string | null; at: Date }[];
}

/** Started or claimed ahead: what holds a place under a limit (a claimed task holds what a running one holds). */
const holds = (status: string) => status === 'running' || status === 'claimed';

/** the map key of a (queue, concurrency key) pair */
const keyId = (queue: string, key: string | null) => `${queue}\u0000${key ?? ''}`;

/** Running (and claimed) tasks with a live lease per (queue, concurrency key): what a perKeyLimit counts. */
function heldKeys(s: ClaimSnapshot): Map<string, number> {
  const held = new Map<string, number>();
  const now = s.now.getTime();
  for (const t of s.tasks) {
    if (t.concurrencyKey == null || !holds(t.status) || t.leaseUntil === null || t.leaseUntil.getTime() < now) continue;
    const id = keyId(t.queue, t.concurrencyKey);
    held.set(id, (held.get(id) ?? 0) + 1);
  }
  return held;
}

/**
 * A rate window as the claim counts it: the starts of `queue` (of `key` when the rate is per key) in the last
 * `periodSeconds` — after now − period, up to now — and when the next start is allowed if the window is full.
 */
export function rateWindowOf(
  starts: readonly { queue: string; key: string | null; at: Date }[],
  queue: string,
  key: string | null,
  rate: RateLimit,
  now: Date,
): { started: number; nextAt: Date | null } {
  const from = now.getTime() - rate.periodSeconds * 1000;
  const inWindow = starts
    .filter(
      (x) => x.queue === queue && (!rate.perKey || (x.key ?? null) === key) && x.at.getTime() > from && x.at.getTime() <= now.getTime(),
    )
    .map((x) => x.at.getTime())
    .sort((a, b) => a - b);
  const started = inWindow.length;
  // full: the next start waits until enough of the oldest starts leave the window
  const nextAt = started >= rate.limit ? new Date(inWindow[started - rate.limit]! + rate.periodSeconds * 1000) : null;
  return { started, nextAt };
}

const better = (a: PolicyTask, b: PolicyTask) => a.priority > b.priority || (a.priority === b.priority && a.id < b.id);

interface BatchState {
  batch: PolicyBatch | undefined;
  /** lowest stage with a pending or running task: the only stage that may start tasks */
  activeStage: number | null;
  /** lowest stage with a dead task */
  failedStage: number | null;
  /** running tasks of the batch, live lease or not (an expired lease still runs until it is rescued) */
  running: number;
}

function batchStates(s: ClaimSnapshot): Map<number, BatchState> {
  const out = new Map<number, BatchState>();
  const byId = new Map(s.batches.map((b) => [b.id, b]));
  const min = (a: number | null, b: number) => (a === null ? b : Math.min(a, b));
  for (const t of s.tasks) {
    if (t.batchId === null) continue;
    let st = out.get(t.batchId);
    if (!st) out.set(t.batchId, (st = { batch: byId.get(t.batchId), activeStage: null, failedStage: null, running: 0 }));
    const stage = t.stage ?? 0;
    // a batch's task is waiting only while its durable handler is suspended: unfinished, its stage still active
    if (t.status === 'pending' || holds(t.status) || t.status === 'waiting') st.activeStage = min(st.activeStage, stage);
    if (t.status === 'dead') st.failedStage = min(st.failedStage, stage);
    if (holds(t.status)) st.running++;
  }
  return out;
}

/**
 * Running tasks holding a token of each queue: a running task holds one while its lease is live
 * (`leaseUntil >= now`); an expired lease's token is free to grant again. Counted over every running
 * task of the queue, so a limit set or lowered while tasks run grants nothing until running < limit.
 */
function heldTokens(s: ClaimSnapshot): Map<string, number> {
  const held = new Map<string, number>();
  const now = s.now.getTime();
  for (const t of s.tasks) {
    if (holds(t.status) && t.leaseUntil !== null && t.leaseUntil.getTime() >= now) held.set(t.queue, (held.get(t.queue) ?? 0) + 1);
  }
  return held;
}

/**
 * The verdict on every task of the snapshot: the first rule of CLAIM_RULES (claim-rules.ts) that stops it.
 * A queue absent from the snapshot is unlimited and not paused; a queue's held tokens are its running
 * tasks with a live lease (heldTokens); a batch's stages are read off its tasks (batchStates).
 */
export function verdicts(s: ClaimSnapshot): Map<number, Verdict> {
  const only = s.only?.length ? new Set(s.only) : null;
  const queues = new Map(s.queues.map((q) => [q.name, q]));
  const held = heldTokens(s);
  const keys = heldKeys(s);
  const batches = batchStates(s);
  const out = new Map<number, Verdict>();
  for (const t of s.tasks) {
    const q = queues.get(t.queue);
    const b = t.batchId === null ? undefined : batches.get(t.batchId);
    const c: RuleContext = {
      now: s.now,
      task: t,
      queue: { paused: q?.paused ?? false, limit: q?.limit ?? null, held: held.get(t.queue) ?? 0 },
      only,
      batch: b?.batch
        ? {
            status: b.batch.status,
            onFailure: b.batch.onFailure,
            maxParallel: b.batch.maxParallel,
            activeStage: b.activeStage,
            failedStage: b.failedStage,
            running: b.running,
          }
        : null,
      key:
        t.concurrencyKey != null && q?.perKeyLimit != null
          ? { name: t.concurrencyKey, limit: q.perKeyLimit, held: keys.get(keyId(t.queue, t.concurrencyKey)) ?? 0 }
          : null,
      rate: q?.rateLimit
        ? { ...q.rateLimit, ...rateWindowOf(s.starts ?? [], t.queue, t.concurrencyKey ?? null, q.rateLimit, s.now) }
        : null,
    };
    out.set(t.id, firstFailing(c)?.verdict ?? 'eligible');
  }
  return out;
}

/**
 * Eligible tasks by lane: `null` = the unbatched tasks with no concurrency key, a number = that batch, a
 * string = the unbatched tasks of one (queue, concurrency key).
 */
export function lanes(s: ClaimSnapshot): Map<number | string | null, PolicyTask[]> {
  const v = verdicts(s);
  const out = new Map<number | string | null, PolicyTask[]>();
  for (const t of s.tasks) {
    if (v.get(t.id) !== 'eligible') continue;
    const id = t.batchId ?? (t.concurrencyKey == null ? null : keyId(t.queue, t.concurrencyKey));
    const lane = out.get(id) ?? [];
    lane.push(t);
    out.set(id, lane);
  }
  return out;
}

/**
 * The task ids a single-slot claim may return next: the head of each lane (priority, then id),
 * kept where that head's priority is the highest of all heads. Ties between lanes go to the least
 * recently served lane, which the snapshot does not hold — any of these heads is a correct choice.
 */
export function allowedClaims(s: ClaimSnapshot): Set<number> {
  const heads: PolicyTask[] = [];
  for (const lane of lanes(s).values()) heads.push(lane.reduce((a, b) => (better(b, a) ? b : a)));
  const top = Math.max(...heads.map((h) => h.priority));
  return new Set(heads.filter((h) => h.priority === top).map((h) => h.id));
}

/** Whether a claim that returns nothing is correct: no task is eligible. */
export function nothingClaimable(s: ClaimSnapshot): boolean {
  return allowedClaims(s).size === 0;
}
