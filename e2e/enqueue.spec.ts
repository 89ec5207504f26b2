// The enqueue form checks the payload JSON as you type, refuses to submit it, and enqueues nothing;
// valid input enqueues a task whose token links to its detail.
import { expect, test } from '@playwright/test';
import { taskCount, unique, waitForStatus } from './helpers';

test('invalid JSON shows an error and enqueues nothing', async ({ page, request }) => {
  const before = await taskCount(request);
  const queue = unique('e2e-json');
  await page.goto('/enqueue');
  await expect(page.getByTestId('enqueue-handler')).toContainText('demo.echo');
  await page.getByTestId('enqueue-handler').selectOption('demo.echo');
  await page.getByTestId('enqueue-queue').fill(queue);
  await page.getByTestId('enqueue-payload').fill('{"hello": "world",');
  await expect(page.getByTestId('payload-error')).toContainText('Invalid JSON');
  await expect(page.getByTestId('enqueue-submit')).toBeDisabled();
  // Enter in a field does not get around it
  await page.getByTestId('enqueue-queue').press('Enter');
  await page.waitForTimeout(1500);
  await expect(page.getByTestId('enqueue-success')).toHaveCount(0);
  expect(await taskCount(request)).toBe(before);
  const stats = (await (await request.get('/api/stats')).json()) as { queues: { queue: string }[] };
  expect(stats.queues.map((q) => q.queue)).not.toContain(queue);

  // fixing the JSON enables the button; the task is created and its token links to the detail
  await page.getByTestId('enqueue-payload').fill('{"hello": "world"}');
  await expect(page.getByTestId('payload-error')).toHaveCount(0);
  await page.getByTestId('enqueue-max-attempts').fill('2');
  await page.getByTestId('enqueue-submit').click();
  const link = page.getByTestId('enqueue-token');
  await expect(link).toBeVisible();
  const token = (await link.textContent())!.trim();
  expect(await taskCount(request)).toBe(before + 1);
  await waitForStatus(request, token, 'succeeded');
  await link.click();
  await expect(page).toHaveURL(new RegExp(`/tasks/${token}$`));
  await expect(page.getByTestId('task-status')).toHaveText('succeeded');
  await expect(page.getByTestId('task-result')).toContainText('"hello": "world"');
});

test('a sql task from the web is refused unless the server allows it, and the error is shown', async ({ page, request }) => {
  const before = await taskCount(request);
  await page.goto('/enqueue');
  await page.getByTestId('tab-sql').click();
  await expect(page.getByTestId('enqueue-submit')).toBeDisabled();
  await page.getByTestId('enqueue-sql').fill('SELECT 1');
  await page.getByTestId('enqueue-submit').click();
  await expect(page.getByTestId('enqueue-error')).toContainText('READPAST_ALLOW_SQL');
  expect(await taskCount(request)).toBe(before);
});
