// Alerts in a real browser against `next start` (with its in-process workers): the JSON API with its
// status codes, then the page — create a rule in the form, send a test to a webhook this spec serves on
// loopback (the first POST answered 500: retried by readpast, delivered on the next attempt, signed),
// see it in the history with its delivery task, delete the rule.
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { unique } from './helpers';

interface Received {
  body: string;
  signature: string | undefined;
}

let server: Server;
let hook: string;
const received: Received[] = [];
const answers: number[] = [];

test.beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ body: Buffer.concat(chunks).toString('utf8'), signature: req.headers['x-readpast-signature'] as string | undefined });
      res.statusCode = answers.shift() ?? 200;
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  hook = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
});

test.afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
});

test('the alerts API: 400 naming the field, 201, 409, 404, the secret masked', async ({ request }) => {
  const name = unique('api-alert');
  const bad = await request.post('/api/alerts', { data: { name, kind: 'task_dead', url: 'ftp://example.com/x' } });
  expect(bad.status()).toBe(400);
  expect(await bad.json()).toMatchObject({ field: 'url' });
  // an internal address is refused (this server allows only loopback: READPAST_WEBHOOK_ALLOW=127.0.0.1/32)
  const metadata = await request.post('/api/alerts', {
    data: { name, kind: 'task_dead', url: 'http://169.254.169.254/latest/meta-data/' },
  });
  expect(metadata.status()).toBe(400);
  expect(await metadata.json()).toEqual({
    field: 'url',
    error: 'url: 169.254.169.254 is a link-local address (the cloud metadata service); allow it with READPAST_WEBHOOK_ALLOW',
  });
  const mapped = await request.post('/api/alerts', { data: { name, kind: 'task_dead', url: 'http://[::ffff:10.0.0.5]/' } });
  expect(mapped.status()).toBe(400);
  expect(await mapped.json()).toMatchObject({ field: 'url' });
  const noCount = await request.post('/api/alerts', { data: { name, kind: 'failure_streak', command: 'x', url: hook } });
  expect(noCount.status()).toBe(400);
  expect(await noCount.json()).toMatchObject({ field: 'count' });

  const created = await request.post('/api/alerts', {
    data: { name, kind: 'ready_age', thresholdMs: 60_000, url: hook, secret: 'abcdef123' },
  });
  expect(created.status(), await created.text()).toBe(201);
  const rule = (await created.json()) as { id: number; secret: string; dedupMs: number; format: string; url: string };
  expect(rule).toMatchObject({ secret: '••••f123', dedupMs: 600_000, format: 'json' });
  // the webhook URL is a credential too: shown as scheme, host and its last 4 characters
  expect(rule.url).toBe(`${new URL(hook).origin}/…hook`);
  expect((await request.post('/api/alerts', { data: { name, kind: 'no_worker', url: hook } })).status()).toBe(409);

  const patched = await request.patch(`/api/alerts/${rule.id}`, { data: { enabled: false, format: 'slack' } });
  expect(patched.status(), await patched.text()).toBe(200);
  expect(await patched.json()).toMatchObject({ enabled: false, format: 'slack', secret: '••••f123' });
  expect((await request.patch(`/api/alerts/${rule.id}`, { data: { dedupMs: -1 } })).status()).toBe(400);
  const list = await (await request.get('/api/alerts')).json();
  expect(JSON.stringify(list)).not.toContain('abcdef123');

  expect((await request.delete(`/api/alerts/${rule.id}`)).status()).toBe(200);
  expect((await request.get(`/api/alerts/${rule.id}`)).status()).toBe(404);
  expect((await request.post(`/api/alerts/${rule.id}/test`)).status()).toBe(404);
  expect((await request.get('/api/alerts/nope')).status()).toBe(400);
  const firings = await request.get('/api/alerts/firings?limit=5');
  expect(firings.status()).toBe(200);
  expect(await firings.json()).toMatchObject({ items: expect.any(Array) });
});

