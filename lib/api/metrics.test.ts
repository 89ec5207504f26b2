// GET /metrics's text on a real SQLite file, parsed by a Prometheus text parser: families and types,
// bounded labels, histogram buckets cumulative and ending in +Inf = _count, counters that never go down.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// @ts-expect-error: the parser ships no types (its result is typed as Family below)
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sleep } from '../engine/handlers';
import { openReadpast, openStore } from './open';
import { Readpast, readModelOf } from './readpast';

interface Family {
  name: string;
  type: string;
  metrics: { labels?: Record<string, string>; value?: string; buckets?: Record<string, string>; count?: string; sum?: string }[];
}

let dir: string;
let rp: Readpast;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'readpast-metrics-'));
  rp = await openReadpast({ url: `sqlite:${join(dir, 'm.db')}` });
});

afterEach(async () => {
  await rp.close();
  rmSync(dir, { recursive: true, force: true });
});

async function until(fn: () => Promise<boolean>, ms = 10_000) {
  const end = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error('timed out');
    await sleep(25);
  }
}

const scrape = async () => parsePrometheusTextFormat(await rp.prometheus()) as Family[];
const family = (fs: Family[], name: string) => fs.find((f) => f.name === name);
const value = (fs: Family[], name: string, labels: Record<string, string>) =>
  Number(family(fs, name)?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))?.value ?? NaN);

