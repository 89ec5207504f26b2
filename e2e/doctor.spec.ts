// The doctor panel on the Workers page (`GET /api/doctor`, as `readpast doctor --json`).
//
// SQL Server mode follows e2e/mssql-mode.spec.ts: no SQL Server runs here, so `/api/doctor` (and
// `/api/handlers`, `/api/workers`) are intercepted and answered with responses shaped exactly like
// lib/api/present.ts doctorJson builds them from db/mssql/doctor-judge.ts (whose verdicts are
// unit-tested in db/mssql/doctor.test.ts). The last test intercepts nothing: the real SQLite server.
import { expect, test, type Page, type Route } from '@playwright/test';

const json = (route: Route, body: unknown, status = 200) =>
  route.fulfill({ status, contentType: 'application/json', headers: { 'cache-control': 'no-store' }, body: JSON.stringify(body) });

const TARGET = 'mssql://readpast_app@db.example.com:1433/jobs?encrypt=true&trustServerCertificate=false';
const check = (id: string, title: string, ok: boolean | null, detail: string, remedy: string | null, needed: boolean) => ({
  id,
  title,
  ok,
  detail,
  remedy,
  needed,
});

function report(checks: ReturnType<typeof check>[]) {
  return {
    dialect: 'mssql',
    database: TARGET,
    checkedAt: new Date().toISOString(),
    ok: !checks.some((c) => c.needed && c.ok === false),
    summary: {
      passed: checks.filter((c) => c.ok === true).length,
      failed: checks.filter((c) => c.needed && c.ok === false).length,
      optional: checks.filter((c) => !c.needed && c.ok === false).length,
      other: checks.filter((c) => c.ok === null).length,
    },
    checks,
  };
}

const DML_GRANT = 'GRANT SELECT, INSERT, UPDATE, DELETE ON SCHEMA::readpast TO [readpast_app];';
const LIVE_GRANT = 'USE master; GRANT VIEW SERVER STATE TO [readpast_app];';

/** A SQL Server 2019 login with SELECT and INSERT only on the schema, no VIEW SERVER STATE, no KILL. */
const NARROW_LOGIN = report([
  check('connect', 'Connection', true, `connected to ${TARGET} as readpast_app (user readpast_app) in 38 ms`, null, true),
  check('server', 'Server', true, 'SQL Server 2019 CU21 (15.0.4316.3), Enterprise Edition (64-bit)', null, true),
  check('compatibility', 'Compatibility level', true, 'database compatibility level 150', null, true),
  check(
    'rcsi',
    'READ_COMMITTED_SNAPSHOT',
    true,
    'ON: readers see the last committed rows without waiting. READPAST is legal only under locking read committed, so the claim ' +
      'asks for it with READCOMMITTEDLOCK; nothing to do',
    null,
    false,
  ),
  check('schema', 'Schema and migrations', true, 'schema readpast at migration 2 (current)', null, true),
  check(
    'permissions.dml',
    "Read and write readpast's tables",
    false,
    'this login lacks UPDATE, DELETE on schema readpast: no command or worker can run',
    DML_GRANT,
    true,
  ),
  check('permissions.execute', 'Procedure tasks (EXECUTE)', true, 'this login may execute 4 of the 6 procedures it can see', null, false),
  check(
    'permissions.live',
    'Live request state (DMVs)',
    false,
    "this login lacks VIEW SERVER STATE: the Running page shows readpast's own columns only (no waits, blocking or CPU)",
    LIVE_GRANT,
    false,
  ),
  check(
    'permissions.kill',
    "KILL of a task's session",
    false,
    'this login lacks ALTER ANY CONNECTION: the Kill option is refused (cancel still works)',
    'USE master; GRANT ALTER ANY CONNECTION TO [readpast_app];',
    false,
  ),
  check('clock', 'Clock skew', true, "this machine's clock and the server's differ by 14 ms (the server's is ahead), ± 1 ms", null, false),
  check('latency', 'Round trip', true, 'median 1.9 ms over 5 round trips (slowest 2.4 ms)', null, false),
  check(
    'claim',
    'Claim (dry run, rolled back)',
    false,
    "the claim statement failed: error 229: The UPDATE permission was denied on the object 'Queues', database 'jobs', schema 'readpast'.",
    DML_GRANT,
    true,
  ),
]);

const BABELFISH = report([
  check('connect', 'Connection', true, `connected to ${TARGET} in 81 ms`, null, true),
  check(
    'server',
    'Server',
    false,
    "this server (Babelfish for PostgreSQL 4.4.0, SERVERPROPERTY('Babelfish') = 1) is not SQL Server: it accepts READPAST and UPDLOCK " +
      "but ignores them, so readpast's claims would neither skip rows other workers hold nor keep them locked",
    null,
    true,
  ),
  ...['compatibility', 'rcsi', 'schema', 'claim'].map((id) => check(id, id, null, 'skipped: not SQL Server', null, id !== 'rcsi')),
]);

async function sqlServerMode(page: Page) {
  await page.route('**/api/handlers', (route) =>
    json(route, { handlers: ['demo.echo', 'demo.sleep'], kinds: ['handler', 'sql', 'procedure'], dialect: 'mssql' }),
  );
  const login = new Date(Date.now() - 3_600_000).toISOString();
  await page.route('**/api/workers', (route) =>
    json(route, {
      workers: [1, 2].map((n) => ({
        workerId: `db-host:4242:w${n}`,
        host: 'db-host',
        pid: 4242,
        role: 'worker',
        session: 56 + n,
        loginTime: login,
        startedAt: login,
        heartbeatAt: new Date().toISOString(),
        heartbeatAgeMs: 400,
        state: 'running',
        currentTask: null,
      })),
      pool: null,
      liveStatus: {
        available: false,
        reason: 'this login lacks VIEW SERVER STATE: live request state (waits, blocking, CPU) is not shown',
      },
    }),
  );
}

