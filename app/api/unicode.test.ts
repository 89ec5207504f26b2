// Strings that are not Unicode, through the HTTP API's route handlers (on a real SQLite file, as the dashboard
// opens it): a JSON body may carry a lone surrogate as an escape (`"a\ud800b"`, which JSON.parse accepts). Each
// body below is valid; every string in it is given one in turn, and the answer must be a 400 naming that
// field, with nothing written (lib/engine/text.ts says why: no store keeps such a string).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fieldOf, ILL_FORMED, stringPaths, withLoneSurrogate } from '@/lib/api/test-support/ill-formed';

const dir = mkdtempSync(join(tmpdir(), 'readpast-unicode-api-'));
process.env.READPAST_DATABASE_URL = `sqlite:${join(dir, 'db.sqlite')}`;
process.env.READPAST_WORKERS = '0';

const tasks = await import('./tasks/route');
const task = await import('./tasks/[token]/route');
const bulk = await import('./tasks/bulk/route');
const flows = await import('./flows/route');
const queue = await import('./queues/[name]/route');
const schedules = await import('./schedules/route');
const alerts = await import('./alerts/route');
const batches = await import('./batches/route');
const batchTasks = await import('./batches/[id]/tasks/route');
const failuresRetry = await import('./failures/retry/route');
const { getEngine, stopEngine } = await import('@/lib/server/engine');

beforeAll(async () => {
  await getEngine();
});
afterAll(async () => {
  await stopEngine(0);
  rmSync(dir, { recursive: true, force: true });
});

const request = (method: string, path: string, body: unknown) =>
  new Request(`http://127.0.0.1:3000${path}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const params = <T>(p: T) => ({ params: Promise.resolve(p) });

type Route = (req: Request) => Promise<Response>;

/** Each string of `body` given a lone surrogate in turn: 400 naming it; then the body itself is accepted. */
async function walk(method: string, path: string, route: Route, body: unknown, accepted: number) {
  const paths = stringPaths(body);
  expect(paths.length).toBeGreaterThan(0);
  for (const p of paths) {
    const res = await route(request(method, path, withLoneSurrogate(body, p)));
    const answer = (await res.json()) as { error: string; field?: string };
    expect({ status: res.status, field: answer.field }, JSON.stringify(answer)).toEqual({ status: 400, field: fieldOf(p) });
    expect(answer.error).toMatch(ILL_FORMED);
  }
  const res = await route(request(method, path, body));
  expect(res.status, await res.clone().text()).toBe(accepted);
  return res;
}

const later = '2030-01-01T00:00:00Z';

describe('a lone surrogate in any string of a request body: 400 naming the field', () => {
  it('POST /api/tasks, PATCH /api/tasks/{token}, POST /api/tasks/bulk', async () => {
    const body = {
      command: 'demo.echo',
      queue: 'mail',
      dedupKey: 'd-1',
      concurrencyKey: 'acme',
      runAt: later,
      payload: { who: ['a', { b: 'c' }] },
    };
    const res = await walk('POST', '/api/tasks', tasks.POST, body, 201);
    const { token } = (await res.json()) as { token: string };
    await walk('PATCH', `/api/tasks/${token}`, (r) => task.PATCH(r, params({ token })), { queue: 'mail', payload: { note: 'n' } }, 200);
    await walk('POST', '/api/tasks/bulk', bulk.POST, { action: 'cancel', filter: 'queue=mail' }, 200);
  });

  it('POST /api/flows', async () => {
    const body = {
      name: 'nightly',
      nodes: [
        { id: 'load', command: 'demo.echo', runAt: later, concurrencyKey: 'k', payload: { file: 'a.csv' } },
        { id: 'merge', command: 'demo.echo', dependsOn: [{ id: 'load', onParentFailure: 'run' }] },
      ],
    };
    await walk('POST', '/api/flows', flows.POST, body, 201);
  });

  it('PATCH /api/queues/{name}, POST /api/schedules, POST /api/alerts', async () => {
    await walk(
      'PATCH',
      '/api/queues/mail',
      (r) => queue.PATCH(r, params({ name: 'mail' })),
      { keyFrom: '$.customer', rateLimit: '10/1m' },
      200,
    );
    const schedule = { name: 'nightly', cron: '0 3 * * *', timezone: 'UTC', command: 'demo.echo', queue: 'mail', payload: { a: 'b' } };
    await walk('POST', '/api/schedules', schedules.POST, schedule, 201);
    // (a rule's webhook must point at a public address: refused before that is looked up, the rule is not saved)
    const rule = {
      name: 'dead-mail',
      kind: 'task_dead',
      queue: 'mail',
      command: 'demo.echo',
      url: 'https://hooks.example.invalid/x',
      secret: 's3',
    };
    for (const p of stringPaths(rule)) {
      const res = await alerts.POST(request('POST', '/api/alerts', withLoneSurrogate(rule, p)));
      expect({ status: res.status, field: ((await res.json()) as { field?: string }).field }).toEqual({ status: 400, field: fieldOf(p) });
    }
  });

  it('POST /api/batches/{id}/tasks, POST /api/failures/retry', async () => {
    const created = (await (await batches.POST(request('POST', '/api/batches', {}))).json()) as { id: number };
    const id = String(created.id);
    const body = { tasks: [{ command: 'demo.echo', concurrencyKey: 'k', payload: { n: 'one' } }], stage: 0 };
    await walk('POST', `/api/batches/${id}/tasks`, (r) => batchTasks.POST(r, params({ id })), body, 201);
    await walk('POST', '/api/failures/retry', failuresRetry.POST, { queue: 'mail', message: 'timeout' }, 200);
  });
});
