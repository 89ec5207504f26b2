// The JSON API against the real `next start` server (playwright.config.ts): status codes, the field
// named by every 400, task transitions, pool resizing and the bounded drain.
import { expect, test, type APIRequestContext, type APIResponse } from '@playwright/test';

const QUEUE = 'api-e2e';
const UNKNOWN = '00000000-0000-4000-8000-000000000000';

async function enqueue(request: APIRequestContext, body: Record<string, unknown>): Promise<string> {
  const res = await request.post('/api/tasks', { data: { queue: QUEUE, ...body } });
  expect(res.status(), await res.text()).toBe(201);
  const json = await res.json();
  expect(json.created).toBe(true);
  expect(json.token).toMatch(/^[0-9a-f-]{36}$/);
  return json.token as string;
}

async function statusOf(request: APIRequestContext, token: string) {
  const res = await request.get(`/api/tasks/${token}`);
  expect(res.status()).toBe(200);
  return res.json();
}

async function waitForStatus(request: APIRequestContext, token: string, status: string, timeout = 15_000) {
  await expect.poll(async () => (await statusOf(request, token)).status, { timeout }).toBe(status);
  return statusOf(request, token);
}

async function expect400(res: APIResponse, field: string) {
  expect(res.status(), await res.text()).toBe(400);
  const body = await res.json();
  expect(body.field).toBe(field);
  expect(typeof body.error).toBe('string');
}

async function setPool(request: APIRequestContext, workers: number) {
  const res = await request.patch('/api/pool', { data: { workers } });
  expect(res.status(), await res.text()).toBe(200);
  expect(await res.json()).toMatchObject({ size: workers });
}

test('a demo.echo task goes from POST to succeeded, with its attempt in the history and the log', async ({ request }) => {
  const token = await enqueue(request, { command: 'demo.echo', payload: { hello: 'api' } });
  const first = await statusOf(request, token);
  expect(first.token).toBe(token);
  expect(first.command).toBe('demo.echo');
  expect(first.queue).toBe(QUEUE);
  expect(first.caller).toBe('api');
  expect(['pending', 'running', 'succeeded']).toContain(first.status);

  const done = await waitForStatus(request, token, 'succeeded');
  expect(done.result).toEqual({ hello: 'api' });
  expect(done.attempts).toBe(1);
  expect(done.history).toHaveLength(1);
  expect(done.history[0].outcome).toBe('succeeded');
  expect(typeof done.history[0].session).toBe('number');
  expect(done.history[0].workerId).toBeTruthy();

  const log = await (await request.get(`/api/log?queue=${QUEUE}&outcome=succeeded&limit=50`)).json();
  expect(log.items.some((a: { token: string }) => a.token === token)).toBe(true);
  const tasks = await (await request.get(`/api/tasks?queue=${QUEUE}&status=succeeded`)).json();
  expect(tasks.items.some((t: { token: string }) => t.token === token)).toBe(true);
});

test('bad input is a 400 naming the field', async ({ request }) => {
  await expect400(await request.post('/api/tasks', { headers: { 'content-type': 'application/json' }, data: '{"command":' }), 'body');
  await expect400(await request.post('/api/tasks', { data: { command: 'no.such.handler' } }), 'command');
  await expect400(await request.post('/api/tasks', { data: { command: 'demo.echo', priority: 'high' } }), 'priority');
  await expect400(await request.post('/api/tasks', { data: { command: 'demo.echo', maxAttempts: 0 } }), 'maxAttempts');
  await expect400(await request.post('/api/tasks', { data: { command: 'demo.echo', runAt: 'tomorrow' } }), 'runAt');
  await expect400(await request.post('/api/tasks', { data: { command: 'demo.echo', colour: 'red' } }), 'colour');
  await expect400(
    await request.post('/api/tasks', { data: { command: 'demo.echo', payload: { blob: 'x'.repeat(300 * 1024) } } }),
    'payload',
  );
  await expect400(await request.post('/api/tasks', { data: { command: 'demo.echo', queue: "x'; DROP TABLE Tasks;--" } }), 'queue');
  // sql tasks need READPAST_ALLOW_SQL=1, which this server does not have
  await expect400(await request.post('/api/tasks', { data: { kind: 'sql', command: 'SELECT 1' } }), 'kind');
  await expect400(await request.get('/api/tasks/not-a-token'), 'token');
  await expect400(await request.get('/api/tasks?status=exploded'), 'status');
  await expect400(await request.get('/api/log?from=yesterday'), 'from');
  await expect400(await request.get('/api/metrics?minutes=0'), 'minutes');
  await expect400(await request.patch('/api/pool', { data: { workers: 65 } }), 'workers');
  await expect400(await request.patch('/api/pool', { data: { workers: 1.5 } }), 'workers');
  await expect400(await request.post('/api/engine/drain?maxMs=600000'), 'maxMs');

  const before = await (await request.get(`/api/tasks?queue=${QUEUE}&q=no.such.handler`)).json();
  expect(before.items).toHaveLength(0);
});

