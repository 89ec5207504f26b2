// The console at a 1280×900 laptop and a 390×844 phone: every table fits its card or scrolls inside it with
// its first column pinned (opaque, in both themes), or on a phone turns into cards that fit; at 1280 px a table
// fits, or keeps both its name and its actions pinned in view; text cut with an ellipsis can be read whole (a
// tooltip holds it), on every page at both widths; a flow's graph first shows every box on a phone; the Tasks
// tabs wrap instead of being cut, the empty states draw the navigation's SVG icons (no emoji), and a retried
// task that fails again says so.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { enqueue, taskStatus, unique, waitForStatus } from './helpers';

const SHOTS = process.env.E2E_SHOTS ?? '/tmp/layout-shots';

interface TableReport {
  id: string;
  overflow: boolean;
  /** the last header cell ends inside the card (and the viewport) */
  lastInside: boolean;
  /** the first header and body cells are sticky with an opaque background */
  firstPinned: boolean;
  /** the last header and body cells are pinned at the end (DataTable's `pin: 'end'`), sticky and opaque */
  lastPinned: boolean;
  /** at the table's start, the last header cell is in view (inside the card and the window) */
  lastInViewAtStart: boolean;
  /** scrolled to the end: the first column is still at the card's left edge, on top, and the last header is in view */
  pinnedAfterScroll: boolean;
  lastReachable: boolean;
  /** body rows */
  rows: number;
}

interface CardsReport {
  id: string;
  items: number;
  /** what in a card reaches past the phone's width (a card, or something inside one not in a scroll box) */
  outside: string[];
}

/** Every table on the page, measured; overflowing ones scrolled to their end and back. */
function measureTables(page: Page): Promise<{ docOverflow: boolean; tables: TableReport[] }> {
  return page.evaluate(() => {
    const alpha = (c: string) => {
      if (c === 'transparent') return 0;
      const m = c.match(/\/\s*([\d.]+)(%?)\s*\)$/) ?? c.match(/^rgba\([^)]*,\s*([\d.]+)()\)$/);
      if (!m) return 1;
      return m[2] === '%' ? Number(m[1]) / 100 : Number(m[1]);
    };
    const pinned = (el: Element | null) => {
      if (!el) return true; // no body row: nothing to cover
      const s = getComputedStyle(el);
      return s.position === 'sticky' && alpha(s.backgroundColor) === 1;
    };
    const tables = [...document.querySelectorAll('main table')].map((t) => {
      const box = t.parentElement!;
      const ths = [...t.querySelectorAll(':scope > thead > tr > th')];
      const firstTh = ths[0] ?? null;
      const firstTd = t.querySelector(':scope > tbody > tr > td');
      const lastTh = ths[ths.length - 1]!;
      const lastTd = t.querySelector(':scope > tbody > tr > td:last-child');
      const atEnd = (el: Element | null) => !el || el.classList.contains('dt-pin-end');
      const boxRect = box.getBoundingClientRect();
      const overflow = box.scrollWidth > box.clientWidth + 1;
      const lastInside = lastTh.getBoundingClientRect().right <= Math.min(boxRect.right, innerWidth) + 1;
      let pinnedAfterScroll = true;
      let lastReachable = true;
      const lastInViewAtStart = lastTh.getBoundingClientRect().right <= Math.min(boxRect.right, innerWidth) + 1;
      if (overflow) {
        const first = (firstTd ?? firstTh)!;
        first.scrollIntoView({ block: 'center', inline: 'nearest' });
        const before = box.scrollLeft;
        box.scrollLeft = box.scrollWidth;
        const left = box.getBoundingClientRect().left;
        const right = box.getBoundingClientRect().right;
        const r = first.getBoundingClientRect();
        const hit = document.elementFromPoint(r.left + Math.min(12, r.width / 2), r.top + r.height / 2);
        pinnedAfterScroll = Math.abs(r.left - left) <= 1 && hit !== null && first.contains(hit);
        lastReachable = lastTh.getBoundingClientRect().right <= right + 1;
        box.scrollLeft = before;
      }
      return {
        id: (t as HTMLElement).dataset.testid ?? t.closest('[data-testid]')?.getAttribute('data-testid') ?? '?',
        overflow,
        lastInside,
        firstPinned: pinned(firstTh) && pinned(firstTd),
        lastPinned: pinned(lastTh) && pinned(lastTd) && atEnd(lastTh) && atEnd(lastTd),
        lastInViewAtStart,
        pinnedAfterScroll,
        lastReachable,
        rows: t.querySelectorAll(':scope > tbody > tr').length,
      };
    });
    return { docOverflow: document.documentElement.scrollWidth > innerWidth + 1, tables };
  });
}

