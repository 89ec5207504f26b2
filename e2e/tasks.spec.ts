// The Tasks page: tasks with different payloads enqueued through the API, found again by a payload filter in
// the UI; tabs with their counts; keyset paging; selection up to "all matching"; the API's 400s.
import { expect, test, type Page } from '@playwright/test';
import { enqueue, unique, waitForStatus } from './helpers';

const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

async function rowTokens(page: Page): Promise<string[]> {
  return page.getByTestId('task-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-token') ?? ''));
}

test('filters by payload, switches tabs, and answers bad filters with 400 naming the field', async ({ page, request }) => {
  const queue = unique('e2e-browse');
  const scheduled: { token: string; id: number | string; name: string }[] = [];
  for (let i = 0; i < 7; i++) {
    const id = i % 3 === 0 ? 42 : 100 + i;
    const name = `cust-${i}`;
    scheduled.push({
      token: await enqueue(request, { command: 'demo.echo', queue, runAt: inAnHour(), payload: { customer: { id, name } } }),
      id,
      name,
    });
  }
  const done = await enqueue(request, { command: 'demo.echo', queue, payload: { customer: { id: 42, name: 'now' } } });
  await waitForStatus(request, done, 'succeeded');
  const fortyTwo = scheduled.filter((s) => s.id === 42).map((s) => s.token);

  // the API: the same filters, and a 400 naming the field
  const api = await (await request.get(`/api/tasks?queue=${queue}&payload=${encodeURIComponent('customer.id=42')}`)).json();
  expect(api.items.map((t: { token: string }) => t.token)).toEqual([done, ...[...fortyTwo].reverse()]);
  for (const [q, field] of [
    [`payload=${encodeURIComponent("customer.id')--=1")}`, 'payload'],
    ['status=dead&sub=ready', 'sub'],
    ['priorityMin=high', 'priorityMin'],
    ['from=yesterday', 'from'],
  ] as const) {
    const res = await request.get(`/api/tasks?${q}`);
    expect(res.status(), q).toBe(400);
    expect((await res.json()).field, q).toBe(field);
  }
  const counts = await (await request.get(`/api/tasks/counts?queue=${queue}`)).json();
  expect(counts).toMatchObject({ queue, all: 8, pending: 7, scheduled: 7, ready: 0, retrying: 0, succeeded: 1 });

  // the page: every task of the queue, then the payload filter
  await page.goto(`/tasks?queue=${queue}`);
  await expect(page.getByTestId('task-row')).toHaveCount(8);
  await expect(page.getByTestId('tab-count-scheduled')).toHaveText('7');
  await expect(page.getByTestId('tab-count-succeeded')).toHaveText('1');
  await page.getByTestId('tasks-filter-payload-path').fill('customer.id');
  await page.getByTestId('tasks-filter-payload-value').fill('42');
  await page.getByTestId('tasks-filter-apply').click();
  await expect(page).toHaveURL(/payload=customer.id%3D42/);
  await expect(page.getByTestId('task-row')).toHaveCount(4);
  expect(await rowTokens(page)).toEqual([done, ...[...fortyTwo].reverse()]);
  await page.screenshot({ path: '/tmp/tasks-payload-1280.png' });

  // tabs keep the filter
  await page.getByTestId('tab-scheduled').click();
  await expect(page).toHaveURL(/sub=scheduled/);
  await expect(page.getByTestId('task-row')).toHaveCount(3);
  await expect(page.getByTestId('task-state').first()).toHaveText('scheduled');
  await page.getByTestId('tab-succeeded').click();
  await expect(page.getByTestId('task-row')).toHaveCount(1);
  expect(await rowTokens(page)).toEqual([done]);
  await page.getByTestId('tab-dead').click();
  await expect(page.getByText('No tasks match these filters')).toBeVisible();

  // contains
  await page.getByTestId('tab-all').click();
  await page.getByTestId('tasks-filter-payload-path').fill('$.customer.name');
  await page.getByTestId('tasks-filter-payload-op').selectOption('contains');
  await page.getByTestId('tasks-filter-payload-value').fill('ST-5');
  await page.getByTestId('tasks-filter-apply').click();
  await expect(page.getByTestId('task-row')).toHaveCount(1);
  expect(await rowTokens(page)).toEqual([scheduled[5]!.token]);

  // a bad path shows the field's error, not a crash
  await page.getByTestId('tasks-filter-payload-path').fill("customer'--");
  await page.getByTestId('tasks-filter-apply').click();
  await expect(page.getByText(/payload: the JSON path may only hold/)).toBeVisible();

  // a row opens the task's detail
  await page.goto(`/tasks?queue=${queue}&status=succeeded`);
  await page.getByTestId('task-command').first().click();
  await expect(page).toHaveURL(new RegExp(`/tasks/${done}`));
});

