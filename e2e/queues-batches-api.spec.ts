// Concurrency limits and batches through the JSON API against the real `next start` server
// (playwright.config.ts): live limits and pause with their change records, token grants, and a staged
// batch created, filled, released and waited on with the long-poll.
import { expect, test, type APIRequestContext, type APIResponse } from '@playwright/test';
import { unique, waitForStatus } from './helpers';

const UNKNOWN_BATCH = 999_999_999;

async function expect400(res: APIResponse, field: string) {
  expect(res.status(), await res.text()).toBe(400);
  const body = await res.json();
  expect(body.field).toBe(field);
  expect(typeof body.error).toBe('string');
}

async function ok<T = any>(res: APIResponse, status = 200): Promise<T> {
  expect(res.status(), await res.text()).toBe(status);
  return (await res.json()) as T;
}

interface Change {
  queue: string;
  field: string;
  oldValue: string;
  newValue: string;
  changedBy: string;
  at: string;
}
interface Attempt {
  token: string;
  stage: number;
  attempt: number;
  workerId: string;
  session: number | null;
  startedAt: string;
  endedAt: string | null;
  outcome: string;
}

async function queues(request: APIRequestContext) {
  return ok<{
    queues: { name: string; concurrencyLimit: number | null; paused: boolean; pending: number; running: number; granted: number }[];
    changes: Change[];
  }>(await request.get('/api/queues'));
}

async function addTasks(request: APIRequestContext, id: number, body: unknown): Promise<string[]> {
  const { tokens } = await ok<{ tokens: string[] }>(await request.post(`/api/batches/${id}/tasks`, { data: body }), 201);
  return tokens;
}

/** Long-poll until the batch (or stage) is done, as a client would: repeat on `done: false`. */
async function waitDone(request: APIRequestContext, id: number, query = '') {
  const deadline = Date.now() + 45_000;
  for (;;) {
    const r = await ok(await request.get(`/api/batches/${id}/wait?timeoutMs=10000${query}`, { timeout: 20_000 }));
    if (r.done) return r;
    expect(Date.now(), 'batch did not finish in time').toBeLessThan(deadline);
  }
}

test('PATCH a limit and see it in GET /api/queues with a change record; then unlimited again', async ({ request }) => {
  const name = unique('qb-limit');
  const q = await ok(await request.patch(`/api/queues/${name}`, { data: { concurrencyLimit: 3 } }));
  expect(q).toMatchObject({ name, concurrencyLimit: 3, paused: false, pending: 0, running: 0, granted: 0 });

  const listed = await queues(request);
  expect(listed.queues.find((x) => x.name === name)).toMatchObject({ concurrencyLimit: 3, paused: false });
  const change = listed.changes.find((c) => c.queue === name);
  expect(change).toMatchObject({ field: 'concurrencyLimit', oldValue: 'unlimited', newValue: '3', changedBy: 'api' });
  expect(Date.now() - Date.parse(change!.at)).toBeLessThan(60_000);
  // newest first
  const ats = listed.changes.map((c) => Date.parse(c.at));
  expect([...ats].sort((a, b) => b - a)).toEqual(ats);

  expect(await ok(await request.get(`/api/queues/${name}`))).toMatchObject({ name, concurrencyLimit: 3 });
  await ok(await request.patch(`/api/queues/${name}`, { data: { concurrencyLimit: null } }));
  const { changes } = await ok<{ changes: Change[] }>(await request.get(`/api/queues/${name}/changes`));
  expect(changes.map((c) => [c.field, c.oldValue, c.newValue])).toEqual([
    ['concurrencyLimit', '3', 'unlimited'],
    ['concurrencyLimit', 'unlimited', '3'],
  ]);
});

