// The database and the processes around it: the schema, SQL Server's allow_sql setting, `doctor`, worker
// pools and their stored sizes, and the dashboard served as a child process.
import { ValidationError } from '../engine/errors';
import { registerBuiltinHandlers } from '../engine/handlers';
import type { MigrateReport } from '../engine/types';
import { Pool, type PoolOptions } from '../engine/pool';
import type { Core } from './core';
import { startDashboard, type DashboardHandle, type DashboardOptions } from './dashboard';
import { getPoolSetting, savePoolSize } from './pool-settings';
import { doctorJson, type DoctorJson } from './present';

/** A pool's options as `createPool` takes them: each may be left out, or given as undefined, for its default. */
export type PoolConfig = { [K in keyof PoolOptions]?: PoolOptions[K] | undefined };

export class Runtime {
  private readonly dashboards = new Set<DashboardHandle>();

  constructor(
    private readonly core: Core,
    /** the database URL the store was opened with (serveDashboard serves the same database) */
    private readonly url: string | null,
  ) {}

  /** the migrations applied, the code objects installed by content and the unused hot procedures dropped */
  migrate(): Promise<MigrateReport> {
    return this.core.store.migrate();
  }

  async setAllowSql(allow: boolean, changedBy: string): Promise<void> {
    const { store, audit } = this.core;
    if (!store.sqlServer) throw new ValidationError('allowSql', 'a setting of SQL Server databases (readpast.Settings)');
    const after = allow ? 'on' : 'off';
    await store.sqlServer.setAllowSql(
      allow,
      changedBy,
      audit.of(() => ({ action: 'settings.allow_sql', target: 'allow_sql', after })),
    );
  }

  async doctor(): Promise<DoctorJson> {
    const { store } = this.core;
    return doctorJson(store.dialect, store.description, await store.diagnose());
  }

  poolSetting(host: string, role: string) {
    return getPoolSetting(this.core.store, host, role);
  }

  savePoolSize(s: { host: string; role: string; size: number; before: number | null }) {
    return savePoolSize(this.core.store, this.core.audit, s);
  }

  createPool(opts: PoolConfig): Pool {
    const { store, registry, webhooks, logger } = this.core;
    // alert deliveries (queue readpast.alerts) run in every pool, whatever registry it was given
    const alertRule = (id: number) => store.reads.getAlertRule(id);
    // an option given as undefined is one not given: its default
    const given = Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined)) as Partial<PoolOptions>;
    return new Pool(store, registerBuiltinHandlers(registry, alertRule, webhooks), { logger, ...given });
  }

  async serveDashboard(opts: DashboardOptions): Promise<DashboardHandle> {
    if (!this.url) throw new ValidationError('url', 'this Readpast was not opened from a database URL (use openReadpast)');
    const handle = await startDashboard(this.url, opts, this.core.logger);
    this.dashboards.add(handle);
    handle.exited.then(() => this.dashboards.delete(handle));
    return handle;
  }

  async close(): Promise<void> {
    await Promise.all([...this.dashboards].map((d) => d.stop()));
    await this.core.store.close();
  }
}
