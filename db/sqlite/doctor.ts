// `readpast doctor` on SQLite: the file (there, a database, writable, how big), WAL, SQLite's
// version, the schema's migration level, whether the single writer's lock can be taken (BEGIN
// IMMEDIATE, rolled back at once) and the driver's version. Nothing is created or changed: on a
// path with no file yet it only says what the first command will do; a file that is not a database
// is reported, not repaired.
import Database from 'better-sqlite3';
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import type { DoctorCheck } from '../../lib/engine/types';
import { isBusy, sqliteErrorNumber, type Db } from './connection';
import { codeDoctorCheck } from './code-objects';
import { MIGRATIONS } from './schema';
import * as S from './sql/doctor';

/** `UPDATE … RETURNING`, which the claim uses, is in SQLite from 3.35.0 on. */
export const MIN_SQLITE_VERSION = '3.35.0';
const WRITE_LOCK_WAIT_MS = 5000;
const KNOWN_VERSION = Math.max(...MIGRATIONS.map((m) => m.version));

const check = (
  id: string,
  title: string,
  ok: boolean | null,
  detail: string,
  remedy: string | null = null,
  needed = true,
): DoctorCheck => ({
  id,
  title,
  ok,
  detail,
  remedy,
  needed,
});

const skipped = (id: string, title: string, why: string, needed = true) => check(id, title, null, `skipped: ${why}`, null, needed);

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));
const codeOf = (err: unknown) => String((err as { code?: unknown })?.code ?? '');

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} bytes`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v >= 100 ? Math.round(v) : v.toFixed(1)} ${units[i]}`;
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** The nearest directory that exists on the way up (the first command creates the rest). */
function existingAncestor(dir: string): string {
  let d = dir;
  while (!existsSync(d) && dirname(d) !== d) d = dirname(d);
  return d;
}

