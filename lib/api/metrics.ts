// GET /metrics: the Prometheus text exposition, built per scrape in a Registry of its own from the store.
// Gauges are read now (kept counts, queues, workers, the pending breakdown). Counters and histograms come
// from the cumulative history totals (HistoryTotals plus the minutes not rolled yet: counts per queue and
// command, histograms per queue), which only grow —
// so they are monotonic across scrapes, processes and restarts, as Prometheus counters must be. Label
// sets are bounded: queue, command, state, le; never a task, never a concurrency key (metrics-throttle.ts).
import { Counter, Gauge, Registry } from 'prom-client';
import { HIST_BOUNDS_MS, type CommandTotals, type HistoryTotals, type QueueHistogramTotals } from '../engine/history';
import type { ReadModel } from '../engine/ports';
import { TASK_STATUSES } from '../engine/types';
import { throttleMetrics } from './metrics-throttle';

/** The text's content type (Prometheus 0.0.4). */
export const PROMETHEUS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

interface Sample {
  metricName: string;
  labels: Record<string, string>;
  value: number;
}

/** A histogram whose buckets are already counted (prom-client's Histogram only observes). */
function countedHistogram(name: string, help: string, samples: () => Sample[]) {
  return {
    name,
    help,
    type: 'histogram',
    aggregator: 'sum',
    get: async () => ({ name, help, type: 'histogram', aggregator: 'sum', values: samples() }),
  };
}

