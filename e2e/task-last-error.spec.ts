// The task page's error panel says which attempt an error belongs to: a task that succeeded after a
// failed attempt shows it as an earlier attempt's error ("Attempt 1 of 3 failed; attempt 2
// succeeded"), not as the task's current state; a dead task's last error stays current.
import { expect, test } from '@playwright/test';
import { enqueue, unique, waitForStatus } from './helpers';

test('a task that succeeded after a failure labels the error with its attempt and the success', async ({ page, request }, testInfo) => {
  const queue = unique('e2e-flaky');
  const token = await enqueue(request, { command: 'demo.flaky', payload: { failTimes: 1 }, queue, maxAttempts: 3 });
  const done = await waitForStatus(request, token, 'succeeded', 30_000);
  expect(done.history.map((h) => h.outcome).sort()).toEqual(['failed', 'succeeded']);

  await page.goto(`/tasks/${token}`);
  await expect(page.getByTestId('task-status')).toHaveText('succeeded');
  const panel = page.getByTestId('task-last-error');
  await expect(panel).toHaveAttribute('data-current', '0');
  await expect(panel).toHaveAttribute('data-attempt', '1');
  await expect(panel.getByTestId('task-last-error-label')).toHaveText('Attempt 1 of 3 failed; attempt 2 succeeded:');
  await expect(panel).toContainText('demo.flaky: attempt 1 of the first 1 fails');
  await expect(panel.getByTestId('task-last-error-note')).toContainText('The task succeeded');
  await expect(page.getByRole('heading', { name: 'Earlier error' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Last error' })).toHaveCount(0);
  // the attempts tell the same story
  await expect(page.locator('[data-testid="attempt"][data-attempt="1"]')).toHaveAttribute('data-outcome', 'failed');
  await expect(page.locator('[data-testid="attempt"][data-attempt="2"]')).toHaveAttribute('data-outcome', 'succeeded');
  await page.screenshot({ path: testInfo.outputPath('task-earlier-error.png'), fullPage: true });
});

test("a dead task's last error is current and names its attempt", async ({ page, request }) => {
  const queue = unique('e2e-dead');
  const token = await enqueue(request, {
    command: 'demo.fail',
    payload: { message: 'out of paper', number: 50321 },
    queue,
    maxAttempts: 1,
  });
  await waitForStatus(request, token, 'dead');
  await page.goto(`/tasks/${token}`);
  const panel = page.getByTestId('task-last-error');
  await expect(panel).toHaveAttribute('data-current', '1');
  await expect(panel.getByTestId('task-last-error-label')).toHaveText('Attempt 1 of 1 failed:');
  await expect(panel).toContainText('#50321');
  await expect(panel).toContainText('out of paper');
  await expect(page.getByRole('heading', { name: 'Last error' })).toBeVisible();
  await expect(panel.getByTestId('task-last-error-note')).toHaveCount(0);
});
