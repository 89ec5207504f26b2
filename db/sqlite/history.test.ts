// History rollups against the raw events of a generated day: the tally writes per-minute rows at
// controlled times, housekeeping rolls them into quarter hours, and every read (minutes or rolled,
// whole, per queue, per command) matches the counts computed from the events; percentiles fall in the
// histogram bucket of the exact percentile.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HIST_BOUNDS_MS, histBucket, ROLL_MS, type HistoryQuery } from '../../lib/engine/history';
import { openDatabase, type Db, type Shared } from './connection';
import { history, historyTotals, rollHistory } from './history';
import { migrate } from './migrations';
import * as S from './sql/history';
import { Tally, type HistoryOutcome } from './tally';

interface Ev {
  queue: string;
  command: string;
  enq: number;
  start: number;
  end: number;
  outcome: HistoryOutcome;
}

/** A deterministic pseudo-random day of tasks. */
function generateDay(day0: number, n: number): Ev[] {
  let seed = 42;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const evs: Ev[] = [];
  for (let i = 0; i < n; i++) {
    const enq = day0 + Math.floor(rnd() * 24 * 3600_000);
    const start = enq + Math.floor(rnd() ** 3 * 20_000);
    const end = start + Math.floor(rnd() ** 2 * 8_000);
    const r = rnd();
    const outcome: HistoryOutcome = r < 0.8 ? 'succeeded' : r < 0.93 ? 'failed' : r < 0.98 ? 'dead' : 'cancelled';
    evs.push({ queue: `q${Math.floor(rnd() * 3)}`, command: `cmd.${Math.floor(rnd() * 5)}`, enq, start, end, outcome });
  }
  return evs;
}

function exactQuantile(values: number[], q: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.max(0, Math.ceil(q * s.length) - 1)]!;
}

describe('history rollups of a generated day', () => {
  let dir: string;
  let db: Db;
  let shared: Shared;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'readpast-history-'));
    db = openDatabase(join(dir, 'h.db'));
    await migrate(db);
    shared = { db } as unknown as Shared;
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('minutes and rolled quarters match the raw events', async () => {
    const day0 = Date.UTC(2026, 0, 5);
    const evs = generateDay(day0, 4000);
    // write as the store does: events in time order, a few per transaction
    const points: { at: number; apply: (t: Tally) => void }[] = [];
    for (const e of evs) {
      points.push({ at: e.enq, apply: (t) => t.historyEnqueued(e.enq, e.queue, e.command) });
      points.push({ at: e.start, apply: (t) => t.historyStarted(e.start, e.queue, e.command, e.start - e.enq) });
      points.push({ at: e.end, apply: (t) => t.historyEnded(e.end, e.queue, e.command, e.outcome, e.end - e.start) });
    }
    points.sort((a, b) => a.at - b.at);
    for (let i = 0; i < points.length; i += 7) {
      const tally = new Tally();
      for (const p of points.slice(i, i + 7)) p.apply(tally);
      db.transaction(() => tally.flush(db))();
    }
    const dayEnd = day0 + 26 * 3600_000;
    const q: HistoryQuery = { from: new Date(day0), to: new Date(dayEnd), bucketMs: ROLL_MS };
    const before = await history(shared, q);
    expect(rollHistory(db, dayEnd + 3600_000)).toBeGreaterThan(0);
    while (rollHistory(db, dayEnd + 3600_000) > 0);
    const after = await history(shared, q);
    // the rolled read equals the read over minutes
    expect(after.buckets).toEqual(before.buckets);

    const filters: { queue?: string; command?: string }[] = [{}, { queue: 'q1' }, { command: 'cmd.3' }, { queue: 'q2', command: 'cmd.0' }];
    for (const f of filters) {
      const v = await history(shared, { ...q, ...f });
      const mine = evs.filter((e) => (!f.queue || e.queue === f.queue) && (!f.command || e.command === f.command));
      for (const b of v.buckets) {
        const t0 = b.at.getTime();
        const inB = (t: number) => t >= t0 && t < t0 + ROLL_MS;
        const ended = mine.filter((e) => inB(e.end));
        const label = `${JSON.stringify(f)} ${b.at.toISOString()}`;
        const enq = mine.filter((e) => inB(e.enq)).length;
        const started = mine.filter((e) => inB(e.start));
        if (!enq && !started.length && !ended.length) {
          expect(b.succeeded, label).toBeNull();
          continue;
        }
        expect(b.enqueued, label).toBe(enq);
        expect(b.started, label).toBe(started.length);
        expect(b.succeeded, label).toBe(ended.filter((e) => e.outcome === 'succeeded').length);
        expect(b.failed, label).toBe(ended.filter((e) => e.outcome === 'failed' || e.outcome === 'dead').length);
        expect(b.dead, label).toBe(ended.filter((e) => e.outcome === 'dead').length);
        const durs = ended.filter((e) => e.outcome !== 'cancelled').map((e) => e.end - e.start);
        if (durs.length) {
          const exact = exactQuantile(durs, 0.95);
          const k = histBucket(exact);
          const lo = k === 0 ? 0 : HIST_BOUNDS_MS[k - 1]!;
          const hi = HIST_BOUNDS_MS[k] ?? Number.MAX_SAFE_INTEGER;
          expect(b.durationP95Ms, label).toBeGreaterThanOrEqual(lo);
          expect(b.durationP95Ms, label).toBeLessThanOrEqual(hi);
          expect(b.durationMaxMs, label).toBe(Math.max(...durs));
          expect(b.durationAvgMs, label).toBe(Math.round(durs.reduce((s, d) => s + d, 0) / durs.length));
        }
        if (started.length) {
          const lats = started.map((e) => e.start - e.enq);
          const k = histBucket(exactQuantile(lats, 0.95));
          expect(b.latencyP95Ms, label).toBeGreaterThanOrEqual(k === 0 ? 0 : HIST_BOUNDS_MS[k - 1]!);
          expect(b.latencyP95Ms, label).toBeLessThanOrEqual(HIST_BOUNDS_MS[k] ?? Number.MAX_SAFE_INTEGER);
          expect(b.latencyMaxMs, label).toBe(Math.max(...lats));
        }
      }
    }

    // per-minute reads of one hour match too
    const hour = { from: new Date(day0 + 5 * 3600_000), to: new Date(day0 + 6 * 3600_000), bucketMs: 60_000 };
    const mv = await history(shared, hour);
    expect(mv.buckets).toHaveLength(60);
    const inHour = (t: number) => t >= hour.from.getTime() && t < hour.to.getTime();
    expect(mv.buckets.reduce((s, b) => s + (b.succeeded ?? 0), 0)).toBe(
      evs.filter((e) => inHour(e.end) && e.outcome === 'succeeded').length,
    );

    // the totals: everything, per (queue, command), whether rolled or not
    const totals = await historyTotals(shared);
    expect(totals.commands.reduce((s, r) => s + r.enqueued, 0)).toBe(evs.length);
    expect(totals.commands.reduce((s, r) => s + r.dead, 0)).toBe(evs.filter((e) => e.outcome === 'dead').length);
    const q1c3 = totals.commands.find((r) => r.queue === 'q1' && r.command === 'cmd.3')!;
    expect(q1c3.succeeded).toBe(evs.filter((e) => e.queue === 'q1' && e.command === 'cmd.3' && e.outcome === 'succeeded').length);
    expect(before.queues).toEqual(['q0', 'q1', 'q2']);
    expect(after.commands).toEqual(['cmd.0', 'cmd.1', 'cmd.2', 'cmd.3', 'cmd.4']);
  });
});

