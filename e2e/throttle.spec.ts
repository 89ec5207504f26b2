// Throttle on the Queues page against the real server: a per-key limit, a keyFrom path and a rate limit set
// in place (Save, toast, recorded), then seen working — one running task per key, the rate window full with its
// next start, the top keys by running and pending; the Tasks page filtered by key; bad PATCH fields → 400 naming
// them. Screenshots of the Queues page at 1280 and 390 px go to /tmp/fc-shots/.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { enqueue, unique } from './helpers';

const SHOTS = process.env.FC_SHOTS ?? '/tmp/fc-shots';

interface QueueJson {
  name: string;
  perKeyLimit: number | null;
  keyFrom: string | null;
  rateLimit: { limit: number; periodSeconds: number; perKey: boolean } | null;
  rate: { started: number; limit: number; nextAt: string | null } | null;
  keys: { key: string; running: number; pending: number }[];
}

async function queueOf(request: APIRequestContext, name: string): Promise<QueueJson> {
  const res = await request.get(`/api/queues/${name}`);
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()) as QueueJson;
}

async function cancelAll(request: APIRequestContext, tokens: string[]) {
  for (const t of tokens) await request.post(`/api/tasks/${t}/cancel`);
}

/** Set one throttle field of the editor in place: type, Save, and wait for its toast. */
async function setThrottle(page: Page, field: string, typed: string, toast: string) {
  const f = page.locator(`[data-testid="throttle-field"][data-field="${field}"]`);
  await f.getByTestId('throttle-input').fill(typed);
  await f.getByTestId('throttle-save').click();
  await expect(page.getByTestId('toast-success').filter({ hasText: toast })).toBeVisible();
}

test('PATCH /api/queues/{name} refuses bad throttle fields with 400 naming the field', async ({ request }) => {
  const name = unique('fc-api');
  const cases: [Record<string, unknown>, string, RegExp][] = [
    [{ perKeyLimit: 0 }, 'perKeyLimit', /at least 1/],
    [{ perKeyLimit: 'one' }, 'perKeyLimit', /whole number/],
    [{ keyFrom: 'customerId' }, 'keyFrom', /JSON path like \$\.customerId/],
    [{ rateLimit: { limit: 5 } }, 'rateLimit.periodSeconds', /required/],
    [{ rateLimit: { limit: 0, periodSeconds: 60 } }, 'rateLimit.limit', /at least 1/],
    [{ rateLimit: { limit: 5, periodSeconds: 1, perKey: 'yes' } }, 'rateLimit.perKey', /true or false/],
    [{ rateLimit: '5 per hour' }, 'rateLimit', /LIMIT\/PERIOD/],
    [{ rateLimit: '5/2d' }, 'rateLimit', /period must be from 1 s to 86400 s/],
  ];
  for (const [body, field, message] of cases) {
    const res = await request.patch(`/api/queues/${name}`, { data: body });
    expect(res.status(), JSON.stringify(body)).toBe(400);
    const err = (await res.json()) as { error: string; field?: string };
    expect(err.field, JSON.stringify(body)).toBe(field);
    expect(err.error).toMatch(message);
  }
  // nothing was created by the refused patches
  expect((await request.get(`/api/queues/${name}`)).status()).toBe(404);
  // the text form of a rate, and null clearing it
  const ok = await request.patch(`/api/queues/${name}`, { data: { rateLimit: '20/2s per key', perKeyLimit: 2 } });
  expect(ok.status(), await ok.text()).toBe(200);
  expect(await ok.json()).toMatchObject({ perKeyLimit: 2, rateLimit: { limit: 20, periodSeconds: 2, perKey: true } });
  const cleared = await request.patch(`/api/queues/${name}`, { data: { rateLimit: null } });
  expect(await cleared.json()).toMatchObject({ perKeyLimit: 2, rateLimit: null, rate: null });
});

