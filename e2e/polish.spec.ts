// Polish: the pool size set on the Workers page survives a restart, the graceful stop answers 503 with
// Retry-After (no stack trace in the log), one start-up line, the theme (OS default, a toggle that sticks),
// keyboard shortcuts, and screenshots of Overview and Workers in both themes.
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { enqueue, unique, waitForStatus } from './helpers';

const SHOTS = process.env.POLISH_SHOTS ?? '/tmp/polish-shots';

// ---- a dashboard process of our own (restart, SIGTERM), on another port and database ----------

interface Server {
  child: ChildProcess;
  base: string;
  output: () => string;
  exited: Promise<number | null>;
}

/** a port nothing listens on now (the suite's server and other runs on this machine have their own) */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

let ownPort = 0;

async function startServer(dbPath: string, extraEnv: Record<string, string> = {}): Promise<Server> {
  ownPort ||= await freePort();
  const base = `http://127.0.0.1:${ownPort}`;
  const next = join(process.cwd(), 'node_modules', 'next', 'dist', 'bin', 'next');
  const child = spawn(process.execPath, [next, 'start', '-H', '127.0.0.1', '-p', String(ownPort)], {
    cwd: process.cwd(),
    env: {
      ...process.env,
      READPAST_DATABASE_URL: `sqlite:${dbPath}`,
      READPAST_WORKERS: '4',
      NEXT_TELEMETRY_DISABLED: '1',
      // as `npm start` (bin/start.mjs) runs it: the process stops its pool itself, then exits
      NEXT_MANUAL_SIG_HANDLE: '1',
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += String(d)));
  child.stderr!.on('data', (d) => (out += String(d)));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const r = await fetch(`${base}/api/stats`);
      if (r.status === 200 && /readpast dashboard on|"startup":true/.test(out)) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the dashboard did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return { child, base, output: () => out, exited };
}

async function enqueueOn(request: APIRequestContext, base: string, body: Record<string, unknown>): Promise<string> {
  const res = await request.post(`${base}/api/tasks`, { data: body });
  expect(res.status(), await res.text()).toBe(201);
  return ((await res.json()) as { token: string }).token;
}

async function runningCount(request: APIRequestContext, base: string): Promise<number> {
  const r = await request.get(`${base}/api/stats`);
  return ((await r.json()) as { totals: { running: number } }).totals.running;
}

test.describe('a dashboard process of its own', () => {
  test.describe.configure({ timeout: 180_000 });
  let dir: string;
  let server: Server | null = null;

  test.beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'readpast-polish-e2e-'));
  });
  test.afterAll(async () => {
    if (server && server.child.exitCode === null) {
      server.child.kill('SIGKILL');
      await server.exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  test('pool size survives a restart; the stop answers 503 with Retry-After; one start-up line', async ({ page, request }) => {
    const db = join(dir, 'readpast.db');
    server = await startServer(db);
    const { base } = server;
    // one human start-up line, naming the address, the database and the pool
    expect(server.output()).toContain(`readpast dashboard on ${base} · sqlite:${db} · 4 workers`);
    expect(server.output().match(/readpast dashboard on/g)).toHaveLength(1);

    // four long tasks keep every worker busy: a shrink to 2 leaves 2 retiring until their task ends
    const queue = unique('polish');
    for (let i = 0; i < 4; i++) await enqueueOn(request, base, { command: 'demo.sleep', queue, payload: { ms: 20_000 } });
    await expect.poll(() => runningCount(request, base), { timeout: 15_000 }).toBe(4);

    await page.goto(`${base}/workers`);
    const self = page.getByTestId('process-self');
    await expect(self.getByTestId('pool-size-input')).toHaveValue('4');
    await expect(self.getByTestId('pool-size-source')).toContainText('READPAST_WORKERS (4)');
    await self.getByTestId('pool-size-input').fill('2');
    await self.getByTestId('pool-size-apply').click();
    const confirm = page.getByTestId('confirm-dialog');
    await expect(confirm).toContainText('2 workers of 4 leave');
    await confirm.getByTestId('confirm-ok').click();
    await expect(page.getByTestId('toast-success')).toContainText('Pool resized to 2 workers');
    await expect(self.getByTestId('process-summary')).toContainText('2 running workers · 2 retiring');
    await page.screenshot({ path: join(SHOTS, 'workers-retiring.png'), fullPage: true });
    // they leave once their task is done
    await expect(self.getByTestId('pool-retiring')).toHaveCount(0, { timeout: 40_000 });
    await expect(self.getByTestId('process-summary')).toContainText('2 running workers');
    await expect(self.getByTestId('pool-size-source')).toContainText('Kept across restarts');

    // a task still running when SIGTERM comes keeps the graceful stop going for a while
    await enqueueOn(request, base, { command: 'demo.sleep', queue, payload: { ms: 4000 } });
    await expect.poll(() => runningCount(request, base), { timeout: 10_000 }).toBeGreaterThan(0);
    const before = server.output().length;
    server.child.kill('SIGTERM');
    const seen: { status: number; retryAfter: string | null }[] = [];
    let exitCode: number | null | undefined;
    void server.exited.then((c) => (exitCode = c));
    while (exitCode === undefined) {
      try {
        const r = await fetch(`${base}/api/stats`);
        seen.push({ status: r.status, retryAfter: r.headers.get('retry-after') });
      } catch {
        // the listener closed
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    const during = server.output().slice(before);
    expect(seen.filter((s) => s.status === 503).length, JSON.stringify(seen)).toBeGreaterThan(0);
    expect(seen.filter((s) => s.status === 500)).toEqual([]);
    for (const s of seen.filter((x) => x.status === 503)) expect(s.retryAfter).toBe('10');
    // one line about the stop, and no stack trace
    expect(during.match(/stopping: /g), during).toHaveLength(1);
    expect(during.match(/^\s+at /gm) ?? [], during).toEqual([]);
    expect(during).not.toMatch(/request failed/);

    // the same database again: the pool starts with the stored size; JSON log lines this time
    server = await startServer(db, { READPAST_LOG_FORMAT: 'json' });
    const startup = server
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { startup?: boolean; msg: string; workers?: number })
      .find((l) => l.startup);
    expect(startup?.workers).toBe(2);
    expect(startup?.msg).toMatch(new RegExp(`^readpast dashboard on ${base} · sqlite:.* · 2 workers \\(set by .+; READPAST_WORKERS=4\\)$`));
    await page.goto(`${server.base}/workers`);
    await expect(page.getByTestId('process-self').getByTestId('pool-size-input')).toHaveValue('2');
    await expect(page.getByTestId('process-self').locator('[data-testid="worker-row"][data-state="running"]')).toHaveCount(2);
    const audit = await request.get(`${server.base}/api/audit?action=pool.resize`);
    if (audit.status() === 200) expect(JSON.stringify(await audit.json())).toContain('"workers":4');
    server.child.kill('SIGTERM');
    expect(await server.exited).not.toBeNull();
  });
});

// ---- theme, shortcuts, screenshots (the suite's server) ----------------------------------------

const theme = (page: Page) => page.evaluate(() => document.documentElement.dataset.theme);

/** the page background's lightness, 0 (black) to 1 (white) */
const bodyLightness = (page: Page) =>
  page.evaluate(() => {
    const c = getComputedStyle(document.body).backgroundColor;
    const n = (c.match(/-?[\d.]+/g) ?? []).map(Number);
    // lab(), lch(), oklab(), oklch(): the first number is the lightness (0–100, or 0–1 for the ok ones)
    if (/^(ok)?l(ab|ch)\(/.test(c)) return c.startsWith('ok') && !c.includes('%') ? n[0]! : n[0]! / 100;
    return ((n[0] ?? 0) + (n[1] ?? 0) + (n[2] ?? 0)) / 765;
  });

test('the theme follows the OS until a choice is made, and the choice sticks', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto('/');
  expect(await theme(page)).toBe('dark');
  await page.emulateMedia({ colorScheme: 'light' });
  await expect.poll(() => theme(page)).toBe('light');

  await page.getByTestId('theme-dark').click();
  expect(await theme(page)).toBe('dark');
  await expect(page.getByTestId('theme-dark')).toHaveAttribute('aria-pressed', 'true');
  await page.reload();
  // applied before the first paint, by the inline script
  expect(await theme(page)).toBe('dark');
  expect(await bodyLightness(page)).toBeLessThan(0.3);

  await page.getByTestId('theme-system').click();
  expect(await theme(page)).toBe('light');
  expect(await bodyLightness(page)).toBeGreaterThan(0.9);
  await page.reload();
  expect(await theme(page)).toBe('light');
});

test('the live dot pulses unless the OS asks for less motion', async ({ page }) => {
  const dot = page.getByTestId('live-indicator').first().locator('span').first();
  const motion = () => dot.evaluate((el) => getComputedStyle(el).animationIterationCount);
  await page.emulateMedia({ reducedMotion: 'no-preference' });
  await page.goto('/');
  await expect(page.getByTestId('live-indicator').first()).toContainText('live');
  expect(await motion()).toBe('infinite');
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await expect.poll(motion).toBe('1');
});

test('g then a letter switches page, / focuses the search box, ? lists the shortcuts', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByTestId('live-indicator').first()).toContainText('live'); // hydrated
  await page.keyboard.press('g');
  await page.keyboard.press('t');
  await expect(page).toHaveURL(/\/tasks$/);
  // the next chord once the page has drawn (a page still drawing may hold the keystrokes past the chord's window)
  await drawn(page);
  await page.keyboard.press('g');
  await page.keyboard.press('w');
  await expect(page).toHaveURL(/\/workers$/);
  await drawn(page);

  await page.keyboard.press('?');
  const help = page.getByTestId('shortcuts-help');
  await expect(help).toBeVisible();
  await expect(help).toContainText('Failed & poison');
  await page.keyboard.press('Escape');
  await expect(help).toBeHidden();

  await page.keyboard.press('g');
  await page.keyboard.press('l');
  await expect(page).toHaveURL(/\/log$/);
  // the address changes before the page has drawn: `/` focuses the search box once there is one
  const search = page.getByTestId('filter-text');
  await expect(search).toBeVisible();
  await page.keyboard.press('/');
  await expect(search).toBeFocused();
  // typing in a field is never taken for a shortcut
  await page.keyboard.type('gq');
  await expect(page).toHaveURL(/\/log/);
  await expect(search).toHaveValue(/gq/);
});