const row = (page: Page, id: string) => page.locator(`[data-testid="doctor-check"][data-id="${id}"]`);

test('SQL Server: the doctor panel lists every check, opens on a needed failure and shows each exact GRANT', async ({ page }, testInfo) => {
  await sqlServerMode(page);
  let asked = 0;
  await page.route('**/api/doctor', (route) => {
    asked++;
    return json(route, NARROW_LOGIN);
  });
  await page.goto('/workers');
  const panel = page.getByTestId('doctor-panel');
  await expect(panel.getByTestId('doctor-verdict')).toHaveText('2 needed checks failed');
  await expect(panel.getByTestId('doctor-summary')).toContainText(TARGET);
  await expect(panel.getByTestId('doctor-summary')).toContainText('8 passed, 2 needed failing, 2 optional off');
  // open by default: something is off
  await expect(panel.getByTestId('doctor-check')).toHaveCount(12);
  await expect(row(page, 'server')).toHaveAttribute('data-ok', 'true');
  await expect(row(page, 'server')).toContainText('SQL Server 2019 CU21');
  await expect(row(page, 'rcsi')).toContainText('READCOMMITTEDLOCK');

  const dml = row(page, 'permissions.dml');
  await expect(dml).toHaveAttribute('data-ok', 'false');
  await expect(dml).toHaveAttribute('data-needed', '1');
  await expect(dml).toContainText('needed');
  await expect(dml.getByTestId('doctor-remedy')).toHaveText(DML_GRANT);

  const live = row(page, 'permissions.live');
  await expect(live).toHaveAttribute('data-needed', '0');
  await expect(live).toContainText('optional');
  await expect(live.getByTestId('doctor-remedy')).toHaveText(LIVE_GRANT);
  // a passing check shows no remedy
  await expect(row(page, 'clock').getByTestId('doctor-remedy')).toHaveCount(0);
  await expect(row(page, 'claim').getByTestId('doctor-detail')).toContainText('error 229');
  // the workers are still listed below
  await expect(page.getByTestId('worker-row')).toHaveCount(2);
  await page.screenshot({ path: testInfo.outputPath('workers-doctor-mssql.png'), fullPage: true });

  // asked once; again only on demand
  expect(asked).toBe(1);
  await page.waitForTimeout(1500);
  expect(asked).toBe(1);
  await panel.getByTestId('doctor-rerun').click();
  await expect.poll(() => asked).toBe(2);
  await panel.getByTestId('doctor-toggle').click();
  await expect(panel.getByTestId('doctor-check')).toHaveCount(0);
  await expect(panel.getByTestId('doctor-toggle')).toHaveText('Show 12 checks');
});

test('SQL Server: a Babelfish server is refused in one line, everything else skipped', async ({ page }) => {
  await sqlServerMode(page);
  await page.route('**/api/doctor', (route) => json(route, BABELFISH));
  await page.goto('/workers');
  const panel = page.getByTestId('doctor-panel');
  await expect(panel.getByTestId('doctor-verdict')).toHaveText('1 needed check failed');
  await expect(row(page, 'server')).toHaveAttribute('data-ok', 'false');
  await expect(row(page, 'server')).toContainText("SERVERPROPERTY('Babelfish') = 1");
  await expect(row(page, 'claim')).toHaveAttribute('data-ok', 'null');
  await expect(row(page, 'claim')).toContainText('skipped: not SQL Server');
});

test('SQLite, nothing intercepted: GET /api/doctor and the panel agree that everything is ready', async ({ page, request }, testInfo) => {
  const res = await request.get('/api/doctor');
  expect(res.status()).toBe(200);
  const body = await res.json();
  expect(body).toMatchObject({ dialect: 'sqlite', ok: true, summary: { failed: 0, optional: 0 } });
  expect(body.database).toMatch(/^sqlite:.*\.db$/);
  expect(body.checks.map((c: { id: string }) => c.id)).toEqual([
    'file',
    'writable',
    'database',
    'wal',
    'sqlite',
    'schema',
    'code',
    'write',
    'driver',
  ]);
  expect(body.checks.every((c: { ok: boolean }) => c.ok === true)).toBe(true);

  await page.goto('/workers');
  const panel = page.getByTestId('doctor-panel');
  await expect(panel.getByTestId('doctor-verdict')).toHaveText('ready');
  // closed while everything is fine
  await expect(panel.getByTestId('doctor-check')).toHaveCount(0);
  await panel.getByTestId('doctor-toggle').click();
  await expect(panel.getByTestId('doctor-check')).toHaveCount(9);
  await expect(panel.locator('[data-testid="doctor-check"][data-ok="true"]')).toHaveCount(9);
  await expect(row(page, 'code')).toContainText('ExecutionStatus (view, ');
  await expect(row(page, 'wal')).toContainText('journal mode WAL');
  await expect(row(page, 'write')).toContainText('BEGIN IMMEDIATE');
  await page.screenshot({ path: testInfo.outputPath('workers-doctor-sqlite.png'), fullPage: true });
});
