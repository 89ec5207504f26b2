// `readpast doctor` on SQL Server, the judging half: from what the probe found (doctor.ts asks the
// server; nothing here does) to the checks a person reads, each with the exact statement that fixes
// it. Pure, so every verdict is tested with canned probe results (doctor.test.ts).
import type { CodeOutcome } from './doctor-code';
import type { DoctorCheck } from '../../lib/engine/types';
import { isAzureSqlDatabase, isCloud, productName, quoteName, refusal, type ServerInfo } from './server';

/** A driver or server error, as much of it as a person needs. */
export interface ProbeError {
  message: string;
  /** the driver's code: ELOGIN, ESOCKET, ETIMEOUT, EINSTLOOKUP, EREQUEST … */
  code: string | null;
  /** SQL Server's error number */
  number: number | null;
}

/** One row of DOCTOR_FACTS (HAS_PERMS_BY_NAME: 1, 0, or null where the securable or permission does not exist). */
export interface DoctorFacts {
  login: string | null;
  user: string | null;
  database: string | null;
  schemaExists: boolean;
  versionsTable: boolean;
  versionsReadable: number | null;
  schema: { select: number | null; insert: number | null; update: number | null; delete: number | null };
  db: { select: number | null; insert: number | null; update: number | null; delete: number | null };
  createSchema: number | null;
  createTable: number | null;
  createView: number | null;
  alterDatabase: number | null;
  dbExecute: number | null;
  viewDatabaseState: number | null;
  killDatabaseConnection: number | null;
  viewServerState: number | null;
  viewServerPerformanceState: number | null;
  alterAnyConnection: number | null;
  procedures: number;
  executableProcedures: number;
  /** applied migration versions (empty when there are none or they cannot be read) */
  versions: number[];
}

export interface Ping {
  /** round-trip time of one SELECT SYSUTCDATETIME() */
  rttMs: number;
  /** server clock − this machine's clock at the middle of the round trip */
  skewMs: number;
}

export interface DryRun {
  ms: number;
  /** what the claim would have taken, had it not been rolled back */
  claimed: { queue: string; command: string; kind: string } | null;
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: ProbeError };

/** One procedure of the T-SQL callers' interface as found, against what this readpast installs. */
export interface CallerProcedureFact {
  name: string;
  present: boolean;
  /** EXECUTE granted to readpast_caller */
  granted: boolean;
  /** whether readpast grants it (SettleBatches is internal) */
  grantedByDesign: boolean;
  /** its installed text against this version's: null where the text cannot be seen (no VIEW DEFINITION) */
  current: boolean | null;
}

/** The T-SQL callers' interface (DOCTOR_CALLERS): the role, its grants, the procedures' versions, allow_sql. */
export interface CallerFacts {
  roleExists: boolean;
  /** VIEW DEFINITION on the database: other principals' grants and the procedures' text are visible */
  viewDefinition: boolean;
  /** the allow_sql setting ('on' / 'off'), null where it cannot be read */
  allowSql: string | null;
  resultsGranted: boolean;
  procedures: CallerProcedureFact[];
}

/** Installed procedure text compared loosely: line endings, runs of white space and a final semicolon aside. */
export function sameDefinition(installed: string, expected: string): boolean {
  const norm = (t: string) => t.replace(/\r\n?/g, '\n').replace(/\s+/g, ' ').trim().replace(/;$/, '').trim();
  return norm(installed) === norm(expected);
}

/** DOCTOR_CALLERS' two result sets → facts, the installed text judged against `expected` (name → text, granted). */
export function callerFactsFromRows(
  row: Record<string, unknown> | undefined,
  procs: Record<string, unknown>[],
  expected: readonly { name: string; text: string; granted: boolean }[],
): CallerFacts {
  const viewDefinition = row?.view_definition === 1 || row?.view_definition === true;
  return {
    roleExists: row?.role_exists === 1 || row?.role_exists === true,
    viewDefinition,
    allowSql: typeof row?.allow_sql === 'string' ? row.allow_sql : null,
    resultsGranted: row?.results_granted === 1 || row?.results_granted === true,
    procedures: expected.map((e) => {
      const r = procs.find((p) => p.name === e.name);
      const present = r?.present === 1 || r?.present === true;
      const text = typeof r?.definition === 'string' ? r.definition : null;
      return {
        name: e.name,
        present,
        granted: r?.granted === 1 || r?.granted === true,
        grantedByDesign: e.granted,
        current: present && text !== null ? sameDefinition(text, e.text) : null,
      };
    }),
  };
}

