// History in the browser: the Overview's range selector (15 min … 30 d) re-buckets the charts; a queue's
// page shows its throughput and links onward; the Queues page draws a sparkline per queue; the API
// refuses a bad range naming the field; /metrics answers the Prometheus text. Screenshots go to /tmp.
import { expect, test } from '@playwright/test';
import { enqueue, unique, waitForStatus } from './helpers';

test('the Overview range selector re-buckets the activity charts', async ({ page, request }) => {
  const queue = unique('hist');
  const tokens = [];
  for (let i = 0; i < 3; i++) tokens.push(await enqueue(request, { command: 'demo.echo', queue, payload: { i } }));
  tokens.push(await enqueue(request, { command: 'demo.fail', queue, maxAttempts: 1 }));
  for (const t of tokens.slice(0, 3)) await waitForStatus(request, t, 'succeeded');
  await waitForStatus(request, tokens[3]!, 'dead');

  await page.setViewportSize({ width: 1400, height: 1000 });
  await page.goto('/');
  const activity = page.getByTestId('activity');
  await expect(activity).toHaveAttribute('data-range', '15m');
  await expect(activity.getByTestId('chart-throughput')).toContainText('per 5 s');
  // the dead card and its line count the same thing: tasks that went dead
  await expect(page.getByTestId('stat-dead')).toContainText(/last min/);
  await activity.scrollIntoViewIfNeeded();
  await page.screenshot({ path: '/tmp/history-overview-15m.png', fullPage: true });

  for (const [range, bucket] of [
    ['1h', 'per 1 min'],
    ['24h', 'per 15 min'],
    ['7d', 'per 1 h'],
    ['30d', 'per 6 h'],
  ] as const) {
    await activity.getByTestId(`range-${range}`).click();
    await expect(activity).toHaveAttribute('data-range', range);
    await expect(activity.getByTestId(`range-${range}`)).toHaveAttribute('aria-pressed', 'true');
    await expect(activity.getByTestId('chart-throughput')).toContainText(bucket);
  }
  await expect(activity.getByTestId('chart-throughput-summary')).toContainText(/succeeded/);
  await page.screenshot({ path: '/tmp/history-overview-30d.png', fullPage: true });
});

test("a queue's history page: throughput, failures, durations, latency; reached from the Queues page", async ({ page, request }) => {
  const queue = unique('histq');
  const tokens = [];
  for (let i = 0; i < 4; i++) tokens.push(await enqueue(request, { command: 'demo.echo', queue, payload: { i } }));
  tokens.push(await enqueue(request, { command: 'demo.fail', queue, maxAttempts: 1 }));
  for (const t of tokens.slice(0, 4)) await waitForStatus(request, t, 'succeeded');
  await waitForStatus(request, tokens[4]!, 'dead');

  await page.setViewportSize({ width: 1400, height: 1000 });
  await page.goto('/queues');
  const row = page.locator(`[data-testid="queue-row"][data-queue="${queue}"]`);
  await expect(row.getByTestId('queue-sparkline')).toHaveAttribute('data-total', '4', { timeout: 15_000 });
  await row.getByTestId('queue-history-link').click();
  await expect(page).toHaveURL(new RegExp(`/history/queues/${queue}$`));
  await expect(page.getByTestId('history-name')).toHaveText(queue);
  const charts = page.getByTestId('history-charts');
  await expect(charts).toHaveAttribute('data-range', '24h');
  await expect(charts.getByTestId('chart-throughput-summary')).toContainText('4 succeeded');
  await expect(charts.getByTestId('chart-failures-summary')).toContainText('1 went dead');
  await page.getByTestId('range-1h').click();
  await expect(charts).toHaveAttribute('data-range', '1h');
  await expect(charts.getByTestId('chart-duration-summary')).toContainText('max');
  await expect(charts.getByTestId('chart-latency-summary')).toContainText('avg');
  // the commands of the queue link to their own pages
  await page.getByRole('link', { name: 'demo.fail' }).click();
  await expect(page).toHaveURL(/\/history\/commands\/demo\.fail$/);
  await expect(page.getByTestId('history-charts').getByTestId('chart-failures-summary')).toContainText(/went dead/);
  await page.goto(`/history/queues/${queue}`);
  await page.getByTestId('range-1h').click();
  await expect(page.getByTestId('history-charts')).toHaveAttribute('data-range', '1h');
  await page.screenshot({ path: '/tmp/history-queue-page.png', fullPage: true });
});

test('GET /api/history names a bad field; GET /metrics answers Prometheus text', async ({ request }) => {
  const bad = await request.get('/api/history?range=2y');
  expect(bad.status()).toBe(400);
  expect(((await bad.json()) as { field?: string }).field).toBe('range');
  const ok = await request.get('/api/history?range=24h');
  expect(ok.status()).toBe(200);
  const body = (await ok.json()) as { bucketMs: number; buckets: unknown[] };
  expect(body.bucketMs).toBe(15 * 60_000);
  expect(body.buckets.length).toBe(96);
  const m = await request.get('/metrics');
  expect(m.status()).toBe(200);
  expect(m.headers()['content-type']).toContain('text/plain');
  const text = await m.text();
  expect(text).toContain('# TYPE readpast_succeeded_total counter');
  expect(text).toContain('# TYPE readpast_attempt_duration_seconds histogram');
});
