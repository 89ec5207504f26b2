// The Batches pages against the real server: a demo staged batch created from the UI advances stage by
// stage on its page (timeline bars appear as attempts start) and completes; release and cancel work
// from the batch's page; the list shows batches with their status.
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { unique, waitForStatus } from './helpers';

function collectErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    // the browser asks for /favicon.ico by itself; the app has no icon of its own
    if (m.type() === 'error' && !m.location().url.endsWith('/favicon.ico')) errors.push(m.text());
  });
  return errors;
}

async function createBatch(request: APIRequestContext, body: Record<string, unknown>): Promise<number> {
  const res = await request.post('/api/batches', { data: body });
  expect(res.status(), await res.text()).toBe(201);
  return ((await res.json()) as { id: number }).id;
}

async function addTasks(request: APIRequestContext, id: number, body: Record<string, unknown>): Promise<string[]> {
  const res = await request.post(`/api/batches/${id}/tasks`, { data: body });
  expect(res.status(), await res.text()).toBe(201);
  return ((await res.json()) as { tokens: string[] }).tokens;
}

async function batchStatus(request: APIRequestContext, id: number): Promise<string> {
  const res = await request.get(`/api/batches/${id}`);
  expect(res.status()).toBe(200);
  return ((await res.json()) as { status: string }).status;
}

test('a demo staged batch created from the UI advances stage by stage and completes', async ({ page }) => {
  test.setTimeout(120_000);
  const errors = collectErrors(page);
  // watch the page from its first draw: the active stage only moves forward, and bars appear in the timeline.
  // The page records what it draws itself (an observer in the page): polls from here, slowed down on a busy
  // machine, would miss a short stage, and the batch may be half done before the checks below are
  await page.addInitScript(() => {
    const w = window as unknown as { seen: number[]; maxBars: number; sawRunningBar: boolean };
    w.seen = [];
    w.maxBars = 0;
    w.sawRunningBar = false;
    const look = () => {
      const stage = document.querySelector('[data-testid="batch-active-stage"]')?.getAttribute('data-stage');
      if (stage) {
        const n = Number(stage);
        if (w.seen[w.seen.length - 1] !== n) w.seen.push(n);
      }
      const chart = '[data-testid="batch-timeline-chart"]';
      w.maxBars = Math.max(w.maxBars, document.querySelectorAll(`${chart} path[data-outcome]`).length);
      if (document.querySelector(`${chart} path[data-outcome="running"]`)) w.sawRunningBar = true;
    };
    new MutationObserver(look).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  });
  await page.goto('/batches');
  await expect(page.getByRole('heading', { level: 1, name: 'Batches' })).toBeVisible();
  await page.getByTestId('create-demo-batch').click();
  await expect(page.getByTestId('toast-success')).toContainText(/Batch \d+ created: 10 tasks in 5 stages/);
  await page.waitForURL(/\/batches\/\d+$/);
  const id = Number(/\/batches\/(\d+)$/.exec(page.url())![1]);
  await expect(page.getByRole('heading', { level: 1 })).toContainText(`#${id}`);
  await expect(page.getByTestId('batch-cap')).toContainText('at most 3 at once');
  await expect(page.getByTestId('batch-on-failure')).toHaveText('continue');
  await expect(page.locator('[data-testid="stage-row"]')).toHaveCount(5);
  await expect(page.getByTestId('batch-total')).toHaveText('10');

  const status = page.getByTestId('batch-status');
  const active = page.getByTestId('batch-active-stage');
  // the batch completes (the product's own long-poll says so), and then the page says so too
  await expect
    .poll(async () => ((await (await page.request.get(`/api/batches/${id}/wait?timeoutMs=10000`)).json()) as { done: boolean }).done, {
      timeout: 90_000,
      intervals: [0],
    })
    .toBe(true);
  await expect(status).toHaveText('completed');
  const { seen, maxBars, sawRunningBar } = await page.evaluate(() => {
    const w = window as unknown as { seen: number[]; maxBars: number; sawRunningBar: boolean };
    return { seen: w.seen, maxBars: w.maxBars, sawRunningBar: w.sawRunningBar };
  });
  expect(seen.length, `stages seen: ${seen.join(', ')}`).toBeGreaterThanOrEqual(3);
  for (let i = 1; i < seen.length; i++) expect(seen[i]!).toBeGreaterThan(seen[i - 1]!);
  expect(seen[seen.length - 1]).toBeLessThanOrEqual(4);
  expect(sawRunningBar, 'a running attempt was drawn while the batch ran').toBe(true);

  // completed: every stage done, a bar per attempt, every task succeeded
  await expect(page.getByTestId('batch-done')).toHaveText('10');
  await expect(active).toHaveAttribute('data-stage', '');
  await expect(page.locator('[data-testid="stage-row"][data-state="done"]')).toHaveCount(5);
  await expect(page.locator('[data-testid="batch-timeline-chart"] path[data-outcome="succeeded"]')).toHaveCount(10);
  expect(maxBars).toBeGreaterThanOrEqual(1);
  await expect(page.locator('[data-testid="batch-task-row"]')).toHaveCount(10);
  await expect(page.locator('[data-testid="batch-task-row"][data-status="succeeded"]')).toHaveCount(10);
  await expect(page.getByTestId('batch-cancel')).toHaveCount(0);

  // a task links to its page, which links back to the batch
  await page.locator('[data-testid="batch-task-row"][data-stage="2"]').getByTestId('batch-task-token').click();
  await expect(page).toHaveURL(/\/tasks\/[0-9a-f-]{36}$/);
  await expect(page.getByTestId('task-batch')).toHaveText(`#${id}, stage 2`);
  await page.getByTestId('task-batch').click();
  await expect(page).toHaveURL(new RegExp(`/batches/${id}$`));

  // the list shows it completed
  await page.goto('/batches');
  const row = page.locator(`[data-testid="batch-row"][data-batch="${id}"]`);
  await expect(row).toHaveAttribute('data-status', 'completed');
  await expect(row.getByTestId('batch-status')).toHaveText('completed');
  await expect(row.locator('[data-testid="stage-strip-item"]')).toHaveCount(5);
  await page.getByTestId('batch-filter-completed').click();
  await expect(page).toHaveURL(/status=completed/);
  await expect(row).toBeVisible();
  await expect(page.locator('[data-testid="batch-row"]:not([data-status="completed"])')).toHaveCount(0);
  expect(errors).toEqual([]);
});