/** One hot-write procedure this version calls (DOCTOR_HOT), by its versioned name. */
export interface HotProcedureFact {
  /** readpast.Claim_3f9a1c2e … */
  name: string;
  present: boolean;
  /** HAS_PERMS_BY_NAME(name, 'OBJECT', 'EXECUTE') for this login: 1, 0, or null (not answered) */
  execute: number | null;
}

/** DOCTOR_HOT's rows → one fact per name this version calls (`expected`); a name without a row reads as missing. */
export function hotFactsFromRows(rows: Record<string, unknown>[], expected: readonly string[]): HotProcedureFact[] {
  const bit = (v: unknown) => (typeof v === 'number' ? v : typeof v === 'boolean' ? Number(v) : null);
  return expected.map((name) => {
    const r = rows.find((x) => typeof x.name === 'string' && x.name.toLowerCase() === name.toLowerCase());
    return { name, present: bit(r?.present) === 1, execute: bit(r?.may_execute) };
  });
}

/** Everything the probe found; a step not reached is undefined. */
export interface DoctorProbe {
  /** the database, printable (no password) */
  target: string;
  /** how the connection signs in, for a person (url.ts signInLabel); never a secret */
  signIn?: string;
  /** signs in with Microsoft Entra ID */
  entra?: boolean;
  /** signs in with a Windows account (NTLM) */
  ntlm?: boolean;
  connect: Outcome<{ ms: number }>;
  server?: Outcome<ServerInfo>;
  facts?: Outcome<DoctorFacts>;
  pings?: Outcome<Ping[]>;
  dryRun?: Outcome<DryRun>;
  /** the T-SQL callers' interface, asked once the schema exists */
  callers?: Outcome<CallerFacts>;
  /** the hot-write procedures this version calls, asked once the schema exists */
  hot?: Outcome<HotProcedureFact[]>;
  /** the code objects installed by content and the workers using them (doctor-code.ts), once the schema is current */
  code?: CodeOutcome;
}

/** The migrations this code knows. */
export interface KnownSchema {
  versions: readonly number[];
}

/** How to install readpast's procedures, views and grants again: any migrate does (code-objects.ts). */
export const REINSTALL_CODE =
  "run 'readpast migrate' (it installs readpast's procedures, views and grants by content; nothing else changes)";

export type SchemaState = 'missing' | 'current' | 'behind' | 'ahead' | 'unreadable';

export function schemaState(facts: DoctorFacts, known: KnownSchema): SchemaState {
  if (!facts.schemaExists || !facts.versionsTable) return 'missing';
  if (facts.versionsReadable !== 1) return 'unreadable';
  const latest = Math.max(...known.versions);
  if (facts.versions.some((v) => v > latest)) return 'ahead';
  return known.versions.every((v) => facts.versions.includes(v)) ? 'current' : 'behind';
}

const SKEW_LIMIT_MS = 1000;
const LATENCY_LIMIT_MS = 100;

const check = (id: string, title: string, ok: boolean | null, detail: string, remedy: string | null, needed: boolean): DoctorCheck => ({
  id,
  title,
  ok,
  detail,
  remedy,
  needed,
});

/** The error's text, with its SQL Server number when there is one. */
const describe = (e: ProbeError) => `${e.number !== null ? `error ${e.number}: ` : ''}${e.message}`;