test('bad queue patches are 400s naming the field', async ({ request }) => {
  const name = unique('qb-bad');
  await expect400(await request.patch(`/api/queues/${name}`, { data: { concurrencyLimit: 0 } }), 'concurrencyLimit');
  await expect400(await request.patch(`/api/queues/${name}`, { data: { concurrencyLimit: 'x' } }), 'concurrencyLimit');
  await expect400(await request.patch(`/api/queues/${name}`, { data: { concurrencyLimit: 2.5 } }), 'concurrencyLimit');
  await expect400(await request.patch(`/api/queues/${name}`, { data: { paused: 'yes' } }), 'paused');
  await expect400(await request.patch(`/api/queues/${name}`, { data: { concurrencyLimit: 2, colour: 'red' } }), 'colour');
  await expect400(
    await request.patch(`/api/queues/${name}`, { headers: { 'content-type': 'application/json' }, data: '{"paused":' }),
    'body',
  );
  const empty = await request.patch(`/api/queues/${name}`, { data: {} });
  expect(empty.status()).toBe(400);
  await expect400(
    await request.patch(`/api/queues/${encodeURIComponent("x'; DROP TABLE Queues;--")}`, { data: { concurrencyLimit: 2 } }),
    'name',
  );
  await expect400(await request.get(`/api/queues/${encodeURIComponent("x'; DROP TABLE")}/tokens`), 'name');
  await expect400(await request.get(`/api/tokens?queue=${encodeURIComponent("x'; DROP TABLE")}`), 'queue');

  // none of it changed anything
  const listed = await queues(request);
  expect(listed.queues.some((q) => q.name === name)).toBe(false);
  expect(listed.changes.some((c) => c.queue === name)).toBe(false);
  expect((await request.get(`/api/queues/${name}`)).status()).toBe(404);
});

test('a paused queue holds its tasks until resumed; both changes are recorded', async ({ request }) => {
  const name = unique('qb-pause');
  expect(await ok(await request.patch(`/api/queues/${name}`, { data: { paused: true } }))).toMatchObject({ paused: true });
  const res = await request.post('/api/tasks', { data: { command: 'demo.echo', queue: name, payload: { paused: true } } });
  const { token } = await ok<{ token: string }>(res, 201);

  await new Promise((r) => setTimeout(r, 1500)); // several claim rounds of the server's 4 workers
  expect((await ok(await request.get(`/api/tasks/${token}`))).status).toBe('pending');
  expect((await queues(request)).queues.find((q) => q.name === name)).toMatchObject({ paused: true, pending: 1, running: 0 });

  expect(await ok(await request.patch(`/api/queues/${name}`, { data: { paused: false } }))).toMatchObject({ paused: false });
  await waitForStatus(request, token, 'succeeded');
  const { changes } = await ok<{ changes: Change[] }>(await request.get(`/api/queues/${name}/changes`));
  expect(changes.map((c) => [c.field, c.oldValue, c.newValue, c.changedBy])).toEqual([
    ['paused', 'true', 'false', 'api'],
    ['paused', 'false', 'true', 'api'],
  ]);
});

test('a singleton queue grants its one token to the running task; the tokens routes show the grant', async ({ request }) => {
  const name = unique('qb-tokens');
  await ok(await request.patch(`/api/queues/${name}`, { data: { concurrencyLimit: 1 } }));
  const tokens: string[] = [];
  for (let i = 0; i < 2; i++) {
    const r = await request.post('/api/tasks', { data: { command: 'demo.sleep', queue: name, payload: { ms: 2500 } } });
    tokens.push((await ok<{ token: string }>(r, 201)).token);
  }
  type Grant = {
    queue: string;
    tokenNo: number;
    status: string;
    token: string | null;
    workerId: string | null;
    grantedAt: string | null;
    holderDead: boolean;
  };
  await expect
    .poll(
      async () =>
        (await ok<{ tokens: Grant[] }>(await request.get(`/api/queues/${name}/tokens`))).tokens.filter((t) => t.status === 'granted')
          .length,
    )
    .toBe(1);
  const { tokens: grants } = await ok<{ tokens: Grant[] }>(await request.get(`/api/queues/${name}/tokens`));
  expect(grants).toHaveLength(1);
  expect(grants[0]).toMatchObject({ queue: name, tokenNo: 1, status: 'granted', holderDead: false });
  expect(tokens).toContain(grants[0]!.token);
  expect(grants[0]!.workerId).toBeTruthy();
  const all = await ok<{ tokens: Grant[] }>(await request.get(`/api/tokens?queue=${name}`));
  expect(all.tokens).toEqual(grants);
  expect((await queues(request)).queues.find((q) => q.name === name)).toMatchObject({
    concurrencyLimit: 1,
    running: 1,
    granted: 1,
    pending: 1,
  });
  for (const t of tokens) await waitForStatus(request, t, 'succeeded');
});