/** The lists that stand for a table on phones (DataTable's cards: `ul[data-testid] > li`), measured. */
function measureCards(page: Page): Promise<CardsReport[]> {
  return page.evaluate(() => {
    const scrolls = (el: Element) => ['auto', 'scroll'].includes(getComputedStyle(el).overflowX);
    return [...document.querySelectorAll('main ul[data-testid]')].map((ul) => {
      const items = [...ul.querySelectorAll(':scope > li')];
      const outside: string[] = [];
      for (const li of items) {
        const describe = (el: Element) => `${el.tagName.toLowerCase()} "${(el.textContent ?? '').trim().slice(0, 40)}"`;
        const r = li.getBoundingClientRect();
        if (r.left < -1 || r.right > innerWidth + 1) outside.push(`card ${describe(li)}: ${r.left}…${r.right}`);
        for (const el of li.querySelectorAll('*')) {
          let a = el.parentElement;
          while (a && a !== li && !scrolls(a)) a = a.parentElement;
          if (a !== li) continue; // inside a box of its own that scrolls
          const e = el.getBoundingClientRect();
          if (e.width > 0 && e.right > innerWidth + 1) outside.push(`${describe(el)} ends at ${Math.round(e.right)} px`);
        }
      }
      return { id: ul.getAttribute('data-testid') ?? '?', items: items.length, outside: outside.slice(0, 5) };
    });
  });
}

function expectFitsOrPinned(where: string, r: TableReport) {
  if (!r.overflow) {
    expect(r.lastInside, `${where} ${r.id}: fits, last column inside`).toBe(true);
    return;
  }
  expect(r.firstPinned, `${where} ${r.id}: scrolls, so its first column is sticky and opaque`).toBe(true);
  expect(r.pinnedAfterScroll, `${where} ${r.id}: scrolled to the end, the first column stays in view on top`).toBe(true);
  expect(r.lastReachable, `${where} ${r.id}: scrolled to the end, the last column is in view`).toBe(true);
}

/**
 * At 1280 px a table fits its card; or, scrolling, keeps its name (first column) and its actions (last column)
 * pinned and in view: nothing a row is named by or acted on is ever off-screen.
 */
function expectFitsOrBothPinned(where: string, r: TableReport) {
  expectFitsOrPinned(where, r);
  if (!r.overflow) return;
  expect(r.lastPinned, `${where} ${r.id}: scrolls at 1280 px, so its last (actions) column is pinned at the end`).toBe(true);
  expect(r.lastInViewAtStart, `${where} ${r.id}: its pinned last column is in view before any scroll`).toBe(true);
}

/**
 * Text cut short on the page — an ellipsis (text-overflow) or clamped lines — whose whole cannot be read: no
 * tooltip (`title`, on it or around it) holds it. Each as `tag "text"`.
 */
function unreadable(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    // compared without white space: a tooltip's spacing may differ from the text's, its characters may not
    const norm = (s: string) => s.replace(/\s+/g, '');
    const out: string[] = [];
    for (const el of document.querySelectorAll('main *')) {
      const s = getComputedStyle(el);
      const cut = s.textOverflow === 'ellipsis' && el.scrollWidth > el.clientWidth + 1;
      const clamp = (s as CSSStyleDeclaration & { webkitLineClamp?: string }).webkitLineClamp;
      const clamped = clamp !== undefined && clamp !== 'none' && clamp !== '' && el.scrollHeight > el.clientHeight + 1;
      if (!cut && !clamped) continue;
      // (a text the page shortened itself ends in "…": the tooltip holds the whole it stands for)
      const text = norm(el.textContent ?? '').replace(/…$/, '');
      if (!text) continue;
      let held = false;
      for (let a: Element | null = el; a && !held; a = a.parentElement) held = norm(a.getAttribute('title') ?? '').includes(text);
      if (!held) out.push(`${el.tagName.toLowerCase()} "${text.slice(0, 60)}"`);
    }
    return out;
  });
}

