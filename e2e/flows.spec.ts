// Workflows in the dashboard against the real server and its workers: a 20-node flow's page shows the graph
// and its states change live (waiting → pending → running → succeeded) without a reload; a click on a node
// opens the task with its parents and children; collapse by command; cancel from the page; the Tasks page's
// Waiting tab and flow filter; screenshots at 1280 and 390 px (light and dark).
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { enqueue, unique } from './helpers';

function collectErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.location().url.endsWith('/favicon.ico')) errors.push(m.text());
  });
  return errors;
}

interface FlowNode {
  id: string;
  command: string;
  payload?: unknown;
  queue?: string;
  dependsOn?: string[];
}

async function createFlow(request: APIRequestContext, body: { name?: string; nodes: FlowNode[] }) {
  const res = await request.post('/api/flows', { data: body });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()) as { flowId: number; tokens: Record<string, string> };
}

/**
 * 20 nodes in five layers: extract → 4 loads → 8 transforms (each after one or two loads) → 6 checks (each
 * after two transforms) → report (after every check). demo.sleep of 1.2–3 s: about 15 s with 4 workers.
 */
function twentyNodes(queue: string): FlowNode[] {
  const sleep = (ms: number) => ({ command: 'demo.sleep', payload: { ms }, queue });
  const nodes: FlowNode[] = [{ id: 'extract', ...sleep(3000) }];
  for (let i = 0; i < 4; i++) nodes.push({ id: `load-${i}`, ...sleep(2000 + 200 * i), dependsOn: ['extract'] });
  for (let i = 0; i < 8; i++) {
    const deps = [`load-${i % 4}`];
    if (i % 2 === 1) deps.push(`load-${(i + 1) % 4}`);
    nodes.push({ id: `transform-${i}`, ...sleep(1500 + 100 * (i % 3)), dependsOn: deps });
  }
  for (let i = 0; i < 6; i++) nodes.push({ id: `check-${i}`, ...sleep(1500), dependsOn: [`transform-${i}`, `transform-${i + 2}`] });
  nodes.push({ id: 'report', ...sleep(1200), dependsOn: Array.from({ length: 6 }, (_, i) => `check-${i}`) });
  return nodes;
}

const node = (page: Page, id: string) => page.locator(`[data-testid="flow-node"][data-node="${id}"]`);

