// Code objects by content: readpast's procedures and views are not in migrations (which are frozen, literal
// DDL: schema.ts) but installed by `readpast migrate` — and the dashboard's and workers' migrate on start —
// in a step after the migrations, on the migration's connection and under its lock (migrations.ts):
//  - the hot writes (sql/hot.ts), each under a name derived from its text (`Claim_3f9a1c2e`): a changed
//    statement is a new name, installed beside the old one, which the processes of the previous release
//    keep calling;
//  - the T-SQL callers' interface (sql/callers.ts: ExecAsync, GetScheduler, …, the view AsyncExecResults)
//    and ExecutionStatus, under their stable names (CREATE OR ALTER; their parameter lists only ever grow
//    by trailing optional parameters, callers.test.ts), and readpast_caller's grants.
// Each is recorded in readpast.CodeObjects with the sha-256 of its text: an object whose row, text or
// presence differs is installed again, anything else is left alone, so a second run sends nothing but the
// reads. Stable names are never replaced by an older readpast (a row's schema_version above this code's).
// Then the retirement: a hot procedure no registered worker has used for the retention (Workers.code, the
// names a worker calls, recorded at registration; heartbeat_at, when it last used them) is dropped, and
// said so — Claim_v17, Enqueue_v19, … from migrations 17–20 as well, once unused.
import { createHash } from 'node:crypto';
import { sql, type ConnectionPool } from './connection';
import { SCHEMA_HEAD } from './schema';
import { ASYNC_EXEC_RESULTS_VIEW, CALLER_PROCEDURES, CALLER_ROLE, createProcedure, roleBatches } from './sql/callers';
import * as S from './sql/code-objects';
import { createHotProcedure, HOT_BARE_NAMES, HOT_PROCEDURES, hotBareName } from './sql/hot';
import { MIGRATE_BEGIN, MIGRATE_COMMIT, MIGRATE_ROLLBACK } from './sql/migrations';

/** How long a hot procedure no worker uses is kept (a later migrate drops it): a week. */
export const CODE_RETENTION_MS = 7 * 24 * 3600_000;

export type CodeKind = 'hot' | 'procedure' | 'view';

