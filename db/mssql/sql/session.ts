// T-SQL about a worker's own session: its SPID, login time and CONTEXT_INFO tag, the attempt's
// session when the connection was replaced, and the clean-up after a task's own T-SQL.

/**
 * Tag the session (CONTEXT_INFO persists on the session after sp_executesql returns, and shows in
 * sys.dm_exec_sessions / sys.dm_exec_requests) and read who it is: SPID, login time (as the server
 * keeps it: its local time in datetime, compared as such with sys.dm_exec_sessions; shown converted,
 * see reads.ts), database, and the security context it runs in (login and database user), which
 * the clean-up after a task compares with what a fresh connection had.
 * A login may always see its own session in sys.dm_exec_sessions.
 */
export const SESSION_TAG = `SET CONTEXT_INFO @tag;
SELECT @@SPID AS session, s.login_time, DB_NAME() AS db, SUSER_SNAME() AS login_name, USER_NAME() AS user_name
FROM sys.dm_exec_sessions AS s
WHERE s.session_id = @@SPID;`;

/**
 * The attempt ran on a session other than the one recorded at claim (the connection was replaced).
 * Fenced like every attempt write: task, attempt, worker, and the attempt still open.
 */
export const UPDATE_ATTEMPT_SESSION = `UPDATE readpast.ExecutionLog SET session = @session
  WHERE task_id = @task_id AND attempt = @attempt AND worker_id = @worker_id AND ended_at IS NULL;`;

/**
 * After a task's own T-SQL (sent as a raw batch, so these SETs stay on the session): roll back
 * whatever transaction it left open or doomed, and put back the settings the driver logs in with.
 * Then say what no SET can put back: open transactions, the database, and the security context — an
 * EXECUTE AS, SETUSER or sp_setapprole the task left behind changes SUSER_SNAME() / USER_NAME()
 * (ORIGINAL_LOGIN() stays the login that connected); session.ts reconnects on any difference.
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
SELECT @@TRANCOUNT AS trancount, DB_NAME() AS db, ORIGINAL_LOGIN() AS original_login, SUSER_SNAME() AS login_name,
  USER_NAME() AS user_name;`;
