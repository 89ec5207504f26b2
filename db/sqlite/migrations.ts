// Applying the schema: each pending migration of schema.ts in a BEGIN IMMEDIATE transaction of its own,
// recorded in SchemaVersion. Several processes may migrate at once: the write lock serialises them, and a
// migration already recorded is skipped. A file a newer readpast migrated is refused before anything is
// applied (SchemaVersionError naming both versions). After the migrations, the code-object step
// (code-objects.ts): the view and the triggers made as this code defines them.
import { checkSchemaVersion } from '../../lib/engine/errors';
import type { MigrateReport } from '../../lib/engine/types';
import { installCode } from './code-objects';
import { writeTx, type Db } from './connection';
import { MIGRATIONS, type SqliteMigration } from './schema';
import { CREATE_SCHEMA_VERSION, HAS_VERSION, LATEST_VERSION, RECORD_VERSION } from './sql/migrations';

/** The newest migration this code has. */
export const CODE_VERSION = Math.max(...MIGRATIONS.map((m) => m.version));

/**
 * Apply pending migrations (`migrations`: the upgrade tests build older schemas with fewer, and no code step),
 * then install the code objects. Refuses a schema newer than CODE_VERSION.
 */
export async function migrate(
  db: Db,
  migrations: readonly SqliteMigration[] = MIGRATIONS,
  opts: { code?: boolean } = {},
): Promise<MigrateReport> {
  await writeTx(db, () => {
    db.exec(CREATE_SCHEMA_VERSION);
    const have = (db.prepare(LATEST_VERSION).get() as { version: number | null }).version ?? 0;
    checkSchemaVersion(have, CODE_VERSION, { migrates: true });
  });
  const applied: number[] = [];
  for (const m of migrations) {
    const did = await writeTx(db, () => {
      const have = db.prepare(HAS_VERSION).get(m.version);
      if (have) return false;
      db.exec(m.sql);
      db.prepare(RECORD_VERSION).run(m.version, m.name, Date.now());
      return true;
    });
    if (did) applied.push(m.version);
  }
  const installed = opts.code === false ? [] : await installCode(db);
  return { applied, installed, dropped: [] };
}
