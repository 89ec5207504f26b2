// The durable handlers' routes on a real SQLite file with a real pool: POST /api/events resumes the task waiting for
// it (201 {id, resumed, tokens}), GET /api/events and /api/events/{id} list it with the task it resumed, the task's
// steps, POST /api/tasks/{token}/wake; every bad input a 400 naming the field, an unknown id a 404, a task that is
// not suspended a 409; each send and wake audited.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pool } from '@/lib/engine/pool';

const dir = mkdtempSync(join(tmpdir(), 'readpast-events-api-'));
process.env.READPAST_DATABASE_URL = `sqlite:${join(dir, 'db.sqlite')}`;
process.env.READPAST_WORKERS = '0';

const events = await import('./route');
const one = await import('./[id]/route');
const wake = await import('../tasks/[token]/wake/route');
const steps = await import('../tasks/[token]/steps/route');
const { getEngine, stopEngine } = await import('@/lib/server/engine');

let pool: Pool;

beforeAll(async () => {
  const { readpast } = await getEngine();
  pool = readpast.createPool({ concurrency: 2, pollMs: 50 });
  await pool.start();
});

afterAll(async () => {
  await pool.stop(1000);
  await stopEngine(0);
  rmSync(dir, { recursive: true, force: true });
});

const BASE = 'http://127.0.0.1:3000';
const post = (path: string, body?: unknown) =>
  new Request(BASE + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
const get = (path: string) => new Request(BASE + path);
const ctx = <K extends string>(key: K, value: string) => ({ params: Promise.resolve({ [key]: value } as Record<K, string>) });

async function expect400(res: Response, field: string) {
  const body = (await res.json()) as { error: string; field?: string };
  expect(res.status, JSON.stringify(body)).toBe(400);
  expect(body.field).toBe(field);
}

async function until(check: () => Promise<boolean>, what: string) {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) expect.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function statusOf(token: string) {
  const { readpast } = await getEngine();
  return readpast.status(token);
}

describe('/api/events and the durable task routes', () => {
  it('an event sent over HTTP resumes the task waiting for it; both are listed; the steps show it', async () => {
    const { readpast } = await getEngine();
    const { token } = await readpast.enqueue({
      command: 'demo.durable',
      payload: { steps: 1, ms: 1, sleepMs: 0, event: 'order.paid', match: { orderId: 42 } },
    });
    await until(async () => (await statusOf(token)).suspended === 'event', 'the task to wait for its event');
    const miss = await events.POST(post('/api/events', { name: 'order.paid', payload: { orderId: 41 } }));
    expect(miss.status).toBe(201);
    expect(await miss.json()).toMatchObject({ resumed: 0, tokens: [] });
    const res = await events.POST(post('/api/events', { name: 'order.paid', payload: { orderId: 42, total: 10 } }));
    expect(res.status).toBe(201);
    const sent = (await res.json()) as { id: number; resumed: number; tokens: string[] };
    expect(sent).toMatchObject({ resumed: 1, tokens: [token] });
    await until(async () => (await statusOf(token)).status === 'succeeded', 'the task to finish');
    expect((await statusOf(token)).result).toEqual({ steps: 1, event: { orderId: 42, total: 10 } });

    const list = (await (await events.GET(get('/api/events?name=order.paid&limit=1'))).json()) as {
      items: { id: number }[];
      nextCursor: number | null;
    };
    expect(list.items.map((e) => e.id)).toEqual([sent.id]);
    expect(list.nextCursor).toBe(sent.id);
    const detail = await (await one.GET(get(`/api/events/${sent.id}`), ctx('id', String(sent.id)))).json();
    expect(detail).toMatchObject({
      name: 'order.paid',
      resumed: 1,
      caller: 'loopback',
      tasks: [{ token, command: 'demo.durable', step: 'approval' }],
    });
    const s = (await (await steps.GET(get(`/api/tasks/${token}/steps`), ctx('token', token))).json()) as { name: string; kind: string }[];
    expect(s.map((x) => [x.name, x.kind])).toEqual([
      ['step 1', 'step'],
      ['approval', 'event'],
      ['finish', 'step'],
    ]);
    const audit = await readpast.audit.list({ limit: 10, action: 'event.send' });
    expect(audit.items[0]).toMatchObject({ source: 'api', action: 'event.send', target: 'order.paid', after: { resumed: 1 } });
  });

  it('wake resumes a sleeping task now; a task not suspended is a 409, an unknown one a 404', async () => {
    const { readpast } = await getEngine();
    const { token } = await readpast.enqueue({ command: 'demo.durable', payload: { steps: 0, sleepMs: 3_600_000 } });
    await until(async () => (await statusOf(token)).suspended === 'sleep', 'the task to sleep');
    const woke = await wake.POST(post(`/api/tasks/${token}/wake`), ctx('token', token));
    expect(await woke.json()).toEqual({ status: 'woken' });
    await until(async () => (await statusOf(token)).status === 'succeeded', 'the woken task to finish');
    const again = await wake.POST(post(`/api/tasks/${token}/wake`), ctx('token', token));
    expect(again.status).toBe(409);
    const unknown = '0190a6a2-0000-7000-8000-000000000000';
    expect((await wake.POST(post(`/api/tasks/${unknown}/wake`), ctx('token', unknown))).status).toBe(404);
    expect((await one.GET(get('/api/events/999999'), ctx('id', '999999'))).status).toBe(404);
    expect((await readpast.audit.list({ limit: 5, action: 'task.wake' })).items[0]).toMatchObject({ target: token, source: 'api' });
  });

  it('bad input: a 400 naming the field', async () => {
    await expect400(await events.POST(post('/api/events', { payload: {} })), 'name');
    await expect400(await events.POST(post('/api/events', { name: 'has spaces' })), 'name');
    await expect400(await events.POST(post('/api/events', { name: 'x', payload: 'y'.repeat(70_000) })), 'payload');
    await expect400(await events.POST(post('/api/events', '{"name":')), 'body');
    await expect400(await events.POST(post('/api/events', [1])), 'body');
    await expect400(await events.GET(get('/api/events?limit=0')), 'limit');
    await expect400(await events.GET(get('/api/events?name=a%20b')), 'name');
    await expect400(await one.GET(get('/api/events/abc'), ctx('id', 'abc')), 'id');
    await expect400(await wake.POST(post('/api/tasks/nope/wake'), ctx('token', 'nope')), 'token');
  });
});