test('create a rule on the Alerts page, send a test, see it delivered in the history', async ({ page, request }) => {
  const name = unique('ui-alert');
  await page.goto('/alerts');
  await expect(page.getByRole('heading', { name: 'Alerts', exact: true })).toBeVisible();
  await page.getByTestId('alert-new').click();
  await page.getByTestId('alert-name').fill(name);
  await page.getByTestId('alert-kind').selectOption('task_dead');
  await page.getByTestId('alert-queue').fill('orders');
  await page.getByTestId('alert-url').fill('ftp://nowhere');
  await expect(page.getByTestId('alert-url-error')).toHaveText('must be an http:// or https:// URL');
  await expect(page.getByTestId('alert-save')).toBeDisabled();
  // an internal address: the server refuses it, the form says why under the field
  await page.getByTestId('alert-url').fill('http://10.0.0.5/hook');
  await page.getByTestId('alert-save').click();
  await expect(page.getByTestId('alert-url-error')).toHaveText('10.0.0.5 is a private address; allow it with READPAST_WEBHOOK_ALLOW');
  await page.getByTestId('alert-url').fill(hook);
  // the refusal was about 10.0.0.5: a changed URL no longer shows it
  await expect(page.getByTestId('alert-url-error')).toHaveCount(0);
  await page.getByTestId('alert-secret').fill('ui-secret-1234');
  await page.getByTestId('alert-form').screenshot({ path: '/tmp/alerts-form.png' });
  await page.getByTestId('alert-save').click();
  await expect(page.getByTestId('alert-form')).toHaveCount(0);

  const row = page.locator(`[data-testid="alert-row"][data-name="${name}"]`);
  await expect(row).toBeVisible();
  await expect(row.getByTestId('alert-watches')).toHaveText('queue orders');
  await expect(row).toContainText('signed (••••1234)');
  await expect(row).not.toContainText('ui-secret-1234');
  await expect(row).toContainText(`${new URL(hook).origin}/…hook`);

  // an edit shows the URL masked and keeps it when the field is left empty
  await row.getByTestId('alert-edit').click();
  await expect(page.getByTestId('alert-url-now')).toContainText(`now ${new URL(hook).origin}/…hook; empty keeps it`);
  await expect(page.getByTestId('alert-url')).toHaveValue('');
  await page.getByTestId('alert-save').click();
  await expect(page.getByTestId('alert-form')).toHaveCount(0);

  // the first POST fails: readpast retries the delivery task with backoff, the second one arrives
  received.length = 0;
  answers.push(500);
  await row.getByTestId('alert-test').click();
  await expect.poll(() => received.length, { timeout: 20_000 }).toBe(2);
  for (const r of received) {
    expect(r.signature).toBe('sha256=' + createHmac('sha256', 'ui-secret-1234').update(r.body).digest('hex'));
  }
  expect(JSON.parse(received[1]!.body)).toMatchObject({ rule: name, kind: 'task_dead', test: true });

  const firing = page.getByTestId('alert-firing').filter({ hasText: name }).first();
  await expect(firing.getByTestId('alert-firing-status')).toHaveText('succeeded', { timeout: 15_000 });
  await expect(firing.getByTestId('alert-firing-message')).toContainText(`test of alert rule ${name}`);
  await page.screenshot({ path: '/tmp/alerts-page.png', fullPage: true });

  // the delivery is a task like any other: two attempts, the first failed with the webhook's answer
  const href = await firing.getByTestId('alert-firing-task').getAttribute('href');
  const token = href!.split('/').pop()!;
  const task = (await (await request.get(`/api/tasks/${token}`)).json()) as { queue: string; attempts: number; status: string };
  expect(task).toMatchObject({ queue: 'readpast.alerts', attempts: 2, status: 'succeeded' });

  await row.getByTestId('alert-delete').click();
  await page.getByTestId('confirm-ok').click();
  await expect(row).toHaveCount(0);
  await expect(page.getByTestId('alert-firing').filter({ hasText: name }).first()).toBeVisible();
});
