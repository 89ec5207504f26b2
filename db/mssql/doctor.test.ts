// `readpast doctor` on SQL Server without a server: the probe's findings are canned (as the driver
// would return them: the server probe's row, the facts row and versions, round trips, the dry run)
// and the judge's checks are compared with what a person must read. What server readpast accepts
// (server.ts) is tested here too: Babelfish first, then version, then compatibility level.
import { describe, expect, it } from 'vitest';
import type { DoctorCheck } from '../../lib/engine/types';
import { factsFromRows } from './doctor';
import {
  callerFactsFromRows,
  hotFactsFromRows,
  judgeMssql,
  pingChecks,
  sameDefinition,
  schemaState,
  type CallerFacts,
  type DoctorFacts,
  type DoctorProbe,
  REINSTALL_CODE,
} from './doctor-judge';
import { HOT, HOT_PROCEDURES, hotName } from './sql/hot';
import { compareVersions, productName, refusal, serverInfoFromRow, unsupportedReason, type ServerRow } from './server';

const KNOWN = { versions: [1, 2] };
const TARGET = 'mssql://readpast_app@db.example.com:1433/jobs';

const SQL2019: ServerRow = {
  babelfish: 0,
  version_text: 'Microsoft SQL Server 2019 (RTM-CU21) (KB5025808) - 15.0.4316.3 (X64)\n\tJun  1 2023 16:32:31',
  database_name: 'jobs',
  product_version: '15.0.4316.3',
  product_level: 'RTM',
  product_update_level: 'CU21',
  edition: 'Developer Edition (64-bit)',
  engine_edition: 3,
  compatibility_level: 150,
  is_read_committed_snapshot_on: false,
  snapshot_isolation_state: 0,
};
const AZURE: ServerRow = {
  ...SQL2019,
  version_text: 'Microsoft SQL Azure (RTM) - 12.0.2000.8',
  product_version: '12.0.2000.8',
  product_update_level: null,
  edition: 'Standard',
  engine_edition: 5,
  is_read_committed_snapshot_on: true,
};
const BABELFISH: ServerRow = {
  babelfish: 1,
  babelfish_version: '4.4.0',
  version_text: 'Babelfish for PostgreSQL with SQL Server Compatibility - 12.0.2000.8\nOct 22 2024',
  database_name: 'jobs',
};

/** The facts row as DOCTOR_FACTS returns it for a login with the README's grants. */
const factsRow = (o: Record<string, unknown> = {}) => ({
  login_name: 'readpast_app',
  user_name: 'readpast_app',
  database_name: 'jobs',
  azure: 0,
  schema_exists: 1,
  versions_table: 1,
  versions_readable: 1,
  schema_select: 1,
  schema_insert: 1,
  schema_update: 1,
  schema_delete: 1,
  db_select: 0,
  db_insert: 0,
  db_update: 0,
  db_delete: 0,
  create_schema: 0,
  create_table: 0,
  create_view: 0,
  alter_database: 0,
  db_execute: 0,
  view_database_state: 0,
  kill_database_connection: 0,
  view_server_state: 1,
  view_server_performance_state: null,
  alter_any_connection: 1,
  procedures: 3,
  executable_procedures: 1,
  ...o,
});

const facts = (o: Record<string, unknown> = {}, versions = [1, 2]): DoctorFacts =>
  factsFromRows(
    factsRow(o),
    versions.map((version) => ({ version })),
  );

const healthy = (o: Partial<DoctorProbe> = {}, server: ServerRow = SQL2019): DoctorProbe => ({
  target: TARGET,
  connect: { ok: true, value: { ms: 41.2 } },
  server: { ok: true, value: serverInfoFromRow(server) },
  facts: { ok: true, value: facts() },
  pings: {
    ok: true,
    value: [
      { rttMs: 2.1, skewMs: 12 },
      { rttMs: 1.6, skewMs: 9 },
      { rttMs: 1.9, skewMs: 11 },
    ],
  },
  dryRun: { ok: true, value: { ms: 7.4, claimed: { queue: 'billing', command: 'dbo.usp_charge', kind: 'procedure' } } },
  callers: { ok: true, value: callerFacts() },
  hot: { ok: true, value: hotFacts() },
  ...o,
});