test('a 20-node flow: the graph shows states changing live, a node opens its task with parents and children', async ({ page, request }) => {
  test.setTimeout(120_000);
  const errors = collectErrors(page);
  const queue = unique('flow');
  // the queue is paused until the page shows the flow: every state change happens under the page's eyes
  expect((await request.patch(`/api/queues/${queue}`, { data: { paused: true } })).status()).toBe(200);
  const { flowId, tokens } = await createFlow(request, { name: 'e2e nightly load', nodes: twentyNodes(queue) });
  expect(Object.keys(tokens)).toHaveLength(20);

  await page.goto(`/flows/${flowId}`);
  // (a cold server on a busy machine answers its first pages slowly)
  await expect(page.getByRole('heading', { level: 1 })).toContainText(`#${flowId}`, { timeout: 30_000 });
  await expect(page.getByRole('heading', { level: 1 })).toContainText('e2e nightly load');
  await expect(page.locator('[data-testid="flow-node"]')).toHaveCount(20);
  // the page is never reloaded: this mark would be gone
  await page.evaluate(() => {
    (window as unknown as { __sameDocument: boolean }).__sameDocument = true;
  });

  // the root is pending, the 19 others wait for their parents
  await expect(node(page, 'extract')).toHaveAttribute('data-status', 'pending');
  await expect(node(page, 'report')).toHaveAttribute('data-status', 'waiting');
  await expect(page.getByTestId('flow-count-waiting')).toHaveText('19');
  expect((await request.patch(`/api/queues/${queue}`, { data: { paused: false } })).status()).toBe(200);

  // watch the states change on the page while the workers run the flow
  const seen = new Map<string, Set<string>>();
  let shot = false;
  const deadline = Date.now() + 90_000;
  for (;;) {
    const states = await page
      .locator('[data-testid="flow-node"]')
      .evaluateAll((els) => els.map((e) => [e.getAttribute('data-node') ?? '', e.getAttribute('data-status') ?? ''] as const));
    for (const [id, s] of states) {
      if (!seen.has(id)) seen.set(id, new Set());
      seen.get(id)!.add(s);
    }
    const running = states.filter(([, s]) => s === 'running').length;
    const done = states.filter(([, s]) => s === 'succeeded').length;
    if (!shot && running > 0 && done > 4 && done < 16) {
      await page.screenshot({ path: '/tmp/flow-1280-live.png' });
      shot = true;
    }
    if (states.length === 20 && done === 20) break;
    expect(Date.now(), `flow ${flowId} did not finish: ${JSON.stringify(states)}`).toBeLessThan(deadline);
    await page.waitForTimeout(150);
  }
  await page.screenshot({ path: '/tmp/flow-1280.png', fullPage: true });
  // the report node went from waiting (or pending) to succeeded on the same page, and a middle node was seen running
  expect([...seen.get('report')!]).toEqual(expect.arrayContaining(['waiting', 'succeeded']));
  expect([...seen.values()].some((s) => s.has('running'))).toBe(true);
  expect(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
  await expect(page.getByTestId('flow-status')).toHaveText('succeeded');
  await expect(page.getByTestId('flow-count-succeeded')).toHaveText('20');
  await expect(page.locator('[data-testid="flow-list-row"]')).toHaveCount(20);

  // collapse by command: one box for the 20 demo.sleep nodes, with its counts
  await page.getByTestId('flow-collapse').check();
  await expect(page.locator('[data-testid="flow-group"]')).toHaveCount(1);
  await expect(page.locator('[data-testid="flow-group"]')).toContainText('20 succeeded');
  await page.getByTestId('flow-collapse').uncheck();
  await expect(page.locator('[data-testid="flow-node"]')).toHaveCount(20);

  // a click on a node opens its task: two parents, one child, the flow link
  await node(page, 'check-1').click();
  await page.waitForURL(`**/tasks/${tokens['check-1']}`);
  await expect(page.getByTestId('task-flow')).toContainText(`#${flowId}`);
  await expect(page.getByTestId('task-flow')).toContainText('check-1');
  const parents = page.getByTestId('task-parents-list').getByTestId('task-link');
  await expect(parents).toHaveCount(2);
  await expect(page.getByTestId('task-parents-list')).toContainText('transform-1');
  await expect(page.getByTestId('task-parents-list')).toContainText('transform-3');
  await expect(parents.first()).toHaveAttribute('data-status', 'succeeded');
  await expect(page.getByTestId('task-children-list').getByTestId('task-link')).toHaveCount(1);
  await expect(page.getByTestId('task-children-list')).toContainText('report');
  await page.screenshot({ path: '/tmp/flow-task-1280.png', fullPage: true });
  await page.getByTestId('task-children-list').getByTestId('task-link-command').click();
  await page.waitForURL(`**/tasks/${tokens.report}`);
  await expect(page.getByTestId('task-parents-list').getByTestId('task-link')).toHaveCount(6);

  // the Tasks page filtered by the flow: a removable chip, the flow's 20 tasks with its link
  await page.goto(`/tasks?flow=${flowId}`);
  await expect(page.getByTestId('tasks-flow-filter')).toContainText(`flow ${flowId}`);
  await expect(page.locator('[data-testid="task-row"]')).toHaveCount(20);
  await expect(page.locator('[data-testid="task-flow"]').first()).toContainText(`flow ${flowId}`);
  await page.getByTestId('tasks-flow-remove').click();
  await expect(page.getByTestId('tasks-flow-filter')).toHaveCount(0);
  expect(new URL(page.url()).searchParams.get('flow')).toBeNull();

  // the list of flows
  await page.goto('/flows');
  const row = page.locator(`[data-testid="flow-row"][data-flow="${flowId}"]`);
  await expect(row).toContainText('succeeded');
  await expect(row).toContainText('20');
  expect(errors).toEqual([]);
});

test('the flow page at 390 px and in the dark theme; cancel flow from the page', async ({ page, request }) => {
  test.setTimeout(90_000);
  const errors = collectErrors(page);
  const queue = unique('flow-cancel');
  // a long first node: the other 19 stay waiting while the page is looked at, then the flow is cancelled
  const nodes = twentyNodes(queue);
  nodes[0] = { ...nodes[0]!, payload: { ms: 60_000 } };
  const { flowId } = await createFlow(request, { name: 'e2e cancelled', nodes });
  // whatever happens below, its 60 s node must not hold a worker of the server the other specs share
  try {
    await cancelFlowPage(page, flowId, errors);
  } finally {
    await request.post(`/api/flows/${flowId}/cancel`);
  }
});

/** The 390 px and dark views of a flow whose root runs long, then cancel and retry from the page. */
async function cancelFlowPage(page: Page, flowId: number, errors: string[]): Promise<void> {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`/flows/${flowId}`);
  await expect(page.locator('[data-testid="flow-node"]')).toHaveCount(20, { timeout: 30_000 });
  await expect(node(page, 'extract')).toHaveAttribute('data-status', 'running', { timeout: 15_000 });
  // the graph fills the width; nothing scrolls sideways
  const box = await page.getByTestId('flow-graph').boundingBox();
  expect(box!.width).toBeGreaterThan(330);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await page.screenshot({ path: '/tmp/flow-390.png' });
  await page.screenshot({ path: '/tmp/flow-390-full.png', fullPage: true });

  await page.emulateMedia({ colorScheme: 'dark' });
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.reload();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await expect(page.locator('[data-testid="flow-node"]')).toHaveCount(20);
  await page.screenshot({ path: '/tmp/flow-dark-1280.png' });

  await page.getByTestId('flow-cancel').click();
  await expect(page.getByTestId('confirm-dialog')).toContainText('19 waiting or pending nodes will be cancelled');
  await page.getByTestId('confirm-dialog').getByRole('button', { name: 'Cancel flow' }).click();
  await expect(page.getByTestId('toast-success')).toContainText(`Flow ${flowId} cancelled`);
  await expect(page.getByTestId('flow-count-cancelled')).toHaveText('20', { timeout: 20_000 });
  await expect(node(page, 'report')).toHaveAttribute('data-status', 'cancelled');
  await expect(page.getByTestId('flow-status')).toHaveText('cancelled');

  // retry failed nodes: every node was cancelled by the flow cancel, so all come back (the root pending, the rest waiting)
  await page.getByTestId('flow-retry').click();
  await page.getByTestId('confirm-dialog').getByRole('button', { name: 'Retry failed nodes' }).click();
  // (the cancel's toast may still be showing: this one is found by its text)
  await expect(page.getByTestId('toast-success').filter({ hasText: 'failed nodes retried' })).toContainText('20 failed nodes retried');
  await expect(page.getByTestId('flow-count-waiting')).toHaveText('19');
  await expect(node(page, 'report')).toHaveAttribute('data-status', 'waiting');
  await page.getByTestId('flow-cancel').click();
  await page.getByTestId('confirm-dialog').getByRole('button', { name: 'Cancel flow' }).click();
  await expect(page.getByTestId('flow-count-cancelled')).toHaveText('20', { timeout: 20_000 });
  expect(errors).toEqual([]);
}