test('set a per-key limit, keyFrom and a rate on the Queues page; see the gauge and top keys; filter tasks by key', async ({
  page,
  request,
}) => {
  test.setTimeout(120_000);
  const name = unique('fc-ui');
  // paused while it is set up: nothing starts before the limits are in place
  expect((await request.patch(`/api/queues/${name}`, { data: { paused: true } })).status()).toBe(200);
  const tokens: string[] = [];
  const sleep = (customerId: string, extra: Record<string, unknown> = {}) =>
    enqueue(request, { command: 'demo.sleep', queue: name, payload: { ms: 30_000, customerId }, ...extra });
  for (let i = 0; i < 3; i++) tokens.push(await sleep('x', { concurrencyKey: 'acme' }));
  tokens.push(await sleep('x', { concurrencyKey: 'beta' }));

  await page.goto('/queues');
  const row = page.locator(`[data-testid="queue-row"][data-queue="${name}"]`);
  const card = page.getByTestId('throttle-card');
  // "throttle" beside the queue's name opens its throttle below the list
  await row.getByTestId('throttle-edit').click();
  await expect(page).toHaveURL(new RegExp(`[?&]queue=${name}`));
  await expect(card).toContainText(name);
  // the keys are there before anything runs: pending only
  await expect(card.locator('[data-testid="top-key"][data-key="acme"]').getByTestId('top-key-pending')).toHaveText('3 pend');

  // an invalid value is refused before it is sent
  const perKey = card.locator('[data-testid="throttle-field"][data-field="perKeyLimit"]');
  await perKey.getByTestId('throttle-input').fill('0');
  await expect(perKey.getByTestId('throttle-invalid')).toBeVisible();
  await expect(perKey.getByTestId('throttle-save')).toHaveCount(0);
  await setThrottle(page, 'perKeyLimit', '1', `${name}: per-key limit none → 1`);
  await expect(row).toHaveAttribute('data-per-key-limit', '1');

  const keyFrom = card.locator('[data-testid="throttle-field"][data-field="keyFrom"]');
  await keyFrom.getByTestId('throttle-input').fill('customer id');
  await expect(keyFrom.getByTestId('throttle-invalid')).toContainText('JSON path');
  await setThrottle(page, 'keyFrom', '$.customerId', `${name}: key from payload none → $.customerId`);
  await setThrottle(page, 'rateLimit', '2/1m', `${name}: rate limit none → 2/1m`);
  await expect(row).toHaveAttribute('data-rate', '2/1m');
  expect(await queueOf(request, name)).toMatchObject({
    perKeyLimit: 1,
    keyFrom: '$.customerId',
    rateLimit: { limit: 2, periodSeconds: 60, perKey: false },
  });
  // a task without a key gets the one keyFrom finds in its payload
  tokens.push(await sleep('zed'));

  // resume: one task per key runs, and the rate's two starts fill the window
  await row.getByTestId('pause-switch').click();
  await expect(row.getByTestId('rate-text')).toHaveText('2 / 2', { timeout: 20_000 });
  await expect(row.getByTestId('rate-gauge')).toHaveAttribute('data-full', 'true');
  await expect(card.getByTestId('rate-next')).toHaveText(/^next start in \d+ s$/);
  const acme = card.locator('[data-testid="top-key"][data-key="acme"]');
  await expect(acme.getByTestId('top-key-running')).toHaveText('1/1 run');
  await expect(acme.getByTestId('top-key-pending')).toHaveText('2 pend');
  await expect(card.locator('[data-testid="top-key"][data-key="beta"]').getByTestId('top-key-running')).toHaveText('1/1 run');
  await expect(card.locator('[data-testid="top-key"][data-key="zed"]').getByTestId('top-key-pending')).toHaveText('1 pend');
  const q = await queueOf(request, name);
  expect(q.rate).toMatchObject({ started: 2, limit: 2 });
  expect(q.rate?.nextAt).not.toBeNull();
  expect(q.keys.find((k) => k.key === 'acme')).toEqual({ key: 'acme', running: 1, pending: 2 });

  // the changes are recorded as made from the dashboard
  for (const [field, value] of [
    ['perKeyLimit', 'none → 1'],
    ['keyFrom', 'none → $.customerId'],
    ['rateLimit', 'none → 2/1m'],
  ] as const) {
    const change = page.locator(`[data-testid="change-row"][data-queue="${name}"][data-field="${field}"]`).first();
    await expect(change.getByTestId('change-value')).toHaveText(value);
    await expect(change.getByTestId('change-by')).toHaveText('dashboard');
  }

  mkdirSync(SHOTS, { recursive: true });
  // as the page opens: the list scrolled to its start (the pause switch's click scrolled it to the end)
  await page.getByTestId('queue-list').evaluate((el) => {
    el.parentElement!.scrollLeft = 0;
  });
  await page.screenshot({ path: join(SHOTS, 'queues-1280.png'), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(row.getByTestId('rate-gauge')).toBeVisible();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow, '/queues scrolls sideways at 390 px').toBeLessThanOrEqual(0);
  await page.screenshot({ path: join(SHOTS, 'queues-390.png'), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });

  // the Tasks page filtered by key: acme's three tasks, each showing its key
  await page.goto(`/tasks?queue=${name}`);
  await page.getByTestId('tasks-filter-key').fill('acme');
  await page.getByTestId('tasks-filter-key').press('Enter');
  await expect(page).toHaveURL(/[?&]key=acme(&|$)/);
  const rows = page.getByTestId('task-row');
  await expect(rows).toHaveCount(3);
  for (const r of await rows.all()) await expect(r.getByTestId('task-key')).toHaveText('key acme');
  await page.screenshot({ path: join(SHOTS, 'tasks-key-1280.png') });
  // the derived key links to its tasks from the task's page
  await page.goto(`/tasks/${tokens[4]}`);
  await expect(page.getByTestId('task-concurrency-key')).toHaveText('zed');
  const api = (await (await request.get(`/api/tasks?queue=${name}&key=zed`)).json()) as { items: { token: string }[] };
  expect(api.items.map((t) => t.token)).toEqual([tokens[4]]);

  await cancelAll(request, tokens);
});
