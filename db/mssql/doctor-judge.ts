// `readpast doctor` on SQL Server, the judging half: from what the probe found (doctor.ts asks the
// server; nothing here does) to the checks a person reads, each with the exact statement that fixes
// it. Pure, so every verdict is tested with canned probe results (doctor.test.ts).
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

/** Everything the probe found; a step not reached is undefined. */
export interface DoctorProbe {
  /** the database, printable (no password) */
  target: string;
  connect: Outcome<{ ms: number }>;
  server?: Outcome<ServerInfo>;
  facts?: Outcome<DoctorFacts>;
  pings?: Outcome<Ping[]>;
  dryRun?: Outcome<DryRun>;
}

/** The migrations this code knows. */
export interface KnownSchema {
  versions: readonly number[];
}

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

/** What to do when the connection fails, by the driver's code and the server's error number. */
export function connectRemedy(e: ProbeError, target: string): string {
  const m = e.message.toLowerCase();
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
  if (isAzureSqlDatabase(server)) {
    return f.killDatabaseConnection === 1
      ? check('permissions.kill', title, true, 'KILL DATABASE CONNECTION: operators may kill a running sql or procedure task', null, false)
      : check(
          'permissions.kill',
          title,
          false,
          'this login lacks KILL DATABASE CONNECTION: the Kill option is refused (cancel still works)',
          `GRANT KILL DATABASE CONNECTION TO ${userOf(f)};`,
          false,
        );
  }
  return f.alterAnyConnection === 1
    ? check('permissions.kill', title, true, 'ALTER ANY CONNECTION: operators may kill a running sql or procedure task', null, false)
    : check(
        'permissions.kill',
        title,
        false,
        'this login lacks ALTER ANY CONNECTION: the Kill option is refused (cancel still works)',
        `USE master; GRANT ALTER ANY CONNECTION TO ${loginOf(f)};`,
        false,
      );
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
  ['permissions.execute', 'Procedure tasks (EXECUTE)', false],
  ['permissions.live', 'Live request state (DMVs)', false],
  ['permissions.kill', "KILL of a task's session", false],
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
        `could not connect to ${probe.target}: ${describe(probe.connect.error)}`,
        connectRemedy(probe.connect.error, probe.target),
        true,
      ),
      check('server', 'Server', null, 'skipped: not connected', null, true),
      ...skipped('not connected'),
    );
    return out;
  }
  const login = probe.facts?.ok ? ` as ${probe.facts.value.login ?? '?'} (user ${probe.facts.value.user ?? '?'})` : '';
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
      proceduresCheck(facts),
      liveCheck(facts, server),
      killCheck(facts, server),
    );
  } else {
    const e = probe.facts && !probe.facts.ok ? describe(probe.facts.error) : 'not asked';
    out.push(
      check('schema', 'Schema and migrations', false, `could not read the login's permissions and the schema: ${e}`, null, true),
      ...skipped('the permission query failed', ['permissions.dml', 'permissions.execute', 'permissions.live', 'permissions.kill']),
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