test('a staged batch: create, add stage 0, 1 and 2 tasks, release, long-poll until done, stages in order', async ({ request }) => {
  const queue = unique('qb-batch');
  const created = await ok(await request.post('/api/batches', { data: { maxParallel: 2 } }), 201);
  expect(created).toMatchObject({ maxParallel: 2, onFailure: 'continue', status: 'open', caller: 'api' });
  const id = created.id as number;

  // an open batch runs as it is filled, so stages go in in order (the seeds' way)
  const stage0 = await addTasks(request, id, {
    stage: 0,
    tasks: [300, 500, 400].map((ms) => ({ command: 'demo.sleep', queue, payload: { ms } })),
  });
  const stage1 = await addTasks(request, id, { stage: 1, tasks: [1, 2].map((n) => ({ command: 'demo.echo', queue, payload: { n } })) });
  const single = await addTasks(request, id, { command: 'demo.echo', queue, payload: { last: true }, stage: 2 });
  expect(stage1).toHaveLength(2);
  expect(stage0).toHaveLength(3);
  expect(single).toHaveLength(1);

  const listed = await ok(await request.get('/api/batches?status=open'));
  expect(listed.items.some((b: { id: number }) => b.id === id)).toBe(true);
  expect(listed).toHaveProperty('nextCursor');

  const released = await ok(await request.post(`/api/batches/${id}/release`));
  expect(released).toMatchObject({ id, status: 'released' });
  expect(released.releasedAt).toEqual(expect.any(String));

  const stageWait = await waitDone(request, id, '&stage=0');
  expect(stageWait.tasks.map((t: { token: string }) => t.token).sort()).toEqual([...stage0].sort());
  expect(stageWait.tasks.every((t: { status: string }) => t.status === 'succeeded')).toBe(true);

  const done = await waitDone(request, id);
  expect(done.batch).toMatchObject({ id, status: 'completed', activeStage: null });
  expect(done.batch.totals).toMatchObject({ total: 6, succeeded: 6, pending: 0, running: 0 });
  expect(done.tasks).toHaveLength(6);
  expect(done.tasks.every((t: { status: string }) => t.status === 'succeeded')).toBe(true);

  // the detail lists tasks by stage, then in enqueue order
  const detail = await ok(await request.get(`/api/batches/${id}`));
  expect(detail.tasks.map((t: { token: string }) => t.token)).toEqual([...stage0, ...stage1, ...single]);
  expect(detail.stages.map((s: { stage: number; total: number }) => [s.stage, s.total])).toEqual([
    [0, 3],
    [1, 2],
    [2, 1],
  ]);

  // ExecutionLog: no stage-k attempt started before the last stage-(k−1) attempt ended; the cap of 2 held
  const { attempts } = await ok<{ attempts: Attempt[] }>(await request.get(`/api/batches/${id}/timeline`));
  expect(attempts).toHaveLength(6);
  for (const a of attempts)
    expect(a).toMatchObject({ outcome: 'succeeded', attempt: 1, workerId: expect.any(String), endedAt: expect.any(String) });
  for (let k = 1; k <= 2; k++) {
    const lastEnd = Math.max(...attempts.filter((a) => a.stage === k - 1).map((a) => Date.parse(a.endedAt!)));
    const firstStart = Math.min(...attempts.filter((a) => a.stage === k).map((a) => Date.parse(a.startedAt)));
    expect(firstStart, `stage ${k} started before stage ${k - 1} ended`).toBeGreaterThanOrEqual(lastEnd);
  }
  const events = attempts
    .flatMap(
      (a) =>
        [
          [Date.parse(a.startedAt), 1],
          [Date.parse(a.endedAt!), -1],
        ] as const,
    )
    .sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  let running = 0;
  let peak = 0;
  for (const [, d] of events) peak = Math.max(peak, (running += d));
  expect(peak).toBeLessThanOrEqual(2);

  // a finished batch takes no more tasks and cannot be released again
  const late = await request.post(`/api/batches/${id}/tasks`, { data: { command: 'demo.echo', queue } });
  expect(late.status(), await late.text()).toBe(409);
  expect((await request.post(`/api/batches/${id}/release`)).status()).toBe(409);
});

