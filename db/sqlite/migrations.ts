// Applying the schema: each pending migration of schema.ts in a BEGIN IMMEDIATE transaction of its own,
// recorded in SchemaVersion. Several processes may migrate at once: the write lock serialises them, and a
// migration already recorded is skipped. A file a newer readpast migrated is refused before anything is
// applied (SchemaVersionError naming both versions).
import { checkSchemaVersion } from '../../lib/engine/errors';
import { writeTx, type Db } from './connection';
import { MIGRATIONS } from './schema';
import { CREATE_SCHEMA_VERSION, HAS_VERSION, LATEST_VERSION, RECORD_VERSION } from './sql/migrations';

/** The newest migration this code has. */
export const CODE_VERSION = Math.max(...MIGRATIONS.map((m) => m.version));

/** Apply pending migrations; returns how many ran. Refuses a schema newer than CODE_VERSION. */
export async function migrate(db: Db): Promise<number> {
  await writeTx(db, () => {
    db.exec(CREATE_SCHEMA_VERSION);
    const have = (db.prepare(LATEST_VERSION).get() as { version: number | null }).version ?? 0;
    checkSchemaVersion(have, CODE_VERSION, { migrates: true });
  });
  let applied = 0;
  for (const m of MIGRATIONS) {
    const did = await writeTx(db, () => {
      const have = db.prepare(HAS_VERSION).get(m.version);
      if (have) return false;
      db.exec(m.sql);
      db.prepare(RECORD_VERSION).run(m.version, m.name, Date.now());
      return true;
    });
    if (did) applied++;
  }
  return applied;
}