/** What to do when the connection fails, by the driver's code, the server's error number and the sign-in. */
export function connectRemedy(e: ProbeError, target: string, how: { entra?: boolean; ntlm?: boolean } = {}): string {
  const m = e.message.toLowerCase();
  if (how.entra && (e.code === 'EFEDAUTH' || e.code === 'ELOGIN' || e.number === 18456 || /token|credential|entra|azure ad/.test(m))) {
    return (
      'Microsoft Entra ID sign-in failed: check that this machine has the identity the connection string names (managed ' +
      'identity, az login, environment variables, or the token callback), that the server has an Entra ID admin, and that ' +
      'the identity has a user in this database (CREATE USER [name] FROM EXTERNAL PROVIDER;)'
    );
  }
  if (how.ntlm && (e.code === 'ELOGIN' || e.number === 18456)) {
    return (
      'Windows (NTLM) sign-in failed: check the domain, user and password in READPAST_DATABASE_URL (User Id=DOMAIN\\user), ' +
      'that the server accepts Windows authentication and NTLM, and that the account has a login ' +
      '(CREATE LOGIN [DOMAIN\\user] FROM WINDOWS;)'
    );
  }
  if (e.number === 4060 || /cannot open database/.test(m)) {
    return (
      'the database does not exist or this login has no user in it: CREATE DATABASE …, or in that database ' +
      'CREATE USER [login] FOR LOGIN [login];'
    );
  }
  if (e.code === 'ELOGIN' || e.number === 18456) {
    return (
      'check the user name and password in READPAST_DATABASE_URL (percent-encode special characters), that the login exists ' +
      '(CREATE LOGIN …) and that the server allows SQL Server authentication'
    );
  }
  if (/self[- ]signed|certificate|unable to verify/.test(m)) {
    return (
      "the server's TLS certificate is not trusted by this machine: install a certificate it trusts, or for a development " +
      'server add trustServerCertificate=true to the URL'
    );
  }
  if (e.code === 'EINSTLOOKUP') {
    return 'the SQL Server Browser service (UDP 1434) did not answer for this instance: start it, or give the port instead of the instance';
  }
  const where = /^mssql:\/\/(?:[^@/]*@)?([^/?]+)/.exec(target)?.[1];
  return (
    `check the host and port${where ? ` (${where})` : ''}: SQL Server listens on 1433 by default, must accept TCP connections ` +
    '(Configuration Manager → Protocols → TCP/IP), and no firewall between here and the server may drop them'
  );
}

/** The principal a GRANT names: the database user (database permissions) or the login (server permissions, in master). */
const userOf = (f: DoctorFacts) => quoteName(f.user ?? 'readpast_app');
const loginOf = (f: DoctorFacts) => quoteName(f.login ?? 'readpast_app');

function dmlCheck(f: DoctorFacts, state: SchemaState): DoctorCheck {
  const title = "Read and write readpast's tables";
  const perms = f.schemaExists ? f.schema : f.db;
  const missing = (['select', 'insert', 'update', 'delete'] as const).filter((p) => perms[p] !== 1).map((p) => p.toUpperCase());
  const grant = `GRANT SELECT, INSERT, UPDATE, DELETE ON SCHEMA::readpast TO ${userOf(f)};`;
  if (!f.schemaExists && missing.length) {
    // the schema is not there yet: whoever migrates owns it; a narrower login needs the GRANT afterwards
    return check(
      'permissions.dml',
      title,
      null,
      `the readpast schema does not exist yet; once it does, this login needs ${missing.join(', ')} on it`,
      grant,
      true,
    );
  }
  if (missing.length === 0) {
    return check(
      'permissions.dml',
      title,
      true,
      `SELECT, INSERT, UPDATE and DELETE on ${f.schemaExists ? 'schema readpast' : 'this database'}`,
      null,
      true,
    );
  }
  return check(
    'permissions.dml',
    title,
    false,
    `this login lacks ${missing.join(', ')} on schema readpast: ${state === 'current' ? 'no command or worker can run' : 'nothing can'}`,
    grant,
    true,
  );
}

/** The hot-write procedures this version calls (sql/hot.ts): each installed, and this login may EXECUTE it. */
export function hotCheck(probe: DoctorProbe, f: DoctorFacts, state: SchemaState, known: KnownSchema): DoctorCheck {
  const title = "readpast's procedures (EXECUTE)";
  const grant = `GRANT EXECUTE ON SCHEMA::readpast TO ${userOf(f)};`;
  if (state !== 'current') return check('permissions.hot', title, null, 'skipped: the schema is not at the current migration', null, true);
  if (!probe.hot) return check('permissions.hot', title, null, 'skipped: not asked', null, true);
  if (!probe.hot.ok) return check('permissions.hot', title, null, `could not be read: ${describe(probe.hot.error)}`, null, true);
  const procs = probe.hot.value;
  const names = (ps: HotProcedureFact[]) => ps.map((p) => p.name).join(', ');
  const them = (ps: HotProcedureFact[]) => (ps.length > 1 ? 'them' : 'it');
  const missing = procs.filter((p) => !p.present);
  if (missing.length) {
    return check(
      'permissions.hot',
      title,
      false,
      `${names(missing)} not found (or not visible to this login): enqueue, claim, finish and heartbeat of this readpast ` +
        `version call ${them(missing)}`,
      `${REINSTALL_CODE}; if they are there, ${grant}`,
      true,
    );
  }
  const denied = procs.filter((p) => p.execute === 0);
  if (denied.length) {
    return check(
      'permissions.hot',
      title,
      false,
      `this login may not EXECUTE ${names(denied)}: enqueue, claim, finish or heartbeat fail (error 229)`,
      grant,
      true,
    );
  }
  const unknown = procs.filter((p) => p.execute !== 1);
  if (unknown.length) {
    return check(
      'permissions.hot',
      title,
      null,
      `${names(unknown)} installed; whether this login may EXECUTE ${them(unknown)} cannot be told (HAS_PERMS_BY_NAME answered NULL)`,
      grant,
      true,
    );
  }
  return check('permissions.hot', title, true, `installed, and this login may EXECUTE ${names(procs)}`, null, true);
}

