// Kept aggregates, so that polls never count over the whole tables: per-queue status counts and a
// per-second activity series. A write transaction collects its deltas here and flushes them once.
import type { Statement } from 'better-sqlite3';
import type { Db } from './connection';

type MetricField = 'enqueued' | 'started' | 'succeeded' | 'failed';
interface MetricDelta { enqueued: number; started: number; succeeded: number; failed: number; latencySum: number; latencyMax: number }

export class Tally {
  private counts = new Map<string, number>();
  private metrics = new Map<number, MetricDelta>();

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
    if (!m) this.metrics.set(sec, (m = { enqueued: 0, started: 0, succeeded: 0, failed: 0, latencySum: 0, latencyMax: 0 }));
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

  flush(db: Db): void {
    if (this.counts.size) {
      const up = stmt(db, `INSERT INTO QueueCounts (queue, status, n) VALUES (?, ?, ?)
        ON CONFLICT (queue, status) DO UPDATE SET n = n + excluded.n`);
      for (const [key, delta] of this.counts) {
        if (delta === 0) continue;
        const i = key.indexOf('\u0000');
        up.run(key.slice(0, i), key.slice(i + 1), delta);
      }
      this.counts.clear();
    }
    if (this.metrics.size) {
      const up = stmt(db, `INSERT INTO Metrics (sec, enqueued, started, succeeded, failed, latency_sum, latency_max)
        VALUES (?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (sec) DO UPDATE SET enqueued = enqueued + excluded.enqueued, started = started + excluded.started,
          succeeded = succeeded + excluded.succeeded, failed = failed + excluded.failed,
          latency_sum = latency_sum + excluded.latency_sum, latency_max = MAX(latency_max, excluded.latency_max)`);
      for (const [sec, m] of this.metrics) up.run(sec, m.enqueued, m.started, m.succeeded, m.failed, m.latencySum, m.latencyMax);
      this.metrics.clear();
    }
  }
}

const cache = new WeakMap<Db, Map<string, Statement<unknown[], unknown>>>();

/** A prepared statement cached per connection, keyed by its text. */
export function stmt(db: Db, sql: string): Statement<unknown[], unknown> {
  let m = cache.get(db);
  if (!m) cache.set(db, (m = new Map()));
  let s = m.get(sql);
  if (!s) m.set(sql, (s = db.prepare<unknown[], unknown>(sql)));
  return s;
}