test('a body over 1 MiB is refused with 413', async ({ request }) => {
  const res = await request.post('/api/tasks', {
    headers: { 'content-type': 'application/json' },
    data: JSON.stringify({ command: 'demo.echo', payload: { blob: 'y'.repeat(1100 * 1024) } }),
  });
  expect(res.status()).toBe(413);
  expect((await res.json()).field).toBe('body');
});

test('unknown tokens and paths are 404', async ({ request }) => {
  expect((await request.get(`/api/tasks/${UNKNOWN}`)).status()).toBe(404);
  expect((await request.post(`/api/tasks/${UNKNOWN}/retry`)).status()).toBe(404);
  expect((await request.post(`/api/tasks/${UNKNOWN}/cancel`)).status()).toBe(404);
  expect((await request.delete(`/api/tasks/${UNKNOWN}`)).status()).toBe(404);
  const res = await request.get('/api/no-such-route');
  expect(res.status()).toBe(404);
  expect((await res.json()).error).toContain('/api/no-such-route');
  // a queue no task has named: its tokens are not found either, as its settings and changes are
  const queue = `api-e2e-none-${Date.now().toString(36)}`;
  for (const path of [`/api/queues/${queue}/tokens`, `/api/queues/${queue}`, `/api/queues/${queue}/changes`]) {
    const r = await request.get(path);
    expect(r.status(), path).toBe(404);
    expect((await r.json()).error, path).toBe(`no queue ${queue}`);
  }
});

test('transitions the state forbids are 409', async ({ request }) => {
  const token = await enqueue(request, { command: 'demo.echo', payload: { n: 1 } });
  await waitForStatus(request, token, 'succeeded');
  const retry = await request.post(`/api/tasks/${token}/retry`);
  expect(retry.status()).toBe(409);
  expect((await retry.json()).error).toMatch(/dead or cancelled/);
  expect((await request.post(`/api/tasks/${token}/cancel`)).status()).toBe(409);

  const del = await request.delete(`/api/tasks/${token}`);
  expect(del.status()).toBe(200);
  expect(await del.json()).toEqual({ status: 'deleted' });
  expect((await request.get(`/api/tasks/${token}`)).status()).toBe(404);
});

test('retrying a dead task whose dedup key another task now holds is 409, naming that task', async ({ request }) => {
  const dedupKey = `api-e2e-key-${Date.now().toString(36)}`;
  const dead = await enqueue(request, { command: 'demo.fail', payload: { message: 'once' }, maxAttempts: 1, dedupKey });
  await waitForStatus(request, dead, 'dead');
  // the key is free again once its task is dead: a new task takes it (delayed: it stays unfinished)
  const runAt = new Date(Date.now() + 3600_000).toISOString();
  const holder = await enqueue(request, { command: 'demo.echo', payload: { n: 1 }, dedupKey, runAt });
  const retry = await request.post(`/api/tasks/${dead}/retry`);
  expect(retry.status()).toBe(409);
  expect((await retry.json()).error).toBe(`dedup key "${dedupKey}" is held by task ${holder} (pending)`);
  expect((await statusOf(request, dead)).status).toBe('dead');
  // once the holder is done with it, the retry goes through
  expect((await request.post(`/api/tasks/${holder}/cancel`)).status()).toBe(200);
  expect((await request.post(`/api/tasks/${dead}/retry`)).status()).toBe(200);
  await waitForStatus(request, dead, 'dead');
});

test('a pending delayed task can be cancelled, then retried', async ({ request }) => {
  const runAt = new Date(Date.now() + 3600_000).toISOString();
  const token = await enqueue(request, { command: 'demo.sleep', payload: { ms: 10 }, runAt });
  expect((await statusOf(request, token)).status).toBe('pending');

  const cancel = await request.post(`/api/tasks/${token}/cancel`);
  expect(cancel.status()).toBe(200);
  expect(await cancel.json()).toEqual({ status: 'cancelled' });
  expect((await statusOf(request, token)).status).toBe('cancelled');
  expect((await request.post(`/api/tasks/${token}/cancel`)).status()).toBe(409);

  const retry = await request.post(`/api/tasks/${token}/retry`);
  expect(retry.status()).toBe(200);
  expect(await retry.json()).toEqual({ status: 'retried' });
  await waitForStatus(request, token, 'succeeded');
});