function schemaCheck(f: DoctorFacts, known: KnownSchema, state: SchemaState): DoctorCheck {
  const title = 'Schema and migrations';
  const latest = Math.max(...known.versions);
  const mayMigrate = f.createTable === 1 && f.createView === 1 && (f.schemaExists || f.createSchema === 1);
  const ddl =
    "run 'readpast migrate' once with a login that may create schemas, tables and views (e.g. a member of db_ddladmin: " +
    `ALTER ROLE db_ddladmin ADD MEMBER ${userOf(f)};)`;
  const have = f.versions.length ? Math.max(...f.versions) : 0;
  switch (state) {
    case 'current':
      return check('schema', title, true, `schema readpast at migration ${latest} (current)`, null, true);
    case 'ahead':
      return check(
        'schema',
        title,
        false,
        `schema readpast is at migration ${have}, newer than this readpast knows (${latest}): a newer version migrated it`,
        'run the same (or a newer) readpast version as the processes that migrated this database',
        true,
      );
    case 'unreadable':
      return check(
        'schema',
        title,
        false,
        'readpast.SchemaVersion exists but this login may not read it',
        `GRANT SELECT, INSERT, UPDATE, DELETE ON SCHEMA::readpast TO ${userOf(f)};`,
        true,
      );
    case 'missing':
    case 'behind': {
      const what =
        state === 'missing'
          ? 'no readpast schema in this database yet'
          : `schema readpast at migration ${have}; ${known.versions.filter((v) => !f.versions.includes(v)).length} of ${latest} pending`;
      return mayMigrate
        ? check(
            'schema',
            title,
            null,
            `${what}: 'readpast migrate' (or the first process to start) applies them with this login`,
            null,
            true,
          )
        : check('schema', title, false, `${what}, and this login may not create schemas, tables and views to apply them`, ddl, true);
    }
  }
}

function proceduresCheck(f: DoctorFacts): DoctorCheck {
  const title = 'Procedure tasks (EXECUTE)';
  const grant =
    `GRANT EXECUTE ON SCHEMA::dbo TO ${userOf(f)};   -- or per procedure: ` + `GRANT EXECUTE ON OBJECT::dbo.usp_name TO ${userOf(f)};`;
  if (f.dbExecute === 1)
    return check('permissions.execute', title, true, 'this login may execute every procedure in the database', null, false);
  if (f.executableProcedures > 0) {
    return check(
      'permissions.execute',
      title,
      true,
      `this login may execute ${f.executableProcedures} of the ${f.procedures} procedures it can see (enqueue checks the one a task names)`,
      null,
      false,
    );
  }
  return check(
    'permissions.execute',
    title,
    false,
    f.procedures === 0
      ? 'this login sees no stored procedure in this database: procedure tasks would be refused at enqueue'
      : `this login may execute none of the ${f.procedures} procedures it can see: procedure tasks would be refused at enqueue`,
    grant,
    false,
  );
}

