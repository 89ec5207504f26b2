// The claim policy model, rule by rule.
import { describe, expect, it } from 'vitest';
import {
  allowedClaims,
  lanes,
  nothingClaimable,
  verdicts,
  type ClaimSnapshot,
  type PolicyBatch,
  type PolicyQueue,
  type PolicyTask,
} from './claim-policy';

const NOW = new Date('2024-06-01T12:00:00Z');
const at = (ms: number) => new Date(NOW.getTime() + ms);

let nextId = 1;
function task(over: Partial<PolicyTask> = {}): PolicyTask {
  return {
    id: nextId++,
    queue: 'default',
    status: 'pending',
    priority: 0,
    runAfter: at(-1000),
    batchId: null,
    stage: null,
    leaseUntil: null,
    ...over,
  };
}
const running = (over: Partial<PolicyTask> = {}) => task({ status: 'running', leaseUntil: at(60_000), ...over });
const batch = (id: number, over: Partial<PolicyBatch> = {}): PolicyBatch => ({
  id,
  status: 'open',
  maxParallel: null,
  onFailure: 'continue',
  ...over,
});

function snap(tasks: PolicyTask[], more: { queues?: PolicyQueue[]; batches?: PolicyBatch[]; only?: string[] | null } = {}): ClaimSnapshot {
  return { tasks, queues: more.queues ?? [], batches: more.batches ?? [], only: more.only ?? null, now: NOW };
}

const allowed = (s: ClaimSnapshot) => [...allowedClaims(s)].sort((a, b) => a - b);

