// Bulk actions with a count confirmation (Tasks page and API), edit before retry on a task's page, and
// failure fingerprints: 50 errors differing only by an id form one group on the Failed page.
import { expect, test } from '@playwright/test';
import { enqueue, taskStatus, unique, waitForStatus } from './helpers';

test('bulk retry on the Tasks page states the exact count, and the API refuses more than confirmed', async ({ page, request }) => {
  const queue = unique('e2e-bulk');
  const tokens: string[] = [];
  for (let i = 0; i < 3; i++)
    tokens.push(await enqueue(request, { command: 'demo.fail', queue, payload: { message: `bulk ${i}` }, maxAttempts: 1 }));
  for (const t of tokens) await waitForStatus(request, t, 'dead');

  await page.goto(`/tasks?status=dead&queue=${queue}`);
  await expect(page.getByTestId('task-row')).toHaveCount(3);
  await page.getByTestId('tasks-select-page').check();
  await expect(page.getByTestId('bulk-scope')).toHaveText('3 selected');
  await page.getByTestId('bulk-retry').click();
  await expect(page.getByTestId('confirm-dialog')).toBeVisible();
  await expect(page.getByTestId('bulk-confirm-count')).toHaveText('3');
  await expect(page.getByTestId('bulk-confirm-text')).toContainText('of the 3 selected tasks will change');
  await page.screenshot({ path: '/tmp/bulk-tasks-confirm.png' });
  await page.getByTestId('confirm-ok').click();
  await expect(page.getByTestId('toast-success')).toContainText('3 tasks queued for retry');
  for (const t of tokens) await expect.poll(async () => (await taskStatus(request, t)).attempts, { timeout: 15_000 }).toBe(2);

  // the API: preview, then a stale confirmation (fewer than now match) is refused with 409
  for (const t of tokens) await waitForStatus(request, t, 'dead');
  const filter = `status=dead&queue=${queue}`;
  const preview = await request.post('/api/tasks/bulk/preview', { data: { action: 'retry', filter } });
  expect(await preview.json()).toEqual({ action: 'retry', count: 3, matched: 3 });
  const stale = await request.post('/api/tasks/bulk', { data: { action: 'retry', filter, expected: 2 } });
  expect(stale.status()).toBe(409);
  const bad = await request.post('/api/tasks/bulk', { data: { action: 'retry', filter, tokens: [tokens[0]] } });
  expect(bad.status()).toBe(400);
  const prio = await request.post('/api/tasks/bulk', { data: { action: 'priority', priority: 9, tokens, expected: 3 } });
  expect(await prio.json()).toMatchObject({ action: 'priority', done: 3, skipped: 0, missing: 0, expected: 3 });
  expect((await taskStatus(request, tokens[0]!)) as unknown).toMatchObject({ priority: 9 });
  const audit = await (await request.get('/api/audit?action=tasks.bulk_priority')).json();
  expect(JSON.stringify(audit)).toContain('tokens:3');
});

test('edit before retry: a dead task is fixed and retried in one step; a running one is refused', async ({ page, request }) => {
  const queue = unique('e2e-edit');
  const token = await enqueue(request, { command: 'demo.fail', queue, payload: { message: 'bad input' }, maxAttempts: 1 });
  await waitForStatus(request, token, 'dead');

  await page.goto(`/tasks/${token}`);
  await page.getByTestId('task-edit').click();
  const dialog = page.getByTestId('edit-dialog');
  await expect(dialog).toBeVisible();
  await page.getByTestId('edit-payload').fill('{ "message": "fixed input", "number": 7 }');
  await page.getByTestId('edit-queue').fill(`${queue}-b`);
  await page.getByTestId('edit-priority').fill('3');
  await page.screenshot({ path: '/tmp/bulk-edit-dialog.png' });
  // a bad value is named and nothing is saved
  await page.getByTestId('edit-max-attempts').fill('1000');
  await page.getByTestId('edit-save-retry').click();
  await expect(page.getByTestId('edit-error-maxAttempts')).toBeVisible();
  await page.getByTestId('edit-max-attempts').fill('1');
  await page.getByTestId('edit-save-retry').click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId('toast-success')).toContainText('saved and queued');
  await expect.poll(async () => (await taskStatus(request, token)).attempts, { timeout: 15_000 }).toBe(2);
  const after = (await taskStatus(request, token)) as unknown as Record<string, unknown>;
  expect(after).toMatchObject({ queue: `${queue}-b`, priority: 3, payload: { message: 'fixed input', number: 7 } });
  const audit = await (await request.get(`/api/audit?action=task.edit`)).json();
  expect(JSON.stringify(audit)).toContain('bad input');

  const sleeper = await enqueue(request, { command: 'demo.sleep', queue, payload: { ms: 4000 } });
  await waitForStatus(request, sleeper, 'running');
  const refused = await request.patch(`/api/tasks/${sleeper}`, { data: { priority: 2 } });
  expect(refused.status()).toBe(409);
  const badField = await request.patch(`/api/tasks/${token}`, { data: { priority: 'high' } });
  expect(badField.status()).toBe(400);
  expect((await badField.json()).field).toBe('priority');
});

test('50 errors differing only by an id form one failure group; retrying it states the count', async ({ page, request }) => {
  const queue = unique('e2e-fp');
  const tokens: string[] = [];
  for (let i = 0; i < 50; i++) {
    const id = crypto.randomUUID();
    tokens.push(
      await enqueue(request, {
        command: 'demo.fail',
        queue,
        payload: { message: `order ${1000 + i} failed for customer '${id}'`, number: 547 },
        maxAttempts: 1,
      }),
    );
  }
  await enqueue(request, { command: 'demo.fail', queue, payload: { message: 'another failure', number: 2627 }, maxAttempts: 1 });
  await expect
    .poll(async () => (await (await request.get(`/api/tasks?status=dead&queue=${queue}&limit=100`)).json()).items.length, {
      timeout: 30_000,
    })
    .toBe(51);

  const api = await (await request.get(`/api/failures?queue=${queue}`)).json();
  expect(api.groups).toHaveLength(2);
  expect(api.groups[0]).toMatchObject({ count: 50, errorNumber: 547, command: 'demo.fail', queue });
  expect(api.groups[0].trend.reduce((a: number, b: number) => a + b, 0)).toBe(50);

  await page.goto(`/failed?queue=${queue}`);
  const groups = page.getByTestId('failure-group');
  await expect(groups).toHaveCount(2);
  const big = groups.filter({ has: page.getByTestId('group-count').getByText('50', { exact: true }) });
  await expect(big).toHaveCount(1);
  await expect(big.getByTestId('group-message')).toContainText('#547');
  await expect(big.getByTestId('group-delete')).toBeInViewport();
  await expect(big.getByTestId('group-trend')).toHaveAttribute('data-total', '50');
  await page.screenshot({ path: '/tmp/bulk-failed-page.png' });

  // picking the group lists only its tasks
  await big.getByTestId('group-message').click();
  await expect(page).toHaveURL(/fp=[0-9a-f]{16}/);
  await expect(page.getByTestId('dead-row')).toHaveCount(50);

  await big.getByTestId('group-retry').click();
  await expect(page.getByTestId('confirm-dialog')).toContainText('Retry 50 tasks?');
  await page.getByTestId('confirm-ok').click();
  await expect(page.getByTestId('toast-success')).toContainText('50 tasks queued for retry');
  for (const t of tokens.slice(0, 5)) await expect.poll(async () => (await taskStatus(request, t)).attempts, { timeout: 20_000 }).toBe(2);
});
