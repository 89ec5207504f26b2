// T-SQL of `readpast doctor` (../doctor.ts): who this login is and what it may do, the schema's
// migration level, the server's clock, and a claim run inside a transaction that is rolled back.
// Nothing here changes the database.
import { ALLOW_SQL_SETTING, CALLER_PROCEDURES, CALLER_ROLE } from './callers';
import { CLAIM } from './claim';
import { HOT_PROCEDURES, hotName } from './hot';

/**
 * Two result sets: one row of facts (login, database user, the readpast schema, permissions per
 * feature, how many procedures this login may execute), then the applied migration versions.
 * Server-level permissions are asked only off Azure SQL Database (EngineEdition 5), which accepts
 * database securables only; VIEW SERVER PERFORMANCE STATE is NULL before SQL Server 2022, where it
 * does not exist. SchemaVersion is read only when this login may read it.
 */
export const DOCTOR_FACTS = `SET NOCOUNT ON;
DECLARE @azure bit = CASE WHEN CAST(SERVERPROPERTY('EngineEdition') AS int) = 5 THEN 1 ELSE 0 END;
DECLARE @view_server_state int = NULL, @view_server_performance_state int = NULL, @alter_any_connection int = NULL;
DECLARE @readpast int = SCHEMA_ID(N'readpast');
DECLARE @versions TABLE (version int NOT NULL PRIMARY KEY);
IF @azure = 0
BEGIN
  SET @view_server_state = HAS_PERMS_BY_NAME(NULL, NULL, N'VIEW SERVER STATE');
  SET @view_server_performance_state = HAS_PERMS_BY_NAME(NULL, NULL, N'VIEW SERVER PERFORMANCE STATE');
  SET @alter_any_connection = HAS_PERMS_BY_NAME(NULL, NULL, N'ALTER ANY CONNECTION');
END;
IF OBJECT_ID(N'readpast.SchemaVersion', N'U') IS NOT NULL
  AND HAS_PERMS_BY_NAME(N'readpast.SchemaVersion', N'OBJECT', N'SELECT') = 1
  INSERT INTO @versions (version) SELECT v.version FROM readpast.SchemaVersion AS v;
SELECT SUSER_SNAME() AS login_name, USER_NAME() AS user_name, DB_NAME() AS database_name, @azure AS azure,
  CASE WHEN @readpast IS NULL THEN 0 ELSE 1 END AS schema_exists,
  CASE WHEN OBJECT_ID(N'readpast.SchemaVersion', N'U') IS NULL THEN 0 ELSE 1 END AS versions_table,
  HAS_PERMS_BY_NAME(N'readpast.SchemaVersion', N'OBJECT', N'SELECT') AS versions_readable,
  HAS_PERMS_BY_NAME(N'readpast', N'SCHEMA', N'SELECT') AS schema_select,
  HAS_PERMS_BY_NAME(N'readpast', N'SCHEMA', N'INSERT') AS schema_insert,
  HAS_PERMS_BY_NAME(N'readpast', N'SCHEMA', N'UPDATE') AS schema_update,
  HAS_PERMS_BY_NAME(N'readpast', N'SCHEMA', N'DELETE') AS schema_delete,
  HAS_PERMS_BY_NAME(DB_NAME(), N'DATABASE', N'SELECT') AS db_select,
  HAS_PERMS_BY_NAME(DB_NAME(), N'DATABASE', N'INSERT') AS db_insert,
  HAS_PERMS_BY_NAME(DB_NAME(), N'DATABASE', N'UPDATE') AS db_update,
  HAS_PERMS_BY_NAME(DB_NAME(), N'DATABASE', N'DELETE') AS db_delete,
  HAS_PERMS_BY_NAME(DB_NAME(), N'DATABASE', N'CREATE SCHEMA') AS create_schema,
  HAS_PERMS_BY_NAME(DB_NAME(), N'DATABASE', N'CREATE TABLE') AS create_table,
  HAS_PERMS_BY_NAME(DB_NAME(), N'DATABASE', N'CREATE VIEW') AS create_view,
  HAS_PERMS_BY_NAME(DB_NAME(), N'DATABASE', N'ALTER') AS alter_database,
  HAS_PERMS_BY_NAME(DB_NAME(), N'DATABASE', N'EXECUTE') AS db_execute,
  HAS_PERMS_BY_NAME(DB_NAME(), N'DATABASE', N'VIEW DATABASE STATE') AS view_database_state,
  HAS_PERMS_BY_NAME(DB_NAME(), N'DATABASE', N'KILL DATABASE CONNECTION') AS kill_database_connection,
  @view_server_state AS view_server_state, @view_server_performance_state AS view_server_performance_state,
  @alter_any_connection AS alter_any_connection,
  (SELECT COUNT(*) FROM sys.procedures AS p
    WHERE p.is_ms_shipped = 0 AND (@readpast IS NULL OR p.schema_id <> @readpast)) AS procedures,
  (SELECT COUNT(*) FROM sys.procedures AS p
    WHERE p.is_ms_shipped = 0 AND (@readpast IS NULL OR p.schema_id <> @readpast)
      AND HAS_PERMS_BY_NAME(QUOTENAME(SCHEMA_NAME(p.schema_id)) + N'.' + QUOTENAME(p.name), N'OBJECT', N'EXECUTE') = 1)
    AS executable_procedures;
SELECT v.version FROM @versions AS v ORDER BY v.version;`;

