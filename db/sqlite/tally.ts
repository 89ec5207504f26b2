// Kept aggregates, so that polls never count over the whole tables: per-queue status counts and a
// per-second activity series. A write transaction collects its deltas here and flushes them once.
import type Database from 'better-sqlite3';
import { stmt } from './stmt';
import { ADD_ENQUEUED_METRIC, ADD_METRICS, ADD_QUEUE_COUNT, ADD_STAGE_COUNTS } from './sql/tally';
import { emptySums, histBucket, historyCommand, rowOfSums, type HistorySums } from '../../lib/engine/history';
import { ADD_ENQUEUED_HISTORY, ADD_HISTORY } from './sql/history';

type MetricField = 'enqueued' | 'started' | 'succeeded' | 'failed' | 'dead';
/** How an attempt ended, as the history counts it. */
export type HistoryOutcome = 'succeeded' | 'failed' | 'dead' | 'cancelled';

/** The columns of a task that its kept aggregates are keyed by. */
export interface TaskKey {
  queue: string;
  batch_id: number | null;
  stage: number | null;
}

const STAGE_STATUSES = new Set(['pending', 'running', 'succeeded', 'dead', 'cancelled']);
/**
 * A batch stage's kept counts have no column of their own for a task claimed ahead: it holds a place of the batch's
 * maxParallel and keeps its stage active like a running one, so it is counted as running there.
 */
const stageStatus = (s: string) => (s === 'claimed' ? 'running' : s);
interface MetricDelta {
  enqueued: number;
  started: number;
  succeeded: number;
  failed: number;
  dead: number;
  latencySum: number;
  latencyMax: number;
}

export class Tally {
  private counts = new Map<string, number>();
  private metrics = new Map<number, MetricDelta>();
  private stages = new Map<string, Record<string, number>>();
  /** per-minute history rollups, keyed minute \0 queue \0 command */
  private history = new Map<string, HistorySums>();
  /** per-minute created tasks, keyed as `history`: most enqueues add nothing else (no sums, no histograms to build) */
  private created = new Map<string, number>();
  /** batches whose counts changed in this transaction (checked for completion after the flush) */
  readonly batches = new Set<number>();

  /**
   * A task moved from one status to another (`null` from = created, `null` to = deleted): keeps the
   * per-queue counts and, for a batch's task, the per-stage counts.
   */
  task(t: TaskKey, from: string | null, to: string | null): void {
    if (from) this.count(t.queue, from, -1);
    if (to) this.count(t.queue, to, 1);
    if (t.batch_id === null || t.stage === null) return;
    if (from) from = stageStatus(from);
    if (to) to = stageStatus(to);
    if (from === to) return;
    const key = t.batch_id + ':' + t.stage;
    let d = this.stages.get(key);
    if (!d) this.stages.set(key, (d = {}));
    if (from === null) d.total = (d.total ?? 0) + 1;
    if (to === null) d.total = (d.total ?? 0) - 1;
    // a batch's task is `waiting` only while its durable handler is suspended: unfinished, not running — pending
    const f = from === 'waiting' ? 'pending' : from;
    const n = to === 'waiting' ? 'pending' : to;
    if (f && STAGE_STATUSES.has(f)) d[f] = (d[f] ?? 0) - 1;
    if (n && STAGE_STATUSES.has(n)) d[n] = (d[n] ?? 0) + 1;
    this.batches.add(t.batch_id);
  }

  /** status count of `queue` changes by `delta` */
  count(queue: string, status: string, delta: number): void {
    const key = queue + '\u0000' + status;
    this.counts.set(key, (this.counts.get(key) ?? 0) + delta);
  }

  move(queue: string, from: string, to: string, n = 1): void {
    this.count(queue, from, -n);
    this.count(queue, to, n);
  }

  private bucket(atMs: number): MetricDelta {
    const sec = Math.floor(atMs / 1000);
    let m = this.metrics.get(sec);
    if (!m) this.metrics.set(sec, (m = { enqueued: 0, started: 0, succeeded: 0, failed: 0, dead: 0, latencySum: 0, latencyMax: 0 }));
    return m;
  }

  metric(atMs: number, field: MetricField, n = 1): void {
    this.bucket(atMs)[field] += n;
  }

  started(atMs: number, latencyMs: number): void {
    const m = this.bucket(atMs);
    m.started++;
    const l = Math.max(0, Math.round(latencyMs));
    m.latencySum += l;
    if (l > m.latencyMax) m.latencyMax = l;
  }

