// The database underneath: caller transactions (tx.execute), SQL runs, procedure parameters, live session state,
// doctor checks.

export interface SqlRunResult {
  rowsAffected: number;
  /** first rows of the last result set, capped */
  rows: Record<string, unknown>[];
}

/** A stored procedure's parameter, as the catalog describes it (SQL Server). */
export interface ProcedureParameter {
  /** without the leading @ */
  name: string;
  /** SQL type name, e.g. `decimal`, `nvarchar`, a table type's name */
  type: string;
  /** characters for (n)char/(n)varchar, bytes for binary types; -1 = max; null where not applicable */
  maxLength: number | null;
  precision: number | null;
  scale: number | null;
  isOutput: boolean;
  isTable: boolean;
}

/** Request state from the server's own views (SQL Server DMVs), where the login may see them. */
export interface LiveRequestState {
  status: string | null;
  command: string | null;
  waitType: string | null;
  waitTimeMs: number | null;
  blockingSession: number | null;
  cpuMs: number | null;
  percentComplete: number | null;
  openTransactions: number | null;
}

/** Whether live session state (SQL Server DMVs) can be read, and if not, why. */
export interface LiveStatus {
  available: boolean;
  reason: string | null;
  /** SQL Server: whether this login may KILL a task's session, and if not, what it lacks */
  canKill?: boolean;
  killRefusal?: string | null;
}

/**
 * One line of `readpast doctor`: something this database, login or machine has or lacks. `ok` is
 * true (fine), false (missing or failing) or null (informational, or skipped because an earlier
 * check failed). A check the configuration `needed` that is not ok makes the doctor fail.
 */
/** What `Store.migrate()` did. */
export interface MigrateReport {
  /** the migrations applied, in order (none: the schema was current) */
  applied: number[];
  /** code objects installed because they were missing or their text changed (`readpast.Claim_3f9a1c2e`, `ExecutionStatus`) */
  installed: string[];
  /** hot procedures dropped because no registered worker used them for the retention */
  dropped: string[];
}

export interface DoctorCheck {
  /** stable, e.g. `server`, `permissions.dml`, `claim` */
  id: string;
  title: string;
  ok: boolean | null;
  /** what was found, in a sentence or two */
  detail: string;
  /** what to do about it, e.g. the exact GRANT; null when there is nothing to do */
  remedy: string | null;
  needed: boolean;
}

/**
 * Parameters of `tx.execute` (withTransaction): on SQLite positional (`?`, an array) or named (`@name`,
 * `:name`, `$name`, an object without the prefix); on SQL Server named only (`@name`, an object; mssql
 * infers each type from the JS value). A named object with `@name` in the SQL works on both.
 */
export type ExecuteParams = readonly unknown[] | Readonly<Record<string, unknown>>;

/** What `tx.execute` returns: the rows a statement returned (SQL Server: its first result set) and the rows it changed. */
export interface ExecuteResult<Row = Record<string, unknown>> {
  rows: Row[];
  rowsAffected: number;
}

/** Options of withTransaction. */
export interface TransactionOptions {
  /**
   * Rolled back once open this long (ms; default TRANSACTION_TIMEOUT_MS, at most MAX_TRANSACTION_TIMEOUT_MS):
   * on SQLite it holds the file's one write lock, which every writer of every process waits for.
   */
  timeoutMs?: number;
}