describe('claim policy', () => {
  it('claims nothing from nothing', () => {
    expect(allowed(snap([]))).toEqual([]);
    expect(nothingClaimable(snap([]))).toBe(true);
  });

  it('takes pending tasks only', () => {
    const ts = [running(), task({ status: 'succeeded' }), task({ status: 'dead' }), task({ status: 'cancelled' })];
    expect(nothingClaimable(snap(ts))).toBe(true);
    const p = task();
    expect(allowed(snap([...ts, p]))).toEqual([p.id]);
  });

  it('takes due tasks only (runAfter <= now, the boundary included)', () => {
    const later = task({ runAfter: at(1), priority: 9 });
    const exact = task({ runAfter: at(0) });
    expect(verdicts(snap([later, exact])).get(later.id)).toBe('not_due');
    expect(allowed(snap([later, exact]))).toEqual([exact.id]);
  });

  it('within a lane: higher priority first, then the older (lower id)', () => {
    const a = task({ priority: 1 });
    const b = task({ priority: 5 });
    const c = task({ priority: 5 });
    expect(allowed(snap([a, c, b]))).toEqual([b.id]);
    expect(allowed(snap([a]))).toEqual([a.id]);
  });

  it("honours the claimer's queue filter (empty = every queue)", () => {
    const a = task({ queue: 'a', priority: 3 });
    const b = task({ queue: 'b' });
    expect(allowed(snap([a, b], { only: ['b'] }))).toEqual([b.id]);
    expect(allowed(snap([a, b], { only: [] }))).toEqual([a.id]);
    expect(nothingClaimable(snap([a, b], { only: ['c'] }))).toBe(true);
  });

  it('skips a paused queue without blocking others', () => {
    const a = task({ queue: 'a', priority: 9 });
    const b = task({ queue: 'b' });
    const s = snap([a, b], { queues: [{ name: 'a', limit: null, paused: true }] });
    expect(verdicts(s).get(a.id)).toBe('paused');
    expect(allowed(s)).toEqual([b.id]);
  });

  it('grants a limited queue while running tasks with live leases are below the limit', () => {
    const q = (limit: number | null): PolicyQueue => ({ name: 'lim', limit, paused: false });
    const r1 = running({ queue: 'lim' });
    const p = task({ queue: 'lim', priority: 9 });
    const other = task({ queue: 'free' });
    expect(allowed(snap([r1, p, other], { queues: [q(2)] }))).toEqual([p.id]);
    const s = snap([r1, p, other], { queues: [q(1)] });
    expect(verdicts(s).get(p.id)).toBe('no_token');
    expect(allowed(s)).toEqual([other.id]);
    expect(allowed(snap([r1, p], { queues: [q(null)] }))).toEqual([p.id]);
  });

  it('a lowered limit grants nothing until running < limit', () => {
    const rs = [running({ queue: 'lim' }), running({ queue: 'lim' }), running({ queue: 'lim' })];
    const p = task({ queue: 'lim' });
    const queues = [{ name: 'lim', limit: 2, paused: false }];
    expect(nothingClaimable(snap([...rs, p], { queues }))).toBe(true);
    expect(nothingClaimable(snap([...rs.slice(1), p], { queues }))).toBe(true);
    expect(allowed(snap([rs[2]!, p], { queues }))).toEqual([p.id]);
  });

  it("an expired lease's token may be granted again (the boundary still holds it)", () => {
    const queues = [{ name: 'one', limit: 1, paused: false }];
    const p = task({ queue: 'one' });
    expect(allowed(snap([running({ queue: 'one', leaseUntil: at(-1) }), p], { queues }))).toEqual([p.id]);
    expect(nothingClaimable(snap([running({ queue: 'one', leaseUntil: at(0) }), p], { queues }))).toBe(true);
  });

  it('starts stage k only when every task of earlier stages of that batch is terminal', () => {
    const b = batch(1);
    const s0 = task({ batchId: 1, stage: 0, status: 'succeeded' });
    const s1a = running({ batchId: 1, stage: 1 });
    const s1b = task({ batchId: 1, stage: 1, runAfter: at(5000) });
    const s2 = task({ batchId: 1, stage: 2, priority: 9 });
    expect(verdicts(snap([s0, s1a, s1b, s2], { batches: [b] })).get(s2.id)).toBe('stage_waits');
    expect(nothingClaimable(snap([s0, s1a, s1b, s2], { batches: [b] }))).toBe(true);
    // a not-yet-due task of an earlier stage still holds later stages back
    expect(nothingClaimable(snap([s0, s1b, s2], { batches: [b] }))).toBe(true);
    // dead and cancelled are terminal (onFailure continue)
    const done = [s0, { ...s1a, status: 'dead' as const, leaseUntil: null }, { ...s1b, status: 'cancelled' as const }];
    expect(allowed(snap([...done, s2], { batches: [b] }))).toEqual([s2.id]);
  });

  it('an earlier stage waiting in a paused queue or outside the filter still holds later stages back', () => {
    const s0 = task({ batchId: 1, stage: 0, queue: 'p' });
    const s1 = task({ batchId: 1, stage: 1, queue: 'ok' });
    expect(nothingClaimable(snap([s0, s1], { batches: [batch(1)], queues: [{ name: 'p', limit: null, paused: true }] }))).toBe(true);
    expect(nothingClaimable(snap([s0, s1], { batches: [batch(1)], only: ['ok'] }))).toBe(true);
  });

  it('a batch with onFailure abort starts no stage after one with a dead task', () => {
    const ts = [task({ batchId: 1, stage: 0, status: 'dead' }), task({ batchId: 1, stage: 1 })];
    const s = snap(ts, { batches: [batch(1, { onFailure: 'abort', status: 'aborted' })] });
    expect(verdicts(s).get(ts[1]!.id)).toBe('batch_aborted');
    expect(nothingClaimable(s)).toBe(true);
    // the failed stage itself may still run its pending tasks (e.g. one retried by an operator)
    const retried = task({ batchId: 1, stage: 0 });
    expect(allowed(snap([...ts, retried], { batches: [batch(1, { onFailure: 'abort', status: 'aborted' })] }))).toEqual([retried.id]);
  });

  it('holds the batch cap: running tasks (lease live or not) below maxParallel', () => {
    const b = batch(1, { maxParallel: 2 });
    const r = [running({ batchId: 1, stage: 0 }), running({ batchId: 1, stage: 0, leaseUntil: at(-10_000) })];
    const p = task({ batchId: 1, stage: 0 });
    expect(verdicts(snap([...r, p], { batches: [b] })).get(p.id)).toBe('batch_full');
    expect(allowed(snap([r[0]!, p], { batches: [b] }))).toEqual([p.id]);
  });

  it('starts nothing of a cancelled or completed batch, or of a batch it does not know', () => {
    for (const status of ['cancelled', 'completed'] as const) {
      const t = task({ batchId: 1, stage: 0 });
      expect(verdicts(snap([t], { batches: [batch(1, { status })] })).get(t.id)).toBe('batch_closed');
    }
    for (const status of ['open', 'released', 'aborted'] as const) {
      const t = task({ batchId: 1, stage: 0 });
      expect(allowed(snap([t], { batches: [batch(1, { status })] }))).toEqual([t.id]);
    }
    const orphan = task({ batchId: 7, stage: 0 });
    expect(verdicts(snap([orphan])).get(orphan.id)).toBe('no_batch');
  });

  it('lanes: unbatched tasks are one lane, each batch another', () => {
    const u = [task(), task()];
    const b1 = [task({ batchId: 1, stage: 0 }), task({ batchId: 1, stage: 1 })];
    const b2 = [task({ batchId: 2, stage: 3 })];
    const l = lanes(snap([...u, ...b1, ...b2], { batches: [batch(1), batch(2)] }));
    expect([...l.keys()].sort()).toEqual([1, 2, null]);
    expect(l.get(null)!.map((t) => t.id)).toEqual(u.map((t) => t.id));
    expect(l.get(1)!.map((t) => t.id)).toEqual([b1[0]!.id]);
  });

  it('merges lanes by priority; heads that tie are all allowed (the store breaks the tie by service)', () => {
    const u = task({ priority: 1 });
    const u2 = task({ priority: 1 });
    const a = task({ batchId: 1, stage: 0, priority: 1 });
    const b = task({ batchId: 2, stage: 0, priority: 0 });
    const batches = [batch(1), batch(2)];
    expect(allowed(snap([u, u2, a, b], { batches }))).toEqual([u.id, a.id]);
    const hi = task({ batchId: 2, stage: 0, priority: 4 });
    expect(allowed(snap([u, u2, a, b, hi], { batches }))).toEqual([hi.id]);
  });

  it('a lane whose best task is blocked offers its next eligible one', () => {
    const queues = [{ name: 'full', limit: 1, paused: false }];
    const r = running({ queue: 'full' });
    const top = task({ batchId: 1, stage: 0, queue: 'full', priority: 9 });
    const next = task({ batchId: 1, stage: 0, priority: 2 });
    const u = task({ priority: 1 });
    expect(allowed(snap([r, top, next, u], { queues, batches: [batch(1)] }))).toEqual([next.id]);
  });
});

