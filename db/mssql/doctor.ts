// `readpast doctor` on SQL Server, the asking half: connect, what server this is (server.ts), who
// this login is and what it may do, the schema's migration level, the clock and round trip, and a
// claim run and rolled back. Each step's outcome (or error) is kept as found; doctor-judge.ts turns
// them into checks. Nothing here changes the database, and nothing throws for what it finds.
import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { DoctorCheck } from '../../lib/engine/types';
import { query, sql, type ConnectionPool, type Shared } from './connection';
import {
  callerFactsFromRows,
  hotFactsFromRows,
  judgeMssql,
  mayDryRun,
  schemaState,
  type CallerFacts,
  type DoctorFacts,
  type DoctorProbe,
  type DryRun,
  type HotProcedureFact,
  type Outcome,
  type Ping,
  type ProbeError,
} from './doctor-judge';
import { codeCheck, codeFactsFromRows, type CodeFacts } from './doctor-code';
import { serverMessage } from './errors';
import { MIGRATIONS } from './schema';
import { probeServer, refusal } from './server';
import { CALLER_PROCEDURES, createProcedure } from './sql/callers';
import { DOCTOR_CODE } from './sql/code-objects';
import { DOCTOR_CALLERS, DOCTOR_DRY_RUN_CLAIM, DOCTOR_FACTS, DOCTOR_HOT, DOCTOR_PING } from './sql/doctor';
import { HOT_PROCEDURES, hotName } from './sql/hot';
import { describeTarget, isEntra, signInLabel } from './url';

const PINGS = 5;
const DRY_RUN_TIMEOUT_MS = 15_000;
const KNOWN = { versions: MIGRATIONS.map((m) => m.version) };
const EXPECTED_CALLERS = CALLER_PROCEDURES.map((p) => ({ name: p.name, text: createProcedure(p), granted: p.granted }));

export function probeError(err: unknown): ProbeError {
  const m = serverMessage(err);
  const o = (err ?? {}) as { code?: unknown; originalError?: { code?: unknown } };
  const code = typeof o.code === 'string' ? o.code : typeof o.originalError?.code === 'string' ? o.originalError.code : null;
  return { message: m.message.replace(/\s+/g, ' ').trim(), code, number: m.number };
}

async function attempt<T>(fn: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await fn() };
  } catch (err) {
    return { ok: false, error: probeError(err) };
  }
}

const n = (v: unknown): number | null => (typeof v === 'number' ? v : typeof v === 'boolean' ? Number(v) : null);

export function factsFromRows(row: Record<string, unknown>, versions: { version: number }[]): DoctorFacts {
  const s = (v: unknown) => (typeof v === 'string' ? v : null);
  return {
    login: s(row.login_name),
    user: s(row.user_name),
    database: s(row.database_name),
    schemaExists: n(row.schema_exists) === 1,
    versionsTable: n(row.versions_table) === 1,
    versionsReadable: n(row.versions_readable),
    schema: { select: n(row.schema_select), insert: n(row.schema_insert), update: n(row.schema_update), delete: n(row.schema_delete) },
    db: { select: n(row.db_select), insert: n(row.db_insert), update: n(row.db_update), delete: n(row.db_delete) },
    createSchema: n(row.create_schema),
    createTable: n(row.create_table),
    createView: n(row.create_view),
    alterDatabase: n(row.alter_database),
    dbExecute: n(row.db_execute),
    viewDatabaseState: n(row.view_database_state),
    killDatabaseConnection: n(row.kill_database_connection),
    viewServerState: n(row.view_server_state),
    viewServerPerformanceState: n(row.view_server_performance_state),
    alterAnyConnection: n(row.alter_any_connection),
    procedures: n(row.procedures) ?? 0,
    executableProcedures: n(row.executable_procedures) ?? 0,
    versions: versions.map((v) => Number(v.version)),
  };
}

async function facts(pool: ConnectionPool): Promise<DoctorFacts> {
  const r = await query<Record<string, unknown>>(pool, DOCTOR_FACTS);
  const sets = r.recordsets as unknown as Record<string, unknown>[][];
  const row = sets[0]?.[0];
  if (!row) throw new Error('the permission query returned no row');
  return factsFromRows(row, (sets[1] ?? []) as { version: number }[]);
}

async function pings(pool: ConnectionPool): Promise<Ping[]> {
  const out: Ping[] = [];
  for (let i = 0; i < PINGS; i++) {
    const wall = Date.now();
    const t0 = performance.now();
    const r = await query<{ server_now: Date }>(pool, DOCTOR_PING);
    const rtt = performance.now() - t0;
    const server = r.recordset[0]?.server_now;
    if (!(server instanceof Date)) throw new Error('the server did not return its time');
    out.push({ rttMs: rtt, skewMs: server.getTime() - (wall + rtt / 2) });
  }
  return out;
}

