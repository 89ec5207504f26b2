// The dashboard in SQL Server mode: the Procedure tab of the enqueue form, DMV state and blocking
// chains on the Running page, the Kill session confirmation, and SPIDs on the Workers page.
//
// No SQL Server can run on the machine these tests run on, so the SQL Server-mode tests intercept
// the JSON routes the pages read (`page.route`) and answer them with synthetic SQL Server responses
// shaped exactly like the API's (see lib/api/procedures.ts, lib/api/present.ts). That is the
// only fake here: the pages themselves, their server actions and every route not intercepted run
// against the real `next start` server on SQLite. The last test checks, with nothing intercepted,
// that on SQLite the Procedure tab is absent and the SQL Server-only routes answer 400.
import { expect, test, type Page, type Route } from '@playwright/test';

const MSSQL_HANDLERS = {
  handlers: ['demo.echo', 'demo.fail', 'demo.flaky', 'demo.sleep'],
  kinds: ['handler', 'sql', 'procedure'],
  dialect: 'mssql',
};

const param = (name: string, type: string, extra: Record<string, unknown> = {}) => ({
  name,
  type,
  maxLength: null,
  precision: null,
  scale: null,
  isOutput: false,
  isTable: false,
  ...extra,
});

/** What `GET /api/procedures/dbo.usp_charge/parameters` answers for a procedure with these parameters. */
const CHARGE = {
  procedure: 'dbo.usp_charge',
  parameters: [
    param('customer_id', 'int', { precision: 10, scale: 0 }),
    param('amount', 'decimal', { precision: 18, scale: 4 }),
    param('note', 'nvarchar', { maxLength: 50 }),
    param('is_active', 'bit', { precision: 1, scale: 0 }),
    param('ordered_at', 'datetime2', { precision: 27, scale: 7 }),
    param('request_id', 'uniqueidentifier'),
    param('attachment', 'varbinary', { maxLength: -1 }),
    param('receipt_no', 'int', { precision: 10, scale: 0, isOutput: true }),
  ],
};

const json = (route: Route, body: unknown, status = 200) =>
  route.fulfill({ status, contentType: 'application/json', headers: { 'cache-control': 'no-store' }, body: JSON.stringify(body) });

async function sqlServerMode(page: Page) {
  await page.route('**/api/handlers', (route) => json(route, MSSQL_HANDLERS));
}

const PROCEDURE_TAB =
  'the Procedure tab renders a typed field per parameter, refuses bad values, posts the JSON and shows a server 400 on its field';