const PROCS = [
  {
    name: 'ExecAsync',
    text: 'CREATE OR ALTER PROCEDURE readpast.ExecAsync (\n  @Command nvarchar(4000) = NULL\n)\nAS\nBEGIN\n  RETURN 0;\nEND;',
    granted: true,
  },
  {
    name: 'SettleBatches',
    text: 'CREATE OR ALTER PROCEDURE readpast.SettleBatches (\n  @batches nvarchar(max)\n)\nAS\nBEGIN\n  RETURN 0;\nEND;',
    granted: false,
  },
  { name: 'Synchronization', text: 'CREATE OR ALTER PROCEDURE readpast.Synchronization AS BEGIN RETURN 0; END;', granted: true },
];

/** DOCTOR_CALLERS as a healthy database answers it, with `o` over the first row and `procs` over procedure rows. */
function callerFacts(o: Record<string, unknown> = {}, procs: Record<string, Record<string, unknown>> = {}): CallerFacts {
  return callerFactsFromRows(
    { role_exists: 1, view_definition: 1, allow_sql: 'off', results_granted: 1, ...o },
    PROCS.map((p) => ({ name: p.name, present: 1, granted: p.granted ? 1 : 0, definition: p.text, ...procs[p.name] })),
    PROCS,
  );
}

/** The names this version calls (sql/hot.ts), and DOCTOR_HOT as a database migrated and granted per the README answers it. */
const HOT_NAMES = HOT_PROCEDURES.map(hotName);
const hotFacts = (rows: Record<string, Record<string, unknown>> = {}) =>
  hotFactsFromRows(
    HOT_NAMES.map((name) => ({ name, present: 1, may_execute: 1, ...rows[name] })),
    HOT_NAMES,
  );

const byId = (checks: DoctorCheck[]) => Object.fromEntries(checks.map((c) => [c.id, c]));
const failingNeeded = (checks: DoctorCheck[]) => checks.filter((c) => c.needed && c.ok === false).map((c) => c.id);

describe('what server this is (server.ts)', () => {
  it('reads the probe row and names the product', () => {
    const info = serverInfoFromRow(SQL2019);
    expect(info).toMatchObject({ babelfish: false, version: [15, 0, 4316, 3], engineEdition: 3, compatibilityLevel: 150 });
    expect(info.readCommittedSnapshot).toBe(false);
    expect(info.versionText).toBe('Microsoft SQL Server 2019 (RTM-CU21) (KB5025808) - 15.0.4316.3 (X64)');
    expect(productName(info)).toBe('SQL Server 2019 CU21 (15.0.4316.3), Developer Edition (64-bit)');
    expect(productName(serverInfoFromRow(AZURE))).toBe('Azure SQL Database (12.0.2000.8), Standard');
    expect(productName(serverInfoFromRow({ ...SQL2019, product_version: '10.50.6000.34', product_level: 'SP3' }))).toMatch(
      /^SQL Server 2008 R2 SP3/,
    );
    expect(productName(serverInfoFromRow(BABELFISH))).toBe('Babelfish for PostgreSQL 4.4.0');
  });

  it('refuses Babelfish before anything else, whatever version and compatibility level it claims', () => {
    const r = refusal(serverInfoFromRow({ ...BABELFISH, product_version: '15.0.2000.5', compatibility_level: 120 }));
    expect(r?.kind).toBe('stand-in');
    expect(r?.message).toContain("SERVERPROPERTY('Babelfish') = 1");
    expect(r?.message).toContain('ignores them');
    expect(r?.message).not.toContain('compatibility');
    expect(r?.message).not.toMatch(/\n/);
  });

  it('needs 2016 SP1 (13.0.4001) on SQL Server, any version on Azure SQL Database and Managed Instance', () => {
    const at = (v: string, engine = 3) => refusal(serverInfoFromRow({ ...SQL2019, product_version: v, engine_edition: engine }));
    expect(at('13.0.1601.5')?.kind).toBe('version');
    expect(at('13.0.1601.5')?.message).toContain('SQL Server 2016 SP1 (13.0.4001)');
    expect(at('12.0.6024.0')?.kind).toBe('version');
    expect(at('13.0.4001.0')).toBeNull();
    expect(at('14.0.1000.169')).toBeNull();
    expect(at('12.0.2000.8', 5)).toBeNull();
    expect(at('12.0.2000.8', 8)).toBeNull();
    expect(at('12.0.2000.8', 6)?.kind).toBe('engine');
    expect(compareVersions([13, 0, 4001], [13, 0, 4001, 0])).toBe(0);
  });

  it('needs compatibility level 130, and says how to set it', () => {
    const r = refusal(serverInfoFromRow({ ...SQL2019, compatibility_level: 120 }));
    expect(r?.kind).toBe('compatibility');
    expect(r?.message).toContain('ALTER DATABASE [jobs] SET COMPATIBILITY_LEVEL = 130;');
    expect(unsupportedReason(serverInfoFromRow(SQL2019))).toBeNull();
  });
});

