// A demo.fail task with two attempts becomes dead and shows in Failed & poison with its message;
// a retry from the UI runs a third attempt, visible in the task's detail.
import { expect, test } from '@playwright/test';
import { enqueue, taskStatus, unique, waitForStatus } from './helpers';

test('a poison task is grouped by its message and a UI retry runs a third attempt', async ({ page, request }) => {
  const queue = unique('e2e-fail');
  const message = `simulated outage ${unique('msg')}`;
  const token = await enqueue(request, { command: 'demo.fail', payload: { message, number: 50123 }, queue, maxAttempts: 2 });
  const dead = await waitForStatus(request, token, 'dead');
  expect(dead.history.map((h) => h.outcome)).toEqual(['failed', 'failed']);

  await page.goto(`/failed?queue=${queue}`);
  const group = page.getByTestId('failure-group').filter({ hasText: message });
  await expect(group).toHaveCount(1);
  await expect(group.getByTestId('group-count')).toHaveText('1');
  const row = page.locator(`[data-testid="dead-row"][data-token="${token}"]`);
  await expect(row).toBeVisible();
  await expect(row.getByTestId('dead-error')).toContainText(message);
  await expect(row.getByTestId('dead-error')).toContainText('#50123');
  await expect(row).toContainText('2 / 2');

  // retry this one task from the list
  await row.getByTestId('dead-retry').click();
  await expect(page.getByTestId('toast-success')).toContainText('another attempt');
  await expect.poll(async () => (await taskStatus(request, token)).attempts, { timeout: 15_000 }).toBe(3);
  await waitForStatus(request, token, 'dead');

  // the detail shows three attempts, each with its message, number and an expandable stack
  await page.goto(`/tasks/${token}`);
  await expect(page.getByTestId('task-status')).toHaveText('dead');
  await expect(page.getByTestId('task-attempts')).toHaveText('3 / 3');
  const attempts = page.getByTestId('attempt');
  await expect(attempts).toHaveCount(3);
  const third = page.locator('[data-testid="attempt"][data-attempt="3"]');
  await expect(third).toHaveAttribute('data-outcome', 'failed');
  await expect(third.getByTestId('attempt-error')).toContainText(message);
  await expect(third.getByTestId('attempt-error')).toContainText('#50123');
  await expect(third.getByTestId('attempt-stack')).toBeHidden();
  await third.getByText('stack trace').click();
  await expect(third.getByTestId('attempt-stack')).toBeVisible();
  await expect(page.getByTestId('task-payload')).toContainText(message);

  // from the detail: dead tasks can be retried, not cancelled
  await expect(page.getByTestId('task-retry')).toBeEnabled();
  await expect(page.getByTestId('task-cancel')).toBeDisabled();
  await page.getByTestId('task-retry').click();
  await expect(page.locator('[data-testid="attempt"][data-attempt="4"]')).toBeVisible({ timeout: 10_000 });
});

test('selected dead tasks are deleted only after confirming', async ({ page, request }) => {
  const queue = unique('e2e-del');
  const message = `bad row ${unique('msg')}`;
  const tokens = [
    await enqueue(request, { command: 'demo.fail', payload: { message }, queue, maxAttempts: 1 }),
    await enqueue(request, { command: 'demo.fail', payload: { message }, queue, maxAttempts: 1 }),
  ];
  for (const t of tokens) await waitForStatus(request, t, 'dead');

  await page.goto(`/failed?queue=${queue}`);
  await expect(page.getByTestId('dead-row')).toHaveCount(2);
  await expect(page.getByTestId('failure-group').filter({ hasText: message }).getByTestId('group-count')).toHaveText('2');
  await page.getByTestId('dead-select-all').check();
  await expect(page.getByTestId('retry-selected')).toHaveText('Retry selected (2)');

  // cancelling the dialog keeps them
  await page.getByTestId('delete-selected').click();
  await expect(page.getByTestId('confirm-dialog')).toBeVisible();
  await page.getByTestId('confirm-cancel').click();
  await expect(page.getByTestId('confirm-dialog')).toBeHidden();
  await expect(page.getByTestId('dead-row')).toHaveCount(2);

  await page.getByTestId('delete-selected').click();
  await page.getByTestId('confirm-ok').click();
  await expect(page.getByTestId('dead-row')).toHaveCount(0);
  for (const t of tokens) expect((await request.get(`/api/tasks/${t}`)).status()).toBe(404);
});
