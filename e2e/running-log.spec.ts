// A demo.sleep task shows in Running with its worker session, then in the execution log as succeeded.
import { expect, test } from '@playwright/test';
import { enqueue, unique, waitForStatus } from './helpers';

test('a sleeping task is listed as running with its session, then logged as succeeded', async ({ page, request }) => {
  const queue = unique('e2e-sleep');
  await page.goto('/running');
  await expect(page.getByRole('heading', { name: 'Running', level: 1 })).toBeVisible();

  const token = await enqueue(request, { command: 'demo.sleep', payload: { ms: 5000 }, queue });

  // shows up live (the page polls every second), with a session number, attempt 1/…, a ticking elapsed time
  const row = page.locator(`[data-testid="running-row"][data-token="${token}"]`);
  await expect(row).toBeVisible({ timeout: 4000 });
  await expect(row.getByTestId('running-session')).toHaveText(/^\d+$/);
  await expect(row.getByTestId('running-command')).toHaveText('demo.sleep');
  await expect(row).toContainText(queue);
  const elapsed = row.getByTestId('running-elapsed');
  const first = await elapsed.textContent();
  await expect(elapsed).not.toHaveText(first ?? '', { timeout: 3000 });

  const done = await waitForStatus(request, token, 'succeeded');
  const session = done.history[0]?.session;
  expect(session).toEqual(expect.any(Number));
  await expect(row).toHaveCount(0, { timeout: 3000 });

  // the execution log, filtered by its queue through the URL
  await page.goto(`/log?queue=${queue}`);
  const logRow = page.locator(`[data-testid="log-row"][data-token="${token}"]`);
  await expect(logRow).toHaveCount(1);
  await expect(logRow).toHaveAttribute('data-outcome', 'succeeded');
  await expect(logRow.getByTestId('log-outcome')).toHaveText('succeeded');
  await expect(logRow.getByTestId('log-session')).toHaveText(`spid ${session}`);
  await expect(page.getByTestId('filter-queue')).toHaveValue(queue);

  // filtering by another outcome hides it, and the filter lands in the URL
  await page.getByTestId('filter-outcome').selectOption('failed');
  await expect(page).toHaveURL(/outcome=failed/);
  await expect(logRow).toHaveCount(0);
  await expect(page.getByTestId('empty')).toBeVisible();
});
