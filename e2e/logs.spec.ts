// Progress and log lines of a running demo.progress task: the task page tails its lines live (following the
// end, paused by scrolling up), Running shows its progress bar with the last message; the JSON route.
import { expect, test } from '@playwright/test';
import { enqueue, unique, waitForStatus } from './helpers';

interface LogsJson {
  attempt: number;
  lines: { seq: number; at: string; stream: string; line: string }[];
  truncated: boolean;
  dropped: number;
  progress: { percent: number; message: string | null; at: string } | null;
  next: number;
}

test('the task page tails a running task’s log lines live, with its progress', async ({ page, request }) => {
  const queue = unique('e2e-logs');
  const token = await enqueue(request, { command: 'demo.progress', payload: { steps: 80, ms: 200 }, queue });
  await page.goto(`/tasks/${token}`);

  const tail = page.getByTestId('output-tail');
  await expect(tail).toBeVisible();
  const lines = tail.getByTestId('output-line');
  await expect(lines.first()).toContainText('processing 80 steps of 200 ms', { timeout: 8000 });
  // new lines arrive while it runs (the page asks only for lines after the last it has)
  await expect(lines.filter({ hasText: 'step 3/80' })).toHaveCount(1, { timeout: 8000 });
  const seen = await lines.count();
  await expect.poll(() => lines.count(), { timeout: 8000 }).toBeGreaterThan(seen);
  await expect(tail.getByTestId('output-progress')).toContainText(/step \d+ of 80/);
  await expect(tail.getByTestId('progress-bar')).toBeVisible();

  // it follows the end; scrolling up pauses that, the button jumps back
  await expect(lines.filter({ hasText: 'step 20/80' })).toHaveCount(1, { timeout: 10_000 });
  const box = tail.getByTestId('output-lines');
  const atBottom = () => box.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight < 24);
  await expect.poll(atBottom).toBe(true);
  await page.screenshot({ path: '/tmp/logs-task.png', fullPage: true });
  await box.evaluate((el) => {
    el.scrollTop = 0;
    el.dispatchEvent(new Event('scroll'));
  });
  await expect(tail.getByTestId('output-paused')).toBeVisible();
  const count = await lines.count();
  await expect.poll(() => lines.count(), { timeout: 5000 }).toBeGreaterThan(count);
  expect(await box.evaluate((el) => el.scrollTop)).toBe(0);
  await tail.screenshot({ path: '/tmp/logs-paused.png' });
  await tail.getByTestId('output-paused').click();
  await expect(tail.getByTestId('output-paused')).toHaveCount(0);
  await expect.poll(atBottom).toBe(true);

  // done: every line is there, the last one included
  await waitForStatus(request, token, 'succeeded', 30_000);
  await expect(lines.last()).toHaveText(/done$/, { timeout: 5000 });
  await expect(lines).toHaveCount(82);

  const res = await request.get(`/api/tasks/${token}/logs?after=80`);
  expect(res.status()).toBe(200);
  const body = (await res.json()) as LogsJson;
  expect(body).toMatchObject({ attempt: 1, truncated: false, dropped: 0, next: 82 });
  expect(body.lines.map((l) => [l.seq, l.stream, l.line])).toEqual([
    [81, 'log', 'step 80/80: 2960 rows copied'],
    [82, 'log', 'done'],
  ]);
  expect(body.progress).toMatchObject({ percent: 100, message: 'step 80 of 80' });
  const bad = await request.get(`/api/tasks/${token}/logs?after=-1`);
  expect(bad.status()).toBe(400);
  expect(((await bad.json()) as { field?: string }).field).toBe('after');
});

test('Running shows a progress bar with the last message', async ({ page, request }) => {
  const queue = unique('e2e-progress');
  const token = await enqueue(request, { command: 'demo.progress', payload: { steps: 30, ms: 400 }, queue });
  await page.goto('/running');
  const row = page.locator(`[data-testid="running-row"][data-token="${token}"]`);
  await expect(row).toBeVisible({ timeout: 5000 });
  const cell = row.getByTestId('progress-cell');
  await expect(cell).toBeVisible({ timeout: 5000 });
  await expect(cell.getByTestId('progress-bar')).toBeVisible();
  await expect(cell.getByTestId('progress-message')).toHaveText(/step \d+ of 30/, { timeout: 5000 });
  const first = Number(await cell.getAttribute('data-percent'));
  await expect.poll(async () => Number(await cell.getAttribute('data-percent')), { timeout: 5000 }).toBeGreaterThan(first);
  await page.screenshot({ path: '/tmp/logs-running.png', fullPage: true });
  await waitForStatus(request, token, 'succeeded', 30_000);
});