test('a 1,000-node flow opens collapsed by command, and expands on demand', async ({ page, request }) => {
  test.setTimeout(180_000);
  const errors = collectErrors(page);
  const queue = unique('flow-big');
  expect((await request.patch(`/api/queues/${queue}`, { data: { paused: true } })).status()).toBe(200);
  // five layers of 200, one command per layer (the queue stays paused: nothing runs)
  const commands = ['demo.echo', 'demo.sleep', 'demo.progress', 'demo.flaky', 'demo.fail'];
  const nodes: FlowNode[] = [];
  for (let layer = 0; layer < 5; layer++)
    for (let i = 0; i < 200; i++) {
      const deps = layer ? [`s${layer - 1}-${i}`, `s${layer - 1}-${(i + 1) % 200}`] : undefined;
      nodes.push({ id: `s${layer}-${i}`, command: commands[layer]!, payload: { ms: 10 }, queue, dependsOn: deps });
    }
  const { flowId } = await createFlow(request, { name: 'e2e big', nodes });

  const started = Date.now();
  await page.goto(`/flows/${flowId}`);
  await expect(page.getByTestId('flow-graph')).toHaveAttribute('data-collapsed', '1', { timeout: 30_000 });
  await expect(page.locator('[data-testid="flow-group"]')).toHaveCount(5);
  await expect(page.locator('[data-testid="flow-group"][data-command="demo.echo"]')).toContainText('200 pending');
  await expect(page.locator('[data-testid="flow-group"][data-command="demo.fail"]')).toContainText('200 waiting');
  const collapsedMs = Date.now() - started;
  await page.screenshot({ path: '/tmp/flow-1000-collapsed.png' });

  const expanding = Date.now();
  await page.getByTestId('flow-collapse').uncheck();
  await expect(page.getByTestId('flow-graph')).toHaveAttribute('data-collapsed', '0');
  // laid out in a worker: the page answers meanwhile; then only the boxes in view are drawn
  await expect(page.locator('[data-testid="flow-node"]').first()).toBeVisible({ timeout: 60_000 });
  const expandedMs = Date.now() - expanding;
  await page.screenshot({ path: '/tmp/flow-1000-expanded.png' });
  console.log(`1,000 nodes: collapsed graph shown in ${collapsedMs} ms, expanded in ${expandedMs} ms`);
  await request.post(`/api/flows/${flowId}/cancel`);
  expect(errors).toEqual([]);
});