test('a tab clicked and a filter applied before the tab has arrived both hold', async ({ page, request }) => {
  const queue = unique('e2e-quick');
  const late = await enqueue(request, { command: 'demo.echo', queue, runAt: inAnHour(), payload: { customer: { name: 'late' } } });
  await enqueue(request, { command: 'demo.echo', queue, runAt: inAnHour(), payload: { customer: { name: 'other' } } });
  // The page's navigations fetch their server payload; the nav's prefetch of /tasks would answer them from the
  // router's cache instead, so it is refused here. A navigation is held, once asked, until both changes are.
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let asked = 0;
  const navigation = (url: URL) => url.pathname === '/tasks' && url.searchParams.has('_rsc');
  await page.route(navigation, async (route) => {
    if (route.request().headers()['next-router-prefetch']) return route.abort();
    asked++;
    await held;
    // the page aborts a navigation the next one superseded: nothing to continue then
    await route.continue().catch(() => undefined);
  });
  await page.goto(`/tasks?queue=${queue}&status=dead`);
  await expect(page.getByText('No tasks match these filters')).toBeVisible();
  await page.getByTestId('tab-all').click();
  await expect.poll(() => asked).toBeGreaterThan(0);
  await expect(page).toHaveURL(/status=dead/); // the tab has not arrived
  await page.getByTestId('tasks-filter-payload-path').fill('customer.name');
  await page.getByTestId('tasks-filter-payload-value').fill('late');
  await page.getByTestId('tasks-filter-apply').click();
  release();
  await page.unroute(navigation);

  await expect(page).toHaveURL(/payload=customer.name%3Dlate/);
  expect(new URL(page.url()).searchParams.get('status')).toBeNull();
  await expect(page.getByTestId('tab-all')).toHaveAttribute('aria-current', 'page');
  await expect(page.getByTestId('task-row')).toHaveCount(1);
  expect(await rowTokens(page)).toEqual([late]);
});

test('pages newest first with no duplicates, selects a page and then everything matching', async ({ page, request }) => {
  const queue = unique('e2e-pages');
  const tokens: string[] = [];
  for (let i = 0; i < 57; i++) tokens.push(await enqueue(request, { command: 'demo.echo', queue, runAt: inAnHour(), payload: { n: i } }));
  const newestFirst = [...tokens].reverse();

  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`/tasks?queue=${queue}&status=pending&sub=scheduled`);
  await expect(page.getByTestId('task-row')).toHaveCount(50);
  const first = await rowTokens(page);
  expect(first).toEqual(newestFirst.slice(0, 50));
  await expect(page.getByTestId('tab-count-scheduled')).toHaveText('57');
  await page.screenshot({ path: '/tmp/tasks-page-1280.png', fullPage: true });

  await page.getByTestId('tasks-older').click();
  await expect(page).toHaveURL(/cursor=\d+/);
  await expect(page.getByTestId('task-row')).toHaveCount(7);
  const second = await rowTokens(page);
  expect(second).toEqual(newestFirst.slice(50));
  await expect(page.getByTestId('tasks-older')).toBeDisabled();
  await page.getByTestId('tasks-newer').click();
  await expect(page.getByTestId('task-row')).toHaveCount(50);
  expect(await rowTokens(page)).toEqual(first);

  // select the page, then everything the filter matches
  await page.getByTestId('tasks-select-page').check();
  await expect(page.getByTestId('tasks-selection-info')).toHaveText('50 tasks selected.');
  await page.getByTestId('tasks-select-matching').click();
  await expect(page.getByTestId('tasks-selection-info')).toContainText('All 57 tasks matching this filter are selected.');
  await page.screenshot({ path: '/tmp/tasks-page-selected-1280.png' });
  await page.getByTestId('tasks-select-clear').click();
  await expect(page.getByTestId('tasks-selection')).toHaveCount(0);

  // in the dark theme too
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.reload();
  await expect(page.getByTestId('task-row')).toHaveCount(50);
  await page.getByTestId('tasks-select').first().check();
  await page.screenshot({ path: '/tmp/tasks-dark-1280.png' });
});
