import { describe, expect, it } from 'vitest';
import { whyNotRunning, type WhyFacts } from './why';

const now = new Date('2026-11-24T10:00:00.000Z');
const later = new Date('2026-11-24T10:05:00.000Z');

function facts(over: {
  task?: Partial<NonNullable<WhyFacts['task']>> | null;
  queue?: Partial<WhyFacts['queue']>;
  batch?: WhyFacts['batch'];
  workers?: Partial<WhyFacts['workers']>;
}): WhyFacts {
  return {
    now,
    task:
      over.task === null
        ? null
        : {
            status: 'pending',
            queue: 'q',
            kind: 'handler',
            command: 'sleep',
            runAfter: now,
            attempts: 0,
            maxAttempts: 3,
            batchId: null,
            stage: null,
            concurrencyKey: null,
            startedAt: null,
            finishedAt: null,
            ...over.task,
          },
    queue: {
      name: 'q',
      paused: false,
      concurrencyLimit: null,
      perKeyLimit: null,
      rate: null,
      held: 0,
      holders: [],
      pausedBy: null,
      ready: 1,
      scheduled: 0,
      retrying: 0,
      nextRunAt: null,
      ...over.queue,
    },
    batch: over.batch ?? null,
    workers: { live: 4, busy: 1, handlers: ['sleep'], ...over.workers },
  };
}

const paused = { paused: true, pausedBy: { by: 'alice', at: new Date('2026-11-24T09:02:00.000Z') } };
const full = {
  concurrencyLimit: 2,
  held: 2,
  holders: [
    { token: 'aaaaaaaa-1111', workerId: 'w1' },
    { token: 'bbbbbbbb-2222', workerId: 'w2' },
  ],
};

describe('whyNotRunning: each reason', () => {
  it('ready: eligible with a free worker', () => {
    const w = whyNotRunning(facts({}));
    expect(w.reason).toBe('ready');
    expect(w.text).toContain('1 of 4 workers busy');
  });

  it('workers_busy: every live worker runs a task', () => {
    const w = whyNotRunning(facts({ workers: { live: 3, busy: 3 } }));
    expect(w).toMatchObject({ reason: 'workers_busy', detail: { busy: 3, live: 3 }, text: 'Waiting for a free worker: 3 of 3 busy' });
  });

  it('scheduled: a future run-at, never tried', () => {
    const w = whyNotRunning(facts({ task: { runAfter: later } }));
    expect(w).toMatchObject({ reason: 'scheduled', detail: { runAt: later.toISOString() } });
    expect(w.text).toBe('Scheduled for 10:05:00 UTC (in 5m 0s)');
  });

  it('retrying: a future run-at after a failed attempt', () => {
    const w = whyNotRunning(facts({ task: { runAfter: later, attempts: 1 } }));
    expect(w.reason).toBe('retrying');
    expect(w.text).toContain('until 10:05:00 UTC');
    expect(w.text).toContain('attempt 2 of 3');
  });

  it('paused: by whom and when', () => {
    const w = whyNotRunning(facts({ queue: paused }));
    expect(w).toMatchObject({ reason: 'paused', detail: { by: 'alice' }, text: 'Queue paused by alice at 09:02:00 UTC' });
  });

  it('limit_full: n of n tokens, with the holders', () => {
    const w = whyNotRunning(facts({ queue: full }));
    expect(w.reason).toBe('limit_full');
    expect(w.text).toBe('Concurrency limit full: 2 of 2 tokens, held by aaaaaaaa on w1, bbbbbbbb on w2');
  });

  it('limit not full: below the limit is ready', () => {
    expect(whyNotRunning(facts({ queue: { ...full, held: 1 } })).reason).toBe('ready');
  });

  it('key_full: n of n running for the key, with the holders', () => {
    const w = whyNotRunning({
      ...facts({ task: { concurrencyKey: 'acme' }, queue: { perKeyLimit: 1 } }),
      key: { name: 'acme', held: 1, holders: [{ token: 'cccccccc-3333', workerId: 'w3' }] },
    });
    expect(w).toMatchObject({ reason: 'key_full', detail: { key: 'acme', held: 1, limit: 1 } });
    expect(w.text).toBe('Key acme: 1 of 1 running (token cccccccc on w3)');
    // another key of the same queue, or no per-key limit, is ready
    const other = whyNotRunning({
      ...facts({ task: { concurrencyKey: 'globex' }, queue: { perKeyLimit: 1 } }),
      key: { name: 'globex', held: 0, holders: [] },
    });
    expect(other.reason).toBe('ready');
    expect(whyNotRunning(facts({ task: { concurrencyKey: 'acme' } })).reason).toBe('ready');
  });

  it('rate_limited: started of limit in the window, and when the next start is', () => {
    const rate = { limit: 60, periodSeconds: 60, perKey: false, started: 60, nextAt: new Date(now.getTime() + 14_000) };
    const w = whyNotRunning(facts({ queue: { rate } }));
    expect(w).toMatchObject({ reason: 'rate_limited', detail: { limit: 60, periodSeconds: 60, started: 60 } });
    expect(w.text).toBe('Rate limit: 60 of 60 started in the last 60 s; next start in 14s');
    const perKey = whyNotRunning(
      facts({ task: { concurrencyKey: 'acme' }, queue: { rate: { ...rate, perKey: true, limit: 5, started: 5 } } }),
    );
    expect(perKey.text).toMatch(/^Rate limit for key acme: 5 of 5 started in the last 60 s/);
    expect(whyNotRunning(facts({ queue: { rate: { ...rate, started: 59, nextAt: null } } })).reason).toBe('ready');
    // the queue's own answer names the window too
    expect(whyNotRunning(facts({ task: null, queue: { rate } })).reason).toBe('rate_limited');
  });

  it('stage_wait: a later stage waits for the active one', () => {
    const batch = {
      id: 7,
      status: 'released' as const,
      onFailure: 'continue' as const,
      maxParallel: null,
      stages: [
        { stage: 0, unfinished: 3, dead: 0, running: 1 },
        { stage: 1, unfinished: 2, dead: 0, running: 0 },
      ],
    };
    const w = whyNotRunning(facts({ task: { batchId: 7, stage: 1 }, batch }));
    expect(w).toMatchObject({ reason: 'stage_wait', detail: { waitingFor: 0, left: 3 } });
    expect(w.text).toBe('Batch 7 stage 1 waits for stage 0 (3 tasks left)');
    // the active stage itself is not waiting
    expect(whyNotRunning(facts({ task: { batchId: 7, stage: 0 }, batch })).reason).toBe('ready');
  });

  it('stage_wait: a batch at its maxParallel cap', () => {
    const batch = {
      id: 8,
      status: 'open' as const,
      onFailure: 'continue' as const,
      maxParallel: 1,
      stages: [{ stage: 0, unfinished: 3, dead: 0, running: 1 }],
    };
    expect(whyNotRunning(facts({ task: { batchId: 8, stage: 0 }, batch })).detail).toMatchObject({ kind: 'batch_full' });
  });

  it('no_worker: no live worker at all', () => {
    const w = whyNotRunning(facts({ workers: { live: 0, busy: 0 } }));
    expect(w).toMatchObject({ reason: 'no_worker', text: 'No live worker serves queue q' });
  });

  it('no_worker: no worker registered the handler', () => {
    const w = whyNotRunning(facts({ task: { command: 'mystery' } }));
    expect(w).toMatchObject({ reason: 'no_worker', detail: { handler: 'mystery' } });
  });

  it('not_pending: says the state', () => {
    const w = whyNotRunning(facts({ task: { status: 'succeeded', finishedAt: now } }));
    expect(w.reason).toBe('not_pending');
    expect(w.text).toContain('succeeded');
  });
});