/** A flow of 20 nodes in five layers (1, 4, 8, 6, 1): wider than a phone at any readable zoom. */
async function seedFlow(request: APIRequestContext, queue: string): Promise<number> {
  const echo = { command: 'demo.echo', queue };
  const nodes: { id: string; command: string; queue: string; dependsOn?: string[] }[] = [{ id: 'extract-orders', ...echo }];
  for (let i = 0; i < 4; i++) nodes.push({ id: `load-region-${i}`, ...echo, dependsOn: ['extract-orders'] });
  for (let i = 0; i < 8; i++) nodes.push({ id: `transform-${i}`, ...echo, dependsOn: [`load-region-${i % 4}`] });
  for (let i = 0; i < 6; i++) nodes.push({ id: `check-${i}`, ...echo, dependsOn: [`transform-${i}`, `transform-${i + 2}`] });
  nodes.push({ id: 'report', ...echo, dependsOn: Array.from({ length: 6 }, (_, i) => `check-${i}`) });
  const res = await request.post('/api/flows', { data: { name: 'e2e layout: nightly orders reconciliation', nodes } });
  expect(res.status(), await res.text()).toBe(201);
  return ((await res.json()) as { flowId: number }).flowId;
}

/** Something in every table: a paused queue with waiting work (its "why" note), failures, running tasks, a flow. */
async function seed(request: APIRequestContext) {
  // the queue exists once a task names it; paused before its ready task comes, which then waits. A long name:
  // the Queues and Overview tables must fit 1280 px with it
  const paused = unique('e2e-layout-paused-billing-exports-reconciliation');
  const later = new Date(Date.now() + 3_600_000).toISOString();
  const waiting = [await enqueue(request, { command: 'demo.echo', queue: paused, payload: { n: 0 }, runAt: later })];
  expect((await request.patch(`/api/queues/${paused}`, { data: { paused: true } })).status()).toBe(200);
  waiting.push(await enqueue(request, { command: 'demo.echo', queue: paused, payload: { n: 1 } }));
  const busy = unique('e2e-layout');
  const dead = await enqueue(request, {
    command: 'demo.fail',
    queue: busy,
    payload: { message: 'Transaction (Process ID 57) was deadlocked on lock resources with another process', number: 1205 },
    maxAttempts: 1,
  });
  // cancelled after each test, passed or not (test.afterEach below): they would hold the workers of the next one
  const running = [
    await enqueue(request, { command: 'demo.progress', queue: busy, payload: { steps: 600, ms: 500 } }),
    await enqueue(request, { command: 'demo.sleep', queue: busy, payload: { ms: 300_000 } }),
    ...waiting,
  ];
  seededRunning.push(...running);
  await waitForStatus(request, dead, 'dead');
  const flow = await seedFlow(request, unique('e2e-layout-flow'));
  return { paused, busy, dead, running, flow };
}

/** The long tasks a test seeded, cancelled after it whatever its outcome. */
const seededRunning: string[] = [];

async function cancel(request: APIRequestContext, tokens: string[]) {
  for (const t of tokens) await request.post(`/api/tasks/${t}/cancel`);
}

test.afterEach(async ({ request }) => {
  await cancel(request, seededRunning.splice(0));
});

async function settle(page: Page, path: string) {
  await page.goto(path);
  await expect(page.getByTestId('live-indicator').first()).toContainText('live', { timeout: 30_000 });
  await expect(page.getByTestId('loading')).toHaveCount(0, { timeout: 30_000 });
  await layoutStill(page);
}

/**
 * Waits until the page's layout stops moving (charts sized by their observers, late rows, wrapped text): the
 * document's size and every table's and card's box the same over 6 frames in a row.
 */
