// Applying the schema: on one dedicated connection, under a session-owned application lock so that
// several processes starting at once migrate one after the other; each pending migration in one
// transaction, recorded in readpast.SchemaVersion. The lock is released in `finally` (and with
// the session, should the process die). First of all it asks what server this is (server.ts) and
// refuses one readpast cannot promise its claims on; then a schema a newer readpast migrated. After the
// migrations, on the same session and under the same lock, the code-object step (code-objects.ts):
// procedures and views installed by content, unused hot procedures retired.
import { checkSchemaVersion } from '../../lib/engine/errors';
import type { MigrateReport } from '../../lib/engine/types';
import { installCode } from './code-objects';
import { sql, type ConnectionPool, type MssqlConfig } from './connection';
import { MIGRATIONS, SCHEMA_HEAD, type Migration } from './schema';
import { probeServer, UnsupportedServerError, unsupportedReason } from './server';
import * as S from './sql/migrations';

export const APPLOCK_TIMEOUT_MS = 60_000;
/** The newest migration this code has. */
export const CODE_VERSION = SCHEMA_HEAD;
/** sys.sp_getapplock / sys.sp_releaseapplock are called as RPCs (their return code is the result). */
const APPLOCK_RESOURCE = 'readpast:migrate';

export class MigrationError extends Error {
  override readonly name = 'MigrationError';
}

export interface MigrateOptions {
  /** the code-object step after the migrations (default true; the upgrade tests build older schemas without it) */
  code?: boolean;
  /** how long an unused hot procedure is kept (code-objects.ts CODE_RETENTION_MS) */
  codeRetentionMs?: number;
  log?: (line: string) => void;
}

/**
 * Run every migration not yet recorded, then the code-object step. Returns what was applied, installed
 * and dropped. `open` makes the pool (the store's Driver: an 'error' listener, counted, one login; connection.ts).
 */
export async function migrate(
  config: MssqlConfig,
  migrations: readonly Migration[] = MIGRATIONS,
  open: (config: MssqlConfig) => ConnectionPool = (c) => new sql.ConnectionPool(c),
  opts: MigrateOptions = {},
): Promise<MigrateReport> {
  let connections = 0;
  const pool = open({
    ...config,
    // the lock wait must end before the request does
    requestTimeout: APPLOCK_TIMEOUT_MS + 30_000,
    pool: { min: 1, max: 1, idleTimeoutMillis: 30_000 },
    validateConnection: 'socket',
    beforeConnect: () => {
      connections++;
    },
    options: { ...config.options, appName: 'readpast migrate' },
  });
  await pool.connect();
  try {
    // what server this is, before anything it may lack is touched: a stand-in, too old a version or
    // compatibility level is refused with one message saying so
    const problem = unsupportedReason(await probeServer(pool));
    if (problem) throw new UnsupportedServerError(problem);
    await lock(pool);
    const locked = connections;
    // the lock and the transaction live on one session: refuse to go on if the driver replaced it
    const sameSession = () => {
      if (connections !== locked) throw new MigrationError('the connection was lost while migrating; run the migration again');
    };
    try {
      const applied = await applyPending(pool, migrations, sameSession);
      if (opts.code === false) return { applied, installed: [], dropped: [] };
      const code = await installCode(pool, { retentionMs: opts.codeRetentionMs, sameSession, log: opts.log });
      return { applied, ...code };
    } finally {
      await unlock(pool);
    }
  } finally {
    await pool.close();
  }
}

async function lock(pool: ConnectionPool): Promise<void> {
  const r = await pool
    .request()
    .input('Resource', sql.NVarChar(255), APPLOCK_RESOURCE)
    .input('LockMode', sql.VarChar(32), 'Exclusive')
    .input('LockOwner', sql.VarChar(32), 'Session')
    .input('LockTimeout', sql.Int, APPLOCK_TIMEOUT_MS)
    .execute('sys.sp_getapplock');
  const code = Number(r.returnValue);
  if (!(code >= 0)) {
    const why =
      code === -1
        ? 'timed out waiting for another process to finish migrating'
        : code === -3
          ? 'chosen as a deadlock victim'
          : `sp_getapplock returned ${code}`;
    throw new MigrationError(`could not take the migration lock: ${why}`);
  }
}

async function unlock(pool: ConnectionPool): Promise<void> {
  try {
    await pool
      .request()
      .input('Resource', sql.NVarChar(255), APPLOCK_RESOURCE)
      .input('LockOwner', sql.VarChar(32), 'Session')
      .execute('sys.sp_releaseapplock');
  } catch {
    // the session ends right after (pool.close), which releases a session lock as well
  }
}

async function applyPending(pool: ConnectionPool, migrations: readonly Migration[], sameSession: () => void): Promise<number[]> {
  await pool.request().batch(S.MIGRATE_ENSURE_SCHEMA);
  await pool.request().batch(S.MIGRATE_ENSURE_VERSIONS);
  const have = new Set((await pool.request().query<{ version: number }>(S.MIGRATE_VERSIONS)).recordset.map((r) => r.version));
  // a database a newer readpast migrated is refused before anything is applied
  checkSchemaVersion(Math.max(0, ...have), Math.max(...migrations.map((m) => m.version)), { migrates: true });
  const applied: number[] = [];
  for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
    if (have.has(m.version)) continue;
    // one connection (max 1): these requests share the session and its transaction
    await pool.request().batch(S.MIGRATE_BEGIN);
    try {
      for (const b of m.batches) {
        sameSession();
        await pool.request().batch(b);
      }
      sameSession();
      await pool.request().input('version', sql.Int, m.version).input('name', sql.NVarChar(200), m.name).query(S.MIGRATE_RECORD);
      sameSession();
      await pool.request().batch(S.MIGRATE_COMMIT);
    } catch (err) {
      await pool
        .request()
        .batch(S.MIGRATE_ROLLBACK)
        .catch(() => {});
      if (err instanceof MigrationError) throw err;
      throw new MigrationError(`migration ${m.version} (${m.name}) failed: ${(err as Error).message}`);
    }
    applied.push(m.version);
  }
  return applied;
}