function compareVersions(a: string, b: string): number {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** better-sqlite3's version, from its package.json next to this module or the working directory; null if neither finds it. */
function driverVersion(): string | null {
  for (const from of [import.meta.url, join(process.cwd(), 'package.json')]) {
    try {
      return (createRequire(from)('better-sqlite3/package.json') as { version?: string }).version ?? null;
    } catch {
      // next place
    }
  }
  return null;
}

function driverCheck(): DoctorCheck {
  const v = driverVersion();
  return check(
    'driver',
    'better-sqlite3',
    v === null ? null : true,
    `${v === null ? 'better-sqlite3 (version not found)' : `better-sqlite3 ${v}`} on Node ${process.versions.node}`,
    null,
    false,
  );
}

function sqliteVersionCheck(db: Db | null): DoctorCheck {
  let own: Db | null = null;
  try {
    const conn = db ?? (own = new Database(':memory:'));
    const version = (conn.prepare(S.SQLITE_VERSION).get() as { version: string }).version;
    const ok = compareVersions(version, MIN_SQLITE_VERSION) >= 0;
    return check(
      'sqlite',
      'SQLite version',
      ok,
      ok
        ? `SQLite ${version} (built into better-sqlite3)`
        : `SQLite ${version} is older than ${MIN_SQLITE_VERSION}, which readpast's claim needs`,
      ok ? null : 'npm rebuild better-sqlite3 (it bundles a current SQLite)',
    );
  } catch (err) {
    return check('sqlite', 'SQLite version', false, `could not ask SQLite its version: ${message(err)}`, 'npm rebuild better-sqlite3');
  } finally {
    own?.close();
  }
}

function schemaCheck(db: Db): DoctorCheck {
  const title = 'Schema';
  const present = db.prepare(S.HAS_SCHEMA_VERSION).get();
  if (!present) {
    return check(
      'schema',
      title,
      null,
      `no readpast schema yet: 'readpast migrate' (or any other command) creates it (version ${KNOWN_VERSION})`,
    );
  }
  const versions = (db.prepare(S.SCHEMA_VERSIONS).all() as { version: number }[]).map((r) => r.version);
  const have = versions.length ? Math.max(...versions) : 0;
  if (have > KNOWN_VERSION) {
    return check(
      'schema',
      title,
      false,
      `the schema is at version ${have}, newer than this readpast knows (${KNOWN_VERSION}): a newer readpast migrated this file`,
      'run the same (or a newer) readpast version as the processes that migrated it',
    );
  }
  const pending = MIGRATIONS.filter((m) => !versions.includes(m.version));
  if (pending.length) {
    return check(
      'schema',
      title,
      null,
      `at version ${have}; ${pending.length} migration${pending.length === 1 ? '' : 's'} pending (up to ${KNOWN_VERSION}): the next ` +
        `readpast command applies ${pending.length === 1 ? 'it' : 'them'}`,
      'readpast migrate',
    );
  }
  return check('schema', title, true, `migrated to version ${KNOWN_VERSION} (current)`);
}

function walCheck(db: Db): DoctorCheck {
  const mode = String((db.prepare(S.JOURNAL_MODE).get() as { journal_mode?: unknown } | undefined)?.journal_mode ?? '').toLowerCase();
  if (mode === 'wal') {
    return check(
      'wal',
      'WAL mode',
      true,
      "journal mode WAL: readers (the dashboard, 'readpast stats') never wait for the writer",
      null,
      false,
    );
  }
  return check(
    'wal',
    'WAL mode',
    false,
    `journal mode is ${mode || 'unknown'}: readers wait while a worker writes. readpast turns WAL on whenever it opens the file; ` +
      'if it stays off, the file system cannot hold WAL’s shared memory (a network file system?)',
    'keep the database file on a local disk',
    false,
  );
}

async function writeCheck(db: Db): Promise<DoctorCheck> {
  const title = 'Write transaction';
  const started = Date.now();
  for (let i = 0; ; i++) {
    try {
      db.prepare(S.BEGIN_IMMEDIATE).run();
      db.prepare(S.ROLLBACK).run();
      return check('write', title, true, `took the write lock (BEGIN IMMEDIATE) and rolled back in ${Date.now() - started} ms`);
    } catch (err) {
      if (db.inTransaction) db.prepare(S.ROLLBACK).run();
      if (isBusy(err) && Date.now() - started < WRITE_LOCK_WAIT_MS) {
        await new Promise((r) => setTimeout(r, Math.min(100, 5 + i * 10)));
        continue;
      }
      if (isBusy(err)) {
        return check(
          'write',
          title,
          false,
          `another process held the write lock for more than ${WRITE_LOCK_WAIT_MS / 1000} s (${message(err)})`,
          'find the process holding a long write transaction on this file (a stuck tool, a backup) and stop it',
        );
      }
      const readonly = codeOf(err).startsWith('SQLITE_READONLY') || sqliteErrorNumber(codeOf(err)) === 8;
      return check(
        'write',
        title,
        false,
        readonly ? `the database is read-only for this process: ${message(err)}` : `BEGIN IMMEDIATE failed: ${message(err)}`,
        readonly ? 'give this user write access to the file, its -wal and -shm files and their directory' : null,
      );
    }
  }
}

/**
 * Diagnose the SQLite database at `path`. With `db` (an open store's connection) the checks run on
 * it; without, a file that exists is opened for the checks and closed, and a missing one is not created.
 */
export async function diagnoseSqlite(path: string, db: Db | null = null): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [];
  const memory = path === ':memory:';
  const abs = memory ? path : resolve(path);
  const dir = dirname(abs);

  if (memory) {
    checks.push(check('file', 'Database file', null, 'in memory: nothing is kept once the process ends', null, false));
  } else if (!existsSync(abs)) {
    const ancestor = existingAncestor(dir);
    const canCreate = writable(ancestor);
    checks.push(
      check(
        'file',
        'Database file',
        canCreate ? null : false,
        canCreate
          ? `${abs} does not exist yet: the first readpast command creates it${ancestor === dir ? '' : ' (and its directory)'}`
          : `${abs} does not exist, and this user may not create it in ${ancestor}`,
        canCreate ? 'readpast migrate' : `give this user write access to ${ancestor}, or point READPAST_DATABASE_URL elsewhere`,
      ),
    );
    const why = 'no database file yet';
    checks.push(
      skipped('writable', 'File writable', why),
      skipped('database', 'SQLite database', why),
      skipped('wal', 'WAL mode', why, false),
      sqliteVersionCheck(null),
      skipped('schema', 'Schema', why),
      skipped('write', 'Write transaction', why),
      driverCheck(),
    );
    return checks;
  } else {
    const st = statSync(abs);
    if (!st.isFile()) {
      checks.push(
        check(
          'file',
          'Database file',
          false,
          `${abs} is not a file`,
          'point READPAST_DATABASE_URL at a file, e.g. sqlite:data/readpast.db',
        ),
      );
      return [...checks, sqliteVersionCheck(null), driverCheck()];
    }
    const wal = existsSync(`${abs}-wal`) ? statSync(`${abs}-wal`).size : 0;
    checks.push(
      check('file', 'Database file', true, `${abs}, ${formatBytes(st.size)}${wal ? ` (+ ${formatBytes(wal)} write-ahead log)` : ''}`),
    );
    const fileOk = writable(abs);
    const dirOk = writable(dir);
    checks.push(
      fileOk && dirOk
        ? check('writable', 'File writable', true, `this user may write the file and create its -wal and -shm files in ${dir}`)
        : check(
            'writable',
            'File writable',
            false,
            !fileOk
              ? `this user (uid ${process.getuid?.() ?? '?'}) may not write ${abs}`
              : `this user may not create files in ${dir} (-wal, -shm)`,
            `give this user write access: chown or chmod u+w ${!fileOk ? abs : dir}`,
          ),
    );
  }

  let conn: Db | null = db;
  let own = false;
  try {
    if (!conn) {
      conn = new Database(abs, { fileMustExist: true });
      own = true;
    }
    conn.prepare(S.SCHEMA_COOKIE).get();
    checks.push(check('database', 'SQLite database', true, 'the file opens as a SQLite database'));
  } catch (err) {
    const code = codeOf(err);
    const notDb = code.startsWith('SQLITE_NOTADB') || code.startsWith('SQLITE_CORRUPT');
    const access = code.startsWith('SQLITE_READONLY') || code.startsWith('SQLITE_CANTOPEN') || code.startsWith('SQLITE_PERM');
    checks.push(
      check(
        'database',
        'SQLite database',
        false,
        notDb
          ? `${abs} is not a usable SQLite database: ${message(err)}`
          : access
            ? `this user could not read ${abs}: ${message(err)} (a WAL database needs its -shm file writable, even to read)`
            : `could not open ${abs}: ${message(err)}`,
        notDb
          ? 'restore the file from a backup, or move it away and let readpast create a new one (its tasks are lost)'
          : `give this user write access to ${abs} and its directory ${dir}`,
      ),
    );
    const why = 'the file does not open as a database';
    checks.push(skipped('wal', 'WAL mode', why, false), sqliteVersionCheck(null), skipped('schema', 'Schema', why));
    checks.push(skipped('write', 'Write transaction', why), driverCheck());
    if (own) conn?.close();
    return checks;
  }
  try {
    const schema = schemaCheck(conn);
    const code = schema.ok ? [codeDoctorCheck(conn)] : [];
    checks.push(walCheck(conn), sqliteVersionCheck(conn), schema, ...code, await writeCheck(conn), driverCheck());
  } finally {
    if (own) conn.close();
  }
  return checks;
}
