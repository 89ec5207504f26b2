// T-SQL that migrations run around the schema itself (the schema is in ../schema.ts), and the
// tests' reset of every table.

export const MIGRATE_ENSURE_SCHEMA = "IF SCHEMA_ID(N'readpast') IS NULL EXEC(N'CREATE SCHEMA readpast');";
export const MIGRATE_ENSURE_VERSIONS = `IF OBJECT_ID(N'readpast.SchemaVersion', N'U') IS NULL
CREATE TABLE readpast.SchemaVersion (
  version    int           NOT NULL,
  name       nvarchar(200) NOT NULL,
  applied_at datetime2(3)  NOT NULL,
  CONSTRAINT PK_SchemaVersion PRIMARY KEY CLUSTERED (version)
);`;
export const MIGRATE_VERSIONS = 'SELECT v.version FROM readpast.SchemaVersion AS v ORDER BY v.version;';
export const MIGRATE_BEGIN = 'BEGIN TRANSACTION;';
export const MIGRATE_RECORD = `INSERT INTO readpast.SchemaVersion (version, name, applied_at)
VALUES (@version, @name, SYSUTCDATETIME());`;
export const MIGRATE_COMMIT = 'COMMIT TRANSACTION;';
export const MIGRATE_ROLLBACK = 'IF @@TRANCOUNT > 0 ROLLBACK TRANSACTION;';

/** Empty every table (the contract suite's fresh store on a shared database). */
export const RESET_ALL_TABLES = `SET NOCOUNT ON;
DELETE FROM readpast.ExecutionLog;
IF OBJECT_ID(N'readpast.AttemptLogs', N'U') IS NOT NULL DELETE FROM readpast.AttemptLogs;
IF OBJECT_ID(N'readpast.AttemptOutput', N'U') IS NOT NULL DELETE FROM readpast.AttemptOutput;
DELETE FROM readpast.Tasks;
DELETE FROM readpast.QueueCounts;
DELETE FROM readpast.Queues;
DELETE FROM readpast.Workers;
DELETE FROM readpast.Handlers;
DELETE FROM readpast.Metrics;
DELETE FROM readpast.ConcurrencyTokens;
DELETE FROM readpast.QueueChanges;
DELETE FROM readpast.BatchStages;
DELETE FROM readpast.Batches;
DELETE FROM readpast.Schedules;`;