describe('the /metrics totals', () => {
  let dir: string;
  let db: Db;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'readpast-totals-'));
    db = openDatabase(join(dir, 't.db'));
    await migrate(db);
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('read the kept totals and the quarter not rolled yet, never the history: exact, and the same without it', async () => {
    const shared = { db } as unknown as Shared;
    const day0 = Date.UTC(2026, 0, 5);
    const evs = generateDay(day0, 3000);
    const tally = new Tally();
    for (const e of evs) {
      tally.historyEnqueued(e.enq, e.queue, e.command);
      tally.historyStarted(e.start, e.queue, e.command, e.start - e.enq);
      tally.historyEnded(e.end, e.queue, e.command, e.outcome, e.end - e.start);
    }
    db.transaction(() => tally.flush(db))();
    // roll the first 20 hours: the rest stays in per-minute rows
    while (rollHistory(db, day0 + 20 * 3600_000) > 0);
    const rolled = (db.prepare(S.ROLLED_UNTIL).get() as { rolled_until: number }).rolled_until;
    expect(rolled).toBeGreaterThan(day0);
    expect((db.prepare('SELECT COUNT(*) AS n FROM HistoryMinutes WHERE t >= ?').get(rolled) as { n: number }).n).toBeGreaterThan(0);

    const totals = await historyTotals(shared);
    for (const c of totals.commands) {
      const mine = evs.filter((e) => e.queue === c.queue && e.command === c.command);
      expect(c.enqueued).toBe(mine.length);
      expect(c.succeeded).toBe(mine.filter((e) => e.outcome === 'succeeded').length);
      expect(c.dead).toBe(mine.filter((e) => e.outcome === 'dead').length);
    }
    expect(totals.commands.reduce((s, c) => s + c.started, 0)).toBe(evs.length);
    for (const q of totals.queues) {
      const mine = evs.filter((e) => e.queue === q.queue);
      expect(q.started).toBe(mine.length);
      expect(q.latencyBuckets.reduce((s, n) => s + n, 0)).toBe(mine.length);
      expect(q.latencySumMs).toBe(mine.reduce((s, e) => s + (e.start - e.enq), 0));
      const ended = mine.filter((e) => e.outcome !== 'cancelled');
      expect(q.durationBuckets.reduce((s, n) => s + n, 0)).toBe(q.durationCount);
      expect(q.durationSumMs).toBe(ended.reduce((s, e) => s + (e.end - e.start), 0));
    }
    expect(totals.queues.map((q) => q.queue).sort()).toEqual(['q0', 'q1', 'q2']);

    // what the statements read: the history tables only by the time of the quarter not rolled yet
    const plans = [
      [S.COMMAND_TOTALS, [rolled]],
      [S.QUEUE_TOTALS, []],
      [S.QUEUE_UNROLLED, [rolled]],
    ] as const;
    for (const [text, args] of plans) {
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${text}`).all(...args) as { detail: string }[]).map((p) => p.detail);
      expect(plan.some((d) => /HistoryTotals/.test(d)) || plan.some((d) => /HistoryMinutes/.test(d))).toBe(true);
      for (const d of plan.filter((d) => /HistoryMinutes|HistoryRollup/.test(d))) {
        expect(d).toMatch(/^SEARCH HistoryMinutes USING PRIMARY KEY \(t>\?\)$/);
      }
    }
    // and so the rolled history may go (as pruning does): the totals stay what they were
    db.exec(`DELETE FROM HistoryRollup; DELETE FROM HistoryMinutes WHERE t < ${rolled}`);
    expect(await historyTotals(shared)).toEqual(totals);
  });
});