/** The T-SQL callers' interface: the role, its grants, the installed procedures against this version's, allow_sql. */
async function callers(pool: ConnectionPool): Promise<CallerFacts> {
  const r = await query<Record<string, unknown>>(pool, DOCTOR_CALLERS);
  const sets = r.recordsets as unknown as Record<string, unknown>[][];
  return callerFactsFromRows(sets[0]?.[0], sets[1] ?? [], EXPECTED_CALLERS);
}

/** The hot-write procedures this version calls: installed, and this login may EXECUTE them. */
async function hot(pool: ConnectionPool): Promise<HotProcedureFact[]> {
  const r = await query<Record<string, unknown>>(pool, DOCTOR_HOT);
  return hotFactsFromRows(r.recordset ?? [], HOT_PROCEDURES.map(hotName));
}

/** The code objects recorded in readpast.CodeObjects and the running workers' recorded code (doctor-code.ts). */
async function code(pool: ConnectionPool): Promise<CodeFacts> {
  const r = await query<Record<string, unknown>>(pool, DOCTOR_CODE);
  const sets = r.recordsets as unknown as Record<string, unknown>[][];
  return codeFactsFromRows(sets[0] ?? [], sets[1] ?? []);
}

/** The claim a worker sends, inside a transaction rolled back (sql/doctor.ts); its parameters are the claim's own (claim.ts). */
async function dryRun(pool: ConnectionPool): Promise<DryRun> {
  const t0 = performance.now();
  const r = await query(
    pool,
    DOCTOR_DRY_RUN_CLAIM,
    [
      ['slots', sql.NVarChar(sql.MAX), JSON.stringify([{ workerId: `doctor:${hostname()}:${process.pid}`, session: null }])],
      ['lease_ms', sql.Int, 30_000],
      ['queues', sql.NVarChar(sql.MAX), null],
      ['unbatched_served', sql.BigInt, 0],
    ],
    DRY_RUN_TIMEOUT_MS,
  );
  // a result set per slot filled (none when nothing was claimed), then the touched batches
  const row = (r.recordsets as unknown as Record<string, unknown>[][]).flat().find((x) => 'queue' in x);
  const claimed = row ? { queue: String(row.queue), command: String(row.command), kind: String(row.kind) } : null;
  return { ms: performance.now() - t0, claimed };
}

/** Ask everything doctor-judge.ts needs, step by step; a step that cannot be reached is left out. */
export async function probeDoctor(shared: Shared): Promise<DoctorProbe> {
  const t0 = performance.now();
  let pool: ConnectionPool | null = null;
  const connect = await attempt(async () => {
    pool = await shared.pool();
    return { ms: performance.now() - t0 };
  });
  const t = shared.target;
  const probe: DoctorProbe = {
    target: describeTarget(t),
    signIn: signInLabel(t),
    entra: isEntra(t),
    ntlm: t.authentication === 'ntlm',
    connect,
  };
  if (!connect.ok || !pool) return probe;
  const p: ConnectionPool = pool;
  probe.server = await attempt(() => probeServer(p));
  // a stand-in (or an engine readpast cannot use) is named and nothing else is asked of it
  if (!probe.server.ok || refusal(probe.server.value)?.kind === 'stand-in' || refusal(probe.server.value)?.kind === 'engine') return probe;
  probe.facts = await attempt(() => facts(p));
  if (probe.facts.ok && schemaState(probe.facts.value, KNOWN) === 'current') {
    probe.hot = await attempt(() => hot(p));
    probe.callers = await attempt(() => callers(p));
    probe.code = await attempt(() => code(p));
  }
  probe.pings = await attempt(() => pings(p));
  if (mayDryRun(probe, KNOWN)) probe.dryRun = await attempt(() => dryRun(p));
  return probe;
}

export async function diagnoseMssql(shared: Shared): Promise<DoctorCheck[]> {
  const probe = await probeDoctor(shared);
  const checks = judgeMssql(probe, KNOWN);
  // the installed code objects, listed after the T-SQL interface's checks
  const state = probe.facts?.ok ? schemaState(probe.facts.value, KNOWN) : null;
  const at = checks.findIndex((c) => c.id === 'callers.sql');
  const callers = checks.find((c) => c.id === 'callers');
  const skippedFor = callers?.detail.startsWith('skipped: ') ? callers.detail.slice('skipped: '.length) : null;
  const listed = codeCheck(probe.code, state === 'current' ? null : (skippedFor ?? 'the schema is not at the current migration'));
  checks.splice(at < 0 ? checks.length : at + 1, 0, listed);
  return checks;
}
