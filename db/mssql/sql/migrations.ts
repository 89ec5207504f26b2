// T-SQL that migrations run around the schema itself (the schema is in ../schema.ts), and the
// tests' reset of every table.

import { ALLOW_SQL_SETTING } from './callers';

export const MIGRATE_ENSURE_SCHEMA = "IF SCHEMA_ID(N'readpast') IS NULL EXEC(N'CREATE SCHEMA readpast');";
export const MIGRATE_ENSURE_VERSIONS = `IF OBJECT_ID(N'readpast.SchemaVersion', N'U') IS NULL
CREATE TABLE readpast.SchemaVersion (
  version    int           NOT NULL,
  name       nvarchar(200) NOT NULL,
  applied_at datetime2(3)  NOT NULL,
  CONSTRAINT PK_SchemaVersion PRIMARY KEY CLUSTERED (version)
);`;
/**
 * Put before the first statement a store that does not migrate sends (one-shot commands; connection.ts):
 * in the same round trip, a schema whose newest migration is not the code's (@readpast_code_version) —
 * newer, older, or none recorded — stops the batch with error 51900 (errors.ts: SCHEMA_GUARD_ERROR)
 * whose message carries the schema's version. A missing schema fails on SchemaVersion itself (208).
 */
export const SCHEMA_GUARD = `IF EXISTS (SELECT 1 FROM readpast.SchemaVersion AS v
  HAVING COALESCE(MAX(v.version), 0) <> @readpast_code_version)
BEGIN
  DECLARE @readpast_schema_message nvarchar(100) = CONCAT(N'readpast schema version ',
    (SELECT COALESCE(MAX(v.version), 0) FROM readpast.SchemaVersion AS v));
  THROW 51900, @readpast_schema_message, 1;
END;
`;
export const MIGRATE_VERSIONS = 'SELECT v.version FROM readpast.SchemaVersion AS v ORDER BY v.version;';
export const MIGRATE_BEGIN = 'BEGIN TRANSACTION;';
export const MIGRATE_RECORD = `INSERT INTO readpast.SchemaVersion (version, name, applied_at)
VALUES (@version, @name, SYSUTCDATETIME());`;
export const MIGRATE_COMMIT = 'COMMIT TRANSACTION;';
export const MIGRATE_ROLLBACK = 'IF @@TRANCOUNT > 0 ROLLBACK TRANSACTION;';

// ---- the tests' reset (db/mssql/test-support/empty-tables.ts): every table of the schema, read from the catalog -----

/** The rows migrations seed, restored after the reset (the same statements the migrations run). */
export const SEED_ALLOW_SQL = `IF NOT EXISTS (SELECT 1 FROM readpast.Settings AS s WHERE s.name = '${ALLOW_SQL_SETTING}')
  INSERT INTO readpast.Settings (name, value, changed_at, changed_by)
    VALUES ('${ALLOW_SQL_SETTING}', N'off', SYSUTCDATETIME(), N'migration 6');`;
export const SEED_HISTORY_STATE = `IF NOT EXISTS (SELECT 1 FROM readpast.HistoryState AS s WHERE s.id = 1)
  INSERT INTO readpast.HistoryState (id, rolled_until) VALUES (1, 0);`;
export const RESET_SEEDS: readonly string[] = [SEED_ALLOW_SQL, SEED_HISTORY_STATE];

/**
 * Every table of the readpast schema but SchemaVersion (each name quoted by the server), then the
 * foreign keys between two of them (a table's reference to itself left out: one DELETE of all its rows
 * satisfies it).
 */
export const RESET_CATALOG = `SELECT t.name, QUOTENAME(t.name) AS quoted FROM sys.tables AS t
WHERE t.schema_id = SCHEMA_ID(N'readpast') AND t.name <> N'SchemaVersion'
ORDER BY t.name;
SELECT c.name AS child, p.name AS parent
FROM sys.foreign_keys AS fk
JOIN sys.tables AS c ON c.object_id = fk.parent_object_id
JOIN sys.tables AS p ON p.object_id = fk.referenced_object_id
WHERE c.schema_id = SCHEMA_ID(N'readpast') AND p.schema_id = SCHEMA_ID(N'readpast')
  AND fk.parent_object_id <> fk.referenced_object_id;`;

/** A name as QUOTENAME returns it: [ … ] with every ] inside doubled. */
const QUOTED = /^\[(?:[^\]]|\]\])+\]$/;

/**
 * Empty the given tables, in the order given (referencing tables before the tables they reference:
 * test-support/empty-tables.ts resetOrder), then seed what the migrations seed. `quoted` are QUOTENAME'd names read from
 * the catalog (RESET_CATALOG), never a caller's text; anything else is refused.
 */
export function resetTablesSql(quoted: readonly string[]): string {
  for (const q of quoted) if (!QUOTED.test(q)) throw new Error(`not a quoted table name: ${q}`);
  return ['SET NOCOUNT ON;', ...quoted.map((q) => `DELETE FROM readpast.${q};`), ...RESET_SEEDS].join('\n');
}

/** Forget one recorded migration (the tests' way back from a version they recorded with MIGRATE_RECORD). */
export const FORGET_VERSION = 'DELETE FROM readpast.SchemaVersion WHERE version = @version;';