test('a dead task shows in failures, grouped by message; retry and delete by filter', async ({ request }) => {
  const message = `api-e2e failure ${Date.now()}`;
  const token = await enqueue(request, { command: 'demo.fail', payload: { message, number: 4242 }, maxAttempts: 1 });
  const dead = await waitForStatus(request, token, 'dead');
  expect(dead.lastError).toMatchObject({ number: 4242, message });
  expect(dead.history[0]).toMatchObject({ outcome: 'failed', errorNumber: 4242, errorMessage: message });

  const failures = await (await request.get(`/api/failures?queue=${QUEUE}`)).json();
  const group = failures.groups.find((g: { message: string }) => g.message === message);
  expect(group).toMatchObject({ queue: QUEUE, command: 'demo.fail', count: 1, sampleToken: token });
  expect(failures.dead.some((t: { token: string }) => t.token === token)).toBe(true);

  await expect400(await request.post('/api/failures/retry', { data: { queue: QUEUE, colour: 'red' } }), 'colour');
  const retried = await request.post('/api/failures/retry', { data: { queue: QUEUE, message } });
  expect(await retried.json()).toEqual({ count: 1, skipped: { dedupKeyHeld: 0 } });
  const again = await waitForStatus(request, token, 'dead');
  expect(again.history).toHaveLength(2);

  const deleted = await request.post('/api/failures/delete', { data: { queue: QUEUE, message } });
  expect(await deleted.json()).toEqual({ count: 1 });
  expect((await request.get(`/api/tasks/${token}`)).status()).toBe(404);
});

test('PATCH /api/pool resizes the workers GET /api/workers reports', async ({ request }) => {
  const initial = await (await request.get('/api/workers')).json();
  expect(initial.pool).toMatchObject({ role: 'web' });
  const { pid, size } = initial.pool as { pid: number; size: number };
  const ours = (w: { workers: { pid: number; role: string; state: string }[] }) =>
    w.workers.filter((x) => x.pid === pid && x.role === 'web' && x.state === 'running').length;
  expect(ours(initial)).toBe(size);

  try {
    await setPool(request, 2);
    await expect.poll(async () => ours(await (await request.get('/api/workers')).json())).toBe(2);
    await setPool(request, 6);
    const after = await (await request.get('/api/workers')).json();
    expect(after.pool.size).toBe(6);
    expect(ours(after)).toBe(6);
    expect(after).toHaveProperty('liveStatus');
  } finally {
    await setPool(request, size);
  }
});

test('with no local workers, POST /api/engine/drain runs due tasks within maxMs', async ({ request }) => {
  const { size } = (await (await request.get('/api/workers')).json()).pool as { size: number };
  try {
    await setPool(request, 0);
    const token = await enqueue(request, { command: 'demo.echo', payload: { drained: true } });
    expect((await statusOf(request, token)).status).toBe('pending');

    const res = await request.post('/api/engine/drain?maxMs=10000');
    expect(res.status(), await res.text()).toBe(200);
    const { processed } = await res.json();
    expect(processed).toBeGreaterThanOrEqual(1);
    const done = await statusOf(request, token);
    expect(done.status).toBe('succeeded');
    expect(done.result).toEqual({ drained: true });
  } finally {
    await setPool(request, size);
  }
});

test('read routes answer with their documented shapes', async ({ request }) => {
  const stats = await (await request.get('/api/stats')).json();
  expect(stats.totals).toEqual(
    expect.objectContaining({ pending: expect.any(Number), succeeded: expect.any(Number), dead: expect.any(Number) }),
  );
  expect(Array.isArray(stats.queues)).toBe(true);

  const metrics = await (await request.get('/api/metrics?minutes=1')).json();
  expect(metrics.points.length).toBeGreaterThanOrEqual(60);
  expect(metrics.points[0]).toEqual(
    expect.objectContaining({ at: expect.any(String), succeeded: expect.any(Number), failed: expect.any(Number) }),
  );

  const running = await (await request.get('/api/running')).json();
  expect(Array.isArray(running.items)).toBe(true);

  const handlers = await (await request.get('/api/handlers')).json();
  expect(handlers.handlers).toEqual(expect.arrayContaining(['demo.echo', 'demo.fail', 'demo.flaky', 'demo.sleep']));

  const page1 = await (await request.get('/api/log?limit=1')).json();
  if (page1.nextCursor !== null) {
    const page2 = await (await request.get(`/api/log?limit=1&cursor=${page1.nextCursor}`)).json();
    expect(page2.items[0].id).toBeLessThan(page1.items[0].id);
  }
});

test('a cross-site write is refused', async ({ request }) => {
  const res = await request.post('/api/tasks', { headers: { origin: 'https://evil.example' }, data: { command: 'demo.echo' } });
  expect(res.status()).toBe(403);
});