function histogramSamples(name: string, perQueue: Map<string, { buckets: number[]; sumMs: number; count: number }>): Sample[] {
  const out: Sample[] = [];
  for (const [queue, h] of [...perQueue.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    let cumulative = 0;
    HIST_BOUNDS_MS.forEach((bound, i) => {
      cumulative += h.buckets[i] ?? 0;
      out.push({ metricName: `${name}_bucket`, labels: { queue, le: String(bound / 1000) }, value: cumulative });
    });
    out.push({ metricName: `${name}_bucket`, labels: { queue, le: '+Inf' }, value: h.count });
    out.push({ metricName: `${name}_sum`, labels: { queue }, value: h.sumMs / 1000 });
    out.push({ metricName: `${name}_count`, labels: { queue }, value: h.count });
  }
  return out;
}

function histograms(totals: HistoryTotals, pick: (q: QueueHistogramTotals) => { buckets: number[]; sumMs: number; count: number }) {
  return new Map(totals.queues.map((q) => [q.queue, pick(q)]));
}

/** How far back readpast_attempts_abandoned_last_hour counts. */
export const ABANDONED_WINDOW_MS = 3_600_000;

/** The exposition text of one scrape. */
export async function prometheusText(reads: ReadModel, now = Date.now()): Promise<string> {
  const [counts, queues, workers, breakdown, totals, clock, suspended] = await Promise.all([
    reads.countsByQueue(),
    reads.listQueues(),
    reads.listWorkers(),
    reads.pendingBreakdown(),
    reads.historyTotals(),
    reads.clock(),
    reads.suspendedCounts(),
  ]);
  // the window by the store's clock, which stamped the attempts' ends
  const abandonedCounts = await reads.abandonedSince(new Date(clock.getTime() - ABANDONED_WINDOW_MS));
  const registry = new Registry();
  const registers = [registry];

  const tasks = new Gauge({
    name: 'readpast_tasks',
    help: 'Tasks kept, by queue and state (waiting: for parents, or suspended by a durable handler).',
    labelNames: ['queue', 'state'],
    registers,
  });
  for (const c of counts) {
    for (const state of TASK_STATUSES) tasks.set({ queue: c.queue, state }, c[state]);
  }
  // of the waiting: those a durable handler suspended (types/durable.ts)
  const suspendedTasks = new Gauge({
    name: 'readpast_tasks_suspended',
    help: 'Waiting tasks a durable handler suspended, by queue and kind (sleep, event).',
    labelNames: ['queue', 'kind'],
    registers,
  });
  for (const c of suspended) {
    suspendedTasks.set({ queue: c.queue, kind: 'sleep' }, c.sleeping);
    suspendedTasks.set({ queue: c.queue, kind: 'event' }, c.waitingEvent);
  }
  const running = new Gauge({ name: 'readpast_running', help: 'Attempts running now, by queue.', labelNames: ['queue'], registers });
  const granted = new Gauge({
    name: 'readpast_tokens_granted',
    help: 'Concurrency tokens granted now, by queue.',
    labelNames: ['queue'],
    registers,
  });
  const limit = new Gauge({
    name: 'readpast_tokens_limit',
    help: 'Concurrency limit of a limited queue (unlimited queues are absent).',
    labelNames: ['queue'],
    registers,
  });
  const paused = new Gauge({ name: 'readpast_queue_paused', help: '1 when the queue is paused.', labelNames: ['queue'], registers });
  for (const q of queues) {
    running.set({ queue: q.name }, q.running);
    granted.set({ queue: q.name }, q.granted);
    if (q.concurrencyLimit !== null) limit.set({ queue: q.name }, q.concurrencyLimit);
    paused.set({ queue: q.name }, q.paused ? 1 : 0);
  }
  const oldest = new Gauge({
    name: 'readpast_oldest_ready_age_seconds',
    help: 'Age of the oldest ready (due, not started) task, by queue; 0 when none is ready.',
    labelNames: ['queue'],
    registers,
  });
  const ready = new Gauge({ name: 'readpast_ready', help: 'Pending tasks that are due now, by queue.', labelNames: ['queue'], registers });
  for (const b of breakdown) {
    oldest.set({ queue: b.queue }, b.oldestReadyAt ? Math.max(0, (now - b.oldestReadyAt.getTime()) / 1000) : 0);
    ready.set({ queue: b.queue }, b.ready);
  }
  const alive = new Gauge({ name: 'readpast_workers_alive', help: 'Worker slots with a live heartbeat.', registers });
  alive.set(workers.filter((w) => w.state === 'running').length);
  const abandoned = new Gauge({
    name: 'readpast_attempts_abandoned_last_hour',
    help:
      'Attempts abandoned by the rescue of an expired lease in the last hour, by queue and reason: lease_lost (its worker ' +
      'was alive, its heartbeats too late), worker_lost (crashed, killed or cut off), unknown (before reasons were kept).',
    labelNames: ['queue', 'reason'],
    registers,
  });
  for (const a of abandonedCounts) abandoned.set({ queue: a.queue, reason: a.reason }, a.n);
  await throttleMetrics(registry, reads, queues, breakdown);

  const counter = (name: string, help: string, pick: (t: CommandTotals) => number) => {
    const c = new Counter({ name, help, labelNames: ['queue', 'command'], registers });
    for (const t of totals.commands) c.inc({ queue: t.queue, command: t.command }, pick(t));
  };
  counter('readpast_enqueued_total', 'Tasks enqueued, by queue and command.', (t) => t.enqueued);
  counter('readpast_started_total', 'Attempts started, by queue and command.', (t) => t.started);
  counter('readpast_succeeded_total', 'Attempts that succeeded, by queue and command.', (t) => t.succeeded);
  counter('readpast_failed_total', 'Attempts that failed (retried or not), by queue and command.', (t) => t.failed);
  counter('readpast_dead_total', 'Tasks that went dead (no attempts left), by queue and command.', (t) => t.dead);

  const duration = 'readpast_attempt_duration_seconds';
  const durations = histograms(totals, (q) => ({ buckets: q.durationBuckets, sumMs: q.durationSumMs, count: q.durationCount }));
  registry.registerMetric(
    countedHistogram(duration, 'Duration of ended attempts, by queue.', () => histogramSamples(duration, durations)) as never,
  );
  const latency = 'readpast_start_latency_seconds';
  const latencies = histograms(totals, (q) => ({ buckets: q.latencyBuckets, sumMs: q.latencySumMs, count: q.started }));
  registry.registerMetric(
    countedHistogram(latency, 'Time from due (enqueue or run-at) to start, by queue.', () => histogramSamples(latency, latencies)) as never,
  );
  return registry.metrics();
}