/** The page has its data: the live poll answered and no list is still loading. */
async function drawn(page: Page) {
  await expect(page.getByTestId('live-indicator').first()).toContainText('live');
  await expect(page.getByTestId('loading')).toHaveCount(0);
}

async function cancelAll(request: APIRequestContext, tokens: string[]) {
  for (const t of tokens) await request.post(`/api/tasks/${t}/cancel`);
}

// one test per theme: each loads and draws its four pages in full
for (const scheme of ['light', 'dark'] as const) {
  test(`screenshots of Overview, Workers, Failed and Queues in the ${scheme} theme`, async ({ page, request }) => {
    mkdirSync(SHOTS, { recursive: true });
    // something on every page: failures, a running task (cancelled after, to free its worker)
    const queue = unique(`shots-${scheme}`);
    for (let i = 0; i < 3; i++) {
      await enqueue(request, { command: 'demo.fail', queue, payload: { message: `Order ${i} not found`, number: 50001 }, maxAttempts: 1 });
    }
    const sleeper = await enqueue(request, { command: 'demo.sleep', queue, payload: { ms: 120_000 } });
    try {
      await page.emulateMedia({ colorScheme: scheme });
      for (const [name, path] of [
        ['overview', '/'],
        ['workers', '/workers'],
        ['failed', '/failed'],
        ['queues', '/queues'],
      ] as const) {
        await page.goto(path);
        expect(await theme(page)).toBe(scheme);
        await drawn(page);
        await page.screenshot({ path: join(SHOTS, `${name}-${scheme}.png`), fullPage: true });
      }
    } finally {
      await cancelAll(request, [sleeper]);
    }
  });
}

