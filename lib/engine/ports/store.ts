// One database, seen through its ports: the Store every dialect in db/ implements, and what it supports.
import type { DoctorCheck, MigrateReport, TaskKind } from '../types';
import type { WorkerPort } from './worker';
import type { MaintenancePort } from './maintenance';
import type { CommandPort } from './commands';
import type { ReadModel } from './read-model';
import type { SqlServerExtras } from './sql-server';

export type Dialect = 'sqlite' | 'mssql';

/** What a store supports that the engine adapts to: each store says its own (nothing above db/ tests the dialect). */
export interface StoreCapabilities {
  /**
   * Tasks a pool claims ahead of its idle workers by default (PoolOptions.prefetch): many where one claim
   * transaction serves every slot (SQLite), 0 where a claim takes one round trip per slot anyway (SQL Server).
   */
  readonly prefetch: number;
}

/** One database, seen through its ports. */
export interface Store {
  readonly dialect: Dialect;
  /** task kinds this database can run */
  readonly kinds: readonly TaskKind[];
  readonly capabilities: StoreCapabilities;
  /** a printable description with no secrets (e.g. `sqlite:data/readpast.db`) */
  readonly description: string;
  readonly worker: WorkerPort;
  readonly maintenance: MaintenancePort;
  readonly commands: CommandPort;
  readonly reads: ReadModel;
  /** null where the database has none of SQL Server's extras */
  readonly sqlServer: SqlServerExtras | null;
  /**
   * Create or upgrade the schema, then install the code objects (procedures, views, triggers) by content and
   * retire unused ones. Idempotent; safe when several processes call it at once.
   */
  migrate(): Promise<MigrateReport>;
  /**
   * What will work here before the first task runs (`readpast doctor`): the server or file, the
   * schema, permissions per feature, a write or a claim rolled back. Changes nothing; never throws
   * for what it finds (a failure is a check with ok = false), and works on a store not migrated.
   */
  diagnose(): Promise<DoctorCheck[]>;
  close(): Promise<void>;
}
