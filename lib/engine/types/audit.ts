// The audit trail: who changed what, from where, before and after.

/** Where a mutation came from: the dashboard (server actions), the HTTP API, the CLI, T-SQL, a library call, readpast itself. */
export const AUDIT_SOURCES = ['ui', 'api', 'cli', 'tsql', 'library', 'system'] as const;

export type AuditSource = (typeof AUDIT_SOURCES)[number];

/** One mutation to record: who, from where, what, on what, before → after, how many. */
export interface AuditInput {
  actor: string;
  source: AuditSource;
  /** dotted, e.g. `task.retry`, `tasks.bulk_cancel`, `queue.update`, `pool.resize`, `schedule.create`, `alert.delete`, `session.kill` */
  action: string;
  /** what it acted on: a token, a queue or schedule name, `filter:<query>` for a bulk action over a filter */
  target: string;
  /** JSON-serialisable; stored as JSON text (bounded by the store) */
  before?: unknown;
  after?: unknown;
  count?: number | null;
}

export interface AuditRecord {
  id: number;
  at: Date;
  actor: string;
  source: AuditSource;
  action: string;
  target: string;
  before: unknown;
  after: unknown;
  count: number | null;
}

/** newest first; `action` matches exactly or as a prefix when it ends with `.` (e.g. `task.`); `target` exactly */
export interface AuditFilter {
  action?: string;
  target?: string;
  actor?: string;
  cursor?: number;
  limit: number;
}
