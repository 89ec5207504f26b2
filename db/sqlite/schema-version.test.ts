// A file a newer readpast migrated (its SchemaVersion past this code's newest migration) is refused at open
// with one message naming both versions, before anything is applied; an older file is brought up to date.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