function liveCheck(f: DoctorFacts, server: ServerInfo): DoctorCheck {
  const title = 'Live request state (DMVs)';
  if (isAzureSqlDatabase(server)) {
    return f.viewDatabaseState === 1
      ? check('permissions.live', title, true, 'VIEW DATABASE STATE: the Running page shows waits, blocking and CPU', null, false)
      : check(
          'permissions.live',
          title,
          false,
          'this login lacks VIEW DATABASE STATE: the Running page shows readpast’s own columns only (no waits, blocking or CPU)',
          `GRANT VIEW DATABASE STATE TO ${userOf(f)};`,
          false,
        );
  }
  const is2022 = (server.version?.[0] ?? 0) >= 16 || isCloud(server);
  if (f.viewServerState === 1 || f.viewServerPerformanceState === 1) {
    const via = f.viewServerState === 1 ? 'VIEW SERVER STATE' : 'VIEW SERVER PERFORMANCE STATE';
    return check(
      'permissions.live',
      title,
      true,
      `${via}: the Running page shows waits, blocking and CPU of every task's session`,
      null,
      false,
    );
  }
  const permission = is2022 && f.viewServerPerformanceState !== null ? 'VIEW SERVER PERFORMANCE STATE' : 'VIEW SERVER STATE';
  return check(
    'permissions.live',
    title,
    false,
    `this login lacks ${permission}: the Running page shows readpast's own columns only (no waits, blocking or CPU)`,
    `USE master; GRANT ${permission} TO ${loginOf(f)};`,
    false,
  );
}

function killCheck(f: DoctorFacts, server: ServerInfo): DoctorCheck {
  const title = "KILL of a task's session";
  // KILL also needs to see the task's session in sys.dm_exec_sessions (live.ts judgePermissions)
  if (isAzureSqlDatabase(server)) {
    if (f.killDatabaseConnection !== 1) {
      return check(
        'permissions.kill',
        title,
        false,
        'this login lacks KILL DATABASE CONNECTION: the Kill option is refused (cancel still works)',
        `GRANT KILL DATABASE CONNECTION TO ${userOf(f)};`,
        false,
      );
    }
    return f.viewDatabaseState === 1
      ? check('permissions.kill', title, true, 'KILL DATABASE CONNECTION: operators may kill a running sql or procedure task', null, false)
      : check(
          'permissions.kill',
          title,
          false,
          "this login has KILL DATABASE CONNECTION but lacks VIEW DATABASE STATE, which KILL needs to find the task's session: " +
            'the Kill option is refused (cancel still works)',
          `GRANT VIEW DATABASE STATE TO ${userOf(f)};`,
          false,
        );
  }
  if (f.alterAnyConnection !== 1) {
    return check(
      'permissions.kill',
      title,
      false,
      'this login lacks ALTER ANY CONNECTION: the Kill option is refused (cancel still works)',
      `USE master; GRANT ALTER ANY CONNECTION TO ${loginOf(f)};`,
      false,
    );
  }
  return f.viewServerState === 1 || f.viewServerPerformanceState === 1
    ? check('permissions.kill', title, true, 'ALTER ANY CONNECTION: operators may kill a running sql or procedure task', null, false)
    : check(
        'permissions.kill',
        title,
        false,
        "this login has ALTER ANY CONNECTION but lacks VIEW SERVER STATE, which KILL needs to find the task's session: " +
          'the Kill option is refused (cancel still works)',
        `USE master; GRANT VIEW SERVER STATE TO ${loginOf(f)};`,
        false,
      );
}

const CALLER_ROLE_NAME = 'readpast_caller';

const list = (names: string[]) => names.map((n) => `readpast.${n}`).join(', ');

