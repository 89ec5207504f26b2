// SQL Server migration 2: counts and metrics sharded by slot. Every enqueue, claim, settlement and rescue bumps
// its queue's QueueCounts rows and this second's Metrics row and holds them to commit: one hot row would
// serialise every writer of the database. A small slot number in the key (the writer's session id modulo 16,
// sql/tally.ts) spreads those writes over up to 16 rows per key; every reader sums over the slots. Existing
// rows become slot 0.
// Frozen: released, this text never changes (db/mssql/frozen-migrations.test.ts pins it); a fix is a new migration.
import type { Migration } from './migration';

export const migration: Migration = {
  version: 2,
  name: 'counts and metrics sharded by slot',
  batches: [
    `IF COL_LENGTH(N'readpast.QueueCounts', N'slot') IS NULL
  ALTER TABLE readpast.QueueCounts ADD slot tinyint NOT NULL CONSTRAINT DF_QueueCounts_slot DEFAULT (0);`,
    `IF COL_LENGTH(N'readpast.Metrics', N'slot') IS NULL
  ALTER TABLE readpast.Metrics ADD slot tinyint NOT NULL CONSTRAINT DF_Metrics_slot DEFAULT (0);`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes AS i
    JOIN sys.index_columns AS ic ON ic.object_id = i.object_id AND ic.index_id = i.index_id
    JOIN sys.columns AS c ON c.object_id = ic.object_id AND c.column_id = ic.column_id
  WHERE i.object_id = OBJECT_ID(N'readpast.QueueCounts') AND i.is_primary_key = 1 AND c.name = N'slot')
BEGIN
  ALTER TABLE readpast.QueueCounts DROP CONSTRAINT PK_QueueCounts;
  ALTER TABLE readpast.QueueCounts ADD CONSTRAINT PK_QueueCounts PRIMARY KEY CLUSTERED (queue, status, slot);
END;`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes AS i
    JOIN sys.index_columns AS ic ON ic.object_id = i.object_id AND ic.index_id = i.index_id
    JOIN sys.columns AS c ON c.object_id = ic.object_id AND c.column_id = ic.column_id
  WHERE i.object_id = OBJECT_ID(N'readpast.Metrics') AND i.is_primary_key = 1 AND c.name = N'slot')
BEGIN
  ALTER TABLE readpast.Metrics DROP CONSTRAINT PK_Metrics;
  ALTER TABLE readpast.Metrics ADD CONSTRAINT PK_Metrics PRIMARY KEY CLUSTERED (sec, slot);
END;`,
  ],
};
