// The code-object step over the wire (the real mssql/tedious driver against the stand-in TDS endpoint,
// test-support/fake-tds.ts, which plays a database whose catalog the test keeps): migrate installs every
// procedure and view once, records it, grants the role; a second migrate sends no DDL; a changed statement
// installs only its own new name; a stable name a newer readpast installed is kept; the names the server
// reports unused are dropped and said; a worker records the names it calls and refuses to start, naming them
// and both versions, when they are not installed.
import { afterEach, describe, expect, it } from 'vitest';
import { CODE_OBJECTS } from './code-objects';
import { MIGRATIONS, SCHEMA_HEAD } from './schema';
import { CALLER_ROLE } from './sql/callers';
import { CODE_DROP, CODE_RETIRE_CANDIDATES, CODE_STATE } from './sql/code-objects';
import { HOT, HOT_BARE_NAMES, hotBareName } from './sql/hot';
import { MIGRATE_BEGIN, MIGRATE_VERSIONS } from './sql/migrations';
import { SERVER_PROBE } from './sql/server';
import type { MssqlStore } from './store';
import { sessionRow, type FakeConnection, type FakeReply, type FakeRequest, type FakeTds } from './test-support/fake-tds';
import { closeFakeStores, openFakeStore } from './test-support/fake-store';
import { serverProbeReply } from './test-support/replies';

let tds: FakeTds;

afterEach(closeFakeStores);

const PROBE = serverProbeReply(false);

interface Row {
  hash: string;
  kind: string;
  schemaVersion: number;
}

/**
 * A database at the schema head whose catalog of code objects is `catalog` (name → row): a CREATE OR ALTER of
 * one of readpast's objects records it, as CODE_RECORD would; `retire` is what CODE_RETIRE_CANDIDATES answers.
 */
function database(catalog: Map<string, Row>, opts: { roleExists?: boolean; granted?: string[]; retire?: string[] } = {}) {
  let granted = new Set(opts.granted ?? []);
  let roleExists = opts.roleExists ?? true;
  return (req: FakeRequest, conn: FakeConnection): FakeReply | undefined => {
    const t = req.text;
    if (t.includes('SET CONTEXT_INFO @tag')) return { sets: [sessionRow(conn, { login_name: 'app', user_name: 'app' })] };
    if (t.includes(SERVER_PROBE.slice(0, 80))) return PROBE;
    if (t.includes(MIGRATE_VERSIONS)) return { sets: [{ columns: [['version', 'int']], rows: MIGRATIONS.map((m) => [m.version]) }] };
    const created = /^CREATE OR ALTER (?:PROCEDURE|VIEW) readpast\.(\w+)/.exec(t);
    if (created) {
      const o = CODE_OBJECTS.find((x) => x.name === created[1]);
      if (o) catalog.set(o.name, { hash: o.hash, kind: o.kind, schemaVersion: SCHEMA_HEAD });
      return undefined;
    }
    if (t.startsWith(`IF DATABASE_PRINCIPAL_ID(N'${CALLER_ROLE}') IS NULL`)) roleExists = true;
    const grant = /^GRANT (\w+) ON readpast\.(\w+) TO/.exec(t);
    if (grant) granted = new Set([...granted, `${grant[2]}:${grant[1]}`]);
    if (t.includes(CODE_STATE.slice(0, 200))) {
      return {
        sets: [
          {
            columns: [
              ['name', 'nvarchar'],
              ['kind', 'nvarchar'],
              ['hash', 'nvarchar'],
              ['schema_version', 'int'],
              ['present', 'int'],
            ],
            rows: [...catalog].map(([name, r]) => [name, r.kind, r.hash, r.schemaVersion, 1]),
          },
          {
            columns: [
              ['name', 'nvarchar'],
              ['permission', 'nvarchar'],
            ],
            rows: [...granted].map((g) => g.split(':')),
          },
          { columns: [['role_exists', 'int']], rows: [[roleExists ? 1 : 0]] },
        ],
      };
    }
    if (t.includes(CODE_RETIRE_CANDIDATES.slice(0, 200)))
      return { sets: [{ columns: [['name', 'nvarchar']], rows: (opts.retire ?? []).map((n) => [n]) }] };
    return undefined;
  };
}

