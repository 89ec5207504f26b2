// T-SQL of the code-object step (../code-objects.ts): after the migrations, `readpast migrate` installs
// readpast's procedures and views by content, records them in readpast.CodeObjects (migration 21), and
// retires hot procedures no worker has used for the retention. Names in schema readpast are code's own
// (never a caller's value); a name read back from the catalog is quoted with QUOTENAME before EXEC.
import { HOT_PROCEDURES } from './hot';

/** The view of the running attempts (a code object: migration 1 made it as it was then). */
export const EXECUTION_STATUS_VIEW = `CREATE OR ALTER VIEW readpast.ExecutionStatus AS
  SELECT l.id AS log_id, l.task_id, t.token, l.queue, l.kind, l.command, l.attempt, t.max_attempts,
         l.worker_id, l.session, l.token_no, l.batch_id, l.stage, l.started_at, t.lease_until, t.cancel_requested
  FROM readpast.ExecutionLog AS l
  JOIN readpast.Tasks AS t ON t.id = l.task_id
  WHERE l.ended_at IS NULL AND t.status = 'running' AND t.attempts = l.attempt;`;

/**
 * Hot procedures the database holds that the catalog does not know (Claim_v17, Enqueue_v19, … installed by
 * migrations 17, 19 and 20, or any whose row was lost): recorded as kind 'hot' with schema_version 0, seen
 * now, so that they are retired like any other once unused. Only names of the hot writes' bases followed by
 * `_` are taken: nothing else in the schema is ever dropped.
 */
export const CODE_ADOPT = `INSERT INTO readpast.CodeObjects (name, kind, hash, schema_version, installed_at)
  SELECT p.name, 'hot', CONVERT(char(64), HASHBYTES('SHA2_256', m.definition), 2), 0, SYSUTCDATETIME()
  FROM sys.procedures AS p
  JOIN sys.sql_modules AS m ON m.object_id = p.object_id
  JOIN (VALUES ${HOT_PROCEDURES.map((p) => `(N'${p.name}')`).join(', ')}) AS b(base) ON p.name LIKE b.base + N'[_]%'
  WHERE p.schema_id = SCHEMA_ID(N'readpast')
    AND NOT EXISTS (SELECT 1 FROM readpast.CodeObjects AS o WHERE o.name = p.name COLLATE Latin1_General_100_BIN2);`;

/**
 * What is installed: each catalog row with whether its object is there; the EXECUTE and SELECT permissions
 * readpast_caller holds on objects of the schema; whether the role exists.
 */
export const CODE_STATE = `SET NOCOUNT ON;
SELECT o.name, o.kind, o.hash, o.schema_version,
    CASE WHEN OBJECT_ID(N'readpast.' + QUOTENAME(o.name)) IS NULL THEN 0 ELSE 1 END AS present
  FROM readpast.CodeObjects AS o
  ORDER BY o.name;
SELECT ob.name, dp.permission_name AS permission
  FROM sys.database_permissions AS dp
  JOIN sys.objects AS ob ON ob.object_id = dp.major_id
  WHERE dp.class = 1 AND dp.grantee_principal_id = DATABASE_PRINCIPAL_ID(N'readpast_caller') AND dp.state IN ('G', 'W')
    AND ob.schema_id = SCHEMA_ID(N'readpast') AND dp.permission_name IN (N'EXECUTE', N'SELECT')
  ORDER BY ob.name;
SELECT CASE WHEN DATABASE_PRINCIPAL_ID(N'readpast_caller') IS NULL THEN 0 ELSE 1 END AS role_exists;`;

/** Record one installed object (after its CREATE OR ALTER, in the same transaction). */
export const CODE_RECORD = `UPDATE readpast.CodeObjects
  SET kind = @kind, hash = @hash, schema_version = @schema_version, installed_at = SYSUTCDATETIME()
  WHERE name = @name;
IF @@ROWCOUNT = 0
  INSERT INTO readpast.CodeObjects (name, kind, hash, schema_version, installed_at)
    VALUES (@name, @kind, @hash, @schema_version, SYSUTCDATETIME());`;

/**
 * The hot procedures to retire: in the catalog, not one of @keep (the names this readpast calls, a JSON
 * array), installed or first seen more than @retain_s seconds ago, and used by no worker heard from within
 * that time (heartbeat_at, or stopped_at once stopped) — one whose Workers.code lists the name, or one that
 * recorded no code (a readpast from before migration 21, which may call any name recorded with
 * schema_version 0).
 */
export const CODE_RETIRE_CANDIDATES = `SET NOCOUNT ON;
DECLARE @since datetime2(3) = DATEADD(SECOND, -@retain_s, SYSUTCDATETIME());
SELECT o.name
  FROM readpast.CodeObjects AS o
  WHERE o.kind = 'hot' AND o.installed_at < @since
    AND NOT EXISTS (SELECT 1 FROM OPENJSON(@keep) AS k
      WHERE CAST(k.value AS nvarchar(128)) COLLATE Latin1_General_100_BIN2 = o.name)
    AND NOT EXISTS (SELECT 1 FROM readpast.Workers AS w
      WHERE COALESCE(w.stopped_at, w.heartbeat_at) >= @since
        AND ((w.code IS NULL AND o.schema_version = 0)
          OR EXISTS (SELECT 1 FROM OPENJSON(w.code) AS c
            WHERE CAST(c.value AS nvarchar(128)) COLLATE Latin1_General_100_BIN2 = o.name)))
  ORDER BY o.name;`;

/** Drop one retired hot procedure (a name of the catalog, kind 'hot', quoted) and its catalog row. */
export const CODE_DROP = `SET NOCOUNT ON;
IF EXISTS (SELECT 1 FROM readpast.CodeObjects AS o WHERE o.name = @name AND o.kind = 'hot')
BEGIN
  DECLARE @drop nvarchar(400) = N'DROP PROCEDURE readpast.' + QUOTENAME(@name) + N';';
  IF OBJECT_ID(N'readpast.' + QUOTENAME(@name), N'P') IS NOT NULL
    EXEC (@drop);
  DELETE FROM readpast.CodeObjects WHERE name = @name AND kind = 'hot';
END;`;

/**
 * `readpast doctor`: the catalog, each row with whether its object is there, then the running workers with
 * the code they recorded (NULL: a readpast from before migration 21).
 */
export const DOCTOR_CODE = `SET NOCOUNT ON;
SELECT o.name, o.kind, o.hash, o.schema_version, o.installed_at,
    CASE WHEN OBJECT_ID(N'readpast.' + QUOTENAME(o.name)) IS NULL THEN 0 ELSE 1 END AS present
  FROM readpast.CodeObjects AS o
  ORDER BY o.kind, o.name;
SELECT w.worker_id, w.code
  FROM readpast.Workers AS w
  WHERE w.state = 'running'
  ORDER BY w.worker_id;`;