export interface CodeObject {
  /** its name in schema readpast */
  name: string;
  kind: CodeKind;
  /** the one batch that installs it (CREATE OR ALTER) */
  text: string;
  /** sha-256 (hex) of text */
  hash: string;
  /** what readpast_caller is granted on it */
  grant: 'EXECUTE' | 'SELECT' | null;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const object = (name: string, kind: CodeKind, text: string, grant: CodeObject['grant'] = null): CodeObject => ({
  name,
  kind,
  text,
  hash: sha256(text),
  grant,
});

/** Everything this readpast installs, in order (the hot writes first: ExecAsync calls Enqueue). */
export const CODE_OBJECTS: readonly CodeObject[] = [
  ...HOT_PROCEDURES.map((p) => object(hotBareName(p), 'hot', createHotProcedure(p))),
  ...CALLER_PROCEDURES.map((p) => object(p.name, 'procedure', createProcedure(p), p.granted ? 'EXECUTE' : null)),
  object('AsyncExecResults', 'view', ASYNC_EXEC_RESULTS_VIEW, 'SELECT'),
  object('ExecutionStatus', 'view', S.EXECUTION_STATUS_VIEW),
];

export interface CodeStepResult {
  /** objects installed (missing, or their text changed), `readpast.<name>` */
  installed: string[];
  /** hot procedures dropped (no worker used them for the retention), `readpast.<name>` */
  dropped: string[];
}

interface CatalogRow {
  name: string;
  kind: string;
  hash: string;
  schema_version: number;
  present: number | boolean;
}

/**
 * Install what is missing or differs, grant what readpast_caller lacks, retire what no worker uses. Runs on
 * the migration's one connection (pool max 1) under its application lock; `sameSession` throws when the
 * driver replaced the connection. Each install is one transaction with its catalog row.
 */
export async function installCode(
  pool: ConnectionPool,
  opts: { retentionMs?: number; schemaVersion?: number; sameSession?: () => void; log?: (line: string) => void } = {},
): Promise<CodeStepResult> {
  const sameSession = opts.sameSession ?? (() => {});
  const version = opts.schemaVersion ?? SCHEMA_HEAD;
  await pool.request().batch(S.CODE_ADOPT);
  const state = await pool.request().query(S.CODE_STATE);
  const sets = state.recordsets as unknown as Record<string, unknown>[][];
  const catalog = new Map(((sets[0] ?? []) as unknown as CatalogRow[]).map((r) => [r.name, r]));
  const granted = new Set((sets[1] ?? []).map((r) => `${String(r.name)}:${String(r.permission)}`));
  const roleExists = Number(sets[2]?.[0]?.role_exists ?? 0) === 1;

  const installed: string[] = [];
  for (const o of CODE_OBJECTS) {
    const row = catalog.get(o.name);
    const present = row !== undefined && Number(row.present) === 1;
    // a hot name is its content: present is installed (a row adopted from the catalog of sys.sql_modules
    // carries another hash of the same text)
    if (present && (o.kind === 'hot' || row.hash === o.hash)) continue;
    if (present && row.schema_version > version) {
      opts.log?.(`kept readpast.${o.name}: installed by a newer readpast (schema version ${row.schema_version})`);
      continue;
    }
    sameSession();
    await pool.request().batch(MIGRATE_BEGIN);
    try {
      await pool.request().batch(o.text);
      sameSession();
      await pool
        .request()
        .input('name', sql.NVarChar(128), o.name)
        .input('kind', sql.VarChar(10), o.kind)
        .input('hash', sql.Char(64), o.hash)
        .input('schema_version', sql.Int, version)
        .query(S.CODE_RECORD);
      sameSession();
      await pool.request().batch(MIGRATE_COMMIT);
    } catch (err) {
      await pool
        .request()
        .batch(MIGRATE_ROLLBACK)
        .catch(() => {});
      throw new Error(`installing readpast.${o.name} failed: ${(err as Error).message}`);
    }
    installed.push(`readpast.${o.name}`);
  }

  // The role and its grants, only where this run installed something (it holds the DDL rights then): a worker's
  // narrower login migrating on start sees neither the role nor others' grants, and must not try to make them.
  // CREATE OR ALTER keeps an object's grants; a grant revoked by hand is the doctor's to report.
  if (installed.length) {
    const [role, ...grants] = roleBatches();
    if (!roleExists) await pool.request().batch(role!);
    for (const o of CODE_OBJECTS) {
      if (!o.grant || (roleExists && granted.has(`${o.name}:${o.grant}`))) continue;
      const grant = grants.find((g) => g === `GRANT ${o.grant} ON readpast.${o.name} TO ${CALLER_ROLE};`);
      if (grant) await pool.request().batch(grant);
    }
  }

  const retire = await pool
    .request()
    .input('keep', sql.NVarChar(sql.MAX), JSON.stringify(HOT_BARE_NAMES))
    .input('retain_s', sql.Int, Math.floor((opts.retentionMs ?? CODE_RETENTION_MS) / 1000))
    .query<{ name: string }>(S.CODE_RETIRE_CANDIDATES);
  const dropped: string[] = [];
  for (const { name } of retire.recordset ?? []) {
    sameSession();
    try {
      await pool.request().input('name', sql.NVarChar(128), name).query(S.CODE_DROP);
      dropped.push(`readpast.${name}`);
    } catch (err) {
      // a login that may not drop it (a worker's, migrating on start): left for a migrate that may
      opts.log?.(`could not drop readpast.${name}, unused for the retention: ${(err as Error).message}`);
    }
  }
  return { installed, dropped };
}