const ddl = (requests: FakeRequest[]) => requests.filter((r) => /^(CREATE OR ALTER|GRANT|IF DATABASE_PRINCIPAL_ID)/.test(r.text));

/** A store on `reply`'s database, migrated at open. */
async function openOn(reply: ReturnType<typeof database>): Promise<MssqlStore> {
  const opened = await openFakeStore(reply, { migrate: true, wakeMs: 0 });
  tds = opened.tds;
  return opened.store;
}

describe('migrate installs the code objects by content', () => {
  it('each once, recorded, with the role and its grants; a second migrate sends no DDL', async () => {
    const catalog = new Map<string, Row>();
    const s = await openOn(database(catalog, { roleExists: false }));
    const first = ddl(tds.requests());
    for (const o of CODE_OBJECTS)
      expect(
        first.filter((r) => r.text === o.text),
        o.name,
      ).toHaveLength(1);
    expect(first.filter((r) => r.text.startsWith('GRANT')).map((r) => r.text)).toHaveLength(CODE_OBJECTS.filter((o) => o.grant).length);
    expect(first.some((r) => r.text.startsWith('IF DATABASE_PRINCIPAL_ID'))).toBe(true);
    // each install is one transaction with its catalog row
    expect(tds.requests().filter((r) => r.text === MIGRATE_BEGIN)).toHaveLength(CODE_OBJECTS.length);
    expect([...catalog.keys()].sort()).toEqual(CODE_OBJECTS.map((o) => o.name).sort());

    const before = tds.requests().length;
    const again = await s.migrate();
    expect(again).toEqual({ applied: [], installed: [], dropped: [] });
    expect(ddl(tds.requests().slice(before))).toEqual([]);
    expect(
      tds
        .requests()
        .slice(before)
        .filter((r) => r.text === MIGRATE_BEGIN),
    ).toEqual([]);
  });

  it('a changed statement: only its new name is installed, beside the old one', async () => {
    const catalog = new Map<string, Row>(CODE_OBJECTS.map((o) => [o.name, { hash: o.hash, kind: o.kind, schemaVersion: SCHEMA_HEAD }]));
    // the database has the claim of another text (a release before), not this code's
    catalog.delete(hotBareName(HOT.claim));
    catalog.set('Claim_0badc0de', { hash: 'f'.repeat(64), kind: 'hot', schemaVersion: SCHEMA_HEAD });
    const granted = CODE_OBJECTS.filter((o) => o.grant).map((o) => `${o.name}:${o.grant}`);
    const s = await openOn(database(catalog, { granted }));
    expect(ddl(tds.requests()).map((r) => r.text)).toEqual([CODE_OBJECTS.find((o) => o.name === hotBareName(HOT.claim))!.text]);
    expect(catalog.has('Claim_0badc0de')).toBe(true);
    expect(await s.migrate()).toEqual({ applied: [], installed: [], dropped: [] });
  });

  it('a stable name changed by a newer readpast is kept; one changed by an older one is installed again', async () => {
    const catalog = new Map<string, Row>(CODE_OBJECTS.map((o) => [o.name, { hash: o.hash, kind: o.kind, schemaVersion: SCHEMA_HEAD }]));
    catalog.set('ExecAsync', { hash: 'a'.repeat(64), kind: 'procedure', schemaVersion: SCHEMA_HEAD + 1 });
    catalog.set('CancelTask', { hash: 'b'.repeat(64), kind: 'procedure', schemaVersion: SCHEMA_HEAD - 1 });
    const granted = CODE_OBJECTS.filter((o) => o.grant).map((o) => `${o.name}:${o.grant}`);
    const s = await openOn(database(catalog, { granted }));
    expect(ddl(tds.requests()).map((r) => /readpast\.(\w+)/.exec(r.text)![1])).toEqual(['CancelTask']);
    expect(catalog.get('ExecAsync')!.hash).toBe('a'.repeat(64));
    expect((await s.migrate()).installed).toEqual([]);
  });

  it('drops the hot procedures the server reports unused, says which, and keeps this code’s names', async () => {
    const catalog = new Map<string, Row>(CODE_OBJECTS.map((o) => [o.name, { hash: o.hash, kind: o.kind, schemaVersion: SCHEMA_HEAD }]));
    const granted = CODE_OBJECTS.filter((o) => o.grant).map((o) => `${o.name}:${o.grant}`);
    const s = await openOn(database(catalog, { granted, retire: ['Claim_v17', 'Enqueue_v19'] }));
    const report = await s.migrate();
    expect(report.dropped).toEqual(['readpast.Claim_v17', 'readpast.Enqueue_v19']);
    const drops = tds.requests().filter((r) => r.text.includes(CODE_DROP.slice(0, 120)));
    expect(drops.filter((r) => r.text.includes('Claim_v17'))).toHaveLength(2);
    expect(drops.filter((r) => r.text.includes('Enqueue_v19'))).toHaveLength(2);
    // the candidates are asked with this code's names to keep and the retention in seconds
    const asked = tds.requests().filter((r) => r.text.includes(CODE_RETIRE_CANDIDATES.slice(0, 200)));
    expect(asked.length).toBeGreaterThan(0);
    for (const n of HOT_BARE_NAMES) expect(asked.at(-1)!.text).toContain(n);
  });
});

