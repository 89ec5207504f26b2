// A file a newer readpast migrated (its SchemaVersion past this code's newest migration) is refused at open
// with one message naming both versions, before anything is applied — by the store and by every command
// (one-shot commands, `migrate`, `worker`; all open through the library's openReadpast), exit 1; an older
// file is brought up to date.
import { spawn } from 'node:child_process';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SchemaVersionError } from '../../lib/engine/errors';
import { CODE_VERSION } from './migrations';
import { MIGRATIONS } from './schema';
import { CREATE_SCHEMA_VERSION, RECORD_VERSION } from './sql/migrations';
import { openSqliteStore } from './store';

let dir: string;
let file: string;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'readpast-schema-version-'));
  file = join(dir, 'r.db');
  await (await openSqliteStore(file)).close();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const versions = () => {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare('SELECT version FROM SchemaVersion ORDER BY version').all() as { version: number }[]).map((r) => r.version);
  } finally {
    db.close();
  }
};

describe('the schema version at open (SQLite)', () => {
  it('a file migrated past this code is refused, naming both versions and what to do, and left as it was', async () => {
    const db = new Database(file);
    db.prepare('INSERT INTO SchemaVersion (version, name, applied_at) VALUES (?, ?, ?)').run(CODE_VERSION + 1, 'from the future', 1);
    db.close();
    const before = versions();
    const err = await openSqliteStore(file).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SchemaVersionError);
    expect((err as Error).message).toBe(
      `the database schema is at version ${CODE_VERSION + 1}, newer than this readpast knows (version ${CODE_VERSION}): ` +
        'a newer readpast migrated it; upgrade readpast here to that version (or a newer one)',
    );
    expect(versions()).toEqual(before);
  });

  it('a file behind this code is migrated at open (as every command does on SQLite)', async () => {
    const old = join(dir, 'old.db');
    const db = new Database(old);
    db.exec(CREATE_SCHEMA_VERSION);
    for (const m of MIGRATIONS.filter((m) => m.version < CODE_VERSION)) {
      db.exec(m.sql);
      db.prepare(RECORD_VERSION).run(m.version, m.name, 1);
    }
    db.close();
    const store = await openSqliteStore(old);
    await store.close();
    file = old;
    expect(versions().at(-1)).toBe(CODE_VERSION);
  });
});

const BIN = fileURLToPath(new URL('../../bin/readpast.mjs', import.meta.url));

function cli(args: string[], url: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, READPAST_DATABASE_URL: url, READPAST_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('every command against a file a newer readpast migrated', () => {
  const NEWER = CODE_VERSION + 3;
  const MESSAGE =
    `the database schema is at version ${NEWER}, newer than this readpast knows (version ${CODE_VERSION}): ` +
    'a newer readpast migrated it; upgrade readpast here to that version (or a newer one)';

  it.each([['stats'], ['enqueue', '--handler', 'demo.echo'], ['migrate'], ['worker', '--concurrency', '1']])(
    'readpast %s: one line naming both versions, exit 1, nothing written',
    async (...args) => {
      const db = new Database(file);
      db.prepare('INSERT OR IGNORE INTO SchemaVersion (version, name, applied_at) VALUES (?, ?, ?)').run(NEWER, 'newer', 1);
      db.close();
      const r = await cli(args, `sqlite:${file}`);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr.trim().split('\n').at(-1)).toBe(`readpast ${args[0]}: ${MESSAGE}`);
      expect(r.stdout).toBe('');
      const after = new Database(file, { readonly: true });
      expect((after.prepare('SELECT COUNT(*) AS n FROM Tasks').get() as { n: number }).n).toBe(0);
      after.close();
    },
  );
});
