// The upgrade path on SQL Server, against a database of its own (MSSQL_UPGRADE_URL: the test drops and rebuilds
// schema readpast in it at every version, so never the contract suite's database): a schema built at every
// earlier version from the frozen migrations, with a row in every table of that version, migrated to the head
// (and the code-object step), has the catalog of a fresh install — columns with their types and collations,
// indexes with their filters, constraints, procedures and views by the hash of their definition — and its rows
// stay readable and runnable: today's pool claims and finishes the pending task it held.
//
// Columns are compared by name, not by position: a database migrated by older code has Tasks' workflow columns
// and Metrics.dead where migration 6 once added them (before migrations 8 and 20, which add them to the others),
// and readpast names every column it reads or writes.
//
//   MSSQL_UPGRADE_URL='mssql://user:password@localhost:1433/readpast_upgrade?trustServerCertificate=true' \
//     npx vitest run db/mssql/upgrade.test.ts
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultRegistry } from '../../lib/engine/handlers';
import { Pool } from '../../lib/engine/pool';
import { sql, type ConnectionPool } from './connection';
import { migrate } from './migrations';
import { MIGRATIONS } from './schema';
import { openMssqlStore } from './store';
import { DONE_TOKEN, dropReadpast, fillEveryTable, mssqlCatalog, PENDING_TOKEN, UPGRADE_QUEUE } from './test-support/upgrade';
import { parseMssqlUrl, toConfig } from './url';

const url = process.env.MSSQL_UPGRADE_URL;

if (!url) {
  console.warn(
    'SKIPPED (loudly): the SQL Server upgrade path needs a database of its own, whose readpast schema it drops: ' +
      'MSSQL_UPGRADE_URL=mssql://user:password@host:1433/database?trustServerCertificate=true',
  );
}

describe.skipIf(!url)('SQL Server: every earlier schema version upgrades to the catalog of a fresh install', () => {
  const config = url ? toConfig(parseMssqlUrl(url), { appName: 'readpast upgrade test' }) : null;
  let pool: ConnectionPool;
  let fresh: Awaited<ReturnType<typeof mssqlCatalog>>;

  beforeAll(async () => {
    pool = await new sql.ConnectionPool({ ...config!, pool: { min: 1, max: 1 } }).connect();
    await dropReadpast(pool);
    await migrate(config!);
    fresh = await mssqlCatalog(pool);
  });

  afterAll(async () => {
    await pool?.close();
  });

  it('a second migrate of a fresh install changes nothing', async () => {
    expect(await migrate(config!)).toEqual({ applied: [], installed: [], dropped: [] });
    expect(await mssqlCatalog(pool)).toEqual(fresh);
  });

  it.each(MIGRATIONS.slice(0, -1).map((m) => m.version))('from version %i', async (version) => {
    await dropReadpast(pool);
    await migrate(
      config!,
      MIGRATIONS.filter((m) => m.version <= version),
      undefined,
      { code: false },
    );
    const before = await fillEveryTable(pool);
    for (const [t, n] of Object.entries(before)) expect(n, t).toBeGreaterThan(0);
    const report = await migrate(config!, MIGRATIONS, undefined, { codeRetentionMs: 0 });
    expect(report.applied).toEqual(MIGRATIONS.filter((m) => m.version > version).map((m) => m.version));
    expect(await mssqlCatalog(pool)).toEqual(fresh);

    const store = await openMssqlStore(url!, { log: () => {}, wakeMs: 0 });
    try {
      expect(await store.reads.getTask(DONE_TOKEN)).toMatchObject({ status: 'succeeded', queue: UPGRADE_QUEUE });
      expect(await store.reads.getTask(PENDING_TOKEN)).toMatchObject({ status: 'pending', command: 'demo.echo' });
      await store.reads.listWorkers();
      await store.reads.listQueues();
      await store.reads.listSchedules(5);
      await store.reads.listAudit({ limit: 10 });
      const worker = new Pool(store, defaultRegistry(), { concurrency: 1, leaseMs: 10_000, heartbeatMs: 500, pollMs: 50 });
      await worker.start();
      try {
        const deadline = Date.now() + 60_000;
        for (;;) {
          const t = await store.reads.getTask(PENDING_TOKEN);
          if (t?.status === 'succeeded') break;
          if (Date.now() > deadline) throw new Error(`the migrated pending task did not finish: ${JSON.stringify(t)}`);
          await new Promise((r) => setTimeout(r, 100));
        }
      } finally {
        await worker.stop(0);
      }
    } finally {
      await store.close();
    }
  });

  it('hot procedures of an earlier readpast are retired once no worker uses them', async () => {
    // a database that went through migrations 17–20 as they were had Claim_v20 & co.: one stands in for them
    await pool.request().batch('CREATE OR ALTER PROCEDURE readpast.Claim_v20 AS BEGIN SELECT 1 AS x; END;');
    const first = await migrate(config!, MIGRATIONS, undefined, { codeRetentionMs: 3_600_000 });
    expect(first.dropped).toEqual([]);
    const later = await migrate(config!, MIGRATIONS, undefined, { codeRetentionMs: 0 });
    expect(later.dropped).toEqual(['readpast.Claim_v20']);
    expect(await mssqlCatalog(pool)).toEqual(fresh);
  });
});
