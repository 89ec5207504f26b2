// "Why isn't it running?" (API route, task page, Queues and Overview), the Running page's payload preview,
// filters, bulk cancel and stale rows, and the Execution log's final-attempt marker, attempt n of max and
// local/UTC times.
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { enqueue, unique, waitForStatus } from './helpers';

const SHOTS = process.env.E2E_SHOTS ?? '/tmp/why-shots';
mkdirSync(SHOTS, { recursive: true });

interface Why {
  reason: string;
  detail: Record<string, unknown>;
  text: string;
}

async function why(request: APIRequestContext, token: string): Promise<Why> {
  const res = await request.get(`/api/tasks/${token}/why`);
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()) as Why;
}

async function setQueue(request: APIRequestContext, name: string, patch: Record<string, unknown>) {
  const res = await request.patch(`/api/queues/${name}`, { data: patch });
  expect(res.status(), await res.text()).toBe(200);
}

async function panelText(page: Page, token: string): Promise<string> {
  await page.goto(`/tasks/${token}`);
  const panel = page.getByTestId('why-panel');
  await expect(panel).toBeVisible();
  await expect(panel.getByTestId('why-text')).not.toBeEmpty();
  return (await panel.getByTestId('why-text').textContent()) ?? '';
}

test('a paused queue: who paused it and when, on the API, the task page, Queues and Overview', async ({ page, request }) => {
  const queue = unique('why-paused');
  await setQueue(request, queue, { paused: true });
  const token = await enqueue(request, { command: 'demo.echo', queue, payload: { n: 1 } });

  const w = await why(request, token);
  expect(w.reason).toBe('paused');
  expect(w.detail).toMatchObject({ queue, by: expect.any(String), at: expect.any(String) });
  // (with its date when the pause was yesterday: a run across midnight UTC)
  expect(w.text).toMatch(/^Queue paused by \S+ at (\d\d:\d\d:\d\d|\d{4}-\d\d-\d\d \d\d:\d\d) UTC$/);

  // the same wording on the task page
  expect(await panelText(page, token)).toBe(w.text);
  await expect(page.getByTestId('why-reason')).toHaveText('paused');
  await page.screenshot({ path: `${SHOTS}/task-why-paused.png`, fullPage: true });

  // per queue: GET /api/queues/{name}/why, the Queues page and the Overview table
  const q = await request.get(`/api/queues/${queue}/why`);
  expect(q.status()).toBe(200);
  expect(await q.json()).toMatchObject({ queue, paused: true, pending: 1, why: { reason: 'paused' } });

  await page.goto('/queues');
  const row = page.locator(`[data-testid="queue-row"][data-queue="${queue}"]`);
  await expect(row.getByTestId('queue-why')).toHaveAttribute('data-reason', 'paused');
  await page.screenshot({ path: `${SHOTS}/queues.png`, fullPage: true });

  await page.goto('/');
  const ov = page.locator(`[data-testid="queue-table"] [data-queue="${queue}"]`);
  await expect(ov.getByTestId('queue-paused')).toBeVisible();
  await expect(ov.getByTestId('queue-why')).toHaveAttribute('data-reason', 'paused');
  await page.screenshot({ path: `${SHOTS}/overview.png`, fullPage: true });

  // resumed: it runs
  await setQueue(request, queue, { paused: false });
  await waitForStatus(request, token, 'succeeded');
  expect((await why(request, token)).reason).toBe('not_pending');
});

test('a full concurrency limit names the tokens and their holder', async ({ page, request }) => {
  const queue = unique('why-limit');
  await setQueue(request, queue, { concurrencyLimit: 1 });
  const holder = await enqueue(request, { command: 'demo.sleep', queue, payload: { ms: 20_000 } });
  await waitForStatus(request, holder, 'running');
  const waiting = await enqueue(request, { command: 'demo.echo', queue, payload: null });

  const w = await why(request, waiting);
  expect(w.reason).toBe('limit_full');
  expect(w.detail).toMatchObject({ held: 1, limit: 1, holders: [{ token: holder }] });
  expect(w.text).toContain('Concurrency limit full: 1 of 1 tokens, held by ' + holder.slice(0, 8));
  expect(await panelText(page, waiting)).toBe(w.text);
  await expect(page.getByTestId('why-panel').getByRole('link', { name: holder.slice(0, 8) })).toBeVisible();
  await page.screenshot({ path: `${SHOTS}/task-why-limit.png`, fullPage: true });

  const res = await request.post(`/api/tasks/${holder}/cancel`);
  expect(res.status()).toBeLessThan(300);
  await waitForStatus(request, waiting, 'succeeded');
});

