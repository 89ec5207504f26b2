// Strings that are not Unicode, through the library (every front door's path: the HTTP API, the CLI and the
// forms call these methods). Each request below is valid; every string in it — names, keys, text, a payload's
// values — is given a lone surrogate in turn, and the call must be refused naming that field, before anything
// is written (a store would keep "a\ud800b" as "a\ufffd\ufffd\ufffdb": lib/engine/text.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ValidationError } from '../engine/errors';
import { openReadpast } from './open';
import type { Readpast } from './readpast';
import { fieldOf, ILL_FORMED, stringPaths, withLoneSurrogate, type Path } from './test-support/ill-formed';

const dir = mkdtempSync(join(tmpdir(), 'readpast-unicode-'));
let rp: Readpast;
beforeAll(async () => {
  // a file: withTransaction needs a second connection
  rp = await openReadpast({ url: `sqlite:${join(dir, 'db.sqlite')}` });
});
afterAll(async () => {
  await rp.close();
  rmSync(dir, { recursive: true, force: true });
});

async function refusal(call: () => Promise<unknown>): Promise<ValidationError> {
  try {
    await call();
  } catch (err) {
    if (err instanceof ValidationError) return err;
    throw err;
  }
  throw new Error('accepted');
}

/** `call(request)` refused for a lone surrogate in each string of `request`, naming its field under `prefix`. */
async function walk<T>(request: T, call: (r: T) => Promise<unknown>, prefix = ''): Promise<Path[]> {
  const paths = stringPaths(request);
  expect(paths.length).toBeGreaterThan(0);
  for (const path of paths) {
    const err = await refusal(() => call(withLoneSurrogate(request, path)));
    expect({ field: err.field, message: err.message }).toEqual({
      field: fieldOf(path, prefix),
      message: expect.stringMatching(ILL_FORMED),
    });
  }
  return paths;
}

const TASK = {
  command: 'demo.echo',
  queue: 'mail',
  dedupKey: 'order-42',
  concurrencyKey: 'acme',
  runAt: '2030-01-01T00:00:00Z',
  payload: { customer: 'acme', tags: ['a', 'b'], nested: { note: 'n' } },
};

describe('a lone surrogate in any string is refused, naming the field', () => {
  it('enqueue: every field and every payload string; the valid request is accepted', async () => {
    const paths = await walk(TASK, (r) => rp.enqueue(r));
    expect(paths.map((p) => fieldOf(p))).toEqual(
      expect.arrayContaining([
        'command',
        'queue',
        'dedupKey',
        'concurrencyKey',
        'payload.customer',
        'payload.tags.1',
        'payload.nested.note',
      ]),
    );
    await walk({ kind: 'sql' as const, command: 'SELECT 1' }, (r) => rp.enqueue(r));
    expect((await rp.enqueue(TASK)).created).toBe(true);
    expect((await rp.stats()).totals.pending).toBe(1);
  });

  it("a payload's object key, named with U+FFFD in its place", async () => {
    const err = await refusal(() => rp.enqueue({ command: 'demo.echo', payload: { ok: { 'a\udc00b': 1 } } }));
    expect(err.field).toBe('payload.ok.a\ufffdb');
    expect(err.message).toMatch(/its key is not well-formed Unicode: a lone surrogate \(\\udc00\) at character 2/);
  });

  it('a surrogate pair (an emoji) is well-formed and kept', async () => {
    const { token } = await rp.enqueue({ command: 'demo.echo', concurrencyKey: 'k😀', payload: { s: '😀' } });
    const s = await rp.status(token);
    expect(s.payload).toEqual({ s: '😀' });
  });

  it('enqueueMany (its fast path for the common shape included) and a transaction', async () => {
    // (no runAt: the common shape, which a direct check reads instead of zod)
    const { runAt: _, ...common } = TASK;
    await walk([common, { ...structuredClone(common), dedupKey: 'order-43' }], (r) => rp.enqueueMany(r), 'tasks');
    await walk(TASK, (r) => rp.withTransaction((tx) => tx.enqueue(r)));
  });

  it('a flow: its name, node ids, commands, edges and payloads', async () => {
    const flow = {
      name: 'nightly',
      nodes: [
        { id: 'load', command: 'demo.echo', concurrencyKey: 'k', payload: { file: 'a.csv' } },
        { id: 'merge', command: 'demo.echo', dependsOn: ['load'] },
        { id: 'notify', command: 'demo.echo', dependsOn: [{ id: 'merge', onParentFailure: 'run' as const }] },
      ],
    };
    const paths = await walk(flow, (r) => rp.flow(r));
    expect(paths.map((p) => fieldOf(p))).toEqual(
      expect.arrayContaining(['name', 'nodes.0.id', 'nodes.1.dependsOn.0', 'nodes.2.dependsOn.0.id']),
    );
    await walk(flow, (r) => rp.withTransaction((tx) => tx.flow(r)));
    expect(Object.keys((await rp.flow(flow)).tokens)).toHaveLength(3);
  });

  it('queues: the name, keyFrom, a key asked for', async () => {
    await walk({ keyFrom: '$.customer' }, (r) => rp.setQueue('mail', r, 'ops'));
    expect((await refusal(() => rp.setQueue('m\ud800', { paused: true }, 'ops'))).field).toBe('name');
    expect((await refusal(() => rp.rateWindow('mail', 'k\ud800'))).field).toBe('key');
  });

  it('schedules: create, update and the declared list', async () => {
    const schedule = {
      name: 'nightly',
      cron: '0 3 * * *',
      timezone: 'Europe/Berlin',
      command: 'demo.echo',
      queue: 'mail',
      payload: { a: 'b' },
    };
    await walk(schedule, (r) => rp.createSchedule(r, 'ops'));
    await rp.createSchedule(schedule, 'ops');
    await walk({ cron: '0 4 * * *', payload: { a: 'c' } }, (r) => rp.updateSchedule('nightly', r, 'ops'));
    await walk([schedule], (r) => rp.declareSchedules(r), 'schedules');
  });

  it('alert rules, a task edit, bulk actions and a failure selection', async () => {
    const rule = {
      name: 'dead-mail',
      kind: 'task_dead' as const,
      queue: 'mail',
      command: 'demo.echo',
      url: 'https://hooks.example.com/x',
      secret: 's3',
    };
    await walk(rule, (r) => rp.alerts.create(r));
    const { token } = await rp.enqueue({ command: 'demo.echo', runAt: '2030-01-01T00:00:00Z' });
    await walk({ queue: 'mail', payload: { note: 'n' } }, (r) => rp.editTask(token, r));
    await walk({ action: 'cancel' as const, filter: 'queue=mail' }, (r) => rp.bulk(r));
    await walk({ queue: 'mail', command: 'demo.fail', message: 'timeout' }, (r) => rp.retryFailed(r));
  });
});
