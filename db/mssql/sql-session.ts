// T-SQL about sessions: a worker's own connection (its SPID, login time and CONTEXT_INFO tag),
// the clean-up after a task's own T-SQL, permissions for live status and KILL, the procedure
// catalog, and the statements migrations run around the schema itself.

/**
 * Tag the session (CONTEXT_INFO persists on the session after sp_executesql returns, and shows in
 * sys.dm_exec_sessions / sys.dm_exec_requests) and read who it is: SPID, login time, database.
 * A login may always see its own session in sys.dm_exec_sessions.
 */
export const SESSION_TAG = `SET CONTEXT_INFO @tag;
SELECT @@SPID AS session, s.login_time, DB_NAME() AS db
FROM sys.dm_exec_sessions AS s
WHERE s.session_id = @@SPID;`;

/** The attempt ran on a session other than the one recorded at claim (the connection was replaced). */
export const UPDATE_ATTEMPT_SESSION = `UPDATE readpast.ExecutionLog SET session = @session
  WHERE task_id = @task_id AND attempt = @attempt AND ended_at IS NULL;`;

/**
 * After a task's own T-SQL (sent as a raw batch, so these SETs stay on the session): roll back
 * whatever transaction it left open or doomed, and put back the settings the driver logs in with.
 */
export const SESSION_CLEANUP = `IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
SET XACT_ABORT OFF;
SET IMPLICIT_TRANSACTIONS OFF;
SET LOCK_TIMEOUT -1;
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
SET DEADLOCK_PRIORITY NORMAL;
SET LANGUAGE us_english;
SET DATEFORMAT mdy;
SET DATEFIRST 7;
SET ANSI_NULLS ON;
SET ANSI_NULL_DFLT_ON ON;
SET ANSI_PADDING ON;
SET ANSI_WARNINGS ON;
SET ARITHABORT ON;
SET CONCAT_NULL_YIELDS_NULL ON;
SET QUOTED_IDENTIFIER ON;
SET NUMERIC_ROUNDABORT OFF;
SET NOCOUNT OFF;
SET ROWCOUNT 0;
SET TEXTSIZE 2147483647;
SELECT @@TRANCOUNT AS trancount, DB_NAME() AS db;`;

/** Which engine: 5 = Azure SQL Database (database-scoped permissions), anything else = a server. */
export const ENGINE_EDITION = "SELECT CAST(SERVERPROPERTY('EngineEdition') AS int) AS edition;";

/** What this login may see and do, on a server. */
export const PERMISSIONS_SERVER = `SELECT HAS_PERMS_BY_NAME(NULL, NULL, 'VIEW SERVER STATE') AS view_state,
  HAS_PERMS_BY_NAME(NULL, NULL, 'ALTER ANY CONNECTION') AS can_kill;`;

/** What this login may see and do, on Azure SQL Database. */
export const PERMISSIONS_AZURE = `SELECT HAS_PERMS_BY_NAME(DB_NAME(), 'DATABASE', 'VIEW DATABASE STATE') AS view_state,
  HAS_PERMS_BY_NAME(DB_NAME(), 'DATABASE', 'KILL DATABASE CONNECTION') AS can_kill;`;

/** The running attempt of a task, its session and that session's login time as the server sees it. */
export const KILL_TARGET = `SELECT t.id AS task_id, t.status, t.kind, t.attempts, l.worker_id, l.session, w.login_time,
  ses.session_id AS live_session
FROM readpast.Tasks AS t
LEFT JOIN readpast.ExecutionLog AS l ON l.task_id = t.id AND l.attempt = t.attempts AND l.ended_at IS NULL
LEFT JOIN readpast.Workers AS w ON w.worker_id = l.worker_id AND w.session = l.session
LEFT JOIN sys.dm_exec_sessions AS ses ON ses.session_id = l.session AND ses.login_time = w.login_time
WHERE t.token = @token;`;

/**
 * KILL takes no variable, so the session id is written into the text, and only after it has been
 * checked to be an integer in SQL Server's range. The session is killed only if it is still the
 * same login (login time) and still tagged with the attempt (CONTEXT_INFO prefix). Returns (killed).
 */
export function killSql(session: number): string {
  if (!Number.isSafeInteger(session) || session < 1 || session > 32767) {
    throw new RangeError('session id must be an integer from 1 to 32767');
  }
  return `DECLARE @hit int = CASE WHEN EXISTS (SELECT 1 FROM sys.dm_exec_sessions AS s
  WHERE s.session_id = ${session} AND s.login_time = @login_time
    AND SUBSTRING(s.context_info, 1, DATALENGTH(@tag)) = @tag) THEN 1 ELSE 0 END;
IF @hit = 1 KILL ${session};
SELECT @hit AS killed;`;
}

/** A procedure by name (as given; OBJECT_ID resolves schema and brackets), and its parameters. */
export const DESCRIBE_PROCEDURE = `SELECT QUOTENAME(SCHEMA_NAME(pr.schema_id)) + N'.' + QUOTENAME(pr.name) AS quoted_name,
  HAS_PERMS_BY_NAME(QUOTENAME(SCHEMA_NAME(pr.schema_id)) + N'.' + QUOTENAME(pr.name), 'OBJECT', 'EXECUTE') AS can_execute
FROM sys.procedures AS pr
WHERE pr.object_id = OBJECT_ID(@name);
SELECT p.name, t.name AS type_name, bt.name AS base_type, t.is_table_type, p.max_length, p.precision, p.scale,
  p.is_output
FROM sys.parameters AS p
JOIN sys.types AS t ON t.user_type_id = p.user_type_id
LEFT JOIN sys.types AS bt ON bt.user_type_id = p.system_type_id
WHERE p.object_id = OBJECT_ID(@name) AND p.parameter_id > 0
ORDER BY p.parameter_id;`;

// ---- migrations ---------------------------------------------------------------------------------

export const MIGRATE_COMPATIBILITY = 'SELECT d.compatibility_level FROM sys.databases AS d WHERE d.database_id = DB_ID();';
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
/** sys.sp_getapplock / sys.sp_releaseapplock are called as RPCs (their return code is the result). */
export const APPLOCK_RESOURCE = 'readpast:migrate';

// ---- tests ----------------------------------------------------------------------------------------

/** Empty every table (the contract suite's fresh store on a shared database). */
export const RESET_ALL_TABLES = `SET NOCOUNT ON;
DELETE FROM readpast.ExecutionLog;
DELETE FROM readpast.Tasks;
DELETE FROM readpast.QueueCounts;
DELETE FROM readpast.Queues;
DELETE FROM readpast.Workers;
DELETE FROM readpast.Handlers;
DELETE FROM readpast.Metrics;
DELETE FROM readpast.ConcurrencyTokens;
DELETE FROM readpast.QueueChanges;
DELETE FROM readpast.BatchStages;
DELETE FROM readpast.Batches;`;
