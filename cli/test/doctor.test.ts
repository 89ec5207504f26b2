// `readpast doctor` as users run it, on real SQLite files: a path with no file yet (not created by
// the doctor), a migrated file (✓ lines, the --json shape, exit 0), a damaged file and a read-only
// one (exit 6, the failing check and its remedy), and a SQL Server URL nothing answers on (the
// connection check fails with what to check; the password never shows).
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DoctorJson } from '../../lib/api/present';
import { BIN, cli, cliOk, ISO_MS, ROOT, tempDb, type RunResult, type TempDb } from './helpers';

const SQLITE_CHECKS = ['file', 'writable', 'database', 'wal', 'sqlite', 'schema', 'code', 'write', 'driver'];

/**
 * setpriv (util-linux), which runs a command without some of root's capabilities; null where it is missing.
 * Root may write any file: the read-only check needs a root without CAP_DAC_OVERRIDE. Dropping the
 * capability (not switching to another user) keeps the test independent of who may enter the checkout.
 */
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p)) ?? null;

/** `readpast ARGS` as this root, but without the capabilities that let root bypass file permissions. */
function cliWithoutOverride(args: string[], env: NodeJS.ProcessEnv): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const drop = ['--bounding-set', '-dac_override,-dac_read_search', '--'];
    const child = spawn(SETPRIV!, [...drop, process.execPath, BIN, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

const lineOf = (stdout: string, title: string) => stdout.split('\n').find((l) => l.slice(2).startsWith(title)) ?? '';

describe('readpast doctor on SQLite', () => {
  let db: TempDb;
  let path: string;

  beforeAll(() => {
    db = tempDb();
    path = db.url.slice('sqlite:'.length);
  });
  afterAll(() => db?.cleanup());

  it('on a path with no file yet: says the first command creates it, exit 0, and creates nothing', async () => {
    const r = await cli(['doctor'], db);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`readpast doctor — sqlite:${path}`);
    expect(lineOf(r.stdout, 'Database file')).toMatch(/^– Database file\s+.*does not exist yet: the first readpast command creates it/);
    expect(lineOf(r.stdout, 'SQLite version')).toMatch(/^✓ /);
    expect(r.stdout).toContain('OK: everything this configuration needs is in place');
    expect(existsSync(path)).toBe(false);
  });

  it('on a migrated file: a ✓ line per check, and --json with every check', async () => {
    await cliOk(['migrate'], db);
    const r = await cli(['doctor'], db);
    expect(r.code, r.stderr).toBe(0);
    const titles = [
      'Database file',
      'File writable',
      'SQLite database',
      'WAL mode',
      'SQLite version',
      'Schema',
      'Write transaction',
      'better-sqlite3',
    ];
    for (const t of titles) expect(lineOf(r.stdout, t), t).toMatch(/^✓ /);
    expect(lineOf(r.stdout, 'Database file')).toMatch(/KB/);
    expect(lineOf(r.stdout, 'WAL mode')).toContain('journal mode WAL');
    expect(lineOf(r.stdout, 'Schema')).toMatch(/migrated to version \d+ \(current\)/);
    expect(lineOf(r.stdout, 'Write transaction')).toContain('BEGIN IMMEDIATE');
    expect(lineOf(r.stdout, 'better-sqlite3')).toMatch(/better-sqlite3 \d+\.\d+\.\d+ on Node \d+/);
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe('OK: everything this configuration needs is in place.');

    const j = await cli(['doctor', '--json'], db);
    expect(j.code).toBe(0);
    const report = JSON.parse(j.stdout) as DoctorJson;
    expect(Object.keys(report)).toEqual(['dialect', 'database', 'checkedAt', 'ok', 'summary', 'checks']);
    expect(report).toMatchObject({ dialect: 'sqlite', database: `sqlite:${path}`, ok: true });
    expect(report.checkedAt).toMatch(ISO_MS);
    expect(report.summary).toEqual({ passed: SQLITE_CHECKS.length, failed: 0, optional: 0, other: 0 });
    expect(report.checks.map((c) => c.id)).toEqual(SQLITE_CHECKS);
    for (const c of report.checks) {
      expect(Object.keys(c)).toEqual(['id', 'title', 'ok', 'detail', 'remedy', 'needed']);
      expect(typeof c.title === 'string' && typeof c.detail === 'string' && typeof c.needed === 'boolean').toBe(true);
      expect(c.ok).toBe(true);
      expect(c.remedy).toBeNull();
    }
    expect(report.checks.find((c) => c.id === 'wal')!.needed).toBe(false);
  });

  it('changes nothing: the file is byte for byte the same after a doctor', async () => {
    const before = readFileSync(path);
    await cliOk(['doctor'], db);
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  it('a file that is not a database: ✗ with the remedy, exit 6', async () => {
    const bad = join(db.dir, 'damaged.db');
    writeFileSync(bad, Buffer.concat([Buffer.from('this is not SQLite at all\n'), Buffer.alloc(8192, 7)]));
    const env = { ...db.env, READPAST_DATABASE_URL: `sqlite:${bad}` };
    const r = await cli(['doctor'], { env });
    expect(r.code, r.stdout).toBe(6);
    expect(lineOf(r.stdout, 'Database file')).toMatch(/^✓ /);
    expect(lineOf(r.stdout, 'SQLite database')).toMatch(/^✗ SQLite database\s+.*is not a usable SQLite database: file is not a database/);
    expect(r.stdout).toContain('→ restore the file from a backup');
    expect(lineOf(r.stdout, 'Write transaction')).toMatch(/^– Write transaction\s+skipped/);
    expect(r.stdout).toContain('NOT OK: 1 needed check failed: SQLite database.');
    const report = JSON.parse((await cli(['doctor', '--json'], { env })).stdout) as DoctorJson;
    expect(report.ok).toBe(false);
    expect(report.checks.filter((c) => c.ok === false).map((c) => c.id)).toEqual(['database']);
    expect(statSync(bad).size).toBe(8192 + 26);
  });

  it('a read-only file: ✗ File writable with the remedy, exit 6', async (ctx) => {
    const asRoot = process.getuid?.() === 0;
    if (asRoot && !SETPRIV) ctx.skip('as root this needs setpriv (util-linux) to run the CLI without CAP_DAC_OVERRIDE');
    const ro = join(db.dir, 'readonly.db');
    writeFileSync(ro, readFileSync(path));
    chmodSync(ro, 0o444);
    const env = { ...db.env, READPAST_DATABASE_URL: `sqlite:${ro}` };
    const r = asRoot ? await cliWithoutOverride(['doctor'], env) : await cli(['doctor'], { env });
    expect(r.code, r.stdout + r.stderr).toBe(6);
    expect(lineOf(r.stdout, 'File writable')).toMatch(/^✗ File writable\s+this user \(uid \d+\) may not write/);
    expect(r.stdout).toContain(`→ give this user write access: chown or chmod u+w ${ro}`);
    expect(r.stdout).toMatch(/NOT OK: \d needed checks? failed: File writable/);
  });

  it('refuses arguments it does not take (exit 2)', async () => {
    expect((await cli(['doctor', 'extra'], db)).code).toBe(2);
    expect((await cli(['doctor', '--frob'], db)).code).toBe(2);
    const help = await cli(['help', 'doctor'], db);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('readpast doctor [--json]');
    expect((await cli(['help'], db)).stdout).toMatch(/6\s+doctor: something this configuration needs is missing/);
  });
});

describe('readpast doctor against a SQL Server that does not answer', () => {
  it('fails the connection check with what to check, skips the rest, never prints the password (exit 6)', async () => {
    const env = {
      ...process.env,
      READPAST_DATABASE_URL: 'mssql://readpast_app:S3cret%2Fpw@127.0.0.1:1/jobs?encrypt=false&connectTimeout=3000',
    };
    const r = await cli(['doctor', '--json'], { env });
    expect(r.code, r.stderr).toBe(6);
    const report = JSON.parse(r.stdout) as DoctorJson;
    expect(report.dialect).toBe('mssql');
    expect(report.database).toMatch(/^mssql:\/\/readpast_app@127\.0\.0\.1:1\/jobs\?encrypt=false/);
    expect(report.checks[0]).toMatchObject({ id: 'connect', ok: false, needed: true });
    expect(report.checks[0]!.detail).toMatch(/^could not connect to mssql:\/\/readpast_app@127\.0\.0\.1:1\/jobs/);
    expect(report.checks[0]!.remedy).toContain('TCP/IP');
    expect(report.checks.slice(1).every((c) => c.ok === null && c.detail === 'skipped: not connected')).toBe(true);
    expect(report.checks.map((c) => c.id)).toContain('claim');
    expect(r.stdout + r.stderr).not.toMatch(/S3cret/);
    const text = await cli(['doctor'], { env });
    expect(text.stdout).toMatch(/^✗ Connection\s+could not connect/m);
    expect(text.stdout).not.toMatch(/S3cret/);
  });
});
