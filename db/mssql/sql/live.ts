// T-SQL of what only SQL Server has (the SqlServerExtras): the procedure catalog, permissions for
// live status and KILL, and KILL itself. The live request state of running attempts is a read
// (LIST_RUNNING_LIVE in reads.ts).

/** Which engine: 5 = Azure SQL Database (database-scoped permissions), anything else = a server. */
export const ENGINE_EDITION = "SELECT CAST(SERVERPROPERTY('EngineEdition') AS int) AS edition;";

/**
 * What this login may see and do, on a server (and the login, which a server permission is granted to).
 * VIEW SERVER PERFORMANCE STATE (SQL Server 2022+) is enough for the DMV columns of the running list;
 * older servers answer NULL for it.
 */
export const PERMISSIONS_SERVER = `SELECT HAS_PERMS_BY_NAME(NULL, NULL, 'VIEW SERVER STATE') AS view_state,
  HAS_PERMS_BY_NAME(NULL, NULL, 'VIEW SERVER PERFORMANCE STATE') AS perf_state,
  HAS_PERMS_BY_NAME(NULL, NULL, 'ALTER ANY CONNECTION') AS can_kill, SUSER_SNAME() AS principal;`;

/** What this login may see and do, on Azure SQL Database (VIEW DATABASE PERFORMANCE STATE likewise; granted to the user). */
export const PERMISSIONS_AZURE = `SELECT HAS_PERMS_BY_NAME(DB_NAME(), 'DATABASE', 'VIEW DATABASE STATE') AS view_state,
  HAS_PERMS_BY_NAME(DB_NAME(), 'DATABASE', 'VIEW DATABASE PERFORMANCE STATE') AS perf_state,
  HAS_PERMS_BY_NAME(DB_NAME(), 'DATABASE', 'KILL DATABASE CONNECTION') AS can_kill, USER_NAME() AS principal;`;

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

/**
 * What a traced sql or procedure attempt's session is doing now (@session): its wait and the session blocking it
 * (0: none). Seen only with VIEW SERVER STATE (or VIEW SERVER PERFORMANCE STATE; VIEW DATABASE STATE on Azure SQL
 * Database): without it the DMV shows the login's own session alone, and this answers no row.
 */
export const SESSION_WAIT = `SELECT r.wait_type, r.wait_time, r.blocking_session_id
FROM sys.dm_exec_requests AS r
WHERE r.session_id = @session;`;
