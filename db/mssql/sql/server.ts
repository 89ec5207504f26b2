// T-SQL of the server probe (../server.ts): what server this is, in one round trip, asked so that a
// stand-in is recognised before anything else it may not have is touched.

/**
 * One row. A Babelfish server (SERVERPROPERTY('Babelfish') = 1; NULL on SQL Server, which knows no
 * such property) answers only the first branch, so a catalog column it lacks cannot fail the probe
 * before it has said what it is. On SQL Server: version, edition, engine edition (5 = Azure SQL
 * Database, 8 = Managed Instance), and the current database's compatibility level and row
 * versioning settings.
 */
export const SERVER_PROBE = `SET NOCOUNT ON;
DECLARE @babelfish int = CASE WHEN CAST(SERVERPROPERTY('Babelfish') AS int) = 1 OR @@VERSION LIKE N'%Babelfish%' THEN 1 ELSE 0 END;
IF @babelfish = 1
BEGIN
  SELECT 1 AS babelfish, CAST(SERVERPROPERTY('BabelfishVersion') AS nvarchar(128)) AS babelfish_version,
    CAST(@@VERSION AS nvarchar(4000)) AS version_text, DB_NAME() AS database_name;
END
ELSE
BEGIN
  SELECT 0 AS babelfish, CAST(NULL AS nvarchar(128)) AS babelfish_version, CAST(@@VERSION AS nvarchar(4000)) AS version_text,
    DB_NAME() AS database_name,
    CAST(SERVERPROPERTY('ProductVersion') AS nvarchar(128)) AS product_version,
    CAST(SERVERPROPERTY('ProductLevel') AS nvarchar(128)) AS product_level,
    CAST(SERVERPROPERTY('ProductUpdateLevel') AS nvarchar(128)) AS product_update_level,
    CAST(SERVERPROPERTY('Edition') AS nvarchar(128)) AS edition,
    CAST(SERVERPROPERTY('EngineEdition') AS int) AS engine_edition,
    d.compatibility_level, d.is_read_committed_snapshot_on, d.snapshot_isolation_state
  FROM sys.databases AS d
  WHERE d.database_id = DB_ID();
END;`;