describe('GET /metrics', () => {
  it('counts the attempts the rescue abandoned in the last hour, by queue and reason', async () => {
    await rp.close();
    const store = await openStore(`sqlite:${join(dir, 'm.db')}`);
    rp = new Readpast(store);
    const reg = (workerId: string) => store.worker.registerWorker({ workerId, host: 'h', pid: 1, role: 'r' });
    await reg('gone');
    await reg('slow');
    for (const q of ['qa', 'qa', 'qb']) await store.commands.enqueue({ kind: 'handler', command: 'demo.echo', payload: null, queue: q });
    const claim = (workerId: string, queue: string) => store.worker.claim([{ workerId, session: 1 }], { leaseMs: 30, queues: [queue] });
    const [a] = await claim('gone', 'qa');
    const [b] = await claim('slow', 'qa');
    await claim('gone', 'qb');
    await sleep(80);
    // heard from after its lease ended: alive
    await store.worker.heartbeat({ workerIds: ['slow'], running: [{ taskId: b!.id, workerId: 'slow', attempt: 1 }], leaseMs: 30 });
    expect(a).toBeDefined();
    expect(await store.maintenance.rescueExpired()).toEqual({ retried: 3, dead: 0 });
    const family = (await scrape()).find((f) => f.name === 'readpast_attempts_abandoned_last_hour')!;
    expect(family.type).toBe('GAUGE');
    expect(family.metrics.map((m) => [m.labels?.queue, m.labels?.reason, m.value]).sort()).toEqual([
      ['qa', 'lease_lost', '1'],
      ['qa', 'worker_lost', '1'],
      ['qb', 'worker_lost', '1'],
    ]);
  });

  it('counts waiting tasks (those whose parents have not succeeded) in readpast_tasks', async () => {
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const parent = await rp.enqueue({ command: 'demo.echo', queue: 'wq', runAt: later });
    await rp.enqueue({ command: 'demo.echo', queue: 'wq', dependsOn: [parent.token] });
    await rp.enqueue({ command: 'demo.echo', queue: 'wq', dependsOn: [parent.token], onParentFailure: 'run' });
    const fs = await scrape();
    expect(value(fs, 'readpast_tasks', { queue: 'wq', state: 'waiting' })).toBe(2);
    expect(value(fs, 'readpast_tasks', { queue: 'wq', state: 'pending' })).toBe(1);
  });

  it('counts the waiting tasks durable handlers suspended, by kind, in readpast_tasks_suspended', async () => {
    await rp.enqueue({ command: 'demo.durable', queue: 'sq', payload: { steps: 1, ms: 0, sleepMs: 3_600_000 } });
    await rp.enqueue({ command: 'demo.durable', queue: 'sq', payload: { steps: 1, ms: 0, sleepMs: 0, event: 'm.go' } });
    await rp.enqueue({ command: 'demo.durable', queue: 'eq', payload: { steps: 1, ms: 0, sleepMs: 0, event: 'm.go' } });
    const pool = rp.createPool({ concurrency: 3, pollMs: 20, heartbeatMs: 50, queues: ['sq', 'eq'] });
    await pool.start();
    try {
      const suspended = (fs: Family[]) => family(fs, 'readpast_tasks_suspended')?.metrics.reduce((n, m) => n + Number(m.value), 0);
      await until(async () => suspended(await scrape()) === 3, 30_000);
    } finally {
      await pool.stop();
    }
    const fs = await scrape();
    expect(family(fs, 'readpast_tasks_suspended')?.type).toBe('GAUGE');
    expect(value(fs, 'readpast_tasks_suspended', { queue: 'sq', kind: 'sleep' })).toBe(1);
    expect(value(fs, 'readpast_tasks_suspended', { queue: 'sq', kind: 'event' })).toBe(1);
    expect(value(fs, 'readpast_tasks_suspended', { queue: 'eq', kind: 'event' })).toBe(1);
    expect(value(fs, 'readpast_tasks_suspended', { queue: 'eq', kind: 'sleep' })).toBe(0);
    expect(value(fs, 'readpast_tasks', { queue: 'sq', state: 'waiting' })).toBe(2);
  });

  it('exposes gauges, monotonic counters and per-queue histograms', async () => {
    await rp.setQueue('mq', { concurrencyLimit: 3 }, 'test');
    for (let i = 0; i < 4; i++) await rp.enqueue({ command: 'demo.echo', queue: 'mq', payload: { i } });
    await rp.enqueue({ command: 'demo.fail', queue: 'mq', maxAttempts: 1 });
    await rp.enqueue({ command: 'demo.echo', queue: 'idle', runAt: new Date(Date.now() + 3_600_000).toISOString() });
    const pool = rp.createPool({ concurrency: 2, pollMs: 20, heartbeatMs: 50, queues: ['mq'] });
    await pool.start();
    try {
      await until(async () => {
        const c = (await readModelOf(rp).countsByQueue()).find((q) => q.queue === 'mq');
        return c !== undefined && c.succeeded === 4 && c.dead === 1;
      });
      const first = await scrape();
      expect(family(first, 'readpast_tasks')?.type).toBe('GAUGE');
      expect(value(first, 'readpast_tasks', { queue: 'mq', state: 'succeeded' })).toBe(4);
      expect(value(first, 'readpast_tasks', { queue: 'idle', state: 'pending' })).toBe(1);
      expect(family(first, 'readpast_workers_alive')?.metrics[0]?.value).toBe('2');
      expect(family(first, 'readpast_succeeded_total')?.type).toBe('COUNTER');
      expect(value(first, 'readpast_succeeded_total', { queue: 'mq', command: 'demo.echo' })).toBe(4);
      expect(value(first, 'readpast_dead_total', { queue: 'mq', command: 'demo.fail' })).toBe(1);
      expect(value(first, 'readpast_enqueued_total', { queue: 'idle', command: 'demo.echo' })).toBe(1);
      expect(family(first, 'readpast_oldest_ready_age_seconds')).toBeDefined();
      expect(value(first, 'readpast_tokens_limit', { queue: 'mq' })).toBe(3);
      expect(value(first, 'readpast_tokens_granted', { queue: 'mq' })).toBe(0);

      // histograms: the parser flattens labelled histograms, so their samples are read from the text itself
      expect(family(first, 'readpast_attempt_duration_seconds')?.type).toBe('HISTOGRAM');
      expect(family(first, 'readpast_start_latency_seconds')?.type).toBe('HISTOGRAM');
      const text = await rp.prometheus();
      const samples = (name: string, queue: string) =>
        [...text.matchAll(new RegExp(`^${name}_bucket\\{queue="${queue}",le="([^"]+)"\\} (\\S+)$`, 'gm'))].map(
          (m) => [m[1], Number(m[2])] as const,
        );
      const one = (name: string) => Number(new RegExp(`^${name}\\{queue="mq"\\} (\\S+)$`, 'm').exec(text)?.[1]);
      const buckets = samples('readpast_attempt_duration_seconds', 'mq');
      expect(buckets.at(-1)).toEqual(['+Inf', 5]);
      const counts = buckets.map(([, n]) => n);
      expect(counts).toEqual([...counts].sort((x, y) => x - y));
      expect(one('readpast_attempt_duration_seconds_count')).toBe(5);
      expect(one('readpast_attempt_duration_seconds_sum')).toBeGreaterThanOrEqual(0);
      expect(samples('readpast_start_latency_seconds', 'mq').at(-1)).toEqual(['+Inf', 5]);
      expect(one('readpast_start_latency_seconds_count')).toBe(5);

      // labels are bounded: queue, command, state, le only
      for (const f of first)
        for (const m of f.metrics) for (const k of Object.keys(m.labels ?? {})) expect(['queue', 'command', 'state']).toContain(k);

      // counters only grow, also across the roll of the minutes into the totals
      await rp.enqueue({ command: 'demo.echo', queue: 'mq' });
      await until(async () => (await readModelOf(rp).countsByQueue()).find((q) => q.queue === 'mq')?.succeeded === 5);
      const second = await scrape();
      expect(value(second, 'readpast_succeeded_total', { queue: 'mq', command: 'demo.echo' })).toBe(5);
    } finally {
      await pool.stop(0);
    }
  });
  it('exports rate windows, rate-limited waits and per-key limits per queue; never a key as a label', async () => {
    await rp.close();
    const store = await openStore(`sqlite:${join(dir, 'm.db')}`);
    rp = new Readpast(store);
    for (let i = 0; i < 4; i++) await store.worker.registerWorker({ workerId: `w${i}`, host: 'h', pid: 1, role: 'r' });
    await rp.setQueue('mail', { rateLimit: { limit: 2, periodSeconds: 60 } }, 'test');
    await rp.setQueue('exports', { perKeyLimit: 1, rateLimit: '5/1m per key' }, 'test');
    for (let i = 0; i < 3; i++) await rp.enqueue({ command: 'demo.echo', queue: 'mail', payload: { i } });
    for (let i = 0; i < 2; i++) await rp.enqueue({ command: 'demo.echo', queue: 'exports', concurrencyKey: 'acme-secret' });
    // four workers' own slots (a slot claimed ahead never takes a rate-limited task)
    const slots = Array.from({ length: 4 }, (_, i) => ({ workerId: `w${i}`, session: 1 }));
    // the rate lets two of mail's three start; the per-key limit one of acme's two
    expect(await store.worker.claim(slots, { leaseMs: 60_000, queues: ['mail'] })).toHaveLength(2);
    expect(await store.worker.claim(slots, { leaseMs: 60_000, queues: ['exports'] })).toHaveLength(1);

    const fs = await scrape();
    expect(family(fs, 'readpast_rate_window_started')?.type).toBe('GAUGE');
    expect(value(fs, 'readpast_rate_limit', { queue: 'mail' })).toBe(2);
    expect(value(fs, 'readpast_rate_period_seconds', { queue: 'mail' })).toBe(60);
    expect(value(fs, 'readpast_rate_per_key', { queue: 'mail' })).toBe(0);
    expect(value(fs, 'readpast_rate_window_started', { queue: 'mail' })).toBe(2);
    expect(value(fs, 'readpast_rate_window_full', { queue: 'mail' })).toBe(1);
    expect(value(fs, 'readpast_rate_limited_ready', { queue: 'mail' })).toBe(1);
    expect(value(fs, 'readpast_rate_per_key', { queue: 'exports' })).toBe(1);
    expect(value(fs, 'readpast_rate_window_started', { queue: 'exports' })).toBe(1);
    expect(value(fs, 'readpast_rate_window_full', { queue: 'exports' })).toBe(0);
    // a per-key rate's waits are not counted queue-wide: absent
    expect(value(fs, 'readpast_rate_limited_ready', { queue: 'exports' })).toBeNaN();
    expect(value(fs, 'readpast_per_key_limit', { queue: 'exports' })).toBe(1);
    expect(value(fs, 'readpast_key_running_max', { queue: 'exports' })).toBe(1);
    expect(value(fs, 'readpast_per_key_limit', { queue: 'mail' })).toBeNaN();
    // keys are unbounded: none is a label or a label value
    const text = await rp.prometheus();
    expect(text).not.toContain('acme-secret');
    for (const f of fs) for (const m of f.metrics) expect(Object.keys(m.labels ?? {})).not.toContain('key');
  });
});
