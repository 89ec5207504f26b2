// The front door records what people change: who and from where (asActor), what, before → after.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { asActor, currentActor } from './audit';
import { openReadpast } from './open';
import { readModelOf, type Readpast } from './readpast';

let dir: string;
let rp: Readpast;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'readpast-audit-'));
  rp = await openReadpast({ url: `sqlite:${join(dir, 'a.db')}` });
});

afterEach(async () => {
  await rp.close();
  rmSync(dir, { recursive: true, force: true });
});

const trail = async () => (await rp.audit.list({ limit: 100 })).items;

describe('audit of the front door', () => {
  it('records each mutation with its actor and source; a library enqueue is not recorded', async () => {
    expect(currentActor().source).toBe('library');
    const quiet = await rp.enqueue({ command: 'demo.sleep', payload: { ms: 1 } });
    expect(await trail()).toEqual([]);

    const token = await asActor({ name: 'alice', source: 'api' }, async () => {
      const r = await rp.enqueue({
        command: 'demo.sleep',
        payload: { ms: 1 },
        queue: 'reports',
        runAt: new Date(Date.now() + 60_000).toISOString(),
      });
      await rp.setQueue('reports', { concurrencyLimit: 2 }, 'alice');
      await rp.setQueue('reports', { concurrencyLimit: 2, paused: true }, 'alice');
      await rp.cancel(r.token);
      return r.token;
    });
    await asActor({ name: 'ops', source: 'cli' }, () => rp.retry(token));
    await expect(asActor({ name: 'ops', source: 'cli' }, () => rp.retry(quiet.token))).rejects.toThrow(/only dead or cancelled/);

    const rows = await trail();
    expect(rows.map((r) => [r.actor, r.source, r.action, r.target])).toEqual([
      ['ops', 'cli', 'task.retry', token],
      ['alice', 'api', 'task.cancel', token],
      ['alice', 'api', 'queue.update', 'reports'],
      ['alice', 'api', 'queue.update', 'reports'],
      ['alice', 'api', 'task.enqueue', token],
    ]);
    // only the fields that changed
    expect(rows[2]).toMatchObject({ before: { paused: false }, after: { paused: true } });
    expect(rows[3]).toMatchObject({ before: { concurrencyLimit: null }, after: { concurrencyLimit: 2 } });
    expect(rows[4]).toMatchObject({ after: { queue: 'reports', command: 'demo.sleep' }, count: 1 });

    // the queue change history is read from it
    const changes = await rp.queueChanges('reports');
    expect(changes.map((c) => [c.field, c.oldValue, c.newValue, c.changedBy])).toEqual([
      ['paused', 'false', 'true', 'alice'],
      ['concurrencyLimit', 'unlimited', '2', 'alice'],
    ]);
  });

  it('a setQueue that changes nothing records nothing; bulk retries record the count', async () => {
    await asActor({ name: 'loopback', source: 'ui' }, async () => {
      await rp.setQueue('q', { concurrencyLimit: null }, 'dashboard');
      expect((await rp.retryFailed({})).retried).toBe(0);
    });
    const rows = await trail();
    expect(rows.map((r) => [r.action, r.count])).toEqual([['failures.retry', 0]]);
    // `loopback` from the dashboard shows as `dashboard` in the queue history, as before
    await asActor({ name: 'loopback', source: 'ui' }, () => rp.setQueue('q', { paused: true }, 'dashboard'));
    expect((await rp.queueChanges('q'))[0]!.changedBy).toBe('dashboard');
  });

  it('a refused command records nothing; a retry whose dedup key is held says by which task (409)', async () => {
    const later = new Date(Date.now() + 60_000).toISOString();
    await asActor({ name: 'ops', source: 'api' }, async () => {
      const first = await rp.enqueue({ command: 'demo.echo', payload: null, dedupKey: 'k1', runAt: later });
      await rp.cancel(first.token);
      const holder = await rp.enqueue({ command: 'demo.echo', payload: null, dedupKey: 'k1', runAt: later });
      const before = (await trail()).length;
      await expect(rp.retry(first.token)).rejects.toMatchObject({
        name: 'ConflictError',
        message: `dedup key "k1" is held by task ${holder.token} (pending)`,
      });
      await expect(rp.retry(holder.token)).rejects.toThrow(/only dead or cancelled/);
      await expect(rp.deleteTask(holder.token)).rejects.toThrow(/only finished/);
      await expect(rp.cancel(first.token)).rejects.toThrow(/already finished/);
      await expect(rp.cancel('00000000-0000-4000-8000-00000000abcd')).rejects.toThrow(/no task/);
      expect((await trail()).length).toBe(before);
      expect((await readModelOf(rp).getTask(first.token))!.status).toBe('cancelled');
    });
  });
});
