// The /api/flows route handlers on a real SQLite file (the engine the dashboard opens): 201 with the flow id
// and tokens, the list and one flow, cancel and retry, 404 for an unknown id, and every bad input a 400
// naming the field (malformed JSON, cycles, unknown ids, self-edges, 10,001 nodes, SQL in ids, wrong types,
// an unknown parent token) or a 413 for a body past the limit.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'readpast-flows-api-'));
process.env.READPAST_DATABASE_URL = `sqlite:${join(dir, 'db.sqlite')}`;
process.env.READPAST_WORKERS = '0';

const flows = await import('./route');
const one = await import('./[id]/route');
const cancel = await import('./[id]/cancel/route');
const retry = await import('./[id]/retry/route');
const tasks = await import('../tasks/route');
const { getEngine, stopEngine } = await import('@/lib/server/engine');
const { MAX_FLOW_BODY_BYTES } = await import('@/lib/server/http');

beforeAll(async () => {
  await getEngine();
});

afterAll(async () => {
  await stopEngine(0);
  rmSync(dir, { recursive: true, force: true });
});

const BASE = 'http://127.0.0.1:3000';
const post = (path: string, body: unknown) =>
  new Request(BASE + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
const get = (path: string) => new Request(BASE + path);
const params = (id: string) => ({ params: Promise.resolve({ id }) });
const later = () => new Date(Date.now() + 3_600_000).toISOString();
const node = (id: string, dependsOn?: unknown) => ({ id, command: 'demo.echo', runAt: later(), ...(dependsOn ? { dependsOn } : {}) });
const diamond = { name: 'api', nodes: [node('load-a'), node('load-b'), node('merge', ['load-a', 'load-b']), node('notify', ['merge'])] };

async function expect400(res: Response, field: string, message?: RegExp) {
  const body = (await res.json()) as { error: string; field?: string };
  expect(res.status, JSON.stringify(body)).toBe(400);
  expect(body.field).toBe(field);
  if (message) expect(body.error).toMatch(message);
}

describe('POST /api/flows', () => {
  it('creates a flow: 201 {flowId, tokens}; GET lists it, shows it, and the waiting nodes by flow', async () => {
    const res = await flows.POST(post('/api/flows', diamond));
    expect(res.status).toBe(201);
    const r = (await res.json()) as { flowId: number; tokens: Record<string, string> };
    expect(Object.keys(r.tokens).sort()).toEqual(['load-a', 'load-b', 'merge', 'notify']);

    const list = (await (await flows.GET(get('/api/flows?unfinished=1&limit=10'))).json()) as { items: { id: number }[] };
    expect(list.items.map((f) => f.id)).toContain(r.flowId);
    const shown = await one.GET(get(`/api/flows/${r.flowId}`), params(String(r.flowId)));
    expect(shown.status).toBe(200);
    const f = (await shown.json()) as { nodes: number; counts: Record<string, number>; edges: unknown[]; createdAt: string };
    expect(f).toMatchObject({ nodes: 4, counts: { waiting: 2, pending: 2 } });
    expect(f.edges).toHaveLength(3);
    expect(f.createdAt).toMatch(/Z$/);

    const waiting = (await (await tasks.GET(get(`/api/tasks?status=waiting&flow=${r.flowId}`))).json()) as {
      items: { flowNode: string; parentsLeft: number }[];
    };
    expect(waiting.items.map((t) => [t.flowNode, t.parentsLeft]).sort()).toEqual([
      ['merge', 2],
      ['notify', 1],
    ]);

    // a continuation over the API, and an unknown parent token refused naming it
    const next = await tasks.POST(post('/api/tasks', { command: 'demo.echo', dependsOn: [r.tokens.notify], onParentFailure: 'run' }));
    expect(next.status).toBe(201);
    await expect400(
      await tasks.POST(post('/api/tasks', { command: 'demo.echo', dependsOn: ['00000000-0000-4000-8000-000000000000'] })),
      'dependsOn.0',
      /no task with token/,
    );

    const c = await cancel.POST(post(`/api/flows/${r.flowId}/cancel`, ''), params(String(r.flowId)));
    expect(c.status).toBe(200);
    expect(((await c.json()) as { cancelled: number }).cancelled).toBeGreaterThanOrEqual(2);
    const again = await retry.POST(post(`/api/flows/${r.flowId}/retry`, ''), params(String(r.flowId)));
    expect(again.status).toBe(200);
    expect(((await again.json()) as { retried: number }).retried).toBeGreaterThanOrEqual(2);
  });

  it('answers every bad input with a 400 naming the field, and creates nothing', async () => {
    const before = (await (await flows.GET(get('/api/flows'))).json()) as { items: unknown[] };
    const bad: [unknown, string, RegExp?][] = [
      ['{"nodes": [', 'body', /malformed JSON/],
      ['', 'body'],
      [{ nodes: [node('a', ['b']), node('b', ['a'])] }, 'nodes', /cycle: (a → b → a|b → a → b)/],
      [{ nodes: [node('a'), node('b', ['c'])] }, 'nodes.1.dependsOn.0', /no node with id "c"/],
      [{ nodes: [node('a', ['a'])] }, 'nodes.0.dependsOn.0', /depends on itself/],
      [{ nodes: Array.from({ length: 10_001 }, (_, i) => ({ id: `n${i}`, command: 'demo.echo' })) }, 'nodes', /at most 10000/],
      [{ nodes: [node("x'); DROP TABLE Tasks;--")] }, 'nodes.0.id'],
      [{ nodes: [node('a'), node('b', ["a'--"])] }, 'nodes.1.dependsOn.0'],
      [{ nodes: { a: {} } }, 'nodes', /list/],
      [{ nodes: [{ id: 7, command: 'demo.echo' }] }, 'nodes.0.id'],
      [{ nodes: [node('a', 'b')] }, 'nodes.0.dependsOn'],
      [{ nodes: [{ id: 'a', command: 'demo.echo', maxAttempts: 'x' }] }, 'nodes.0.maxAttempts'],
      [{ nodes: [{ id: 'a', command: 'no.such.handler' }] }, 'nodes.0.command'],
      [{ nodes: [{ id: 'a', kind: 'sql', command: 'SELECT 1' }] }, 'nodes.0.kind'],
      [{ nodes: [node('a')], onParentFailure: 'sometimes' }, 'onParentFailure'],
      [[node('a')], 'body'],
    ];
    for (const [body, field, message] of bad) await expect400(await flows.POST(post('/api/flows', body)), field, message);
    expect(((await (await flows.GET(get('/api/flows'))).json()) as { items: unknown[] }).items).toEqual(before.items);
  });

  it('takes a body up to 8 MiB (a big flow), refuses one past it with 413', async () => {
    const big = JSON.stringify({ nodes: [{ id: 'a', command: 'demo.echo', payload: { pad: 'x'.repeat(MAX_FLOW_BODY_BYTES) } }] });
    const res = await flows.POST(post('/api/flows', big));
    expect(res.status).toBe(413);
    expect(((await res.json()) as { field: string }).field).toBe('body');
    // more than one task's 1 MiB is fine for a flow: 5,000 nodes with a small payload each
    const nodes = Array.from({ length: 5000 }, (_, i) => ({
      id: `n${i}`,
      command: 'demo.echo',
      runAt: later(),
      payload: { row: i, note: 'y'.repeat(200) },
      ...(i > 0 ? { dependsOn: [`n${i - 1}`] } : {}),
    }));
    const ok = await flows.POST(post('/api/flows', { nodes }));
    expect(ok.status).toBe(201);
    expect(Object.keys(((await ok.json()) as { tokens: object }).tokens)).toHaveLength(5000);
  });

  it('GET and POST on /api/flows/{id}: 400 for a malformed id or query, 404 for an unknown one', async () => {
    await expect400(await one.GET(get('/api/flows/abc'), params('abc')), 'flowId');
    await expect400(await one.GET(get('/api/flows/0'), params('0')), 'flowId');
    await expect400(await cancel.POST(post('/api/flows/1;DROP/cancel', ''), params('1;DROP')), 'flowId');
    expect((await one.GET(get('/api/flows/999999'), params('999999'))).status).toBe(404);
    expect((await cancel.POST(post('/api/flows/999999/cancel', ''), params('999999'))).status).toBe(404);
    expect((await retry.POST(post('/api/flows/999999/retry', ''), params('999999'))).status).toBe(404);
    await expect400(await flows.GET(get('/api/flows?unfinished=maybe')), 'unfinished');
    await expect400(await flows.GET(get('/api/flows?limit=201')), 'limit');
    await expect400(await flows.GET(get('/api/flows?cursor=-1')), 'cursor');
    await expect400(await tasks.GET(get('/api/tasks?flow=x')), 'flow');
  });
});