test('a future run-at is scheduled; an unknown token is 404', async ({ page, request }) => {
  const queue = unique('why-later');
  const runAt = new Date(Date.now() + 3_600_000).toISOString();
  const token = await enqueue(request, { command: 'demo.echo', queue, runAt });
  const w = await why(request, token);
  expect(w.reason).toBe('scheduled');
  expect(Date.parse(String(w.detail.runAt))).toBe(Date.parse(runAt));
  expect(w.text).toMatch(/^Scheduled for .+ \(in (59m|1h) /);
  // the countdown moves on between the two reads: the same sentence up to it
  expect(await panelText(page, token)).toContain(w.text.split(' (in ')[0]!);
  await page.screenshot({ path: `${SHOTS}/task-why-scheduled.png`, fullPage: true });

  const missing = await request.get('/api/tasks/00000000-0000-4000-8000-000000000000/why');
  expect(missing.status()).toBe(404);
  const bad = await request.get('/api/tasks/not-a-token/why');
  expect(bad.status()).toBe(400);
  await request.post(`/api/tasks/${token}/cancel`);
});

test('Running: payload preview, filter, sort, bulk cancel with a count; stale rows with actions disabled', async ({ page, request }) => {
  const queue = unique('why-run');
  const other = unique('why-run-b');
  const a = await enqueue(request, { command: 'demo.sleep', queue, payload: { ms: 30_000, order: 'A-1' } });
  const b = await enqueue(request, { command: 'demo.sleep', queue, payload: { ms: 30_000, order: 'B-2' } });
  const c = await enqueue(request, { command: 'demo.sleep', queue: other, payload: { ms: 30_000 } });
  for (const t of [a, b, c]) await waitForStatus(request, t, 'running');

  await page.goto('/running');
  const rowA = page.locator(`[data-testid="running-row"][data-token="${a}"]`);
  await expect(rowA.getByTestId('running-payload')).toContainText('"order":"A-1"');

  // filter by queue: the other queue's row goes
  await page.getByTestId('running-filter-queue').selectOption(queue);
  await expect(page.locator(`[data-testid="running-row"][data-token="${c}"]`)).toHaveCount(0);
  await expect(page.locator('[data-testid="running-row"]')).toHaveCount(2);
  await page.getByTestId('sort-elapsed').click();
  await expect(page.locator('[data-testid="running-row"]').first()).toHaveAttribute('data-token', a);
  await page.screenshot({ path: `${SHOTS}/running.png`, fullPage: true });

  // the server goes away: rows marked stale, every action disabled, elapsed frozen
  await page.route('**/api/running**', (r) => r.abort());
  await expect(page.getByTestId('running-stale')).toBeVisible({ timeout: 8000 });
  await expect(rowA).toHaveAttribute('data-stale', 'true');
  await expect(rowA.getByTestId('cancel-running')).toBeDisabled();
  await expect(rowA.getByTestId('running-select')).toBeDisabled();
  const frozen = await rowA.getByTestId('running-elapsed').textContent();
  await page.waitForTimeout(1500);
  await expect(rowA.getByTestId('running-elapsed')).toHaveText(frozen ?? '');
  await page.screenshot({ path: `${SHOTS}/running-stale.png`, fullPage: true });

  // back: actions again
  await page.unroute('**/api/running**');
  await expect(page.getByTestId('running-stale')).toHaveCount(0, { timeout: 8000 });
  await expect(rowA.getByTestId('cancel-running')).toBeEnabled();

  // bulk cancel of the selection, confirmed with its count
  await page.getByTestId('running-select-all').check();
  await expect(page.getByTestId('running-selected-count')).toHaveText('2');
  await page.getByTestId('running-bulk-cancel').click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText('Cancel 2 running tasks?');
  await dialog.getByTestId('confirm-ok').click();
  await waitForStatus(request, a, 'cancelled');
  await waitForStatus(request, b, 'cancelled');
  expect((await request.get(`/api/tasks/${c}`).then((r) => r.json())).status).toBe('running');
  const audit = await request.get('/api/audit?action=tasks.bulk_cancel');
  if (audit.status() === 200) {
    const items = ((await audit.json()) as { items: { action: string; count: number | null }[] }).items;
    expect(items[0]).toMatchObject({ action: 'tasks.bulk_cancel', count: 2 });
  }
  await request.post(`/api/tasks/${c}/cancel`);
});

test('Execution log: the attempt that made its task dead, attempt n of max, local/UTC times', async ({ page, request }) => {
  const queue = unique('why-log');
  const dead = await enqueue(request, { command: 'demo.fail', queue, payload: { message: 'boom' }, maxAttempts: 1 });
  const ok = await enqueue(request, { command: 'demo.echo', queue, payload: null, maxAttempts: 3 });
  await waitForStatus(request, dead, 'dead');
  await waitForStatus(request, ok, 'succeeded');

  await page.goto(`/log?queue=${queue}`);
  const deadRow = page.locator(`[data-testid="log-row"][data-token="${dead}"]`);
  const okRow = page.locator(`[data-testid="log-row"][data-token="${ok}"]`);
  await expect(deadRow).toHaveAttribute('data-final', 'true');
  await expect(deadRow.getByTestId('log-final')).toContainText('final');
  await expect(deadRow.getByTestId('log-attempt')).toHaveText('1 of 1');
  await expect(okRow.getByTestId('log-final')).toHaveCount(0);
  await expect(okRow.getByTestId('log-attempt')).toHaveText('1 of 3');

  // UTC: absolute times end in Z, the range pickers say UTC; kept after a reload
  await page.getByTestId('time-mode-utc').click();
  await expect(deadRow.getByTestId('log-abs-time')).toHaveText(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}Z$/);
  await expect(page.getByTestId('filter-from-zone')).toHaveText('(UTC)');
  await page.reload();
  await expect(page.getByTestId('time-mode-utc')).toHaveAttribute('aria-pressed', 'true');
  await expect(deadRow.getByTestId('log-abs-time')).toHaveText(/Z$/);
  await page.screenshot({ path: `${SHOTS}/log.png`, fullPage: true });
  // sticky header: the header cell is position sticky
  expect(
    await page
      .locator('[data-testid="log-table"] thead th')
      .first()
      .evaluate((el) => getComputedStyle(el).position),
  ).toBe('sticky');
  await page.getByTestId('time-mode-local').click();
  await expect(deadRow.getByTestId('log-abs-time')).not.toHaveText(/Z$/);
});

test('no live worker: the reason and the Overview warning', async ({ page, request }) => {
  const queue = unique('why-noworker');
  const resize = async (workers: number) => {
    const r = await request.patch('/api/pool', { data: { workers } });
    expect(r.status(), await r.text()).toBe(200);
  };
  await resize(0);
  try {
    await expect
      .poll(
        async () =>
          ((await (await request.get('/api/stats')).json()) as { workers: { state: string }[] }).workers.filter(
            (w) => w.state === 'running',
          ).length,
        {
          timeout: 15_000,
        },
      )
      .toBe(0);
    const token = await enqueue(request, { command: 'demo.echo', queue });
    const w = await why(request, token);
    expect(w).toMatchObject({ reason: 'no_worker', text: `No live worker serves queue ${queue}` });
    await page.goto('/');
    await expect(page.getByTestId('no-worker-warning')).toContainText(queue, { timeout: 20_000 });
    const ov = page.locator(`[data-testid="queue-table"] [data-queue="${queue}"]`);
    await expect(ov.getByTestId('queue-no-worker')).toBeVisible();
    await page.screenshot({ path: `${SHOTS}/overview-no-worker.png`, fullPage: true });
  } finally {
    await resize(4);
  }
});
