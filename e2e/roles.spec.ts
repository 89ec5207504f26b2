// Roles and the audit trail, against a second `next start` of the same build with credentials:
// READPAST_AUTH is the operator, READPAST_VIEWERS read-only users. Every mutating route of the route
// table (found by reading app/**/route.ts, so a new route cannot be forgotten) answers 403 to a viewer;
// the operator's changes appear in the audit log with who and from where.
import { expect, test, type APIRequestContext } from '@playwright/test';
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { enqueue, unique, waitForStatus } from './helpers';

const PORT = Number(process.env.E2E_PORT ?? 3210) + 7;
const BASE = `http://127.0.0.1:${PORT}`;
const OPERATOR = { username: 'op', password: 'op-secret-1' };
const VIEWER = { username: 'helpdesk', password: 'look-only-2' };
const basic = (c: { username: string; password: string }) => 'Basic ' + Buffer.from(`${c.username}:${c.password}`).toString('base64');

const MUTATING = ['POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** every route file under app/ with the mutating methods it exports, and a concrete URL for it */
function routeTable(): { url: string; method: string; file: string }[] {
  const out: { url: string; method: string; file: string }[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name === 'route.ts') {
        const src = readFileSync(p, 'utf8');
        const path = relative('app', p).split(sep).slice(0, -1);
        const url =
          '/' +
          path
            .map((seg) =>
              seg.startsWith('[...')
                ? 'anything/else'
                : seg === '[token]'
                  ? '00000000-0000-4000-8000-00000000abcd'
                  : seg === '[id]'
                    ? '1'
                    : seg.startsWith('[')
                      ? 'some-name'
                      : seg,
            )
            .join('/');
        for (const m of MUTATING) {
          if (new RegExp(`export\\s+(const|async\\s+function|function)\\s+${m}\\b`).test(src)) out.push({ url, method: m, file: p });
        }
      }
    }
  };
  walk('app');
  return out;
}

let server: ChildProcess | null = null;
let output = '';