/** The T-SQL callers' interface: readpast_caller, its grants, the procedures at this version. */
export function callersCheck(probe: DoctorProbe, state: SchemaState | null, known: KnownSchema): DoctorCheck {
  const title = `T-SQL interface (role ${CALLER_ROLE_NAME})`;
  if (state !== 'current') return check('callers', title, null, 'skipped: the schema is not at the current migration', null, false);
  if (!probe.callers) return check('callers', title, null, 'skipped: not asked', null, false);
  if (!probe.callers.ok) return check('callers', title, null, `could not be read: ${describe(probe.callers.error)}`, null, false);
  const c = probe.callers.value;
  if (!c.roleExists) {
    return check(
      'callers',
      title,
      false,
      `the role ${CALLER_ROLE_NAME} does not exist: T-SQL callers (ExecAsync, Synchronization, …) cannot be granted the interface`,
      REINSTALL_CODE,
      false,
    );
  }
  const missing = c.procedures.filter((p) => !p.present).map((p) => p.name);
  if (missing.length) {
    return check(
      'callers',
      title,
      false,
      `${list(missing)} missing: T-SQL callers cannot use ${missing.length > 1 ? 'them' : 'it'}`,
      REINSTALL_CODE,
      false,
    );
  }
  const differ = c.procedures.filter((p) => p.current === false).map((p) => p.name);
  if (differ.length) {
    return check(
      'callers',
      title,
      false,
      `${list(differ)} ${differ.length > 1 ? 'differ' : 'differs'} from what this readpast installs: another version migrated this ` +
        'database, or the procedure was changed by hand; T-SQL callers run that text',
      REINSTALL_CODE,
      false,
    );
  }
  const unknownText = c.procedures.some((p) => p.current === null);
  const ungranted = c.procedures.filter((p) => p.grantedByDesign && !p.granted).map((p) => p.name);
  const grants = [
    ...ungranted.map((n) => `GRANT EXECUTE ON readpast.${n} TO ${CALLER_ROLE_NAME};`),
    ...(c.resultsGranted ? [] : [`GRANT SELECT ON readpast.AsyncExecResults TO ${CALLER_ROLE_NAME};`]),
  ];
  if (grants.length) {
    // without VIEW DEFINITION other principals' grants are not visible: no grant seen proves nothing
    if (!c.viewDefinition) {
      return check(
        'callers',
        title,
        null,
        `the procedures are installed; whether ${CALLER_ROLE_NAME} is granted them cannot be seen by this login (it lacks VIEW DEFINITION)`,
        null,
        false,
      );
    }
    const lacks = [
      ...ungranted.map((n) => `EXECUTE on readpast.${n}`),
      ...(c.resultsGranted ? [] : ['SELECT on readpast.AsyncExecResults']),
    ];
    return check(
      'callers',
      title,
      false,
      `${CALLER_ROLE_NAME} lacks ${lacks.join(', ')}: its members cannot use ${lacks.length > 1 ? 'them' : 'it'}`,
      grants.join(' '),
      false,
    );
  }
  const granted = c.procedures.filter((p) => p.grantedByDesign).map((p) => p.name);
  return check(
    'callers',
    title,
    true,
    `${CALLER_ROLE_NAME} may EXECUTE ${granted.join(', ')} and SELECT from AsyncExecResults; the procedures are ` +
      (unknownText
        ? 'installed (their text is not visible to this login, so their version is not checked)'
        : 'as this readpast installs them'),
    null,
    false,
  );
}

/** allow_sql: whether T-SQL callers may enqueue sql tasks, and what that allows. */
export function allowSqlCheck(probe: DoctorProbe, state: SchemaState | null): DoctorCheck {
  const title = "T-SQL callers' sql tasks (allow_sql)";
  if (state !== 'current' || !probe.callers)
    return check('callers.sql', title, null, 'skipped: the schema is not at the current migration', null, false);
  const v = probe.callers.ok ? probe.callers.value.allowSql : null;
  if (v === 'on') {
    return check(
      'callers.sql',
      title,
      true,
      `on: members of ${CALLER_ROLE_NAME} may enqueue T-SQL text (ExecAsync @Kind = 'sql'), which a worker runs with its own login ` +
        "and permissions; 'readpast migrate --allow-sql off' turns it off",
      null,
      false,
    );
  }
  if (v === 'off') {
    return check(
      'callers.sql',
      title,
      true,
      `off: ExecAsync refuses @Kind = 'sql' (handler and procedure tasks only); 'readpast migrate --allow-sql on' lets members of ` +
        `${CALLER_ROLE_NAME} enqueue T-SQL that workers run with their own login`,
      null,
      false,
    );
  }
  return check('callers.sql', title, null, 'the setting could not be read (readpast.Settings)', null, false);
}

function rcsiCheck(server: ServerInfo): DoctorCheck {
  const title = 'READ_COMMITTED_SNAPSHOT';
  if (server.readCommittedSnapshot === null) return check('rcsi', title, null, 'not reported by this server', null, false);
  return check(
    'rcsi',
    title,
    true,
    server.readCommittedSnapshot
      ? 'ON: readers see the last committed rows without waiting. READPAST is legal only under locking read committed, so ' +
          'the claim asks for it with READCOMMITTEDLOCK; nothing to do'
      : 'OFF (locking read committed): READPAST skips rows other workers hold; the dashboard’s reads may wait briefly behind a ' +
          'claim or a settlement. Either setting works',
    null,
    false,
  );
}

