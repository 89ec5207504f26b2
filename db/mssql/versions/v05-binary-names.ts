// SQL Server migration 5: names compare case-sensitively. Queue names, dedup keys and handler names compared
// case-insensitively on a default SQL Server database (its collation, often *_CI_AS) and byte for byte on
// SQLite. They now have a binary collation (Latin1_General_100_BIN2), whatever the database's default. A
// column's collation cannot change while an index, a key or statistics name it: those are dropped, the column
// altered (through EXEC), and they are made again as before. Idempotent per table (its guard: a column not yet
// binary). Table variables compared with these columns declare the same collation (collation.test.ts).
// Frozen: released, this text never changes (db/mssql/frozen-migrations.test.ts pins it); a fix is a new migration.
import type { Migration } from './migration';

export const migration: Migration = {
  version: 5,
  name: 'names compare case-sensitively',
  batches: [
    `IF EXISTS (SELECT 1 FROM sys.columns AS c WHERE c.object_id = OBJECT_ID(N'readpast.Queues') AND c.name IN (N'name')
    AND c.collation_name <> N'Latin1_General_100_BIN2')
BEGIN
  DECLARE @stat nvarchar(400) = N'';
  IF EXISTS (SELECT 1 FROM sys.key_constraints WHERE parent_object_id = OBJECT_ID(N'readpast.Queues') AND name = N'PK_Queues')
    ALTER TABLE readpast.Queues DROP CONSTRAINT PK_Queues;
  -- statistics on the columns, made automatically or by hand (an index's go with it)
  WHILE @stat IS NOT NULL
  BEGIN
    SET @stat = NULL;
    SELECT TOP (1) @stat = N'DROP STATISTICS readpast.Queues.' + QUOTENAME(s.name)
      FROM sys.stats AS s
      JOIN sys.stats_columns AS sc ON sc.object_id = s.object_id AND sc.stats_id = s.stats_id
      JOIN sys.columns AS c ON c.object_id = sc.object_id AND c.column_id = sc.column_id
      WHERE s.object_id = OBJECT_ID(N'readpast.Queues') AND c.name IN (N'name')
        AND NOT EXISTS (SELECT 1 FROM sys.indexes AS i WHERE i.object_id = s.object_id AND i.index_id = s.stats_id);
    IF @stat IS NOT NULL
      EXEC (@stat);
  END;
  EXEC(N'ALTER TABLE readpast.Queues ALTER COLUMN name nvarchar(64) COLLATE Latin1_General_100_BIN2 NOT NULL');
  ALTER TABLE readpast.Queues ADD CONSTRAINT PK_Queues PRIMARY KEY CLUSTERED (name);
END;`,
    `IF EXISTS (SELECT 1 FROM sys.columns AS c WHERE c.object_id = OBJECT_ID(N'readpast.Tasks') AND c.name IN (N'queue', N'dedup_key')
    AND c.collation_name <> N'Latin1_General_100_BIN2')
BEGIN
  DECLARE @stat nvarchar(400) = N'';
  IF EXISTS (SELECT 1 FROM sys.indexes WHERE object_id = OBJECT_ID(N'readpast.Tasks') AND name = N'UX_Tasks_dedup')
    DROP INDEX UX_Tasks_dedup ON readpast.Tasks;
  IF EXISTS (SELECT 1 FROM sys.indexes WHERE object_id = OBJECT_ID(N'readpast.Tasks') AND name = N'IX_Tasks_batch_dequeue')
    DROP INDEX IX_Tasks_batch_dequeue ON readpast.Tasks;
  IF EXISTS (SELECT 1 FROM sys.indexes WHERE object_id = OBJECT_ID(N'readpast.Tasks') AND name = N'IX_Tasks_ended')
    DROP INDEX IX_Tasks_ended ON readpast.Tasks;
  IF EXISTS (SELECT 1 FROM sys.indexes WHERE object_id = OBJECT_ID(N'readpast.Tasks') AND name = N'IX_Tasks_finished')
    DROP INDEX IX_Tasks_finished ON readpast.Tasks;
  IF EXISTS (SELECT 1 FROM sys.indexes WHERE object_id = OBJECT_ID(N'readpast.Tasks') AND name = N'IX_Tasks_ready')
    DROP INDEX IX_Tasks_ready ON readpast.Tasks;
  IF EXISTS (SELECT 1 FROM sys.indexes WHERE object_id = OBJECT_ID(N'readpast.Tasks') AND name = N'IX_Tasks_running_queue')
    DROP INDEX IX_Tasks_running_queue ON readpast.Tasks;
  -- statistics on the columns, made automatically or by hand (an index's go with it)
  WHILE @stat IS NOT NULL
  BEGIN
    SET @stat = NULL;
    SELECT TOP (1) @stat = N'DROP STATISTICS readpast.Tasks.' + QUOTENAME(s.name)
      FROM sys.stats AS s
      JOIN sys.stats_columns AS sc ON sc.object_id = s.object_id AND sc.stats_id = s.stats_id
      JOIN sys.columns AS c ON c.object_id = sc.object_id AND c.column_id = sc.column_id
      WHERE s.object_id = OBJECT_ID(N'readpast.Tasks') AND c.name IN (N'queue', N'dedup_key')
        AND NOT EXISTS (SELECT 1 FROM sys.indexes AS i WHERE i.object_id = s.object_id AND i.index_id = s.stats_id);
    IF @stat IS NOT NULL
      EXEC (@stat);
  END;
  EXEC(N'ALTER TABLE readpast.Tasks ALTER COLUMN queue nvarchar(64) COLLATE Latin1_General_100_BIN2 NOT NULL');
  EXEC(N'ALTER TABLE readpast.Tasks ALTER COLUMN dedup_key nvarchar(200) COLLATE Latin1_General_100_BIN2 NULL');
END;`,
    `IF EXISTS (SELECT 1 FROM sys.columns AS c WHERE c.object_id = OBJECT_ID(N'readpast.ExecutionLog') AND c.name IN (N'queue')
    AND c.collation_name <> N'Latin1_General_100_BIN2')
BEGIN
  DECLARE @stat nvarchar(400) = N'';
  -- statistics on the columns, made automatically or by hand (an index's go with it)
  WHILE @stat IS NOT NULL
  BEGIN
    SET @stat = NULL;
    SELECT TOP (1) @stat = N'DROP STATISTICS readpast.ExecutionLog.' + QUOTENAME(s.name)
      FROM sys.stats AS s
      JOIN sys.stats_columns AS sc ON sc.object_id = s.object_id AND sc.stats_id = s.stats_id
      JOIN sys.columns AS c ON c.object_id = sc.object_id AND c.column_id = sc.column_id
      WHERE s.object_id = OBJECT_ID(N'readpast.ExecutionLog') AND c.name IN (N'queue')
        AND NOT EXISTS (SELECT 1 FROM sys.indexes AS i WHERE i.object_id = s.object_id AND i.index_id = s.stats_id);
    IF @stat IS NOT NULL
      EXEC (@stat);
  END;
  EXEC(N'ALTER TABLE readpast.ExecutionLog ALTER COLUMN queue nvarchar(64) COLLATE Latin1_General_100_BIN2 NOT NULL');
END;`,
    `IF EXISTS (SELECT 1 FROM sys.columns AS c WHERE c.object_id = OBJECT_ID(N'readpast.QueueCounts') AND c.name IN (N'queue')
    AND c.collation_name <> N'Latin1_General_100_BIN2')
BEGIN
  DECLARE @stat nvarchar(400) = N'';
  IF EXISTS (SELECT 1 FROM sys.key_constraints WHERE parent_object_id = OBJECT_ID(N'readpast.QueueCounts') AND name = N'PK_QueueCounts')
    ALTER TABLE readpast.QueueCounts DROP CONSTRAINT PK_QueueCounts;
  -- statistics on the columns, made automatically or by hand (an index's go with it)
  WHILE @stat IS NOT NULL
  BEGIN
    SET @stat = NULL;
    SELECT TOP (1) @stat = N'DROP STATISTICS readpast.QueueCounts.' + QUOTENAME(s.name)
      FROM sys.stats AS s
      JOIN sys.stats_columns AS sc ON sc.object_id = s.object_id AND sc.stats_id = s.stats_id
      JOIN sys.columns AS c ON c.object_id = sc.object_id AND c.column_id = sc.column_id
      WHERE s.object_id = OBJECT_ID(N'readpast.QueueCounts') AND c.name IN (N'queue')
        AND NOT EXISTS (SELECT 1 FROM sys.indexes AS i WHERE i.object_id = s.object_id AND i.index_id = s.stats_id);
    IF @stat IS NOT NULL
      EXEC (@stat);
  END;
  EXEC(N'ALTER TABLE readpast.QueueCounts ALTER COLUMN queue nvarchar(64) COLLATE Latin1_General_100_BIN2 NOT NULL');
  ALTER TABLE readpast.QueueCounts ADD CONSTRAINT PK_QueueCounts PRIMARY KEY CLUSTERED (queue, status, slot);
END;`,
    `IF EXISTS (SELECT 1 FROM sys.columns AS c WHERE c.object_id = OBJECT_ID(N'readpast.ConcurrencyTokens') AND c.name IN (N'queue')
    AND c.collation_name <> N'Latin1_General_100_BIN2')
BEGIN
  DECLARE @stat nvarchar(400) = N'';
  IF EXISTS (SELECT 1 FROM sys.key_constraints WHERE parent_object_id = OBJECT_ID(N'readpast.ConcurrencyTokens') AND ` +
      `name = N'PK_ConcurrencyTokens')
    ALTER TABLE readpast.ConcurrencyTokens DROP CONSTRAINT PK_ConcurrencyTokens;
  -- statistics on the columns, made automatically or by hand (an index's go with it)
  WHILE @stat IS NOT NULL
  BEGIN
    SET @stat = NULL;
    SELECT TOP (1) @stat = N'DROP STATISTICS readpast.ConcurrencyTokens.' + QUOTENAME(s.name)
      FROM sys.stats AS s
      JOIN sys.stats_columns AS sc ON sc.object_id = s.object_id AND sc.stats_id = s.stats_id
      JOIN sys.columns AS c ON c.object_id = sc.object_id AND c.column_id = sc.column_id
      WHERE s.object_id = OBJECT_ID(N'readpast.ConcurrencyTokens') AND c.name IN (N'queue')
        AND NOT EXISTS (SELECT 1 FROM sys.indexes AS i WHERE i.object_id = s.object_id AND i.index_id = s.stats_id);
    IF @stat IS NOT NULL
      EXEC (@stat);
  END;
  EXEC(N'ALTER TABLE readpast.ConcurrencyTokens ALTER COLUMN queue nvarchar(64) COLLATE Latin1_General_100_BIN2 NOT NULL');
  ALTER TABLE readpast.ConcurrencyTokens ADD CONSTRAINT PK_ConcurrencyTokens PRIMARY KEY CLUSTERED (queue, token_no);
END;`,
    `IF EXISTS (SELECT 1 FROM sys.columns AS c WHERE c.object_id = OBJECT_ID(N'readpast.QueueChanges') AND c.name IN (N'queue')
    AND c.collation_name <> N'Latin1_General_100_BIN2')
BEGIN
  DECLARE @stat nvarchar(400) = N'';
  IF EXISTS (SELECT 1 FROM sys.indexes WHERE object_id = OBJECT_ID(N'readpast.QueueChanges') AND name = N'IX_QueueChanges_queue')
    DROP INDEX IX_QueueChanges_queue ON readpast.QueueChanges;
  -- statistics on the columns, made automatically or by hand (an index's go with it)
  WHILE @stat IS NOT NULL
  BEGIN
    SET @stat = NULL;
    SELECT TOP (1) @stat = N'DROP STATISTICS readpast.QueueChanges.' + QUOTENAME(s.name)
      FROM sys.stats AS s
      JOIN sys.stats_columns AS sc ON sc.object_id = s.object_id AND sc.stats_id = s.stats_id
      JOIN sys.columns AS c ON c.object_id = sc.object_id AND c.column_id = sc.column_id
      WHERE s.object_id = OBJECT_ID(N'readpast.QueueChanges') AND c.name IN (N'queue')
        AND NOT EXISTS (SELECT 1 FROM sys.indexes AS i WHERE i.object_id = s.object_id AND i.index_id = s.stats_id);
    IF @stat IS NOT NULL
      EXEC (@stat);
  END;
  EXEC(N'ALTER TABLE readpast.QueueChanges ALTER COLUMN queue nvarchar(64) COLLATE Latin1_General_100_BIN2 NOT NULL');
END;`,
    `IF EXISTS (SELECT 1 FROM sys.columns AS c WHERE c.object_id = OBJECT_ID(N'readpast.Handlers') AND c.name IN (N'name')
    AND c.collation_name <> N'Latin1_General_100_BIN2')
BEGIN
  DECLARE @stat nvarchar(400) = N'';
  IF EXISTS (SELECT 1 FROM sys.key_constraints WHERE parent_object_id = OBJECT_ID(N'readpast.Handlers') AND name = N'PK_Handlers')
    ALTER TABLE readpast.Handlers DROP CONSTRAINT PK_Handlers;
  -- statistics on the columns, made automatically or by hand (an index's go with it)
  WHILE @stat IS NOT NULL
  BEGIN
    SET @stat = NULL;
    SELECT TOP (1) @stat = N'DROP STATISTICS readpast.Handlers.' + QUOTENAME(s.name)
      FROM sys.stats AS s
      JOIN sys.stats_columns AS sc ON sc.object_id = s.object_id AND sc.stats_id = s.stats_id
      JOIN sys.columns AS c ON c.object_id = sc.object_id AND c.column_id = sc.column_id
      WHERE s.object_id = OBJECT_ID(N'readpast.Handlers') AND c.name IN (N'name')
        AND NOT EXISTS (SELECT 1 FROM sys.indexes AS i WHERE i.object_id = s.object_id AND i.index_id = s.stats_id);
    IF @stat IS NOT NULL
      EXEC (@stat);
  END;
  EXEC(N'ALTER TABLE readpast.Handlers ALTER COLUMN name nvarchar(128) COLLATE Latin1_General_100_BIN2 NOT NULL');
  ALTER TABLE readpast.Handlers ADD CONSTRAINT PK_Handlers PRIMARY KEY CLUSTERED (name);
END;`,
    `IF EXISTS (SELECT 1 FROM sys.columns AS c WHERE c.object_id = OBJECT_ID(N'readpast.Schedules') AND c.name IN (N'queue')
    AND c.collation_name <> N'Latin1_General_100_BIN2')
BEGIN
  DECLARE @stat nvarchar(400) = N'';
  -- statistics on the columns, made automatically or by hand (an index's go with it)
  WHILE @stat IS NOT NULL
  BEGIN
    SET @stat = NULL;
    SELECT TOP (1) @stat = N'DROP STATISTICS readpast.Schedules.' + QUOTENAME(s.name)
      FROM sys.stats AS s
      JOIN sys.stats_columns AS sc ON sc.object_id = s.object_id AND sc.stats_id = s.stats_id
      JOIN sys.columns AS c ON c.object_id = sc.object_id AND c.column_id = sc.column_id
      WHERE s.object_id = OBJECT_ID(N'readpast.Schedules') AND c.name IN (N'queue')
        AND NOT EXISTS (SELECT 1 FROM sys.indexes AS i WHERE i.object_id = s.object_id AND i.index_id = s.stats_id);
    IF @stat IS NOT NULL
      EXEC (@stat);
  END;
  EXEC(N'ALTER TABLE readpast.Schedules ALTER COLUMN queue nvarchar(64) COLLATE Latin1_General_100_BIN2 NOT NULL');
END;`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes
  WHERE object_id = OBJECT_ID(N'readpast.Tasks') AND name = N'UX_Tasks_dedup')
CREATE UNIQUE INDEX UX_Tasks_dedup ON readpast.Tasks (dedup_key) WHERE dedup_key IS NOT NULL AND status IN ('pending', 'running');`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes
  WHERE object_id = OBJECT_ID(N'readpast.Tasks') AND name = N'IX_Tasks_batch_dequeue')
CREATE INDEX IX_Tasks_batch_dequeue ON readpast.Tasks (batch_id, stage, priority DESC, id) INCLUDE (queue, run_after) ` +
      `WHERE status = 'pending' AND batch_id IS NOT NULL;`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes
  WHERE object_id = OBJECT_ID(N'readpast.Tasks') AND name = N'IX_Tasks_ended')