async function layoutStill(page: Page) {
  await page.evaluate(
    () =>
      new Promise<void>((resolve) => {
        const shape = () => {
          const d = document.documentElement;
          const boxes = [...document.querySelectorAll('table, main section, main [data-testid$="-card"], svg')].map((el) => {
            const r = el.getBoundingClientRect();
            return `${Math.round(r.x)},${Math.round(r.y)},${Math.round(r.width)},${Math.round(r.height)}`;
          });
          return `${d.scrollWidth}x${d.scrollHeight}|${boxes.join(';')}`;
        };
        let last = shape();
        let same = 0;
        const frame = () => {
          const now = shape();
          same = now === last ? same + 1 : 0;
          last = now;
          if (same >= 6) resolve();
          else requestAnimationFrame(frame);
        };
        requestAnimationFrame(frame);
      }),
  );
}

const DARK_PAGES = ['/', '/running', '/tasks?status=dead', '/queues', '/failed', '/log'];
const PAGES = [
  '/',
  '/running',
  '/tasks',
  '/tasks?status=dead',
  '/queues',
  '/failed',
  '/log',
  '/workers',
  '/batches',
  '/flows',
  '/audit',
  '/events',
  '/alerts',
  '/schedules',
  '/enqueue',
];

/** Every page: the list above and the pages of one seeded task, flow and queue. */
const everyPage = (seeded: { dead: string; flow: number; paused: string }) => [
  ...PAGES,
  `/tasks/${seeded.dead}`,
  `/flows/${seeded.flow}`,
  `/history/queues/${encodeURIComponent(seeded.paused)}`,
  '/history/commands/demo.fail',
];

const shotName = (path: string) => (path === '/' ? 'overview' : path.slice(1).replace(/[/?=%]/g, '-'));

/** Each page at 1280×900 in one theme: no sideways page, tables that fit or pin name and actions, cut text readable. */
async function check1280(page: Page, scheme: 'light' | 'dark', paths: string[]) {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.emulateMedia({ colorScheme: scheme });
  for (const path of paths) {
    await settle(page, path);
    const m = await measureTables(page);
    expect(m.docOverflow, `${path}: the page itself does not scroll sideways`).toBe(false);
    for (const t of m.tables) expectFitsOrBothPinned(`${scheme} ${path}`, t);
    expect(await unreadable(page), `${scheme} ${path}: text cut with nothing to read it whole`).toEqual([]);
    await page.screenshot({ path: join(SHOTS, `1280-${scheme}-${shotName(path)}.png`) });
  }
}

test('at 1280×900 in the dark theme the pages with the widest tables fit or pin their name and actions', async ({ page, request }) => {
  test.setTimeout(240_000);
  mkdirSync(SHOTS, { recursive: true });
  const seeded = await seed(request);
  await check1280(page, 'dark', DARK_PAGES);
});

test('at 1280×900 every table fits or pins its name and actions, and cut text can be read, on every page', async ({ page, request }) => {
  test.setTimeout(420_000);
  mkdirSync(SHOTS, { recursive: true });
  const seeded = await seed(request);
  await check1280(page, 'light', everyPage(seeded));
  // Queues fits 1280 px with a long queue name: every row's limit and pause switch in view, no scroll
  await page.emulateMedia({ colorScheme: 'light' });
  await settle(page, '/queues');
  const box = page.getByTestId('queue-list').locator('xpath=..');
  expect(await box.evaluate((el) => el.scrollWidth - el.clientWidth), 'Queues: the table is not wider than its card').toBeLessThanOrEqual(
    1,
  );
  for (const r of await page.getByTestId('queue-row').all()) {
    await r.scrollIntoViewIfNeeded();
    await expect(r.getByTestId('queue-select')).toBeInViewport({ ratio: 1 });
    await expect(r.getByTestId('limit-unlimited')).toBeInViewport({ ratio: 1 });
    await expect(r.getByTestId('pause-switch')).toBeInViewport({ ratio: 1 });
  }
  // Overview's stat cards and queue reasons wrap: nothing of them is cut
  await settle(page, '/');
  for (const id of ['stat-waiting-sub', 'stat-running-sub']) {
    const sub = page.getByTestId(id);
    await expect(sub).toBeVisible();
    expect(await sub.evaluate((el) => el.scrollWidth <= el.clientWidth + 1 && getComputedStyle(el).textOverflow !== 'ellipsis')).toBe(true);
  }
  // the paused queue's why note does not push its name out of view
  await page.emulateMedia({ colorScheme: 'light' });
  await settle(page, '/queues');
  const row = page.locator(`[data-testid="queue-row"][data-queue="${seeded.paused}"]`);
  await expect(row.getByTestId('queue-why')).toBeAttached();
  // scrolled to the table's last column, the queue's name is still in view
  const list = page.getByTestId('queue-list');
  await list.evaluate((el) => {
    el.parentElement!.scrollLeft = el.parentElement!.scrollWidth;
  });
  const name = row.getByTestId('queue-select');
  await name.evaluate((el) => el.scrollIntoView({ block: 'center', inline: 'nearest' }));
  expect(
    await list.evaluate((el) => el.parentElement!.scrollLeft + el.parentElement!.clientWidth >= el.parentElement!.scrollWidth - 1),
  ).toBe(true);
  await expect(name).toBeInViewport({ ratio: 1 });
  await expect(row.getByTestId('queue-why')).toBeInViewport();
});