export function pingChecks(pings: Ping[]): DoctorCheck[] {
  const rtts = pings.map((p) => p.rttMs).sort((a, b) => a - b);
  const median = rtts[Math.floor(rtts.length / 2)] ?? 0;
  const best = [...pings].sort((a, b) => a.rttMs - b.rttMs)[0];
  const out: DoctorCheck[] = [];
  if (best) {
    const skew = Math.round(best.skewMs);
    const within = Math.ceil(best.rttMs / 2);
    const how = Math.abs(skew) <= within ? 'agree' : `differ by ${Math.abs(skew)} ms (the server's is ${skew > 0 ? 'ahead' : 'behind'})`;
    const ok = Math.abs(skew) <= SKEW_LIMIT_MS;
    out.push(
      check(
        'clock',
        'Clock skew',
        ok,
        `this machine's clock and the server's ${how}, ± ${within} ms. Leases and due times use the server's clock, ` +
          `runAt the caller's${ok ? '' : ': tasks given a runAt start that much early or late'}`,
        ok ? null : 'keep both clocks in sync with NTP (Windows: w32tm /resync; Linux: chronyc makestep or timedatectl)',
        false,
      ),
    );
  }
  const ok = median < LATENCY_LIMIT_MS;
  const fmt = (ms: number) => (ms < 10 ? ms.toFixed(1) : String(Math.round(ms)));
  out.push(
    check(
      'latency',
      'Round trip',
      ok,
      `median ${fmt(median)} ms over ${rtts.length} round trips (slowest ${fmt(rtts.at(-1) ?? 0)} ms); every task costs at least a claim ` +
        `and a settlement, so one worker runs at most about ${Math.max(1, Math.floor(1000 / Math.max(1, 2 * median)))} tasks a second`,
      ok ? null : 'run the workers close to the database (same region or network)',
      false,
    ),
  );
  return out;
}

function claimCheck(probe: DoctorProbe, f: DoctorFacts | null, state: SchemaState | null): DoctorCheck {
  const title = 'Claim (dry run, rolled back)';
  if (!probe.dryRun) {
    const why = state && state !== 'current' ? 'the schema is not at the current migration' : 'an earlier check failed';
    return check('claim', title, null, `skipped: ${why}`, null, true);
  }
  if (!probe.dryRun.ok) {
    const e = probe.dryRun.error;
    const permission = e.number === 229 || e.number === 230 || e.number === 262;
    return check(
      'claim',
      title,
      false,
      `the claim statement failed: ${describe(e)}`,
      permission && f
        ? `GRANT SELECT, INSERT, UPDATE, DELETE ON SCHEMA::readpast TO ${userOf(f)};`
        : e.number === 650 || /snapshot/i.test(e.message)
          ? 'READPAST cannot run under SNAPSHOT isolation: do not set SNAPSHOT as this login’s default isolation level'
          : null,
      true,
    );
  }
  const { ms, claimed } = probe.dryRun.value;
  return check(
    'claim',
    title,
    true,
    `a worker's claim ran and was rolled back in ${Math.round(ms)} ms; ${
      claimed ? `it would have taken a ${claimed.kind} task ${claimed.command} of queue ${claimed.queue}` : 'nothing is due right now'
    }`,
    null,
    true,
  );
}

/** Every check after the server's, in the order a person reads them: id → [title, needed]. */
const LATER: readonly (readonly [string, string, boolean])[] = [
  ['compatibility', 'Compatibility level', true],
  ['rcsi', 'READ_COMMITTED_SNAPSHOT', false],
  ['schema', 'Schema and migrations', true],
  ['permissions.dml', "Read and write readpast's tables", true],
  ['permissions.hot', "readpast's procedures (EXECUTE)", true],
  ['permissions.execute', 'Procedure tasks (EXECUTE)', false],
  ['permissions.live', 'Live request state (DMVs)', false],
  ['permissions.kill', "KILL of a task's session", false],
  ['callers', 'T-SQL interface (role readpast_caller)', false],
  ['callers.sql', "T-SQL callers' sql tasks (allow_sql)", false],
  ['clock', 'Clock skew', false],
  ['latency', 'Round trip', false],
  ['claim', 'Claim (dry run, rolled back)', true],
];

/** The checks `ids` (default: every later one), skipped for `why`. */
const skipped = (why: string, ids?: readonly string[]) =>
  LATER.filter(([id]) => !ids || ids.includes(id)).map(([id, title, needed]) => check(id, title, null, `skipped: ${why}`, null, needed));

