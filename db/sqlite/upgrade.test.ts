// The upgrade path on SQLite, for real: a file built at every earlier schema version from the frozen migrations,
// with a row in every table of that version, migrated to the head by today's store (and its code-object step),
// has the catalog of a fresh file — tables and columns with their types, indexes with their partial filters,
// constraints, views and triggers by the hash of their text — and its rows stay readable and runnable: the
// pending task it held is claimed and finished by today's pool. Then the same from files built by older code:
// the migrations' texts as they were at earlier commits of the repository (read from git), among them migration
// 15 as it was first released (Tasks_flow on (flow_id, status), which migration 17 remakes).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultRegistry } from '../../lib/engine/handlers';
import { Pool } from '../../lib/engine/pool';
import { migrate } from './migrations';
import { MIGRATIONS, type SqliteMigration } from './schema';
import { openSqliteStore } from './store';
import { DONE_TOKEN, fillEveryTable, PENDING_TOKEN, sqliteCatalog, tablesOf, UPGRADE_QUEUE } from './test-support/upgrade';

let dir: string;
let fresh: ReturnType<typeof sqliteCatalog>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'readpast-upgrade-'));
  const store = await openSqliteStore(join(dir, 'fresh.db'));
  await store.close();
  const db = new Database(join(dir, 'fresh.db'), { readonly: true });
  fresh = sqliteCatalog(db);
  db.close();
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A file with `migrations` applied as a readpast of that time applied them (no code-object step), and a row in every table. */
async function buildAt(path: string, migrations: readonly SqliteMigration[]): Promise<Record<string, number>> {
  const db = new Database(path);
  try {
    await migrate(db, migrations, { code: false });
    return fillEveryTable(db);
  } finally {
    db.close();
  }
}

/** Migrate with today's store, compare with a fresh file, read every row kind, run the pending task. */
async function upgradeAndCheck(path: string, before: Record<string, number>): Promise<void> {
  const store = await openSqliteStore(path);
  try {
    const db = new Database(path, { readonly: true });
    try {
      expect(sqliteCatalog(db)).toEqual(fresh);
      // no row lost
      for (const [table, n] of Object.entries(before)) {
        const now = (db.prepare(`SELECT COUNT(*) AS n FROM "${table}"`).get() as { n: number }).n;
        expect(now, table).toBeGreaterThanOrEqual(n);
      }
    } finally {
      db.close();
    }
    // readable through today's reads
    expect(await store.reads.getTask(DONE_TOKEN)).toMatchObject({ status: 'succeeded', queue: UPGRADE_QUEUE });
    expect(await store.reads.getTask(PENDING_TOKEN)).toMatchObject({ status: 'pending', command: 'demo.echo' });
    expect((await store.reads.listTasks({ limit: 10 })).items.length).toBeGreaterThanOrEqual(2);
    expect((await store.reads.listAttempts({ limit: 10 })).items.length).toBeGreaterThanOrEqual(1);
    expect((await store.reads.listQueues()).map((q) => q.name)).toContain(UPGRADE_QUEUE);
    await store.reads.listWorkers();
    await store.reads.listSchedules(5);
    await store.reads.listAudit({ limit: 10 });
    await store.reads.listAlertRules();
    await store.reads.countsByQueue();
    // and runnable: today's pool claims the pending task and finishes it
    const pool = new Pool(store, defaultRegistry(), { concurrency: 1, leaseMs: 5000, heartbeatMs: 250, pollMs: 25 });
    await pool.start();
    try {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const t = await store.reads.getTask(PENDING_TOKEN);
        if (t?.status === 'succeeded') {
          expect(t.result).toEqual({ upgraded: true });
          break;
        }
        if (Date.now() > deadline) throw new Error(`the migrated pending task did not finish: ${JSON.stringify(t)}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    } finally {
      await pool.stop(0);
    }
  } finally {
    await store.close();
  }
}

describe('SQLite: every earlier schema version upgrades to the catalog of a fresh file', () => {
  const earlier = MIGRATIONS.slice(0, -1).map((m) => m.version);

  it('the fill puts a row in every table, and the comparison sees a difference', async () => {
    const path = join(dir, 'probe.db');
    const counts = await buildAt(path, MIGRATIONS);
    const db = new Database(path);
    try {
      expect(Object.keys(counts).sort()).toEqual(tablesOf(db).sort());
      for (const [t, n] of Object.entries(counts)) expect(n, t).toBeGreaterThan(0);
      // a catalog with one index's filter changed is not the fresh one
      db.exec('DROP INDEX Tasks_flow; CREATE INDEX Tasks_flow ON Tasks(flow_id, status) WHERE flow_id IS NOT NULL;');
      expect(sqliteCatalog(db)).not.toEqual(sqliteCatalog(new Database(join(dir, 'fresh.db'), { readonly: true })));
    } finally {
      db.close();
    }
  });

  it.each(earlier)('from version %i', async (version) => {
    const path = join(dir, `v${version}.db`);
    const before = await buildAt(
      path,
      MIGRATIONS.filter((m) => m.version <= version),
    );
    await upgradeAndCheck(path, before);
  });
});

// ---- files built by older code: the migrations' texts at earlier commits -----------------------------------

/**
 * Commits whose migration texts differ from today's or that mark a release: the first published version, the
 * merge of migration 14, migration 15 as first released, and the previous release.
 */
const HISTORY: readonly [commit: string, what: string][] = [
  ['e594e12', 'the first published version (0.1.0): migrations 1–13'],
  ['fa3a497', 'migration 14 merged'],
  ['f6a26a6', 'migration 15 as first released (Tasks_flow on flow_id, status)'],
  ['486a42a', 'the previous release: migrations 1–15'],
];

const ROOT = new URL('../../', import.meta.url).pathname;

function gitHas(commit: string): boolean {
  try {
    execFileSync('git', ['cat-file', '-e', `${commit}^{commit}`], { cwd: ROOT, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const history = HISTORY.filter(([c]) => gitHas(c));
if (history.length < HISTORY.length) {
  console.warn(
    `SKIPPED (loudly): ${HISTORY.length - history.length} of ${HISTORY.length} upgrades from older code — ` +
      'this checkout lacks their commits (a shallow clone or a package): git fetch --unshallow to run them',
  );
}

describe.skipIf(history.length === 0)('SQLite: files built by older code upgrade to the catalog of a fresh file', () => {
  it.each(history)('from %s (%s)', async (commit) => {
    // the migrations as that commit had them: its db/sqlite and lib/engine (migration 6 read SUM_COLS from there)
    const tree = join(dir, `tree-${commit}`);
    mkdirSync(tree, { recursive: true });
    const archive = execFileSync('git', ['archive', '--format=tar', commit, 'db/sqlite', 'lib/engine'], { cwd: ROOT, maxBuffer: 64 << 20 });
    execFileSync('tar', ['-x', '-C', tree], { input: archive });
    const old = (await import(join(tree, 'db/sqlite/schema.ts'))) as { MIGRATIONS: SqliteMigration[] };
    const path = join(dir, `code-${commit}.db`);
    const before = await buildAt(path, old.MIGRATIONS);
    await upgradeAndCheck(path, before);
  });
});