test('a narrower window: wide tables scroll inside their card with the first column pinned and opaque', async ({ page, request }) => {
  test.setTimeout(240_000);
  const seeded = await seed(request);
  await page.setViewportSize({ width: 900, height: 900 });
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    let scrolling = 0;
    for (const path of ['/tasks?status=dead', '/running', '/queues', '/log', '/failed']) {
      await settle(page, path);
      const m = await measureTables(page);
      expect(m.docOverflow, `${path}: the page itself does not scroll sideways`).toBe(false);
      for (const t of m.tables) {
        expectFitsOrPinned(`${scheme} ${path} at 900 px`, t);
        if (t.overflow) scrolling++;
      }
    }
    // the case above is exercised, not skipped: at 900 px these tables are wider than their cards
    expect(scrolling).toBeGreaterThanOrEqual(3);
  }
  // the running tasks' Cancel buttons stay in view at the table's end, the task at its start
  await page.emulateMedia({ colorScheme: 'light' });
  await settle(page, '/running');
  await expect(page.getByTestId('running-row').first()).toBeVisible();
  await expect(page.getByTestId('cancel-running').first()).toBeInViewport();
  await expect(page.getByTestId('running-token').first()).toBeInViewport();
  await page.screenshot({ path: join(SHOTS, '900-light-running.png') });
  // Queues scrolls at 900 px: each row's name and its limit and pause controls (pinned at the end) are in view
  await settle(page, '/queues');
  const queue = page.locator(`[data-testid="queue-row"][data-queue="${seeded.paused}"]`);
  await queue.scrollIntoViewIfNeeded();
  await expect(queue.getByTestId('queue-select')).toBeInViewport({ ratio: 1 });
  await expect(queue.getByTestId('pause-switch')).toBeInViewport({ ratio: 1 });
  await expect(queue.getByTestId('limit-unlimited')).toBeInViewport({ ratio: 1 });
  await page.screenshot({ path: join(SHOTS, '900-light-queues.png') });
});

