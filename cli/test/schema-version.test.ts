// An older readpast against a database a newer one migrated: every entry — one-shot commands, `migrate`,
// `worker`, the library's openReadpast — refuses at open with one message naming both versions and what
// to do, exit 1, and changes nothing.
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openReadpast } from '../../lib/api/open';
import { SchemaVersionError } from '../../lib/engine/errors';
import { CODE_VERSION } from '../../db/sqlite/migrations';
import { cli, cliOk, tempDb, type TempDb } from './helpers';

const NEWER = CODE_VERSION + 3;
const MESSAGE =
  `the database schema is at version ${NEWER}, newer than this readpast knows (version ${CODE_VERSION}): ` +
  'a newer readpast migrated it; upgrade readpast here to that version (or a newer one)';

describe('a database a newer readpast migrated', () => {
  let db: TempDb;
  let path: string;
  beforeAll(async () => {
    db = tempDb();
    path = db.url.slice('sqlite:'.length);
    await cliOk(['migrate'], db);
    const raw = new Database(path);
    raw.prepare('INSERT INTO SchemaVersion (version, name, applied_at) VALUES (?, ?, ?)').run(NEWER, 'newer', Date.now());
    raw.close();
  });
  afterAll(() => db?.cleanup());

  it.each([['stats'], ['enqueue', '--handler', 'demo.echo'], ['migrate'], ['worker', '--concurrency', '1']])(
    'readpast %s: refused at open with one line naming both versions, exit 1',
    async (...args) => {
      const r = await cli(args, db);
      expect(r.code, r.stderr).toBe(1);
      const lines = r.stderr.trim().split('\n');
      expect(lines.at(-1)).toBe(`readpast ${args[0]}: ${MESSAGE}`);
      expect(r.stdout).toBe('');
    },
  );

  it('the library refuses too, and nothing was written', async () => {
    await expect(openReadpast({ url: db.url })).rejects.toThrow(SchemaVersionError);
    await expect(openReadpast({ url: db.url })).rejects.toThrow(MESSAGE);
    const raw = new Database(path, { readonly: true });
    expect((raw.prepare('SELECT COUNT(*) AS n FROM Tasks').get() as { n: number }).n).toBe(0);
    raw.close();
  });
});
