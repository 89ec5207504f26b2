// The API's batch and queue helpers against a real SQLite file: tasks added from request bodies,
// a batch's first tasks by stage then id, the attempt timeline, queue patches and who made them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Readpast } from '@/lib/api/readpast';
import { openReadpast } from '@/lib/api/open';
import { addBatchTasks, batchDetail, batchIdParam, batchTimeline, firstTasks } from '@/lib/api/batches';
import { readOptionalJson } from './http';
import { changedBy, queueNameParam } from './queues';

let dir: string;
let rp: Readpast;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'readpast-server-batches-'));
  rp = await openReadpast({ url: `sqlite:${join(dir, 'db.sqlite')}` });
});

afterEach(async () => {
  await rp.close();
  rmSync(dir, { recursive: true, force: true });
});

const echo = (extra: Record<string, unknown> = {}) => ({ command: 'demo.echo', queue: 'b-test', ...extra });

describe('addBatchTasks', () => {
  it('takes one request or {tasks, stage}; the batch is the path one and a task may name its own stage', async () => {
    const b = await rp.createBatch({}, 'test');
    const one = await addBatchTasks(rp, b.id, echo({ stage: 2 }), { caller: 'api' });
    expect(one.tokens).toHaveLength(1);
    const many = await addBatchTasks(
      rp,
      b.id,
      { stage: 1, tasks: [echo(), echo({ stage: 0 }), echo({ batchId: b.id })] },
      { caller: 'api' },
    );
    expect(many.tokens).toHaveLength(3);

    const stageOf = async (token: string) => (await rp.status(token)).stage;
    expect(await stageOf(one.tokens[0]!)).toBe(2);
    expect(await Promise.all(many.tokens.map(stageOf))).toEqual([1, 0, 1]);
    const status = await rp.status(many.tokens[0]!);
    expect(status.batchId).toBe(b.id);
    expect(status.caller).toBe('api');
    expect((await rp.batch(b.id)).stages.map((s) => [s.stage, s.total])).toEqual([
      [0, 1],
      [1, 2],
      [2, 1],
    ]);
  });

  it('names the field of a bad task, refuses another batch id, 404s an unknown batch, 409s a released one', async () => {
    const b = await rp.createBatch({}, 'test');
    await expect(addBatchTasks(rp, b.id, { tasks: [echo(), echo({ stage: -1 })] }, {})).rejects.toMatchObject({
      name: 'ValidationError',
      field: 'tasks.1.stage',
    });
    await expect(addBatchTasks(rp, b.id, { tasks: [echo({ batchId: b.id + 1 })] }, {})).rejects.toMatchObject({
      name: 'ValidationError',
      field: 'tasks.0.batchId',
    });
    await expect(addBatchTasks(rp, b.id, echo({ batchId: 999 }), {})).rejects.toMatchObject({ name: 'ValidationError', field: 'batchId' });
    await expect(addBatchTasks(rp, b.id, { tasks: [] }, {})).rejects.toMatchObject({ name: 'ValidationError', field: 'tasks' });
    await expect(addBatchTasks(rp, b.id, { tasks: [echo()], colour: 'red' }, {})).rejects.toMatchObject({ field: 'colour' });
    await expect(addBatchTasks(rp, b.id, echo({ command: 'no.such' }), {})).rejects.toMatchObject({ field: 'command' });
    expect((await rp.batch(b.id)).stages).toHaveLength(0); // nothing of a refused bulk request was enqueued

    await expect(addBatchTasks(rp, b.id + 100, echo(), {})).rejects.toMatchObject({ name: 'NotFoundError' });
    await rp.releaseBatch(b.id);
    await expect(addBatchTasks(rp, b.id, echo(), {})).rejects.toMatchObject({ name: 'ConflictError' });
  });
});

describe('batchDetail and firstTasks', () => {
  it('lists tasks by stage, then in enqueue order, at most the cap', async () => {
    const b = await rp.createBatch({ maxParallel: 2 }, 'test');
    // later stages first: the listing must still start with stage 0
    const s2 = await addBatchTasks(rp, b.id, { stage: 2, tasks: [echo(), echo()] }, {});
    const s0 = await addBatchTasks(rp, b.id, { stage: 0, tasks: [echo(), echo(), echo()] }, {});
    const s1 = await addBatchTasks(rp, b.id, echo({ stage: 1 }), {});

    const detail = await batchDetail(rp, b.id);
    expect(detail.id).toBe(b.id);
    expect(detail.maxParallel).toBe(2);
    expect(detail.totals.total).toBe(6);
    expect(detail.tasks.map((t) => t.token)).toEqual([...s0.tokens, ...s1.tokens, ...s2.tokens]);

    const capped = await firstTasks(rp, b.id, [2, 0, 1], 4);
    expect(capped.map((t) => t.token)).toEqual([...s0.tokens, ...s1.tokens]);
    await expect(batchDetail(rp, b.id + 100)).rejects.toMatchObject({ name: 'NotFoundError' });
  });

  it('finds the first tasks of a stage larger than one page', async () => {
    const b = await rp.createBatch({}, 'test');
    const { tokens } = await addBatchTasks(rp, b.id, { stage: 0, tasks: Array.from({ length: 620 }, () => echo()) }, {});
    const first = await firstTasks(rp, b.id, [0], 500);
    expect(first).toHaveLength(500);
    expect(first.map((t) => t.token)).toEqual(tokens.slice(0, 500));
  });
});