describe('claim policy: concurrency keys and rate limits', () => {
  const q = (over: Partial<PolicyQueue> = {}): PolicyQueue => ({ name: 'default', limit: null, paused: false, ...over });

  it('a key at its perKeyLimit waits (key_full); other keys and unkeyed tasks go on', () => {
    const r = running({ concurrencyKey: 'acme' });
    const a = task({ concurrencyKey: 'acme' });
    const b = task({ concurrencyKey: 'globex' });
    const u = task();
    const v = verdicts(snap([r, a, b, u], { queues: [q({ perKeyLimit: 1 })] }));
    expect(v.get(a.id)).toBe('key_full');
    expect(v.get(b.id)).toBe('eligible');
    expect(v.get(u.id)).toBe('eligible');
    // a lapsed lease holds no slot of its key
    const lapsed = running({ concurrencyKey: 'acme', leaseUntil: at(-1) });
    expect(verdicts(snap([lapsed, a], { queues: [q({ perKeyLimit: 1 })] })).get(a.id)).toBe('eligible');
    // keys are binary-compared: 'ACME' is another key
    const upper = task({ concurrencyKey: 'ACME' });
    expect(verdicts(snap([r, upper], { queues: [q({ perKeyLimit: 1 })] })).get(upper.id)).toBe('eligible');
  });

  it('each key of a queue is a lane: heads of every key are allowed, not only the oldest', () => {
    const a1 = task({ concurrencyKey: 'a' });
    const a2 = task({ concurrencyKey: 'a' });
    const b1 = task({ concurrencyKey: 'b' });
    const l = lanes(snap([a1, a2, b1]));
    expect(l.size).toBe(2);
    expect(allowed(snap([a1, a2, b1]))).toEqual([a1.id, b1.id]);
  });

  it('a full rate window stops the queue; a per-key window stops only its key', () => {
    const rate = { limit: 2, periodSeconds: 10, perKey: false };
    const starts = [
      { queue: 'default', key: 'a', at: at(-9_000) },
      { queue: 'default', key: 'a', at: at(-1_000) },
      { queue: 'default', key: 'b', at: at(-11_000) },
    ];
    const a = task({ concurrencyKey: 'a' });
    const b = task({ concurrencyKey: 'b' });
    const full = { ...snap([a, b], { queues: [q({ rateLimit: rate })] }), starts };
    expect(verdicts(full).get(a.id)).toBe('rate_limited');
    expect(verdicts(full).get(b.id)).toBe('rate_limited');
    const perKey = { ...snap([a, b], { queues: [q({ rateLimit: { ...rate, perKey: true } })] }), starts };
    expect(verdicts(perKey).get(a.id)).toBe('rate_limited');
    expect(verdicts(perKey).get(b.id)).toBe('eligible');
    // a start leaving the window frees a slot
    const later = { ...full, now: at(2_000) };
    expect(verdicts(later).get(a.id)).toBe('eligible');
  });
});