test(PROCEDURE_TAB, async ({ page }, testInfo) => {
  await sqlServerMode(page);
  const looked: string[] = [];
  await page.route('**/api/procedures/**', (route) => {
    const name = decodeURIComponent(new URL(route.request().url()).pathname.split('/')[3] ?? '');
    looked.push(name);
    return name === 'dbo.usp_charge'
      ? json(route, CHARGE)
      : json(route, { error: `no procedure ${name} in this database (or this login may not see it)` }, 404);
  });
  const posted: unknown[] = [];
  const TOKEN = '0190f5c2-7b1e-7cc3-9a55-3b2f6d1e8a01';
  await page.route('**/api/tasks', (route) => {
    if (route.request().method() !== 'POST') return route.continue();
    posted.push(route.request().postDataJSON());
    // the first enqueue is refused the way the SQL Server store refuses a value it cannot convert
    return posted.length === 1
      ? json(
          route,
          { error: 'payload.amount: @amount (decimal(18,4)): at most 14 digits before the decimal point', field: 'payload.amount' },
          400,
        )
      : json(route, { token: TOKEN, created: true }, 201);
  });

  await page.goto('/enqueue');
  await expect(page.getByTestId('tab-procedure')).toBeVisible();
  await page.getByTestId('tab-procedure').click();
  await expect(page.getByTestId('enqueue-submit')).toBeDisabled();

  // a name that is not a procedure name is refused before any lookup; an unknown one is a 404
  await page.getByTestId('enqueue-procedure').fill('dbo.usp;drop');
  await expect(page.getByTestId('error-procedure-name')).toContainText('not a procedure name');
  await page.getByTestId('enqueue-procedure').fill('dbo.nope');
  await page.getByTestId('enqueue-procedure').press('Enter');
  await expect(page.getByTestId('procedure-lookup-error')).toContainText('no procedure dbo.nope');

  // Enter loads the parameters; blur would too
  await page.getByTestId('enqueue-procedure').fill('dbo.usp_charge');
  await page.getByTestId('enqueue-procedure').press('Enter');
  await expect(page.getByTestId('procedure-params')).toBeVisible();
  expect(looked).toEqual(['dbo.nope', 'dbo.usp_charge']);

  const input = (name: string) => page.getByTestId(`proc-param-${name}`);
  await expect(input('customer_id')).toHaveAttribute('type', 'number');
  await expect(input('customer_id')).toHaveAttribute('step', '1');
  await expect(page.getByTestId('proc-hint-customer_id')).toContainText('from -2147483648 to 2147483647');
  await expect(input('amount')).toHaveAttribute('type', 'number');
  await expect(input('amount')).toHaveAttribute('step', '0.0001');
  await expect(page.getByTestId('proc-type-amount')).toHaveText('decimal(18,4)');
  await expect(page.getByTestId('proc-hint-amount')).toContainText('precision 18, scale 4');
  await expect(input('note')).toHaveAttribute('type', 'text');
  await expect(page.getByTestId('proc-type-note')).toHaveText('nvarchar(50)');
  await expect(page.getByTestId('proc-hint-note')).toContainText('up to 50 characters');
  await expect(input('is_active')).toHaveAttribute('type', 'checkbox');
  await expect(page.getByTestId('proc-bit-is_active')).toHaveText('not sent');
  await expect(input('ordered_at')).toHaveAttribute('type', 'datetime-local');
  await expect(page.getByTestId('proc-type-ordered_at')).toHaveText('datetime2(7)');
  await expect(input('request_id')).toHaveAttribute('pattern', /\[0-9a-fA-F\]\{8\}/);
  expect(await input('attachment').evaluate((el) => el.tagName)).toBe('TEXTAREA');
  await expect(page.getByTestId('proc-type-attachment')).toHaveText('varbinary(max)');
  await expect(input('receipt_no')).toHaveValue('output');
  await expect(input('receipt_no')).toBeDisabled();
  await expect(page.getByTestId('proc-type-receipt_no')).toHaveText('int OUTPUT');

  // values the parameter types cannot hold are refused as you type
  const refused = async (name: string, value: string, message: string) => {
    await input(name).fill(value);
    await expect(page.getByTestId(`proc-error-${name}`)).toContainText(message);
    await expect(page.getByTestId(`proc-field-${name}`)).toHaveAttribute('data-invalid', '1');
    await expect(page.getByTestId('enqueue-submit')).toBeDisabled();
  };
  await refused('customer_id', '3000000000', 'from -2147483648 to 2147483647');
  await refused('customer_id', '4.5', 'a whole number');
  await refused('amount', '123456789012345', 'at most 14 digits before the decimal point');
  await refused('note', 'x'.repeat(51), 'at most 50 characters (51)');
  await refused('request_id', 'not-a-uuid', 'a uuid');
  await refused('attachment', 'abc!', 'base64');

  await input('customer_id').fill('42');
  await input('amount').fill('12345.6789');
  await input('note').fill('first order');
  await input('is_active').check();
  await expect(page.getByTestId('proc-bit-is_active')).toHaveText('1 (true)');
  await input('ordered_at').fill('2024-05-31T13:45:10');
  await input('request_id').fill('{0F8FAD5B-D9CB-469F-A165-70867728950E}');
  await input('attachment').fill('AAECAw==');
  await expect(page.locator('[data-invalid="1"]')).toHaveCount(0);
  await page.getByTestId('enqueue-queue').fill('billing');
  await expect(page.getByTestId('enqueue-submit')).toBeEnabled();
  await page.screenshot({ path: testInfo.outputPath('enqueue-procedure.png'), fullPage: false });

  await page.getByTestId('enqueue-submit').click();
  await expect(page.getByTestId('enqueue-error')).toContainText('at most 14 digits');
  expect(posted[0]).toEqual({
    kind: 'procedure',
    command: 'dbo.usp_charge',
    queue: 'billing',
    priority: 0,
    payload: {
      customer_id: 42,
      amount: '12345.6789',
      note: 'first order',
      is_active: true,
      ordered_at: '2024-05-31T13:45:10',
      request_id: '0f8fad5b-d9cb-469f-a165-70867728950e',
      attachment: 'AAECAw==',
    },
  });
  // the server's 400 names payload.amount: that field is highlighted with its message
  await expect(page.getByTestId('proc-field-amount')).toHaveAttribute('data-invalid', '1');
  await expect(page.getByTestId('proc-error-amount')).toContainText('@amount (decimal(18,4))');
  await expect(input('amount')).toHaveAttribute('aria-invalid', 'true');
  await page.screenshot({ path: testInfo.outputPath('enqueue-procedure-400.png'), fullPage: false });

  // editing clears it; a bit can be sent as 0; the next enqueue succeeds and links the token
  await input('amount').fill('12.5');
  await expect(page.getByTestId('proc-error-amount')).toHaveCount(0);
  await input('is_active').uncheck();
  await page.getByTestId('enqueue-submit').click();
  await expect(page.getByTestId('enqueue-token')).toHaveText(TOKEN);
  expect(posted).toHaveLength(2);
  expect((posted[1] as { payload: Record<string, unknown> }).payload).toMatchObject({ amount: '12.5', is_active: false });
});