describe('readpast doctor on SQL Server (the judge)', () => {
  it('a healthy server with the README grants: every needed check passes, each line says what it found', () => {
    const checks = judgeMssql(healthy(), KNOWN);
    expect(checks.map((c) => c.id)).toEqual([
      'connect',
      'server',
      'compatibility',
      'rcsi',
      'schema',
      'permissions.dml',
      'permissions.hot',
      'permissions.execute',
      'permissions.live',
      'permissions.kill',
      'callers',
      'callers.sql',
      'clock',
      'latency',
      'claim',
    ]);
    expect(failingNeeded(checks)).toEqual([]);
    const c = byId(checks);
    expect(c.connect!.detail).toBe(`connected to ${TARGET} as readpast_app (user readpast_app) in 41 ms`);
    expect(c.server!.detail).toContain('SQL Server 2019 CU21');
    expect(c.rcsi).toMatchObject({ ok: true, needed: false });
    expect(c.rcsi!.detail).toMatch(/^OFF/);
    expect(c.schema).toMatchObject({ ok: true, detail: 'schema readpast at migration 2 (current)' });
    expect(c['permissions.execute']!.detail).toContain('1 of the 3 procedures');
    expect(c.clock!.ok).toBe(true);
    expect(c.clock!.detail).toContain('differ by 9 ms');
    expect(c.latency!.detail).toMatch(/^median 1\.9 ms over 3 round trips/);
    expect(c.claim!.detail).toContain('would have taken a procedure task dbo.usp_charge of queue billing');
    for (const x of checks) expect(x.ok === false ? x.remedy : null, x.id).toBeNull();
  });

  it('says how the connection signed in, and for Entra ID which identity the server sees (SUSER_SNAME())', () => {
    const probe = healthy({
      signIn: 'Microsoft Entra ID (Active Directory Managed Identity, system-assigned)',
      entra: true,
      facts: { ok: true, value: facts({ login_name: 'jobs-vm', user_name: 'jobs-vm' }) },
    });
    expect(byId(judgeMssql(probe, KNOWN)).connect!.detail).toBe(
      `connected to ${TARGET} with Microsoft Entra ID (Active Directory Managed Identity, system-assigned) ` +
        'as jobs-vm (user jobs-vm) in 41 ms',
    );
    const down = judgeMssql(
      {
        target: TARGET,
        signIn: 'Microsoft Entra ID (Active Directory Default)',
        entra: true,
        connect: {
          ok: false,
          error: { message: 'Security token could not be authenticated or authorized.', code: 'EFEDAUTH', number: null },
        },
      },
      KNOWN,
    );
    expect(down[0]!.detail).toContain('with Microsoft Entra ID (Active Directory Default)');
    expect(down[0]!.remedy).toMatch(/^Microsoft Entra ID sign-in failed: .*CREATE USER \[name\] FROM EXTERNAL PROVIDER;/);
    const ntlm = judgeMssql(
      {
        target: TARGET,
        signIn: 'Windows authentication (NTLM) as CORP\\svc',
        ntlm: true,
        connect: { ok: false, error: { message: "Login failed for user 'CORP\\svc'.", code: 'ELOGIN', number: 18456 } },
      },
      KNOWN,
    );
    expect(ntlm[0]!.remedy).toMatch(/^Windows \(NTLM\) sign-in failed/);
  });

  it('the T-SQL interface: role, grants and procedures as installed, each with its remedy; allow_sql and what it allows', () => {
    const at = (callers: CallerFacts) => byId(judgeMssql(healthy({ callers: { ok: true, value: callers } }), KNOWN));
    const fine = at(callerFacts());
    expect(fine.callers).toMatchObject({ ok: true, needed: false, remedy: null });
    expect(fine.callers!.detail).toBe(
      'readpast_caller may EXECUTE ExecAsync, Synchronization and SELECT from AsyncExecResults; ' +
        'the procedures are as this readpast installs them',
    );
    expect(fine['callers.sql']).toMatchObject({ ok: true });
    expect(fine['callers.sql']!.detail).toMatch(/^off: ExecAsync refuses @Kind = 'sql'/);
    expect(at(callerFacts({ allow_sql: 'on' }))['callers.sql']!.detail).toMatch(/^on: members of readpast_caller may enqueue T-SQL text/);
    expect(at(callerFacts({ allow_sql: null }))['callers.sql']!.ok).toBeNull();

    const noRole = at(callerFacts({ role_exists: 0 })).callers!;
    expect(noRole).toMatchObject({ ok: false, needed: false });
    expect(noRole.remedy).toBe(REINSTALL_CODE);
    expect(REINSTALL_CODE).toBe(
      "run 'readpast migrate' (it installs readpast's procedures, views and grants by content; nothing else changes)",
    );
    const ungranted = at(callerFacts({ results_granted: 0 }, { Synchronization: { granted: 0 } })).callers!;
    expect(ungranted.ok).toBe(false);
    expect(ungranted.detail).toContain('lacks EXECUTE on readpast.Synchronization, SELECT on readpast.AsyncExecResults');
    expect(ungranted.remedy).toBe(
      'GRANT EXECUTE ON readpast.Synchronization TO readpast_caller; GRANT SELECT ON readpast.AsyncExecResults TO readpast_caller;',
    );
    // SettleBatches is internal: never granted, never asked for
    expect(ungranted.remedy).not.toContain('SettleBatches');
    const gone = at(callerFacts({}, { ExecAsync: { present: 0, definition: null } })).callers!;
    expect(gone).toMatchObject({ ok: false });
    expect(gone.detail).toMatch(/^readpast\.ExecAsync missing/);
    const old = at(callerFacts({}, { ExecAsync: { definition: PROCS[0]!.text.replace('RETURN 0', 'RETURN 1') } })).callers!;
    expect(old.ok).toBe(false);
    expect(old.detail).toMatch(/^readpast\.ExecAsync differs from what this readpast installs/);
    expect(old.remedy).toBe(REINSTALL_CODE);
    // without VIEW DEFINITION: the text and others' grants are not visible — not a failure, said so
    const blind = at(
      callerFacts(
        { view_definition: 0, results_granted: 0 },
        Object.fromEntries(PROCS.map((p) => [p.name, { granted: 0, definition: null }])),
      ),
    ).callers!;
    expect(blind.ok).toBeNull();
    expect(blind.detail).toContain('lacks VIEW DEFINITION');
    // asked only once the schema is current
    const behind = byId(judgeMssql(healthy({ facts: { ok: true, value: facts({}, [1]) }, callers: undefined }), KNOWN));
    expect(behind.callers).toMatchObject({ ok: null, detail: 'skipped: the schema is not at the current migration' });
  });

  it('the hot-write procedures this version calls: installed and executable, missing, not granted, or not answered', () => {
    expect(HOT_NAMES).toContain(hotName(HOT.claim));
    const CLAIM_NAME = hotName(HOT.claim);
    const ok = byId(judgeMssql(healthy(), KNOWN))['permissions.hot']!;
    expect(ok).toMatchObject({ ok: true, needed: true, remedy: null });
    expect(ok.detail).toBe(`installed, and this login may EXECUTE ${HOT_NAMES.join(', ')}`);

    // a procedure not installed (or dropped by a later migration): migrate installs it
    const gone = judgeMssql(healthy({ hot: { ok: true, value: hotFacts({ [CLAIM_NAME]: { present: 0, may_execute: null } }) } }), KNOWN);
    expect(failingNeeded(gone)).toEqual(['permissions.hot']);
    const g = byId(gone)['permissions.hot']!;
    expect(g.detail.startsWith(`${CLAIM_NAME} not found`)).toBe(true);
    expect(g.remedy).toMatch(/^run 'readpast migrate' \(it installs readpast's procedures, views and grants by content/);
    expect(g.remedy).toContain('GRANT EXECUTE ON SCHEMA::readpast TO [readpast_app];');
    // no row at all for a name reads as missing
    expect(hotFactsFromRows([], [hotName(HOT.finish)])).toEqual([{ name: hotName(HOT.finish), present: false, execute: null }]);

    // installed, but this login lacks EXECUTE: the README's GRANT, for this user
    const denied = judgeMssql(
      healthy({
        hot: { ok: true, value: hotFacts({ [hotName(HOT.enqueue)]: { may_execute: 0 }, [hotName(HOT.finish)]: { may_execute: false } }) },
      }),
      KNOWN,
    );
    expect(failingNeeded(denied)).toEqual(['permissions.hot']);
    const d = byId(denied)['permissions.hot']!;
    expect(d.detail).toBe(
      `this login may not EXECUTE ${hotName(HOT.enqueue)}, ${hotName(HOT.finish)}: enqueue, claim, finish or heartbeat fail (error 229)`,
    );
    expect(d.remedy).toBe('GRANT EXECUTE ON SCHEMA::readpast TO [readpast_app];');

    // HAS_PERMS_BY_NAME answered NULL: neither ✓ nor ✗, and it says so
    const unsure = byId(
      judgeMssql(healthy({ hot: { ok: true, value: hotFacts({ [hotName(HOT.heartbeat)]: { may_execute: null } }) } }), KNOWN),
    );
    expect(unsure['permissions.hot']).toMatchObject({ ok: null, needed: true });
    expect(unsure['permissions.hot']!.detail).toContain(
      `${hotName(HOT.heartbeat)} installed; whether this login may EXECUTE it cannot be told`,
    );

    // not asked before the schema is current; a failed query is reported, not judged
    const behind = byId(judgeMssql(healthy({ facts: { ok: true, value: facts({}, [1]) }, hot: undefined }), KNOWN));
    expect(behind['permissions.hot']).toMatchObject({ ok: null, detail: 'skipped: the schema is not at the current migration' });
    const failed = byId(judgeMssql(healthy({ hot: { ok: false, error: { message: 'boom', code: 'EREQUEST', number: 50000 } } }), KNOWN));
    expect(failed['permissions.hot']).toMatchObject({ ok: null, detail: 'could not be read: error 50000: boom' });
  });

  it('compares installed procedure text loosely (line endings, white space, a final semicolon), and nothing else', () => {
    const text = 'CREATE OR ALTER PROCEDURE readpast.X (\n  @a int\n)\nAS\nBEGIN\n  SELECT 1;\nEND;';
    expect(sameDefinition(text.replace(/\n/g, '\r\n'), text)).toBe(true);
    expect(sameDefinition(`${text.slice(0, -1)}\n`, text)).toBe(true);
    expect(sameDefinition(text.replace('SELECT 1', 'SELECT 2'), text)).toBe(false);
    expect(sameDefinition(text.replace('@a int', '@a bigint'), text)).toBe(false);
  });

  it('KILL needs the session view as well as ALTER ANY CONNECTION', () => {
    const c = byId(
      judgeMssql(
        healthy({ facts: { ok: true, value: facts({ view_server_state: 0, view_server_performance_state: 0, alter_any_connection: 1 }) } }),
        KNOWN,
      ),
    );
    expect(c['permissions.kill']).toMatchObject({ ok: false, remedy: 'USE master; GRANT VIEW SERVER STATE TO [readpast_app];' });
    expect(c['permissions.kill']!.detail).toContain("lacks VIEW SERVER STATE, which KILL needs to find the task's session");
  });

  it('RCSI on is fine and explained (READCOMMITTEDLOCK keeps READPAST legal)', () => {
    const c = byId(judgeMssql(healthy({}, { ...SQL2019, is_read_committed_snapshot_on: true }), KNOWN));
    expect(c.rcsi).toMatchObject({ ok: true, needed: false });
    expect(c.rcsi!.detail).toContain('READCOMMITTEDLOCK');
  });

  it('missing optional permissions are ✗ but not needed, each with the exact GRANT for this login', () => {
    const probe = healthy({
      facts: {
        ok: true,
        value: facts({ view_server_state: 0, view_server_performance_state: 0, alter_any_connection: 0, executable_procedures: 0 }),
      },
    });
    const checks = judgeMssql(probe, KNOWN);
    expect(failingNeeded(checks)).toEqual([]);
    const c = byId(checks);
    expect(c['permissions.live']).toMatchObject({
      ok: false,
      needed: false,
      remedy: 'USE master; GRANT VIEW SERVER STATE TO [readpast_app];',
    });
    expect(c['permissions.kill']).toMatchObject({ ok: false, remedy: 'USE master; GRANT ALTER ANY CONNECTION TO [readpast_app];' });
    expect(c['permissions.execute']!.remedy).toContain('GRANT EXECUTE ON SCHEMA::dbo TO [readpast_app];');
  });

  it('on SQL Server 2022 VIEW SERVER PERFORMANCE STATE is enough, and is what it asks for', () => {
    const sql2022 = { ...SQL2019, product_version: '16.0.4135.4', product_update_level: 'CU15' };
    const granted = byId(
      judgeMssql(
        healthy({ facts: { ok: true, value: facts({ view_server_state: 0, view_server_performance_state: 1 }) } }, sql2022),
        KNOWN,
      ),
    );
    expect(granted['permissions.live']).toMatchObject({ ok: true });
    expect(granted['permissions.live']!.detail).toMatch(/^VIEW SERVER PERFORMANCE STATE/);
    const lacking = byId(
      judgeMssql(
        healthy({ facts: { ok: true, value: facts({ view_server_state: 0, view_server_performance_state: 0 }) } }, sql2022),
        KNOWN,
      ),
    );
    expect(lacking['permissions.live']!.remedy).toBe('USE master; GRANT VIEW SERVER PERFORMANCE STATE TO [readpast_app];');
  });

  it('on Azure SQL Database it asks for the database permissions, to the database user', () => {
    const c = byId(
      judgeMssql(
        healthy(
          { facts: { ok: true, value: facts({ user_name: 'app user', azure: 1, view_server_state: null, alter_any_connection: null }) } },
          AZURE,
        ),
        KNOWN,
      ),
    );
    expect(c['permissions.live']).toMatchObject({ ok: false, remedy: 'GRANT VIEW DATABASE STATE TO [app user];' });
    expect(c['permissions.kill']).toMatchObject({ ok: false, remedy: 'GRANT KILL DATABASE CONNECTION TO [app user];' });
    expect(c.server!.detail).toContain('Azure SQL Database');
  });

  it('no DML on the schema is a needed failure, and the claim says which permission it lacked', () => {
    const checks = judgeMssql(
      healthy({
        facts: { ok: true, value: facts({ schema_update: 0, schema_delete: 0 }) },
        dryRun: { ok: false, error: { message: "The UPDATE permission was denied on the object 'Queues'", code: 'EREQUEST', number: 229 } },
      }),
      KNOWN,
    );
    expect(failingNeeded(checks)).toEqual(['permissions.dml', 'claim']);
    const c = byId(checks);
    expect(c['permissions.dml']!.detail).toContain('lacks UPDATE, DELETE');
    expect(c['permissions.dml']!.remedy).toBe('GRANT SELECT, INSERT, UPDATE, DELETE ON SCHEMA::readpast TO [readpast_app];');
    expect(c.claim!.detail).toContain('error 229');
    expect(c.claim!.remedy).toContain('GRANT SELECT, INSERT, UPDATE, DELETE');
  });

  it('a schema not yet created: informational when this login may migrate, needed with the remedy when it may not', () => {
    const absent = { schema_exists: 0, versions_table: 0, versions_readable: null, schema_select: null, schema_insert: null };
    const may = { create_schema: 1, create_table: 1, create_view: 1 };
    const f1 = facts({ ...absent, ...may }, []);
    expect(schemaState(f1, KNOWN)).toBe('missing');
    const c1 = byId(judgeMssql(healthy({ facts: { ok: true, value: f1 }, dryRun: undefined }), KNOWN));
    expect(c1.schema).toMatchObject({ ok: null, needed: true });
    expect(c1.schema!.detail).toContain("'readpast migrate'");
    expect(c1.claim).toMatchObject({ ok: null, detail: 'skipped: the schema is not at the current migration' });

    const c2 = byId(judgeMssql(healthy({ facts: { ok: true, value: facts(absent, []) }, dryRun: undefined }), KNOWN));
    expect(c2.schema).toMatchObject({ ok: false, needed: true });
    expect(c2.schema!.remedy).toContain('ALTER ROLE db_ddladmin ADD MEMBER [readpast_app];');
    expect(c2['permissions.dml']).toMatchObject({ ok: null });
  });

  it('a schema behind or ahead of this readpast', () => {
    expect(schemaState(facts({}, [1]), KNOWN)).toBe('behind');
    const behind = byId(judgeMssql(healthy({ facts: { ok: true, value: facts({}, [1]) }, dryRun: undefined }), KNOWN));
    expect(behind.schema).toMatchObject({ ok: false });
    expect(behind.schema!.detail).toContain('at migration 1; 1 of 2 pending');
    const ahead = byId(judgeMssql(healthy({ facts: { ok: true, value: facts({}, [1, 2, 3]) }, dryRun: undefined }), KNOWN));
    expect(ahead.schema).toMatchObject({ ok: false, needed: true });
    expect(ahead.schema!.detail).toContain('newer than this readpast knows (2)');
  });

  it('Babelfish: one refusal, every other check skipped', () => {
    const probe: DoctorProbe = {
      target: TARGET,
      connect: { ok: true, value: { ms: 80 } },
      server: { ok: true, value: serverInfoFromRow(BABELFISH) },
    };
    const checks = judgeMssql(probe, KNOWN);
    expect(failingNeeded(checks)).toEqual(['server']);
    const c = byId(checks);
    expect(c.server!.detail).toMatch(/Babelfish for PostgreSQL 4\.4\.0.*ignores them/);
    expect(
      checks.filter((x) => x.id !== 'connect' && x.id !== 'server').every((x) => x.ok === null && x.detail === 'skipped: not SQL Server'),
    ).toBe(true);
  });

  it('too old a server and too low a compatibility level are needed failures with their remedies', () => {
    const old = byId(
      judgeMssql(healthy({}, { ...SQL2019, product_version: '13.0.1601.5', product_level: 'RTM', product_update_level: null }), KNOWN),
    );
    expect(old.server).toMatchObject({ ok: false, needed: true });
    expect(old.server!.detail).toContain('SQL Server 2016 (13.0.1601.5)');
    const compat = byId(judgeMssql(healthy({}, { ...SQL2019, compatibility_level: 110 }), KNOWN));
    expect(compat.server!.ok).toBe(true);
    expect(compat.compatibility).toMatchObject({ ok: false, remedy: 'ALTER DATABASE [jobs] SET COMPATIBILITY_LEVEL = 130;' });
  });

  it('no connection: what failed and what to check, by the driver code', () => {
    const down = (error: { message: string; code: string | null; number: number | null }) =>
      judgeMssql({ target: TARGET, connect: { ok: false, error } }, KNOWN);
    const login = down({ message: "Login failed for user 'readpast_app'.", code: 'ELOGIN', number: 18456 });
    expect(failingNeeded(login)).toEqual(['connect']);
    expect(login[0]!.detail).toContain("error 18456: Login failed for user 'readpast_app'.");
    expect(login[0]!.remedy).toContain('user name and password');
    expect(login.slice(1).every((c) => c.ok === null)).toBe(true);
    const cert = down({ message: 'Failed to connect: self-signed certificate in certificate chain', code: 'ESOCKET', number: null });
    expect(cert[0]!.remedy).toContain('trustServerCertificate=true');
    const refused = down({ message: 'Failed to connect to db.example.com:1433 - connect ECONNREFUSED', code: 'ESOCKET', number: null });
    expect(refused[0]!.remedy).toContain('TCP/IP');
    const db = down({ message: 'Cannot open database "jobs" requested by the login.', code: 'ELOGIN', number: 4060 });
    expect(db[0]!.remedy).toContain('CREATE USER');
  });

  it('clock skew over a second and a slow round trip are reported, not needed', () => {
    const [clock, latency] = pingChecks([
      { rttMs: 150, skewMs: -2500 },
      { rttMs: 180, skewMs: -2400 },
      { rttMs: 210, skewMs: -2600 },
    ]);
    expect(clock).toMatchObject({ ok: false, needed: false });
    expect(clock!.detail).toContain("differ by 2500 ms (the server's is behind)");
    expect(clock!.remedy).toContain('NTP');
    expect(latency).toMatchObject({ ok: false, needed: false });
    expect(latency!.detail).toMatch(/^median 180 ms over 3 round trips \(slowest 210 ms\)/);
  });

  it('reads the facts row with the driver’s types (bit as boolean, counts, nulls)', () => {
    const f = factsFromRows({ ...factsRow(), schema_exists: true, view_server_performance_state: null, procedures: 0 }, [{ version: 1 }]);
    expect(f).toMatchObject({ schemaExists: true, viewServerPerformanceState: null, procedures: 0, versions: [1] });
  });
});