/** Every check, in the order a person reads them; what could not be reached is skipped (ok = null). */
export function judgeMssql(probe: DoctorProbe, known: KnownSchema): DoctorCheck[] {
  const out: DoctorCheck[] = [];
  if (!probe.connect.ok) {
    out.push(
      check(
        'connect',
        'Connection',
        false,
        `could not connect to ${probe.target}${probe.signIn ? ` with ${probe.signIn}` : ''}: ${describe(probe.connect.error)}`,
        connectRemedy(probe.connect.error, probe.target, probe),
        true,
      ),
      check('server', 'Server', null, 'skipped: not connected', null, true),
      ...skipped('not connected'),
    );
    return out;
  }
  // who signed in: for Microsoft Entra ID the identity the token named (SUSER_SNAME())
  const how = probe.signIn ? ` with ${probe.signIn}` : '';
  const login = probe.facts?.ok ? `${how} as ${probe.facts.value.login ?? '?'} (user ${probe.facts.value.user ?? '?'})` : how;
  out.push(
    check('connect', 'Connection', true, `connected to ${probe.target}${login} in ${Math.round(probe.connect.value.ms)} ms`, null, true),
  );

  if (!probe.server || !probe.server.ok) {
    const e = probe.server && !probe.server.ok ? describe(probe.server.error) : 'not asked';
    out.push(
      check('server', 'Server', false, `could not ask the server what it is: ${e}`, null, true),
      ...skipped('the server probe failed'),
    );
    return out;
  }
  const server = probe.server.value;
  const refused = refusal(server);
  const compatOnly = refused?.kind === 'compatibility';
  if (refused?.kind === 'stand-in' || refused?.kind === 'engine') {
    // a stand-in or an engine without row locking hints: one message, nothing else is worth asking
    out.push(
      check('server', 'Server', false, refused.message, null, true),
      ...skipped(server.babelfish ? 'not SQL Server' : 'unsupported server'),
    );
    return out;
  }
  out.push(
    refused?.kind === 'version'
      ? check('server', 'Server', false, refused.message, 'upgrade to SQL Server 2016 SP1 or later', true)
      : check('server', 'Server', true, productName(server), null, true),
  );
  const compat = server.compatibilityLevel;
  out.push(
    compatOnly
      ? check(
          'compatibility',
          'Compatibility level',
          false,
          `database ${server.database ?? ''} is at compatibility level ${compat}; readpast needs 130 or higher (OPENJSON)`,
          `ALTER DATABASE ${quoteName(server.database)} SET COMPATIBILITY_LEVEL = 130;`,
          true,
        )
      : check(
          'compatibility',
          'Compatibility level',
          compat === null ? null : true,
          `database compatibility level ${compat ?? 'unknown'}`,
          null,
          true,
        ),
    rcsiCheck(server),
  );

  let facts: DoctorFacts | null = null;
  let state: SchemaState | null = null;
  if (probe.facts?.ok) {
    facts = probe.facts.value;
    state = schemaState(facts, known);
    out.push(
      schemaCheck(facts, known, state),
      dmlCheck(facts, state),
      hotCheck(probe, facts, state, known),
      proceduresCheck(facts),
      liveCheck(facts, server),
      killCheck(facts, server),
      callersCheck(probe, state, known),
      allowSqlCheck(probe, state),
    );
  } else {
    const e = probe.facts && !probe.facts.ok ? describe(probe.facts.error) : 'not asked';
    out.push(
      check('schema', 'Schema and migrations', false, `could not read the login's permissions and the schema: ${e}`, null, true),
      ...skipped('the permission query failed', [
        'permissions.dml',
        'permissions.hot',
        'permissions.execute',
        'permissions.live',
        'permissions.kill',
        'callers',
        'callers.sql',
      ]),
    );
  }

  if (probe.pings?.ok && probe.pings.value.length) out.push(...pingChecks(probe.pings.value));
  else {
    const e = probe.pings && !probe.pings.ok ? `failed: ${describe(probe.pings.error)}` : 'skipped';
    out.push(check('clock', 'Clock skew', null, e, null, false), check('latency', 'Round trip', null, e, null, false));
  }
  out.push(claimCheck(probe, facts, state));
  return out;
}

/** Whether the probe should run the claim: connected, SQL Server, schema current, permissions read. */
export function mayDryRun(probe: DoctorProbe, known: KnownSchema): boolean {
  if (!probe.server?.ok || refusal(probe.server.value) !== null) return false;
  return !!probe.facts?.ok && schemaState(probe.facts.value, known) === 'current';
}