/** Each page dark, its background dark, in a full-page screenshot. */
async function darkPages(page: Page, paths: { path: string; name: string }[]) {
  mkdirSync(SHOTS, { recursive: true });
  await page.emulateMedia({ colorScheme: 'dark' });
  for (const { path, name } of paths) {
    await page.goto(path);
    await drawn(page);
    expect(await bodyLightness(page), path).toBeLessThan(0.3);
    await page.screenshot({ path: join(SHOTS, `dark-${name}.png`), fullPage: true });
  }
}

const named = (path: string) => ({ path, name: path.slice(1) });

// every page is readable in the dark theme, in three tests of a few pages each
test('every page is readable in the dark theme (screenshots): Running, Tasks, Execution log, Batches', async ({ page, request }) => {
  const sleeper = await enqueue(request, { command: 'demo.sleep', queue: unique('dark'), payload: { ms: 120_000 } });
  try {
    await darkPages(page, ['/running', '/tasks', '/log', '/batches'].map(named));
  } finally {
    await cancelAll(request, [sleeper]);
  }
});

test('every page is readable in the dark theme (screenshots): Schedules, Enqueue, Alerts, Audit, a task', async ({ page, request }) => {
  const failed = await enqueue(request, {
    command: 'demo.fail',
    queue: unique('dark'),
    payload: { message: 'Deadlock victim', number: 1205 },
    maxAttempts: 1,
  });
  await darkPages(page, [...['/schedules', '/enqueue', '/alerts', '/audit'].map(named), { path: `/tasks/${failed}`, name: 'task' }]);
});

test('the shortcuts list and a confirmation are readable in the dark theme (screenshots)', async ({ page, request }) => {
  mkdirSync(SHOTS, { recursive: true });
  const token = await enqueue(request, { command: 'demo.sleep', queue: unique('dark'), payload: { ms: 120_000 } });
  await waitForStatus(request, token, 'running');
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto('/running');
  await drawn(page);
  await page.keyboard.press('?');
  await expect(page.getByTestId('shortcuts-help')).toBeVisible();
  await page.screenshot({ path: join(SHOTS, 'dark-shortcuts.png') });
  await page.keyboard.press('Escape');
  // this test's task: other specs may run tasks of their own meanwhile
  const cancel = page.locator(`[data-testid="running-row"][data-token="${token}"]`).getByTestId('cancel-running');
  await expect(cancel).toBeEnabled();
  await cancel.click();
  await expect(page.getByTestId('confirm-dialog')).toContainText('Cancel 1 running task?');
  await page.screenshot({ path: join(SHOTS, 'dark-confirm.png') });
  await page.getByTestId('confirm-ok').click();
  await expect(page.getByTestId('toast-success')).toContainText(/cancel/i);
  await waitForStatus(request, token, 'cancelled');
});