test('release an open batch from its page; it completes', async ({ page, request }) => {
  const queue = unique('ui-release');
  const id = await createBatch(request, { maxParallel: 1 });
  const tokens = await addTasks(request, id, {
    stage: 0,
    tasks: [
      { command: 'demo.sleep', queue, payload: { ms: 300 } },
      { command: 'demo.echo', queue, payload: { n: 1 } },
    ],
  });
  await addTasks(request, id, { command: 'demo.echo', queue, payload: { n: 2 }, stage: 1 });

  await page.goto(`/batches/${id}`);
  await expect(page.getByTestId('batch-status')).toHaveText('open');
  await page.getByTestId('batch-release').click();
  await expect(page.getByTestId('toast-success')).toContainText(`Batch ${id} released`);
  await expect(page.getByTestId('batch-status')).toHaveText(/released|completed/);
  await expect(page.getByTestId('batch-release')).toHaveCount(0);
  // three tasks one at a time, on workers other tests may hold too: the product's long-poll says when they are done
  await expect
    .poll(async () => ((await (await request.get(`/api/batches/${id}/wait?timeoutMs=10000`)).json()) as { done: boolean }).done, {
      timeout: 45_000,
      intervals: [0],
    })
    .toBe(true);
  await expect(page.getByTestId('batch-status')).toHaveText('completed');
  for (const t of tokens) await waitForStatus(request, t, 'succeeded');
  await expect(page.getByTestId('batch-done')).toHaveText('3');
});

test('cancel a running batch from its page after confirming', async ({ page, request }) => {
  const queue = unique('ui-cancel');
  const id = await createBatch(request, { maxParallel: 2 });
  // a long sleep: cancelling fires its AbortSignal, so it ends at once
  const [first] = await addTasks(request, id, { command: 'demo.sleep', queue, payload: { ms: 120_000 }, stage: 0 });
  const later = await addTasks(request, id, { stage: 1, tasks: [1, 2].map((n) => ({ command: 'demo.echo', queue, payload: { n } })) });
  expect((await request.post(`/api/batches/${id}/release`)).status()).toBe(200);
  await waitForStatus(request, first!, 'running');

  await page.goto(`/batches/${id}`);
  await expect(page.getByTestId('batch-status')).toHaveText('released');
  await expect(page.getByTestId('batch-active-stage')).toHaveAttribute('data-stage', '0');

  // the dialog can be dismissed without cancelling anything
  await page.getByTestId('batch-cancel').click();
  await expect(page.getByTestId('confirm-dialog')).toContainText(`Cancel batch ${id}?`);
  await page.getByTestId('confirm-cancel').click();
  expect(await batchStatus(request, id)).toBe('released');

  await page.getByTestId('batch-cancel').click();
  await expect(page.getByTestId('confirm-dialog')).toContainText('2 pending tasks will be cancelled');
  await page.getByTestId('confirm-ok').click();
  await expect(page.getByTestId('toast-success')).toContainText(`Batch ${id} cancelled: 2 pending tasks cancelled`);
  await expect(page.getByTestId('batch-status')).toHaveText('cancelled');
  expect(await batchStatus(request, id)).toBe('cancelled');
  for (const t of later) await waitForStatus(request, t, 'cancelled');
  await waitForStatus(request, first!, 'cancelled');
  await expect(page.locator('[data-testid="batch-task-row"][data-stage="1"][data-status="cancelled"]')).toHaveCount(2);
  await expect(page.getByTestId('batch-cancel')).toHaveCount(0);
});

test('an unknown batch has its own state; the Batches pages fit a phone', async ({ page, request }) => {
  await page.goto('/batches/999999999');
  await expect(page.getByTestId('batch-not-found')).toContainText('no batch 999999999');

  const id = await createBatch(request, {});
  await addTasks(request, id, { command: 'demo.echo', queue: unique('ui-phone'), payload: { phone: true } });
  await page.setViewportSize({ width: 390, height: 844 });
  const errors = collectErrors(page);
  for (const path of ['/batches', `/batches/${id}`]) {
    await page.goto(path);
    await expect(page.getByRole('heading', { level: 1 })).toContainText('Batch');
    await expect(page.getByTestId('loading')).toHaveCount(0);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, `${path} scrolls sideways`).toBeLessThanOrEqual(0);
  }
  await expect(page.getByTestId('batch-status')).toHaveText('open');
  await expect(page.getByTestId('batch-release')).toBeVisible();
  expect(errors).toEqual([]);
});