test('at 390×844 the Tasks tabs are all reachable and the queue name stays visible', async ({ page, request }) => {
  test.setTimeout(240_000);
  mkdirSync(SHOTS, { recursive: true });
  const seeded = await seed(request);
  await page.setViewportSize({ width: 390, height: 844 });
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await settle(page, '/tasks');
    const tabs = page.getByTestId('task-tabs').locator('button');
    await expect(tabs).toHaveCount(12); // components/tasks/tabs.ts TABS (waiting, sleeping, event and claimed among them)
    for (const tab of await tabs.all()) {
      const b = (await tab.boundingBox())!;
      expect(b.x, `${await tab.textContent()} starts on screen`).toBeGreaterThanOrEqual(0);
      expect(b.x + b.width, `${await tab.textContent()} ends on screen`).toBeLessThanOrEqual(390);
    }
    await page.screenshot({ path: join(SHOTS, `390-${scheme}-tasks.png`) });
    await page.getByTestId('tab-cancelled').click();
    await expect(page).toHaveURL(/status=cancelled/);

    // Overview's queue table keeps a table on phones: it scrolls, the queue name stays pinned
    await settle(page, '/');
    const table = page.getByTestId('queue-table');
    await table.scrollIntoViewIfNeeded();
    const m = await measureTables(page);
    expect(m.docOverflow).toBe(false);
    for (const t of m.tables) expectFitsOrPinned(`${scheme} / at 390 px`, t);
    await table.evaluate((el) => {
      el.parentElement!.scrollLeft = el.parentElement!.scrollWidth;
    });
    const name = table.locator('tbody tr').first().locator('td').first();
    await expect(name).toBeInViewport({ ratio: 1 });
    await page.screenshot({ path: join(SHOTS, `390-${scheme}-overview.png`) });
    // the other pages' tables, with rows in them: each a table that fits or scrolls with its first column
    // pinned, or cards that fit the phone's width
    for (const path of ['/running', '/queues', '/failed', '/log', '/tasks']) {
      await settle(page, path);
      const tables = await measureTables(page);
      expect(tables.docOverflow, `${path}: no sideways scroll on a phone`).toBe(false);
      for (const t of tables.tables) expectFitsOrPinned(`${scheme} ${path} at 390 px`, t);
      const cards = await measureCards(page);
      for (const c of cards) expect(c.outside, `${scheme} ${path} at 390 px, ${c.id}: every card fits`).toEqual([]);
      const rows = tables.tables.reduce((n, t) => n + t.rows, 0) + cards.reduce((n, c) => n + c.items, 0);
      expect(rows, `${path}: rows to measure`).toBeGreaterThan(0);
      await page.screenshot({ path: join(SHOTS, `390-${scheme}-${path.slice(1)}.png`) });
    }
  }
});

test('at 390×844 every page fits the phone, its cut text can be read, and a flow graph opens with every box in view', async ({
  page,
  request,
}) => {
  test.setTimeout(420_000);
  mkdirSync(SHOTS, { recursive: true });
  const seeded = await seed(request);
  await page.setViewportSize({ width: 390, height: 844 });
  // nothing wider than the phone, tables and cards that fit, cut text readable
  for (const path of everyPage(seeded)) {
    await settle(page, path);
    const tables = await measureTables(page);
    expect(tables.docOverflow, `${path}: no sideways scroll on a phone`).toBe(false);
    for (const t of tables.tables) expectFitsOrPinned(`${path} at 390 px`, t);
    for (const c of await measureCards(page)) expect(c.outside, `${path} at 390 px, ${c.id}: every card fits`).toEqual([]);
    expect(await unreadable(page), `${path} at 390 px: text cut with nothing to read it whole`).toEqual([]);
    await page.screenshot({ path: join(SHOTS, `390-light-${shotName(path)}.png`) });
  }
  // a flow's graph first shows every box: fitted inside the graph's frame and the phone's width
  await page.goto(`/flows/${seeded.flow}`);
  const boxes = page.getByTestId('flow-node');
  await expect(boxes).toHaveCount(20, { timeout: 30_000 });
  const outside = () =>
    page.evaluate(() => {
      const frame = document.querySelector('[data-testid="flow-graph"]')!.getBoundingClientRect();
      const left = Math.max(0, frame.left);
      const right = Math.min(innerWidth, frame.right);
      return [...document.querySelectorAll<HTMLElement>('[data-testid="flow-node"]')]
        .map((n) => ({ id: n.dataset.node, r: n.getBoundingClientRect() }))
        .filter(
          ({ r }) => r.width === 0 || r.left < left - 1 || r.right > right + 1 || r.top < frame.top - 1 || r.bottom > frame.bottom + 1,
        )
        .map(({ id, r }) => `${id}: ${Math.round(r.left)}…${Math.round(r.right)} × ${Math.round(r.top)}…${Math.round(r.bottom)}`);
    });
  // (the fit runs once the boxes are measured: waited for, never provoked)
  await expect.poll(outside, { timeout: 15_000, message: 'every node box inside the fitted view' }).toEqual([]);
  await page.screenshot({ path: join(SHOTS, '390-light-flow-graph.png') });
});

