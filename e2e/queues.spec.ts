// The Queues page against the real server: a limit of 1 grants one token, raising it to 2 in place
// grants a second one, the change is recorded as 1 → 2, and the pause switch pauses the queue.
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { enqueue, unique, waitForStatus } from './helpers';

interface QueueJson {
  name: string;
  concurrencyLimit: number | null;
  paused: boolean;
  running: number;
  pending: number;
  granted: number;
}
interface ChangeJson {
  queue: string;
  field: string;
  oldValue: string;
  newValue: string;
  changedBy: string;
}

async function queueOf(request: APIRequestContext, name: string): Promise<QueueJson> {
  const res = await request.get(`/api/queues/${name}`);
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()) as QueueJson;
}

function collectErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    // the browser asks for /favicon.ico by itself; the app has no icon of its own
    if (m.type() === 'error' && !m.location().url.endsWith('/favicon.ico')) errors.push(m.text());
  });
  return errors;
}

test('a limit of 1 grants one token; raising it to 2 in place grants two; the history shows 1 → 2; pause pauses', async ({
  page,
  request,
}) => {
  const name = unique('ui-limit');
  const set = await request.patch(`/api/queues/${name}`, { data: { concurrencyLimit: 1 } });
  expect(set.status(), await set.text()).toBe(200);
  const errors = collectErrors(page);

  await page.goto(`/queues?queue=${name}`);
  await expect(page.getByRole('heading', { level: 1, name: 'Queues' })).toBeVisible();
  const row = page.locator(`[data-testid="queue-row"][data-queue="${name}"]`);
  await expect(row).toHaveAttribute('data-limit', '1');
  await expect(row.getByTestId('limit-input')).toHaveValue('1');
  await expect(page.getByTestId('tokens-card')).toContainText(name);

  const tokens: string[] = [];
  // long enough that no task ends while the page is read, on a busy machine too (cancelled at the end)
  for (let i = 0; i < 3; i++) tokens.push(await enqueue(request, { command: 'demo.sleep', queue: name, payload: { ms: 120_000 } }));

  // exactly one grant, held by one of the three tasks, on a worker with a session
  const grants = page.locator(`[data-testid="token-row"][data-queue="${name}"][data-status="granted"]`);
  await expect(grants).toHaveCount(1);
  await expect(grants.first().getByTestId('token-no')).toHaveText('#1');
  expect(tokens).toContain(await grants.first().getAttribute('data-token'));
  await expect(grants.first().getByTestId('token-session')).toHaveText(/^\d+$/);
  await expect(grants.first().getByTestId('token-age')).toBeVisible();
  await expect(row.getByTestId('gauge-text')).toHaveText('1 / 1');
  await expect(row.getByTestId('queue-pending')).toHaveText('2');
  // the grantee links to its task
  await expect(grants.first().getByTestId('token-grantee')).toHaveAttribute('href', /^\/tasks\/[0-9a-f-]{36}$/);

  // an invalid limit is refused before it is sent
  await row.getByTestId('limit-input').fill('0');
  await expect(row.getByTestId('limit-invalid')).toBeVisible();
  await expect(row.getByTestId('limit-save')).toHaveCount(0);

  // raise it to 2 in place: a second task gets a token
  await row.getByTestId('limit-input').fill('2');
  await row.getByTestId('limit-save').click();
  await expect(page.getByTestId('toast-success')).toContainText(`${name}: limit 1 → 2`);
  await expect(row).toHaveAttribute('data-limit', '2');
  await expect(grants).toHaveCount(2);
  await expect(row.getByTestId('gauge-text')).toHaveText('2 / 2');
  const grantees = await grants.evaluateAll((els) => els.map((e) => e.getAttribute('data-token')));
  expect(new Set(grantees).size).toBe(2);
  for (const g of grantees) expect(tokens).toContain(g);
  expect(await queueOf(request, name)).toMatchObject({ concurrencyLimit: 2 });

  // the change history shows it, made from the dashboard
  const change = page.locator(`[data-testid="change-row"][data-queue="${name}"][data-field="concurrencyLimit"]`).first();
  await expect(change.getByTestId('change-value')).toHaveText('1 → 2');
  await expect(change.getByTestId('change-by')).toHaveText('dashboard');
  const recorded = (await (await request.get(`/api/queues/${name}/changes`)).json()) as { changes: ChangeJson[] };
  expect(recorded.changes.map((c) => [c.field, c.oldValue, c.newValue, c.changedBy])).toEqual([
    ['concurrencyLimit', '1', '2', 'dashboard'],
    ['concurrencyLimit', 'unlimited', '1', 'api'],
  ]);

  // the pause switch pauses the queue (the API says so) and records the change
  const toggle = row.getByTestId('pause-switch');
  await expect(toggle).toHaveAttribute('aria-checked', 'false');
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-checked', 'true');
  await expect(row).toHaveAttribute('data-paused', 'true');
  await expect.poll(async () => (await queueOf(request, name)).paused).toBe(true);
  await expect(
    page.locator(`[data-testid="change-row"][data-queue="${name}"][data-field="paused"]`).first().getByTestId('change-value'),
  ).toHaveText('active → paused');

  // resume; the third task gets the token a cancelled one gave back, and once all are cancelled the grants go away
  await toggle.click();
  await expect.poll(async () => (await queueOf(request, name)).paused).toBe(false);
  const holders = new Set(grantees);
  const third = tokens.find((t) => !holders.has(t))!;
  expect((await request.post(`/api/tasks/${grantees[0]}/cancel`)).status()).toBe(200);
  await waitForStatus(request, grantees[0]!, 'cancelled', 30_000);
  await expect(grants.and(page.locator(`[data-token="${third}"]`))).toHaveCount(1, { timeout: 30_000 });
  for (const t of tokens) if (t !== grantees[0]) expect((await request.post(`/api/tasks/${t}/cancel`)).status()).toBe(200);
  for (const t of tokens) await waitForStatus(request, t, 'cancelled', 30_000);
  await expect(grants).toHaveCount(0);
  await expect(page.getByTestId('tokens-empty')).toBeVisible();
  expect(errors).toEqual([]);
});

test('unlimited in place, and back; the Queues page fits a phone', async ({ page, request }) => {
  const name = unique('ui-unlim');
  expect((await request.patch(`/api/queues/${name}`, { data: { concurrencyLimit: 3 } })).status()).toBe(200);
  await page.setViewportSize({ width: 390, height: 844 });
  const errors = collectErrors(page);
  await page.goto(`/queues?queue=${name}`);
  const row = page.locator(`[data-testid="queue-row"][data-queue="${name}"]`);
  await expect(row.getByTestId('limit-input')).toHaveValue('3');

  await row.getByTestId('limit-unlimited').check();
  await expect(row.getByTestId('limit-input')).toBeDisabled();
  await row.getByTestId('limit-save').click();
  await expect(row).toHaveAttribute('data-limit', 'unlimited');
  await expect(row.getByTestId('gauge-text')).toHaveText('0 running');
  expect(await queueOf(request, name)).toMatchObject({ concurrencyLimit: null });

  await row.getByTestId('limit-unlimited').uncheck();
  await row.getByTestId('limit-input').fill('4');
  await row.getByTestId('limit-input').press('Enter');
  await expect(row).toHaveAttribute('data-limit', '4');
  await expect(page.locator(`[data-testid="change-row"][data-queue="${name}"]`).first().getByTestId('change-value')).toHaveText(
    'unlimited → 4',
  );

  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow, '/queues scrolls sideways').toBeLessThanOrEqual(0);
  expect(errors).toEqual([]);
});