// ---- Running: DMV state, blocking chains, Kill session -------------------------------------------

const now = Date.now();
const at = (msAgo: number) => new Date(now - msAgo).toISOString();
const T = {
  head: '0190f5c2-0000-7000-8000-00000000a061',
  blocked: '0190f5c2-0000-7000-8000-00000000b062',
  outside: '0190f5c2-0000-7000-8000-00000000c063',
  handler: '0190f5c2-0000-7000-8000-00000000d064',
};
const running = (n: number, token: string, kind: string, command: string, session: number, live: Record<string, unknown> | null) => ({
  attemptId: 900 + n,
  token,
  queue: 'nightly',
  kind,
  command,
  attempt: 1,
  maxAttempts: 3,
  workerId: `db-host:4242:w${n}`,
  session,
  tokenNo: null,
  batchId: null,
  stage: null,
  startedAt: at(60_000 + n * 5000),
  leaseUntil: new Date(now + 30_000).toISOString(),
  cancelRequested: false,
  live,
});
const live = (o: Record<string, unknown>) => ({
  status: 'running',
  command: 'UPDATE',
  waitType: null,
  waitTimeMs: null,
  blockingSession: null,
  cpuMs: 0,
  percentComplete: 0,
  openTransactions: 0,
  ...o,
});
// listed in the order the store returns them (by start); the blocked task comes first
const RUNNING = {
  items: [
    running(
      1,
      T.blocked,
      'sql',
      'UPDATE dbo.Orders SET Archived = 1 WHERE OrderDate < @cutoff',
      62,
      live({ status: 'suspended', waitType: 'LCK_M_X', waitTimeMs: 41_250, blockingSession: 61, cpuMs: 15, openTransactions: 1 }),
    ),
    running(
      2,
      T.head,
      'procedure',
      'dbo.usp_nightly_rollup',
      61,
      live({ status: 'running', command: 'ALTER INDEX', cpuMs: 48_210, percentComplete: 37.4, openTransactions: 2 }),
    ),
    running(
      3,
      T.outside,
      'sql',
      'DELETE FROM dbo.AuditLog WHERE At < DATEADD(day, -90, SYSDATETIME())',
      63,
      live({
        status: 'suspended',
        command: 'DELETE',
        waitType: 'LCK_M_IX',
        waitTimeMs: 7_300,
        blockingSession: 88,
        cpuMs: 3,
        openTransactions: 1,
      }),
    ),
    running(4, T.handler, 'handler', 'demo.sleep', 64, null),
  ],
};