/** The server's clock, for skew and round-trip time. */
export const DOCTOR_PING = 'SELECT SYSUTCDATETIME() AS server_now;';

/**
 * The claim exactly as a worker sends it, inside an outer transaction that is rolled back: the
 * claim's own COMMIT only ends its nested transaction, so whatever it took, granted and logged is
 * undone; its result set says what it would have claimed. Same parameters as CLAIM.
 */
export const DOCTOR_DRY_RUN_CLAIM = `BEGIN TRANSACTION;
${CLAIM}
IF @@TRANCOUNT > 0 ROLLBACK TRANSACTION;`;

/**
 * The T-SQL callers' interface (sql/callers.ts), asked once the schema exists. One row: whether the role
 * readpast_caller exists, whether this login may see other principals' grants and the procedures' text
 * (VIEW DEFINITION; without it both read as absent), the allow_sql setting (NULL when unreadable), and
 * whether the role may SELECT from AsyncExecResults. Then one row per procedure of the interface: present,
 * EXECUTE granted to the role, and its installed text (OBJECT_DEFINITION: NULL when it cannot be seen).
 */
export const DOCTOR_CALLERS = `SET NOCOUNT ON;
DECLARE @role int = DATABASE_PRINCIPAL_ID(N'${CALLER_ROLE}');
DECLARE @allow_sql nvarchar(100) = NULL;
IF OBJECT_ID(N'readpast.Settings', N'U') IS NOT NULL AND HAS_PERMS_BY_NAME(N'readpast.Settings', N'OBJECT', N'SELECT') = 1
  SET @allow_sql = (SELECT s.value FROM readpast.Settings AS s WHERE s.name = N'${ALLOW_SQL_SETTING}');
SELECT CASE WHEN @role IS NULL THEN 0 ELSE 1 END AS role_exists,
  HAS_PERMS_BY_NAME(DB_NAME(), N'DATABASE', N'VIEW DEFINITION') AS view_definition,
  @allow_sql AS allow_sql,
  CASE WHEN EXISTS (SELECT 1 FROM sys.database_permissions AS dp
    WHERE dp.class = 1 AND dp.major_id = OBJECT_ID(N'readpast.AsyncExecResults') AND dp.grantee_principal_id = @role
      AND dp.permission_name = N'SELECT' AND dp.state IN ('G', 'W')) THEN 1 ELSE 0 END AS results_granted;
SELECT p.name,
  CASE WHEN OBJECT_ID(N'readpast.' + p.name, N'P') IS NULL THEN 0 ELSE 1 END AS present,
  CASE WHEN EXISTS (SELECT 1 FROM sys.database_permissions AS dp
    WHERE dp.class = 1 AND dp.major_id = OBJECT_ID(N'readpast.' + p.name) AND dp.grantee_principal_id = @role
      AND dp.permission_name = N'EXECUTE' AND dp.state IN ('G', 'W')) THEN 1 ELSE 0 END AS granted,
  OBJECT_DEFINITION(OBJECT_ID(N'readpast.' + p.name)) AS definition
FROM (VALUES ${CALLER_PROCEDURES.map((p) => `(N'${p.name}')`).join(', ')}) AS p(name)
ORDER BY p.name;`;

/**
 * The hot-write procedures this version calls (sql/hot.ts: readpast.Enqueue_<hash>, …), asked once the schema
 * exists. One row each: present (OBJECT_ID: NULL for an object missing, or one this login cannot see) and
 * whether this login may EXECUTE it (HAS_PERMS_BY_NAME: 1, 0, or NULL where the object does not exist or
 * the check fails).
 */
export const DOCTOR_HOT = `SET NOCOUNT ON;
SELECT p.name,
  CASE WHEN OBJECT_ID(p.name, N'P') IS NULL THEN 0 ELSE 1 END AS present,
  HAS_PERMS_BY_NAME(p.name, N'OBJECT', N'EXECUTE') AS may_execute
FROM (VALUES ${HOT_PROCEDURES.map((p) => `(N'${hotName(p)}')`).join(', ')}) AS p(name)
ORDER BY p.name;`;
