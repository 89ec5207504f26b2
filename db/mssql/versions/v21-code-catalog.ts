// SQL Server migration 21: code objects by content.
//  - readpast.CodeObjects: the procedures and views readpast installed after the migrations (code-objects.ts),
//    one row each: its name in schema readpast, its kind ('hot': a hot write named by the hash of its text;
//    'procedure', 'view': the T-SQL callers' interface and ExecutionStatus, stable names), the sha-256 of the
//    text installed, the schema version of the readpast that installed it and when. A hot procedure found
//    in the database but not in it (Claim_v17, … from migrations 17, 19 and 20) is recorded the first time a
//    migrate sees it, with schema_version 0.
//  - Workers.code: the hot procedures a worker calls (a JSON array of names), written when it registers; a
//    worker's heartbeat_at is then when it last used them. NULL: a worker of a readpast from before this
//    migration, which may call any of the names recorded with schema_version 0.
//  - IX_ConcurrencyKeys_served made again on (served_at, queue, concurrency_key) where a database still has
//    it on (queue, served_at), as migration 19 made it before it was changed after its release.
// Frozen: released, this text never changes (db/mssql/frozen-migrations.test.ts pins it); a fix is a new migration.
import type { Migration } from './migration';

export const migration: Migration = {
  version: 21,
  name: 'code objects by content',
  batches: [
    `IF OBJECT_ID(N'readpast.CodeObjects', N'U') IS NULL
CREATE TABLE readpast.CodeObjects (
  name           nvarchar(128) COLLATE Latin1_General_100_BIN2 NOT NULL,
  kind           varchar(10)   NOT NULL,
  hash           char(64)      NOT NULL,
  schema_version int           NOT NULL,
  installed_at   datetime2(3)  NOT NULL,
  CONSTRAINT PK_CodeObjects PRIMARY KEY CLUSTERED (name),
  CONSTRAINT CK_CodeObjects_kind CHECK (kind IN ('hot', 'procedure', 'view'))
);`,
    `IF COL_LENGTH(N'readpast.Workers', N'code') IS NULL
  ALTER TABLE readpast.Workers ADD code nvarchar(max) NULL;`,
    `IF EXISTS (SELECT 1 FROM sys.indexes AS i
    JOIN sys.index_columns AS ic ON ic.object_id = i.object_id AND ic.index_id = i.index_id AND ic.key_ordinal = 1
    JOIN sys.columns AS c ON c.object_id = ic.object_id AND c.column_id = ic.column_id
  WHERE i.object_id = OBJECT_ID(N'readpast.ConcurrencyKeys') AND i.name = N'IX_ConcurrencyKeys_served' AND c.name <> N'served_at')
  DROP INDEX IX_ConcurrencyKeys_served ON readpast.ConcurrencyKeys;`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes
  WHERE object_id = OBJECT_ID(N'readpast.ConcurrencyKeys') AND name = N'IX_ConcurrencyKeys_served')
CREATE INDEX IX_ConcurrencyKeys_served ON readpast.ConcurrencyKeys (served_at, queue, concurrency_key);`,
  ],
};
