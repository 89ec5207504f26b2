// Claimed is not running: with the demo workload (three long tasks holding three of the 4 workers, and bursts of short
// tasks the pool claims ahead of them), the nav badge, the Overview and the Running page say the same number at every
// poll for 10 s, and it is never more than the workers that exist. Tasks claimed ahead show in a section of their own
// on the Running page.
import { expect, test, type Page } from '@playwright/test';
import { enqueue, unique, waitForStatus } from './helpers';

const WORKERS = 4;

/** The queues the demo workload fills (lib/api/demo.ts: demoWorkload, DEMO_BATCH). */
const DEMO_QUEUES = ['default', 'emails', 'reports', 'etl'];

/**
 * The long tasks this spec starts, and what is left of the demo workload it loads (a few minutes of work for the four
 * workers): the specs after it share the server's workers, so both are cancelled when it ends, passed or not — a
 * durable task enqueued next waited 30 s and more behind the demo's leftovers (twice that after a retry loaded it again).
 */
const long: string[] = [];
let demoLoaded = false;
test.afterEach(async ({ request }) => {
  for (const token of long.splice(0)) {
    const res = await request.post(`/api/tasks/${token}/cancel`);
    expect([200, 409], await res.text()).toContain(res.status());
  }
  if (!demoLoaded) return;
  demoLoaded = false;
  for (const queue of DEMO_QUEUES) {
    for (const status of ['waiting', 'pending', 'claimed', 'running']) {
      const res = await request.post('/api/tasks/bulk', { data: { action: 'cancel', filter: `queue=${queue}&status=${status}` } });
      expect(res.status(), await res.text()).toBe(200);
    }
  }
});

/** The nav's Running badge (absent: 0) and another number on the page, read in one go from the DOM. */
async function readBoth(page: Page, other: string): Promise<{ badge: number; other: number | null }> {
  return page.evaluate((sel) => {
    const badge = document.querySelector('aside [data-testid="nav-badge-running"]')?.textContent ?? '0';
    const text = document.querySelector(sel)?.textContent ?? null;
    const n = text === null ? null : Number(/\d+/.exec(text)?.[0] ?? 'NaN');
    return { badge: Number(badge), other: n };
  }, other);
}

/** For 10 s, at every poll (the page redraws once a second): the badge and the page's number agree. */
async function agreeFor10s(page: Page, other: string): Promise<number[]> {
  const seen: number[] = [];
  const until = Date.now() + 10_000;
  while (Date.now() < until) {
    const { badge, other: n } = await readBoth(page, other);
    expect(n, `${other} shows a number`).not.toBeNull();
    expect(badge, `badge ${badge} vs ${other} ${n}`).toBe(n);
    expect(n!).toBeLessThanOrEqual(WORKERS);
    seen.push(n!);
    await page.waitForTimeout(250);
  }
  return seen;
}

test('the nav badge, Overview and Running page agree on what runs, and tasks claimed ahead are shown apart', async ({ page, request }) => {
  test.setTimeout(300_000);
  await page.goto('/');
  demoLoaded = true;
  await page.getByTestId('load-demo').click();
  await expect(page.getByText(/Enqueued \d+ demo tasks/)).toBeVisible({ timeout: 15_000 });
  // three long tasks first in line hold three of the four workers through the test; the demo workload and the short
  // tasks share the fourth
  const queue = unique('e2e-ahead');
  for (let i = 0; i < 3; i++) long.push(await enqueue(request, { command: 'demo.sleep', payload: { ms: 40_000 }, queue, priority: 10 }));
  for (let i = 0; i < 40; i++) {
    await Promise.all(Array.from({ length: 5 }, (_, j) => enqueue(request, { command: 'demo.echo', payload: { i, j }, queue })));
  }

  // Overview: "Running N" is the badge's number, "M of K workers busy" under it
  await expect(page.getByTestId('stat-running-value')).toHaveText(/^\d+$/);
  const overview = await agreeFor10s(page, '[data-testid="stat-running-value"]');
  expect(overview.some((n) => n > 0)).toBe(true);
  await expect(page.getByTestId('stat-running')).toContainText(/of \d+ workers busy/);
  await page.screenshot({ path: 'test-results/claimed-overview.png', fullPage: false });

  await page.goto('/running');
  await expect(page.getByRole('heading', { name: 'Running', level: 1 })).toBeVisible();
  await expect(page.getByTestId('running-card').locator('h2')).toHaveText(/^\d+ running$/);
  const running = await agreeFor10s(page, '[data-testid="running-card"] h2');
  expect(running.some((n) => n > 0)).toBe(true);
  // its rows are the number it says
  const { rows, header } = await page.evaluate(() => ({
    rows: document.querySelectorAll('[data-testid="running-row"]').length,
    header: document.querySelector('[data-testid="running-card"] h2')?.textContent ?? '',
  }));
  expect(header).toBe(`${rows} running`);
  await page.screenshot({ path: 'test-results/claimed-running.png', fullPage: true });

  // more short tasks: while the pool claims ahead, the section lists them by worker, never as running
  for (let i = 0; i < 50; i++) {
    await Promise.all(
      Array.from({ length: 5 }, (_, j) => enqueue(request, { command: 'demo.echo', payload: { i, j, more: true }, queue })),
    );
  }
  const section = page.getByTestId('running-claimed');
  const shown = await section.waitFor({ state: 'visible', timeout: 10_000 }).then(
    () => true,
    () => false,
  );
  if (shown) {
    await expect(section.getByTestId('running-claimed-worker').first()).toContainText(/claimed ahead: \d+ on worker/);
    await page.screenshot({ path: 'test-results/claimed-running-section.png', fullPage: true });
  }
  const after = await readBoth(page, '[data-testid="running-card"] h2');
  expect(after.badge).toBeLessThanOrEqual(WORKERS);
});

test('on the Running page the badge is its list’s count even while the stats have not answered', async ({ page, request }) => {
  const token = await enqueue(request, { command: 'demo.sleep', payload: { ms: 60_000 }, queue: unique('e2e-badge') });
  long.push(token);
  await waitForStatus(request, token, 'running');
  // the stats (the other badges' poll) held back: the page's own list answers first, as it can on a page just opened
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  await page.route('**/api/stats**', async (route) => {
    await held;
    await route.continue().catch(() => {});
  });
  await page.goto('/running');
  const header = page.getByTestId('running-card').locator('h2');
  await expect(header).toHaveText(/^[1-9]\d* running$/);
  const { badge, other } = await readBoth(page, '[data-testid="running-card"] h2');
  expect(badge, `badge ${badge} vs the list's ${other}`).toBe(other);
  release();
  await page.unrouteAll({ behavior: 'ignoreErrors' });
});
