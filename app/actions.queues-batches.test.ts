// The queue and batch server actions against a real SQLite file: input checked with zod and reported
// as a result value, changes recorded as made by `dashboard`, the demo batch created and released.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.mock('next/headers', () => ({
  headers: async () => new Headers({ host: '127.0.0.1:3000' }),
}));

const dir = mkdtempSync(join(tmpdir(), 'readpast-actions-'));
process.env.READPAST_DATABASE_URL = `sqlite:${join(dir, 'db.sqlite')}`;
process.env.READPAST_WORKERS = '0';

const actions = await import('./actions');
const { getEngine, stopEngine } = await import('@/lib/server/engine');

beforeAll(async () => {
  await getEngine();
});

afterAll(async () => {
  await stopEngine(0);
  rmSync(dir, { recursive: true, force: true });
});

describe('queue actions', () => {
  it('set a limit and pause a queue, recorded as made by dashboard', async () => {
    const limited = await actions.setQueueLimit('act-q', 4);
    expect(limited).toMatchObject({ ok: true, queue: { name: 'act-q', concurrencyLimit: 4, paused: false } });
    const paused = await actions.setQueuePaused('act-q', true);
    expect(paused).toMatchObject({ ok: true, queue: { concurrencyLimit: 4, paused: true } });
    expect(await actions.setQueueLimit('act-q', null)).toMatchObject({ ok: true, queue: { concurrencyLimit: null } });

    const { readpast } = await getEngine();
    const { changes } = await readpast.queues();
    expect(changes.filter((c) => c.queue === 'act-q').map((c) => [c.field, c.newValue, c.changedBy])).toEqual([
      ['concurrencyLimit', 'unlimited', 'dashboard'],
      ['paused', 'true', 'dashboard'],
      ['concurrencyLimit', '4', 'dashboard'],
    ]);
  });

  it('set, then clear, a per-key limit, a keyFrom path and a rate as typed, recorded as made by dashboard', async () => {
    const set = await actions.setQueueThrottle('act-throttle', { perKeyLimit: 2, keyFrom: '$.customerId', rateLimit: '20/2s per key' });
    expect(set).toMatchObject({
      ok: true,
      queue: { name: 'act-throttle', perKeyLimit: 2, keyFrom: '$.customerId', rateLimit: { limit: 20, periodSeconds: 2, perKey: true } },
    });
    expect(await actions.setQueueThrottle('act-throttle', { rateLimit: 'none', keyFrom: null })).toMatchObject({
      ok: true,
      queue: { perKeyLimit: 2, keyFrom: null, rateLimit: null, rate: null },
    });
    const { readpast } = await getEngine();
    const changes = await readpast.queueChanges('act-throttle');
    expect(changes.map((c) => [c.field, c.oldValue, c.newValue, c.changedBy])).toEqual([
      ['rateLimit', '20/2s per key', 'none', 'dashboard'],
      ['keyFrom', '$.customerId', 'none', 'dashboard'],
      ['rateLimit', 'none', '20/2s per key', 'dashboard'],
      ['keyFrom', 'none', '$.customerId', 'dashboard'],
      ['perKeyLimit', 'none', '2', 'dashboard'],
    ]);
    // bad values: a result naming the field, nothing changed
    expect(await actions.setQueueThrottle('act-throttle', { perKeyLimit: 0 })).toMatchObject({ ok: false, field: 'perKeyLimit' });
    expect(await actions.setQueueThrottle('act-throttle', { keyFrom: 'customer' })).toMatchObject({ ok: false, field: 'keyFrom' });
    expect(await actions.setQueueThrottle('act-throttle', { rateLimit: '5 per hour' })).toMatchObject({ ok: false, field: 'rateLimit' });
    expect(await actions.setQueueThrottle('act-throttle', {})).toMatchObject({ ok: false });
    expect(await readpast.queueChanges('act-throttle')).toHaveLength(5);
  });

  it('report bad input as a result naming the field, changing nothing', async () => {
    expect(await actions.setQueueLimit('act-q2', 0)).toMatchObject({ ok: false, field: 'concurrencyLimit' });
    expect(await actions.setQueueLimit('act-q2', 'x' as unknown as number)).toMatchObject({ ok: false, field: 'concurrencyLimit' });
    expect(await actions.setQueueLimit("x'; DROP TABLE Queues;--", 2)).toMatchObject({ ok: false, field: 'name' });
    expect(await actions.setQueuePaused('act-q2', 'yes' as unknown as boolean)).toMatchObject({ ok: false, field: 'paused' });
    const { readpast } = await getEngine();
    expect((await readpast.queues()).queues.some((q) => q.name === 'act-q2')).toBe(false);
  });
});

describe('batch actions', () => {
  it('create the demo batch, then cancel it; release and cancel report 409s and bad ids as results', async () => {
    const created = await actions.createDemoBatch();
    expect(created).toMatchObject({ ok: true, id: expect.any(Number) });
    const id = (created as { id: number }).id;
    const { readpast } = await getEngine();
    const b = await readpast.batch(id);
    expect(b).toMatchObject({ status: 'released', maxParallel: 3, caller: 'dashboard' });
    expect(b.stages.map((s) => s.total)).toEqual([4, 2, 1, 2, 1]);

    const release = await actions.releaseBatch(id);
    expect(release).toMatchObject({ ok: false });
    expect((release as { error: string }).error).toMatch(/not open/);
    expect(await actions.cancelBatch(id)).toEqual({ ok: true, cancelled: 10 });
    expect((await readpast.batch(id)).status).toBe('cancelled');
    expect(await actions.cancelBatch(id)).toMatchObject({ ok: false });

    expect(await actions.releaseBatch(0)).toMatchObject({ ok: false, field: 'id' });
    expect(await actions.cancelBatch(1.5)).toMatchObject({ ok: false, field: 'id' });
    expect(await actions.releaseBatch(987_654)).toMatchObject({ ok: false, error: expect.stringMatching(/no batch/) });
  });

  it('release an open batch', async () => {
    const { readpast } = await getEngine();
    const b = await readpast.createBatch({}, 'test');
    expect(await actions.releaseBatch(b.id)).toEqual({ ok: true, status: 'completed' });
  });
});