test('Running shows the server state and the blocking chain, and Kill session asks first', async ({ page }, testInfo) => {
  await sqlServerMode(page);
  await page.route('**/api/running', (route) => json(route, RUNNING));
  await page.goto('/running');

  const rows = page.getByTestId('running-row');
  await expect(rows).toHaveCount(4);
  // the blocked task is listed under the task whose session blocks it
  await expect(rows.nth(0)).toHaveAttribute('data-token', T.head);
  await expect(rows.nth(1)).toHaveAttribute('data-token', T.blocked);
  await expect(rows.nth(1)).toHaveAttribute('data-depth', '1');
  await expect(rows.nth(0)).toHaveAttribute('data-depth', '0');

  const row = (token: string) => page.locator(`[data-testid="running-row"][data-token="${token}"]`);
  const blocked = row(T.blocked);
  await expect(blocked.getByTestId('blocked-by')).toContainText('blocked by SPID 61');
  await expect(blocked.getByTestId('blocked-by').getByRole('link')).toHaveAttribute('href', `/tasks/${T.head}`);
  await expect(blocked.getByTestId('live-status')).toHaveText('suspended');
  await expect(blocked.getByTestId('live-wait')).toContainText('LCK_M_X');
  await expect(blocked.getByTestId('live-wait')).toContainText('41 s');
  await expect(blocked.getByTestId('live-tran')).toHaveText('1 open tran');
  await expect(blocked.getByTestId('running-session')).toHaveText('62');

  const head = row(T.head);
  await expect(head.getByTestId('blocking')).toHaveText('blocking 1 task');
  await expect(head.getByTestId('blocked-by')).toHaveCount(0);
  await expect(head.getByTestId('live-command')).toHaveText('ALTER INDEX');
  await expect(head.getByTestId('live-cpu')).toHaveText('cpu 48,210 ms');
  await expect(head.getByTestId('live-percent')).toHaveText('37% complete');
  await expect(head.getByTestId('live-tran')).toHaveText('2 open trans');

  await expect(row(T.outside).getByTestId('blocked-by')).toContainText('blocked by SPID 88 (not a task)');
  await expect(row(T.outside)).toHaveAttribute('data-depth', '0');

  // Kill session: sql and procedure tasks only (a handler's session is idle)
  await expect(head.getByTestId('kill-session')).toBeVisible();
  await expect(blocked.getByTestId('kill-session')).toBeVisible();
  await expect(row(T.handler).getByTestId('kill-session')).toHaveCount(0);
  await expect(row(T.handler).getByTestId('cancel-running')).toBeVisible();
  await page.screenshot({ path: testInfo.outputPath('running-mssql.png'), fullPage: false });

  await head.getByTestId('kill-session').click();
  const dialog = page.getByTestId('confirm-dialog');
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText('Kill session 61?');
  await expect(dialog.getByTestId('kill-explain')).toContainText('KILL 61');
  await expect(dialog.getByTestId('kill-explain')).toContainText('ALTER ANY CONNECTION');
  await page.screenshot({ path: testInfo.outputPath('running-kill-confirm.png') });
  await dialog.getByTestId('confirm-cancel').click();
  await expect(dialog).toBeHidden();

  // confirming runs the real killTask action: this server is SQLite, which refuses KILL (400)
  await blocked.getByTestId('kill-session').click();
  await dialog.getByTestId('confirm-ok').click();
  await expect(page.getByTestId('toast-error')).toContainText('KILL needs SQL Server');
});

test('Workers shows SPID and login time, and why live request state is off', async ({ page }) => {
  await sqlServerMode(page);
  const login = new Date(now - 3_600_000).toISOString();
  const worker = (n: number, session: number) => ({
    workerId: `db-host:4242:w${n}`,
    host: 'db-host',
    pid: 4242,
    role: 'worker',
    session,
    loginTime: login,
    startedAt: login,
    heartbeatAt: new Date(now).toISOString(),
    heartbeatAgeMs: 300,
    state: 'running',
    currentTask: null,
  });
  await page.route('**/api/workers', (route) =>
    json(route, {
      workers: [worker(1, 57), worker(2, 58)],
      pool: null,
      liveStatus: {
        available: false,
        reason: 'this login lacks VIEW SERVER STATE: live request state (waits, blocking, CPU) is not shown',
      },
    }),
  );
  await page.goto('/workers');
  const rows = page.getByTestId('worker-row');
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0)).toContainText(/SPID 57 · login \d{2}:\d{2}:\d{2}/);
  await expect(rows.nth(1).getByTestId('worker-session')).toHaveText('58');
  await expect(page.getByTestId('live-status-note')).toContainText('Live request state is off');
  await expect(page.getByTestId('live-status-reason')).toHaveText(
    'This login lacks VIEW SERVER STATE: live request state (waits, blocking, CPU) is not shown.',
  );
});

// ---- the real server (SQLite), nothing intercepted ----------------------------------------------

test('on SQLite the Procedure tab is absent and the SQL Server-only routes answer 400', async ({ page, request }) => {
  const handlers = await (await request.get('/api/handlers')).json();
  expect(handlers).toMatchObject({ kinds: ['handler', 'sql'], dialect: 'sqlite' });
  expect(handlers.handlers).toEqual(expect.arrayContaining(['demo.echo']));

  const params = await request.get('/api/procedures/x/parameters');
  expect(params.status()).toBe(400);
  expect(await params.json()).toMatchObject({ field: 'kind', error: expect.stringContaining('procedure tasks need SQL Server') });

  const kill = await request.post('/api/tasks/0190f5c2-7b1e-7cc3-9a55-3b2f6d1e8a01/kill');
  expect(kill.status()).toBe(400);
  expect((await kill.json()).error).toContain('KILL needs SQL Server');

  const enqueue = await request.post('/api/tasks', { data: { kind: 'procedure', command: 'dbo.usp_charge', payload: { amount: 1 } } });
  expect(enqueue.status()).toBe(400);
  expect((await enqueue.json()).field).toBe('kind');

  await page.goto('/enqueue');
  await expect(page.getByTestId('enqueue-handler')).toContainText('demo.echo');
  await expect(page.getByTestId('tab-handler')).toBeVisible();
  await expect(page.getByTestId('tab-sql')).toBeVisible();
  await expect(page.getByTestId('tab-procedure')).toHaveCount(0);
});