test('the long-poll answers done: false at its timeout while the batch still runs', async ({ request }) => {
  const { id } = await ok(await request.post('/api/batches'), 201);
  await addTasks(request, id, { command: 'demo.sleep', queue: unique('qb-wait'), payload: { ms: 4000 } });
  await ok(await request.post(`/api/batches/${id}/release`));
  const started = Date.now();
  const r = await ok(await request.get(`/api/batches/${id}/wait?timeoutMs=800`));
  const elapsed = Date.now() - started;
  expect(r).toEqual({ done: false, batch: expect.objectContaining({ id, status: 'released' }) });
  expect(elapsed).toBeGreaterThanOrEqual(700);
  expect(elapsed).toBeLessThan(3500);
  const done = await waitDone(request, id);
  expect(done.batch.status).toBe('completed');
});

test('adding to a released batch is 409; bad batch requests are 400 naming the field', async ({ request }) => {
  const { id } = await ok(await request.post('/api/batches', { data: { onFailure: 'abort' } }), 201);
  await expect400(await request.post(`/api/batches/${id}/tasks`, { data: { command: 'no.such.handler' } }), 'command');
  await expect400(
    await request.post(`/api/batches/${id}/tasks`, { data: { tasks: [{ command: 'demo.echo' }, { command: 'demo.echo', stage: -1 }] } }),
    'tasks.1.stage',
  );
  await expect400(await request.post(`/api/batches/${id}/tasks`, { data: { command: 'demo.echo', batchId: id + 1 } }), 'batchId');
  await expect400(await request.post(`/api/batches/${id}/tasks`, { data: { tasks: [] } }), 'tasks');
  await ok(await request.post(`/api/batches/${id}/release`));
  const res = await request.post(`/api/batches/${id}/tasks`, { data: { command: 'demo.echo' } });
  expect(res.status(), await res.text()).toBe(409);
  expect((await res.json()).error).toMatch(/open/);

  await expect400(await request.post('/api/batches', { data: { maxParallel: 0 } }), 'maxParallel');
  await expect400(await request.post('/api/batches', { data: { onFailure: 'retry' } }), 'onFailure');
  await expect400(await request.post('/api/batches', { data: { colour: 'red' } }), 'colour');
  await expect400(await request.get('/api/batches/abc'), 'id');
  await expect400(await request.get('/api/batches?status=exploded'), 'status');
  await expect400(await request.get(`/api/batches/${id}/wait?timeoutMs=60001`), 'timeoutMs');
  await expect400(await request.get(`/api/batches/${id}/wait?stage=-1`), 'stage');
});

test('unknown batches are 404', async ({ request }) => {
  const b = `/api/batches/${UNKNOWN_BATCH}`;
  expect((await request.get(b)).status()).toBe(404);
  expect((await request.post(`${b}/tasks`, { data: { command: 'demo.echo' } })).status()).toBe(404);
  expect((await request.post(`${b}/release`)).status()).toBe(404);
  expect((await request.post(`${b}/cancel`)).status()).toBe(404);
  expect((await request.get(`${b}/wait?timeoutMs=0`)).status()).toBe(404);
  expect((await request.get(`${b}/timeline`)).status()).toBe(404);
});

test('cancelling a batch cancels its pending tasks; a cancelled batch is done and cannot be cancelled again', async ({ request }) => {
  const queue = unique('qb-cancel');
  const { id } = await ok(await request.post('/api/batches', { data: { maxParallel: 1 } }), 201);
  const [running] = await addTasks(request, id, { command: 'demo.sleep', queue, payload: { ms: 1500 }, stage: 0 });
  const later = await addTasks(request, id, { stage: 1, tasks: [0, 1, 2].map(() => ({ command: 'demo.echo', queue })) });
  await waitForStatus(request, running!, 'running');

  const cancelled = await ok(await request.post(`/api/batches/${id}/cancel`));
  expect(cancelled.cancelled).toBe(3); // the pending ones; the running one is asked to stop
  expect(cancelled.batch).toMatchObject({ id, status: 'cancelled' });
  for (const t of later) expect((await ok(await request.get(`/api/tasks/${t}`))).status).toBe('cancelled');

  const done = await waitDone(request, id);
  expect(done.batch.status).toBe('cancelled');
  expect(done.batch.totals.pending).toBe(0);
  expect(done.batch.totals.running).toBe(0);
  expect((await request.post(`/api/batches/${id}/cancel`)).status()).toBe(409);
  expect((await request.post(`/api/batches/${id}/tasks`, { data: { command: 'demo.echo', queue } })).status()).toBe(409);
  const listed = await ok(await request.get('/api/batches?status=cancelled'));
  expect(listed.items.some((b: { id: number }) => b.id === id)).toBe(true);
});