describe('a narrower login migrating on start (a worker’s)', () => {
  it('with everything installed, tries no role, no grant, and a drop it may not do is logged, not fatal', async () => {
    const catalog = new Map<string, Row>(CODE_OBJECTS.map((o) => [o.name, { hash: o.hash, kind: o.kind, schemaVersion: SCHEMA_HEAD }]));
    // it sees neither the role nor its grants (no VIEW DEFINITION), and may not drop procedures
    const base = database(catalog, { roleExists: false, granted: [], retire: ['Claim_v17'] });
    const lines: string[] = [];
    const { tds, store } = await openFakeStore(
      (req, conn) =>
        req.text.includes(CODE_DROP.slice(0, 120))
          ? {
              error: {
                number: 3701,
                message: "Cannot drop the procedure 'readpast.Claim_v17', because it does not exist or you do not have permission.",
              },
            }
          : base(req, conn),
      { log: (m) => lines.push(m), migrate: true, wakeMs: 0 },
    );
    expect(ddl(tds.requests())).toEqual([]);
    expect(lines.some((l) => /could not drop readpast\.Claim_v17, unused for the retention: Cannot drop/.test(l))).toBe(true);
    expect(await store.migrate()).toEqual({ applied: [], installed: [], dropped: [] });
  });
});

describe('a worker and the code it was built with', () => {
  it('records the hot procedures it calls when it registers', async () => {
    const catalog = new Map<string, Row>(CODE_OBJECTS.map((o) => [o.name, { hash: o.hash, kind: o.kind, schemaVersion: SCHEMA_HEAD }]));
    const s = await openOn(database(catalog, { granted: CODE_OBJECTS.filter((o) => o.grant).map((o) => `${o.name}:${o.grant}`) }));
    await s.worker.registerWorker({ workerId: 'w-code', host: 'h', pid: 1, role: 'test' });
    const register = tds.requests().find((r) => r.text.includes('INSERT INTO readpast.Workers'));
    expect(register?.text).toContain(JSON.stringify(HOT_BARE_NAMES));
  });

  it('whose procedures are not installed does not start: it says to migrate, naming them and both versions', async () => {
    const base = database(new Map(CODE_OBJECTS.map((o) => [o.name, { hash: o.hash, kind: o.kind, schemaVersion: SCHEMA_HEAD }])));
    const { store } = await openFakeStore(
      (req, conn) =>
        req.text.includes('INSERT INTO readpast.Workers')
          ? { error: { number: 51901, message: `readpast schema version ${SCHEMA_HEAD - 1}` } }
          : base(req, conn),
      { wakeMs: 0 },
    );
    const err = await store.worker.registerWorker({ workerId: 'w-old', host: 'h', pid: 1, role: 'test' }).catch((e: Error) => e);
    expect((err as Error).name).toBe('SchemaMissingError');
    expect((err as Error).message).toContain(`this readpast (schema version ${SCHEMA_HEAD}) calls readpast.${hotBareName(HOT.enqueue)}`);
    expect((err as Error).message).toContain(`(schema version ${SCHEMA_HEAD - 1}): run \`readpast migrate\` with this readpast`);
  });
});