test('empty states draw the navigation icons, never an emoji', async ({ page }) => {
  test.setTimeout(180_000);
  const nothing = unique('e2e-empty');
  const pictograph = /\p{Extended_Pictographic}/u;
  // alert rules, their firings and schedules are not per queue: other specs may have made some, so their
  // lists are answered as on a fresh install (the server's own answer, emptied)
  await page.route(
    (url) => ['/api/alerts', '/api/alerts/firings', '/api/schedules'].includes(url.pathname),
    async (route) => {
      try {
        const response = await route.fetch();
        const json = (await response.json()) as Record<string, unknown>;
        for (const k of ['rules', 'items', 'schedules']) if (Array.isArray(json[k])) json[k] = [];
        if ('next' in json) json.next = null;
        await route.fulfill({ response, json });
      } catch (err) {
        // a live poll of the page the test has just left: its response is disposed, nobody waits for it
        if (!/disposed|closed|detached/i.test(String(err))) throw err;
      }
    },
  );
  const pages: [string, string[]][] = [
    [`/failed?queue=${nothing}`, []],
    [`/tasks?queue=${nothing}`, []],
    [`/log?queue=${nothing}`, []],
    [`/tasks/00000000-0000-4000-8000-000000000000`, []],
    ['/no-such-page', []],
    ['/alerts', ['alert-rules-empty', 'alert-history-empty']],
    ['/schedules', ['empty']],
  ];
  for (const [path, empties] of pages) {
    await page.goto(path);
    const icons = page.getByTestId('empty-icon');
    await expect(icons.first()).toBeVisible({ timeout: 30_000 });
    for (const id of empties) await expect(page.getByTestId(id).getByTestId('empty-icon')).toBeVisible();
    for (const icon of await icons.all()) {
      await expect(icon.locator('svg path')).toHaveCount(1);
      expect(await icon.textContent()).toBe('');
    }
    const text = await page.locator('main').innerText();
    expect(pictograph.test(text), `${path}: ${text.match(pictograph)?.[0]}`).toBe(false);
  }
});

test('a retried task that fails again at once says so on Failed, Tasks and its own page', async ({ page, request }) => {
  mkdirSync(SHOTS, { recursive: true });
  const queue = unique('e2e-again');
  const token = await enqueue(request, { command: 'demo.fail', queue, payload: { message: 'still broken' }, maxAttempts: 2 });
  await waitForStatus(request, token, 'dead');

  await page.goto(`/failed?queue=${queue}`);
  const row = page.locator(`[data-testid="dead-row"][data-token="${token}"]`);
  await expect(row).toBeVisible();
  await expect(row.getByTestId('retried-note')).toHaveCount(0);
  await row.getByTestId('dead-retry').click();
  await expect.poll(async () => (await taskStatus(request, token)).attempts, { timeout: 15_000 }).toBe(3);
  await waitForStatus(request, token, 'dead');
  // the row is back (dead again), and no longer looks as if nothing happened
  const note = /^retried · failed again (\d+(\.\d)? (ms|s) later|at once), attempt 3\/3$/;
  await expect(row.getByTestId('retried-note')).toHaveText(note);
  await page.screenshot({ path: join(SHOTS, 'retried-failed.png') });

  await page.goto(`/tasks?queue=${queue}&status=dead`);
  const taskRow = page.locator(`[data-testid="task-row"][data-token="${token}"]`);
  await expect(taskRow.getByTestId('task-state')).toHaveText('dead');
  await expect(taskRow.getByTestId('retried-note')).toHaveText(note);

  await page.goto(`/tasks/${token}`);
  await expect(page.getByTestId('retried-note')).toHaveText(note);
  // the task page's own retry: the note follows the newest attempt
  await page.getByTestId('task-retry').click();
  await expect(page.getByTestId('retried-note')).toHaveText(/^retried · failed again .*, attempt 4\/4$/, { timeout: 15_000 });
  await page.screenshot({ path: join(SHOTS, 'retried-task.png') });
  // the next action on the task ends the note
  const marked = () => page.evaluate((t) => (sessionStorage.getItem('readpast.retried') ?? '').includes(t), token);
  expect(await marked()).toBe(true);
  await page.getByTestId('task-delete').click();
  await page.getByTestId('confirm-ok').click();
  await expect(page).toHaveURL(/\/failed/);
  expect(await marked()).toBe(false);
});