test('the Waiting tab lists a task whose parent has not run; its page says why', async ({ page, request }) => {
  const queue = unique('waits');
  const later = new Date(Date.now() + 3_600_000).toISOString();
  const parent = await enqueue(request, { command: 'demo.echo', queue, runAt: later });
  const child = await enqueue(request, { command: 'demo.echo', queue, dependsOn: [parent] });

  await page.goto(`/tasks?queue=${queue}`);
  await page.getByTestId('tab-waiting').click();
  await expect(page).toHaveURL(/status=waiting/);
  await expect(page.locator('[data-testid="task-row"]')).toHaveCount(1);
  await expect(page.locator(`[data-testid="task-row"][data-token="${child}"]`).getByTestId('task-state')).toHaveText('waiting');
  await expect(page.getByTestId('tab-count-waiting')).toHaveText('1');

  await page.goto(`/tasks/${child}`);
  await expect(page.getByTestId('task-status')).toHaveText('waiting');
  await expect(page.getByText(/Waiting for 1 of 1 parent/)).toBeVisible();
  await expect(page.getByTestId('task-parents-left-badge')).toHaveText('1 left');
  await expect(page.getByTestId('task-parents-list').getByTestId('task-link')).toHaveAttribute('data-token', parent);
  await page.getByTestId('task-cancel').click();
  await page.getByRole('button', { name: 'Cancel 1 task' }).click();
  await expect(page.getByTestId('task-status')).toHaveText('cancelled');
});

test('the enqueue form runs a task after others: Run after tokens and the failure policy', async ({ page, request }) => {
  const queue = unique('after');
  const later = new Date(Date.now() + 3_600_000).toISOString();
  const a = await enqueue(request, { command: 'demo.echo', queue, runAt: later });
  const b = await enqueue(request, { command: 'demo.echo', queue, runAt: later });

  await page.goto('/enqueue');
  await expect(page.getByTestId('enqueue-handler')).toContainText('demo.echo', { timeout: 30_000 });
  await page.getByTestId('enqueue-handler').selectOption('demo.echo');
  await page.getByTestId('enqueue-queue').fill(queue);
  await expect(page.getByTestId('enqueue-after-policy')).toBeDisabled();
  await page.getByTestId('enqueue-after').fill('load-a');
  await expect(page.getByTestId('error-dependsOn')).toHaveText('load-a is not a task token');
  await expect(page.getByTestId('enqueue-submit')).toBeDisabled();
  await page.getByTestId('enqueue-after').fill(`${a},\n${b}`);
  await expect(page.getByTestId('enqueue-after-hint')).toHaveText('Waits for 2 parents to succeed.');
  await page.getByTestId('enqueue-after-policy').selectOption('run');
  await page.getByTestId('enqueue-submit').click();
  await expect(page.getByTestId('enqueue-success')).toBeVisible();
  await page.getByTestId('enqueue-token').click();

  await expect(page.getByTestId('task-status')).toHaveText('waiting');
  const links = page.getByTestId('task-parents-list').getByTestId('task-link');
  await expect(links).toHaveCount(2);
  await expect(page.getByTestId('task-parents-list').getByTestId('task-link-policy').first()).toHaveText('on failure: run');
  await expect(page.getByTestId('task-parents-left-badge')).toHaveText('2 left');
  await page.screenshot({ path: '/tmp/flow-waiting-task-1280.png', fullPage: true });
});