test.beforeAll(async () => {
  test.setTimeout(120_000);
  const db = join(process.cwd(), '.tmp', `roles-${Date.now()}-${process.pid}.db`);
  server = spawn('npx', ['next', 'start', '-H', '127.0.0.1', '-p', String(PORT)], {
    env: {
      ...process.env,
      READPAST_DATABASE_URL: `sqlite:${db}`,
      READPAST_WORKERS: '2',
      READPAST_AUTH: `${OPERATOR.username}:${OPERATOR.password}`,
      READPAST_VIEWERS: `${VIEWER.username}:${VIEWER.password},auditor:also-look-3`,
      NEXT_TELEMETRY_DISABLED: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  server.stdout!.on('data', (d) => (output += d));
  server.stderr!.on('data', (d) => (output += d));
  await expect
    .poll(
      async () => {
        try {
          return (await fetch(`${BASE}/api/stats`, { headers: { authorization: basic(OPERATOR) } })).status;
        } catch {
          return 0;
        }
      },
      { timeout: 90_000, intervals: [500] },
    )
    .toBe(200);
});

test.afterAll(async () => {
  if (server?.pid) {
    try {
      process.kill(-server.pid, 'SIGTERM');
    } catch {
      /* gone */
    }
  }
});

test('a viewer reads every page and GET route but gets 403 on every mutating route and server action', async () => {
  const routes = routeTable();
  // the table is read from the files: it must find the routes we know of
  expect(routes.map((r) => `${r.method} ${r.url}`)).toEqual(
    expect.arrayContaining([
      'POST /api/tasks',
      'PATCH /api/queues/some-name',
      'POST /api/tasks/00000000-0000-4000-8000-00000000abcd/retry',
    ]),
  );
  expect(routes.length).toBeGreaterThanOrEqual(12);
  const wrong: string[] = [];
  for (const r of routes) {
    const res = await fetch(BASE + r.url, {
      method: r.method,
      headers: { authorization: basic(VIEWER), 'content-type': 'application/json' },
      body: '{}',
    });
    if (res.status !== 403) wrong.push(`${r.method} ${r.url} (${r.file}) → ${res.status}`);
    // the bearer form of a viewer's password is a viewer too (on the API: elsewhere a bearer proves nothing, 401)
    const bearer = await fetch(BASE + r.url, { method: r.method, headers: { authorization: `Bearer ${VIEWER.password}` }, body: '{}' });
    const expected = r.url.startsWith('/api/') ? 403 : 401;
    if (bearer.status !== expected) wrong.push(`${r.method} ${r.url} with a viewer's bearer → ${bearer.status}`);
  }
  expect(wrong).toEqual([]);
  // a server action is a POST to a page with a Next-Action header: refused before it is looked up
  for (const page of ['/', '/queues', '/tasks', '/failed', '/workers']) {
    const res = await fetch(BASE + page, {
      method: 'POST',
      headers: { authorization: basic(VIEWER), 'next-action': 'abcdef0123456789', 'content-type': 'text/plain' },
      body: '[]',
    });
    expect(res.status, page).toBe(403);
  }
  // reading works
  for (const url of ['/api/stats', '/api/queues', '/api/audit', '/api/tasks', '/', '/audit', '/queues']) {
    const res = await fetch(BASE + url, { headers: { authorization: basic(VIEWER) } });
    expect(res.status, url).toBe(200);
  }
  // nobody else gets in
  expect((await fetch(BASE + '/api/stats')).status).toBe(401);
  expect(
    (await fetch(BASE + '/api/stats', { headers: { authorization: basic({ username: 'helpdesk', password: 'op-secret-1' }) } })).status,
  ).toBe(401);
});

test('the operator acts from the API and the dashboard; each change is in the audit log with who and from where', async ({
  browser,
  playwright,
}) => {
  const api: APIRequestContext = await playwright.request.newContext({
    baseURL: BASE,
    extraHTTPHeaders: { authorization: basic(OPERATOR) },
  });
  const queue = unique('audited');
  // API: a limit, an enqueue, a failing task retried
  expect((await api.patch(`/api/queues/${queue}`, { data: { concurrencyLimit: 3 } })).status()).toBe(200);
  const token = await enqueue(api, { command: 'demo.fail', queue, maxAttempts: 1, payload: { message: 'boom' } });
  await waitForStatus(api, token, 'dead');
  expect((await api.post(`/api/tasks/${token}/retry`)).status()).toBe(200);

  const audit = async (q: string) => ((await (await api.get(`/api/audit?${q}`)).json()) as { items: Record<string, unknown>[] }).items;
  await expect.poll(async () => (await audit(`target=${queue}`)).length).toBe(1);
  expect((await audit(`target=${queue}`))[0]).toMatchObject({
    actor: 'op',
    source: 'api',
    action: 'queue.update',
    before: { concurrencyLimit: null },
    after: { concurrencyLimit: 3 },
  });
  expect((await audit(`target=${token}`)).map((a) => a.action)).toEqual(['task.retry', 'task.enqueue']);

  // the dashboard: pause the queue from the Queues page, as the operator
  const ctx = await browser.newContext({ baseURL: BASE, httpCredentials: OPERATOR });
  const page = await ctx.newPage();
  await page.goto(`/queues?queue=${encodeURIComponent(queue)}`);
  await page.getByTestId('pause-switch').first().click();
  await expect.poll(async () => (await audit(`target=${queue}&action=queue.update`)).length, { timeout: 15_000 }).toBe(2);
  expect((await audit(`target=${queue}&action=queue.update`))[0]).toMatchObject({ actor: 'op', source: 'ui', after: { paused: true } });

  // the Audit page lists them, newest first, and filters
  await page.goto(`/audit?target=${encodeURIComponent(queue)}`);
  await expect(page.getByTestId('audit-action')).toHaveText(['queue.update', 'queue.update']);
  await expect(page.getByTestId('audit-actor').first()).toHaveText('op');
  await page.screenshot({ path: 'test-results/audit-page.png', fullPage: true });

  // the queue's change history is a view of the audit log
  const changes = (await (await api.get(`/api/queues/${queue}/changes`)).json()) as { changes: Record<string, unknown>[] };
  expect(changes.changes.map((c) => [c.field, c.oldValue, c.newValue, c.changedBy])).toEqual([
    ['paused', 'false', 'true', 'op'],
    ['concurrencyLimit', 'unlimited', '3', 'op'],
  ]);

  // a viewer sees the pages without the controls it would be refused
  const viewer = await browser.newContext({ baseURL: BASE, httpCredentials: VIEWER });
  const vp = await viewer.newPage();
  await vp.goto(`/queues?queue=${encodeURIComponent(queue)}`);
  await expect(vp.getByText(queue).first()).toBeVisible();
  await expect(vp.getByTestId('pause-switch')).toHaveCount(0);
  await vp.goto(`/tasks/${token}`);
  await expect(vp.getByTestId('task-status').first()).toBeVisible();
  await expect(vp.getByRole('button', { name: /retry|cancel|delete/i })).toHaveCount(0);
  await vp.screenshot({ path: 'test-results/viewer-task.png', fullPage: true });
  await ctx.close();
  await viewer.close();
  await api.dispose();
  expect(output).not.toMatch(/\n\s+at .*\(/); // no stack traces in the server log
});
