// What only SQL Server has (the SQL Server pages): stored procedures, live session state, KILL.
import type { LiveStatus, ProcedureParameter } from '../types';
import type { AuditWrite, KillResult } from './commands';

/** What only SQL Server has: stored procedures, live session state from the DMVs, KILL. */
export interface SqlServerExtras {
  /** the parameters of a procedure, or null when there is no such procedure */
  describeProcedure(name: string): Promise<ProcedureParameter[] | null>;
  /** whether the login may read server/database state (DMVs), and why not */
  liveStatus(): Promise<LiveStatus>;
  /** KILL the session running a task (needs ALTER ANY CONNECTION) */
  killSession(token: string): Promise<KillResult>;
  /** whether T-SQL callers (readpast.ExecAsync) may enqueue sql tasks: the database's allow_sql setting */
  setAllowSql(allow: boolean, changedBy: string, audit?: AuditWrite<void>): Promise<void>;
}