describe('batchTimeline', () => {
  it('returns the attempts of a run batch oldest first, with stage, worker and outcome', async () => {
    const b = await rp.createBatch({}, 'test');
    await addBatchTasks(rp, b.id, { stage: 0, tasks: [echo(), echo()] }, {});
    await addBatchTasks(
      rp,
      b.id,
      { stage: 1, tasks: [{ command: 'demo.fail', queue: 'b-test', maxAttempts: 1, payload: { message: 'boom' } }] },
      {},
    );
    await rp.releaseBatch(b.id);
    const pool = rp.createPool({ concurrency: 2, pollMs: 20, heartbeatMs: 50 });
    try {
      await pool.runUntilIdle(20_000);
    } finally {
      await pool.stop(0);
    }
    const { attempts, truncated } = await batchTimeline(rp, b.id);
    expect(truncated).toBe(false);
    expect(attempts).toHaveLength(3);
    expect(attempts.map((a) => a.stage)).toEqual([0, 0, 1]);
    expect(attempts.map((a) => a.outcome)).toEqual(['succeeded', 'succeeded', 'failed']);
    for (const a of attempts) {
      expect(a.workerId).toBeTruthy();
      expect(Date.parse(a.endedAt!)).toBeGreaterThanOrEqual(Date.parse(a.startedAt));
    }
    const lastOfStage0 = Math.max(...attempts.filter((a) => a.stage === 0).map((a) => Date.parse(a.endedAt!)));
    expect(Date.parse(attempts[2]!.startedAt)).toBeGreaterThanOrEqual(lastOfStage0);
    expect((await rp.batch(b.id)).status).toBe('completed');
    await expect(batchTimeline(rp, b.id + 100)).rejects.toMatchObject({ name: 'NotFoundError' });
  });
});

describe('path and body parsing', () => {
  it('accepts only positive integer batch ids, naming `id`', () => {
    expect(batchIdParam('42')).toBe(42);
    for (const bad of ['0', '-1', '1.5', 'abc', '1e3', '0x10', '', '99999999999999999']) {
      expect(() => batchIdParam(bad), bad).toThrow(expect.objectContaining({ name: 'ValidationError', field: 'id' }));
    }
  });

  it('reads a missing or empty body as {}, and refuses malformed JSON', async () => {
    expect(await readOptionalJson(new Request('http://h/x', { method: 'POST' }))).toEqual({});
    expect(await readOptionalJson(new Request('http://h/x', { method: 'POST', body: '', headers: { 'content-length': '0' } }))).toEqual({});
    // a body stream but no header announcing one, as `curl -X POST` sends
    const noHeaders = new Request('http://h/x', {
      method: 'POST',
      body: new ReadableStream({ start: (c) => c.close() }),
      duplex: 'half',
    } as RequestInit);
    expect(await readOptionalJson(noHeaders)).toEqual({});
    const json = { method: 'POST', body: '{"maxParallel":2}', headers: { 'content-length': '17' } };
    expect(await readOptionalJson(new Request('http://h/x', json))).toEqual({ maxParallel: 2 });
    const chunked = { method: 'POST', body: '{"maxParallel":3}', headers: { 'transfer-encoding': 'chunked' } };
    expect(await readOptionalJson(new Request('http://h/x', chunked))).toEqual({ maxParallel: 3 });
    await expect(
      readOptionalJson(new Request('http://h/x', { method: 'POST', body: '{"a":', headers: { 'content-length': '5' } })),
    ).rejects.toMatchObject({ field: 'body' });
  });

  it('decodes and validates a queue name from the path, naming `name`', () => {
    expect(queueNameParam('reports')).toBe('reports');
    expect(queueNameParam('etl%3Anightly')).toBe('etl:nightly');
    for (const bad of ["x'; DROP TABLE Queues;--", "x'%3B%20DROP%20TABLE", '%E0%A4%A', '-lead']) {
      expect(() => queueNameParam(bad), bad).toThrow(expect.objectContaining({ name: 'ValidationError', field: 'name' }));
    }
  });
});

describe('queues', () => {
  it('records who changed a queue: the signed-in user, else where the change came from', async () => {
    expect(changedBy({ auth: null }, 'api')).toBe('api');
    expect(changedBy({ auth: null }, 'dashboard')).toBe('dashboard');
    expect(changedBy({ auth: { user: 'alice', password: 'pw' } }, 'api')).toBe('alice');

    const q = await rp.setQueue('q-limits', { concurrencyLimit: 3 }, 'alice');
    expect(q).toMatchObject({ name: 'q-limits', concurrencyLimit: 3, paused: false, pending: 0, running: 0, granted: 0 });
    const paused = await rp.setQueue('q-limits', { paused: true, concurrencyLimit: null }, 'api');
    expect(paused).toMatchObject({ concurrencyLimit: null, paused: true });

    const changes = await rp.queueChanges('q-limits');
    expect(changes.map((c) => [c.field, c.oldValue, c.newValue, c.changedBy])).toEqual([
      ['paused', 'false', 'true', 'api'],
      ['concurrencyLimit', '3', 'unlimited', 'api'],
      ['concurrencyLimit', 'unlimited', '3', 'alice'],
    ]);
    expect(typeof changes[0]!.at).toBe('string');
    await expect(rp.setQueue('q-limits', { concurrencyLimit: 0 }, 'api')).rejects.toMatchObject({ field: 'concurrencyLimit' });
    await expect(rp.setQueue('q-limits', {}, 'api')).rejects.toMatchObject({ name: 'ValidationError' });
    await expect(rp.setQueue('q-limits', { colour: 'red' }, 'api')).rejects.toMatchObject({ field: 'colour' });
  });
});