describe('whyNotRunning: precedence follows the claim rules', () => {
  it('due before everything: a future run-at in a paused, full queue without workers is scheduled', () => {
    const w = whyNotRunning(facts({ task: { runAfter: later }, queue: { ...paused, ...full }, workers: { live: 0, busy: 0 } }));
    expect(w.reason).toBe('scheduled');
  });

  it('a claimer before the pause: no live worker wins over paused', () => {
    expect(whyNotRunning(facts({ queue: paused, workers: { live: 0, busy: 0 } })).reason).toBe('no_worker');
  });

  it('pause before the limit', () => {
    expect(whyNotRunning(facts({ queue: { ...paused, ...full } })).reason).toBe('paused');
  });

  it('limit before the batch stage', () => {
    const batch = {
      id: 7,
      status: 'released' as const,
      onFailure: 'continue' as const,
      maxParallel: null,
      stages: [
        { stage: 0, unfinished: 1, dead: 0, running: 1 },
        { stage: 1, unfinished: 1, dead: 0, running: 0 },
      ],
    };
    expect(whyNotRunning(facts({ task: { batchId: 7, stage: 1 }, queue: full, batch })).reason).toBe('limit_full');
  });

  it('blocking rules before busy workers', () => {
    expect(whyNotRunning(facts({ queue: full, workers: { live: 2, busy: 2 } })).reason).toBe('limit_full');
  });
});

describe('whyNotRunning: a queue as a whole', () => {
  it('nothing ready: the next scheduled run', () => {
    const w = whyNotRunning(facts({ task: null, queue: { ready: 0, scheduled: 2, nextRunAt: later } }));
    expect(w.reason).toBe('scheduled');
    expect(w.text).toContain('2 tasks scheduled');
  });

  it('ready work in a paused queue', () => {
    expect(whyNotRunning(facts({ task: null, queue: paused })).reason).toBe('paused');
  });

  it('ready work and no worker', () => {
    expect(whyNotRunning(facts({ task: null, workers: { live: 0, busy: 0 } })).reason).toBe('no_worker');
  });
});