CREATE INDEX IX_Tasks_ended ON readpast.Tasks (status, id) INCLUDE (queue) WHERE status IN ('dead', 'cancelled');`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes
  WHERE object_id = OBJECT_ID(N'readpast.Tasks') AND name = N'IX_Tasks_finished')
CREATE INDEX IX_Tasks_finished ON readpast.Tasks (finished_at) INCLUDE (queue, status) WHERE finished_at IS NOT NULL;`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes
  WHERE object_id = OBJECT_ID(N'readpast.Tasks') AND name = N'IX_Tasks_ready')
CREATE INDEX IX_Tasks_ready ON readpast.Tasks (queue, priority DESC, id) INCLUDE (run_after) WHERE status = 'pending' ` +
      `AND batch_id IS NULL;`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes
  WHERE object_id = OBJECT_ID(N'readpast.Tasks') AND name = N'IX_Tasks_running_queue')
CREATE INDEX IX_Tasks_running_queue ON readpast.Tasks (queue, lease_until) WHERE status = 'running';`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes
  WHERE object_id = OBJECT_ID(N'readpast.QueueChanges') AND name = N'IX_QueueChanges_queue')
CREATE INDEX IX_QueueChanges_queue ON readpast.QueueChanges (queue, id);`,
    `IF OBJECT_ID(N'readpast.ExecutionStatus', N'V') IS NOT NULL
  EXEC sys.sp_refreshview N'readpast.ExecutionStatus';`,
  ],
};
