// A durable handler on the dashboard (demo.durable: three steps, a sleep, a wait for an event, a last step): the
// task page's Steps timeline fills while it runs, the suspension shows (badge, "why isn't it running?"), the event
// sent from the task page resumes it and it succeeds, its earlier steps replayed; the Events page lists the event
// and the task it resumed, with no cell cut at 1280 or 390 px wide. Screenshots at both widths.
import { expect, test, type Locator, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { enqueue, unique, waitForStatus } from './helpers';

const SHOTS = process.env.E2E_SHOTS ?? 'test-results';
mkdirSync(SHOTS, { recursive: true });

/**
 * What is cut in a row of a table (its cells, `td`) or of a phone's card (its fields, `dd`): a cell whose content
 * reaches past its edge (hidden, or over the next field), or an ellipsis with no tooltip holding the whole text.
 */
function clippedCells(row: Locator): Promise<string[]> {
  return row.evaluate((el) => {
    const out: string[] = [];
    for (const cell of el.querySelectorAll('td, dd')) {
      const edge = cell.getBoundingClientRect().right;
      const name = (cell.previousElementSibling?.textContent ?? cell.textContent ?? '').trim().slice(0, 30);
      const over = [cell, ...cell.querySelectorAll('*')].filter((e) => e.getBoundingClientRect().right > edge + 1);
      if (over.length || cell.scrollWidth > cell.clientWidth + 1) out.push(`${name}: past its edge (${cell.textContent})`);
      for (const e of cell.querySelectorAll('*')) {
        const cut = getComputedStyle(e).textOverflow === 'ellipsis' && e.scrollWidth > e.clientWidth + 1;
        if (cut && !(e.getAttribute('title') ?? '').includes((e.textContent ?? '').replace(/…$/, ''))) {
          out.push(`${name}: cut with no tooltip (${e.textContent})`);
        }
      }
    }
    return out;
  });
}

async function shots(page: Page, name: string) {
  await page.screenshot({ path: `${SHOTS}/${name}-1280.png`, fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: `${SHOTS}/${name}-390.png`, fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
}

test('a durable task: steps fill live, it sleeps, waits for an event sent from its page, resumes and succeeds', async ({ page }) => {
  test.setTimeout(120_000);
  const queue = unique('durable');
  const event = unique('order.paid');
  const orderId = Math.floor(Math.random() * 1e6);
  const token = await enqueue(page.request, {
    command: 'demo.durable',
    queue,
    payload: { steps: 3, ms: 700, sleepMs: 2500, event, match: { orderId } },
  });

  await page.goto(`/tasks/${token}`);
  const card = page.getByTestId('steps-card');
  const steps = card.getByTestId('step');
  // the timeline fills while the task runs: a first step, then more, without reloading the page
  await expect(steps.first()).toBeVisible({ timeout: 30_000 });
  await expect(steps.first()).toHaveAttribute('data-name', 'step 1');
  await expect(card.locator('[data-testid="step"][data-name="step 3"]')).toHaveAttribute('data-status', 'succeeded', { timeout: 30_000 });

  // the sleep: recorded as a step of its own; the task waits and says why
  const sleepStep = card.locator('[data-testid="step"][data-name="cool-down"]');
  const approval = card.locator('[data-testid="step"][data-name="approval"]');
  await expect(sleepStep.or(approval).first()).toBeVisible({ timeout: 30_000 });

  // then the event wait: the badge, the reason with the event and its match, the step waiting
  await expect(approval).toHaveAttribute('data-status', 'waiting', { timeout: 30_000 });
  await expect(sleepStep).toHaveAttribute('data-status', 'succeeded');
  await expect(page.getByTestId('task-status')).toHaveText('waiting');
  await expect(page.getByTestId('task-suspended')).toHaveText('waiting for event');
  await expect(page.getByTestId('why-reason')).toHaveText('waiting for event');
  await expect(page.getByTestId('why-text')).toHaveText(
    new RegExp(`^Waiting for event ${event.replace(/\./g, '\\.')} matching \\{"orderId":${orderId}\\}, no timeout \\(step approval\\)$`),
  );
  await expect(approval).toContainText(`waits for ${event}`);
  await expect(page.getByText('when its event comes (no timeout)')).toBeVisible();
  await expect(page.locator('[data-testid="attempt"][data-outcome="suspended"]')).toHaveCount(2);
  await shots(page, 'durable-task-waiting');

  // send the event from the task page: the dialog comes prefilled with the event and the match
  await page.getByTestId('task-send-event').click();
  const dialog = page.getByTestId('send-event-dialog');
  await expect(dialog.getByTestId('send-event-name')).toHaveValue(event);
  await expect(dialog.getByTestId('send-event-payload')).toHaveValue(JSON.stringify({ orderId }, null, 2));
  await dialog.getByTestId('send-event-payload').fill(JSON.stringify({ orderId, amount: 12.5 }));
  await dialog.getByTestId('send-event-submit').click();
  await expect(page.getByText(/sent: resumed 1 task$/)).toBeVisible();

  // it resumes and succeeds: the last step holds the event's payload; the first steps were replayed, not run again
  await waitForStatus(page.request, token, 'succeeded', 30_000);
  await expect(page.getByTestId('task-status')).toHaveText('succeeded', { timeout: 15_000 });
  await expect(page.getByTestId('task-suspended')).toHaveCount(0);
  const finish = card.locator('[data-testid="step"][data-name="finish"]');
  await expect(finish).toHaveAttribute('data-status', 'succeeded');
  await expect(finish.getByTestId('step-result')).toContainText(`"orderId":${orderId}`);
  await expect(approval).toHaveAttribute('data-status', 'succeeded');
  await expect(approval).toContainText(`waited for ${event}`);
  await expect(steps.first().getByTestId('step-replays')).toBeVisible();
  await expect(steps).toHaveCount(6);
  await shots(page, 'durable-task-done');

  // the Events page: the event, the one task it resumed, and the way back to it
  await page.getByRole('link', { name: /^event #\d+$/ }).click();
  await expect(page).toHaveURL(/\/events\?id=\d+/);
  const row = page.getByTestId('events-table').locator('tr', { hasText: event });
  await expect(row.getByTestId('event-resumed')).toHaveText('1 task');
  const detail = page.getByTestId('event-detail');
  await expect(detail.getByTestId('event-task')).toHaveCount(1);
  await expect(detail.getByTestId('event-task')).toContainText(`step approval`);
  await expect(detail.getByRole('link', { name: token.slice(0, 8) })).toHaveAttribute('href', `/tasks/${token}`);
  await shots(page, 'durable-events');

  // the page reads on a laptop and on a phone: no cell cut, the Sent time whole
  expect(await clippedCells(row), 'at 1280 px').toEqual([]);
  await page.setViewportSize({ width: 390, height: 844 });
  const phoneRow = page.getByTestId('events-table').locator('li', { hasText: event });
  await expect(phoneRow.locator('dt', { hasText: 'Sent' })).toBeVisible();
  expect(await clippedCells(phoneRow), 'at 390 px').toEqual([]);
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth + 1), 'no sideways scroll at 390 px').toBe(true);
  const sentField = phoneRow.locator('dd', { has: page.locator('time') });
  await expect(sentField).toHaveText(/ago\s*\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
  await expect(sentField).toBeInViewport({ ratio: 1 });
  await page.setViewportSize({ width: 1280, height: 900 });
});

test('a sleeping task: the Sleeping tab lists it, and an operator wakes it from its page', async ({ page }) => {
  const queue = unique('durable-sleep');
  const token = await enqueue(page.request, { command: 'demo.durable', queue, payload: { steps: 1, ms: 0, sleepMs: 3_600_000 } });
  await expect
    .poll(async () => ((await (await page.request.get(`/api/tasks/${token}`)).json()) as { suspended: string | null }).suspended, {
      timeout: 30_000,
      intervals: [200],
    })
    .toBe('sleep');

  await page.goto(`/tasks?status=waiting&sub=sleeping&queue=${queue}`);
  await expect(page.getByTestId('tab-sleeping')).toHaveAttribute('aria-current', 'page');
  await expect(page.getByTestId('tab-count-sleeping')).toHaveText('1');
  await expect(page.getByTestId('tab-count-event')).toHaveText('0');
  await expect(page.getByTestId('task-state')).toHaveText('sleeping');
  await shots(page, 'durable-tasks-sleeping');
  await expect(page.getByTestId('task-command')).toHaveCount(1);
  await page.getByTestId('task-command').click();
  await expect(page).toHaveURL(new RegExp(`/tasks/${token}$`));

  await expect(page.getByTestId('task-suspended')).toHaveText('sleeping');
  // the time of day, with its date when that is another day than today (an hour from 23:00 UTC is tomorrow)
  await expect(page.getByTestId('why-text')).toHaveText(
    /^Sleeping until (\d\d:\d\d:\d\d|\d{4}-\d\d-\d\d \d\d:\d\d) UTC \(in (59m \d+s|1h 0m)\) \(step cool-down\)$/,
  );
  await page.getByTestId('task-wake').click();
  await waitForStatus(page.request, token, 'succeeded', 30_000);
  await expect(page.getByTestId('task-status')).toHaveText('succeeded', { timeout: 15_000 });
  await expect(page.locator('[data-testid="step"][data-name="cool-down"]')).toContainText('slept until');
});
