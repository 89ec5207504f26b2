// GET /metrics, throttle: per queue with a rate limit, its window now (limit, period, starts in the window,
// full or not) and its ready tasks held by a full window; per queue with a per-key limit, the setting and its
// busiest key's running tasks. Keys are unbounded, so no series is labelled by a key: the busiest key stands
// for them (one series per queue).
import { Gauge, type Registry } from 'prom-client';
import type { ReadModel } from '../engine/ports';
import type { PendingBreakdown, QueueView } from '../engine/types';

/** Register the throttle gauges of one scrape in `registry`. */
export async function throttleMetrics(registry: Registry, reads: ReadModel, queues: QueueView[], breakdown: PendingBreakdown[]) {
  const registers = [registry];
  const gauge = (name: string, help: string) => new Gauge({ name, help, labelNames: ['queue'], registers });
  const limit = gauge('readpast_rate_limit', 'Attempt starts allowed per window of a rate-limited queue (per key when per_key is 1).');
  const period = gauge('readpast_rate_period_seconds', 'The window of a rate-limited queue, in seconds.');
  const perKey = gauge('readpast_rate_per_key', '1 when a rate-limited queue keeps a window per concurrency key.');
  const started = gauge(
    'readpast_rate_window_started',
    'Attempts started in the current window of a rate-limited queue (per-key rate: of its busiest key).',
  );
  const full = gauge(
    'readpast_rate_window_full',
    "1 when the window is full (per-key rate: its busiest key's): no start until a slot ages out.",
  );
  const waiting = gauge(
    'readpast_rate_limited_ready',
    'Ready tasks of a queue whose queue-wide rate window is full: they wait, with no attempt spent (per-key rates: absent).',
  );
  const perKeyLimit = gauge('readpast_per_key_limit', 'Running tasks allowed per concurrency key of a queue with a per-key limit.');
  const busiest = gauge('readpast_key_running_max', 'Running tasks of the busiest concurrency key of a queue with a per-key limit.');

  const ready = new Map(breakdown.map((b) => [b.queue, b.ready]));
  const keyed = queues.filter((q) => q.perKeyLimit !== null);
  const tops = await Promise.all(keyed.map((q) => reads.queueKeys(q.name, 1)));
  keyed.forEach((q, i) => {
    perKeyLimit.set({ queue: q.name }, q.perKeyLimit!);
    busiest.set({ queue: q.name }, tops[i]![0]?.running ?? 0);
  });
  for (const q of queues) {
    const r = q.rate;
    if (!r) continue;
    const labels = { queue: q.name };
    const isFull = r.started >= r.limit;
    limit.set(labels, r.limit);
    period.set(labels, r.periodSeconds);
    perKey.set(labels, r.perKey ? 1 : 0);
    started.set(labels, r.started);
    full.set(labels, isFull ? 1 : 0);
    if (!r.perKey) waiting.set(labels, isFull ? (ready.get(q.name) ?? 0) : 0);
  }
}
