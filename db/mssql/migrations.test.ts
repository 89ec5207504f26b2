// The migration runner's refusal of a database a newer readpast migrated, with a stand-in pool that answers
// the runner's own requests (server probe, application lock, versions): refused with both versions before
// any migration begins, the lock released. The T-SQL itself is checked by tsql-parse.test.ts.
import { describe, expect, it } from 'vitest';
import { SchemaVersionError } from '../../lib/engine/errors';
import type { ConnectionPool, MssqlConfig } from './connection';
import { CODE_VERSION, migrate } from './migrations';
import { MIGRATIONS } from './schema';
import * as S from './sql/migrations';
import { SERVER_PROBE } from './sql/server';

function standIn(versions: number[]) {
  const sent: string[] = [];
  const request = () => {
    const req = {
      input: () => req,
      async query(text: string) {
        sent.push(text);
        if (text === SERVER_PROBE) {
          const row = { babelfish: 0, product_version: '15.0.4345.5', engine_edition: 3, compatibility_level: 150 };
          return { recordset: [row], recordsets: [[row]] };
        }
        if (text === S.MIGRATE_VERSIONS) return { recordset: versions.map((version) => ({ version })) };
        return { recordset: [] };
      },
      async batch(text: string) {
        sent.push(text);
        return { recordset: [] };
      },
      async execute(name: string) {
        sent.push(name);
        return { returnValue: 0 };
      },
    };
    return req;
  };
  const pool = { connect: async () => pool, close: async () => {}, request } as unknown as ConnectionPool;
  return { sent, open: () => pool };
}

const config = { server: 'stand-in', options: {} } as MssqlConfig;

describe('migrate against a database a newer readpast migrated', () => {
  it('refuses with both versions before beginning any migration, and releases the lock', async () => {
    const db = standIn(Array.from({ length: CODE_VERSION + 2 }, (_, i) => i + 1));
    const err = await migrate(config, undefined, db.open).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SchemaVersionError);
    expect((err as Error).message).toContain(
      `schema is at version ${CODE_VERSION + 2}, newer than this readpast knows (version ${CODE_VERSION})`,
    );
    expect(db.sent).not.toContain(S.MIGRATE_BEGIN);
    expect(db.sent.at(-1)).toBe('sys.sp_releaseapplock');
  });

  it('a database at this version runs no migration', async () => {
    const db = standIn(MIGRATIONS.map((m) => m.version));
    expect((await migrate(config, undefined, db.open, { code: false })).applied).toEqual([]);
    expect(db.sent).not.toContain(S.MIGRATE_BEGIN);
  });

  it('a database one version behind runs that one, in its own transaction, and records it', async () => {
    const db = standIn(MIGRATIONS.slice(0, -1).map((m) => m.version));
    expect((await migrate(config, undefined, db.open, { code: false })).applied).toEqual([CODE_VERSION]);
    expect(db.sent.filter((t) => t === S.MIGRATE_BEGIN)).toHaveLength(1);
    expect(db.sent).toContain(S.MIGRATE_RECORD);
  });
});