  private minute(atMs: number, queue: string, command: string): HistorySums {
    const key = minuteKey(atMs, queue, command);
    let h = this.history.get(key);
    if (!h) this.history.set(key, (h = emptySums()));
    return h;
  }

  /** History: a task of (queue, command) was created. */
  historyEnqueued(atMs: number, queue: string, command: string, n = 1): void {
    const key = minuteKey(atMs, queue, command);
    this.created.set(key, (this.created.get(key) ?? 0) + n);
  }

  /** History: an attempt started, `latencyMs` after its task became due. */
  historyStarted(atMs: number, queue: string, command: string, latencyMs: number): void {
    const h = this.minute(atMs, queue, command);
    const l = Math.max(0, Math.round(latencyMs));
    h.started++;
    h.latSum += l;
    if (l > h.latMax) h.latMax = l;
    h.lat[histBucket(l)]!++;
  }

  /**
   * History: an attempt ended after `durationMs` (null: unknown). `dead` counts as a failed attempt too, and
   * as a dead task in the per-second series.
   */
  historyEnded(atMs: number, queue: string, command: string, outcome: HistoryOutcome, durationMs: number | null): void {
    const h = this.minute(atMs, queue, command);
    if (outcome === 'succeeded') h.succeeded++;
    else if (outcome !== 'cancelled') h.failed++;
    if (outcome === 'dead') {
      h.dead++;
      this.bucket(atMs).dead++;
    }
    if (durationMs === null || outcome === 'cancelled') return;
    const d = Math.max(0, Math.round(durationMs));
    h.durN++;
    h.durSum += d;
    if (d > h.durMax) h.durMax = d;
    h.dur[histBucket(d)]!++;
  }

  flush(db: Database.Database): void {
    if (this.stages.size) {
      const up = stmt(db, ADD_STAGE_COUNTS);
      for (const [key, d] of this.stages) {
        const [b, st] = key.split(':').map(Number);
        up.run(b, st, d.total ?? 0, d.pending ?? 0, d.running ?? 0, d.succeeded ?? 0, d.dead ?? 0, d.cancelled ?? 0);
      }
      this.stages.clear();
    }
    if (this.counts.size) {
      const up = stmt(db, ADD_QUEUE_COUNT);
      for (const [key, delta] of this.counts) {
        if (delta === 0) continue;
        const i = key.indexOf('\u0000');
        up.run(key.slice(0, i), key.slice(i + 1), delta);
      }
      this.counts.clear();
    }
    // a second or a minute that only counted created tasks (every enqueue's) is added with the narrow statement
    // of that one column: it binds and updates one counter instead of every column of the row
    if (this.metrics.size) {
      for (const [sec, m] of this.metrics) {
        if (m.started === 0 && m.dead === 0 && m.succeeded === 0 && m.failed === 0) stmt(db, ADD_ENQUEUED_METRIC).run(sec, m.enqueued);
        else stmt(db, ADD_METRICS).run(sec, m.enqueued, m.started, m.succeeded, m.failed, m.latencySum, m.latencyMax, m.dead);
      }
      this.metrics.clear();
    }
    // a minute that only counted created tasks is added with the narrow statement; else with the rest of its sums
    if (this.created.size) {
      for (const [key, n] of this.created) {
        const h = this.history.get(key);
        if (h) h.enqueued += n;
        else {
          const [t, queue, command] = key.split('\u0000') as [string, string, string];
          stmt(db, ADD_ENQUEUED_HISTORY).run(Number(t), queue, command, n);
        }
      }
      this.created.clear();
    }
    if (this.history.size) {
      for (const [key, h] of this.history) {
        const [t, queue, command] = key.split('\u0000') as [string, string, string];
        if (enqueuedOnly(h)) stmt(db, ADD_ENQUEUED_HISTORY).run(Number(t), queue, command, h.enqueued);
        else stmt(db, ADD_HISTORY).run(Number(t), queue, command, ...rowOfSums(h));
      }
      this.history.clear();
    }
  }
}

/** The history's key of a minute, queue and command. */
const minuteKey = (atMs: number, queue: string, command: string) =>
  Math.floor(atMs / 60_000) * 60_000 + '\u0000' + queue + '\u0000' + historyCommand(command);

/** Sums of a minute that counted nothing but created tasks. */
const enqueuedOnly = (h: HistorySums) => h.started === 0 && h.succeeded === 0 && h.failed === 0 && h.dead === 0 && h.durN === 0;
