// A store opened on a fresh stand-in TDS endpoint (fake-tds.ts), as the wire tests open one, and the
// closing of every store and endpoint opened so, for a test file's afterEach.
import { openMssqlStore, type MssqlStore, type MssqlStoreOptions } from '../store';
import { FakeTds, sessionRow, type FakeReplier } from './fake-tds';

export interface FakeStore {
  tds: FakeTds;
  store: MssqlStore;
}

const endpoints = new Set<FakeTds>();
const stores = new Set<MssqlStore>();

/** The session tag (sql/session.ts) answered as the login and database user `app`; every other request by `reply`. */
export function asApp(reply: FakeReplier = () => undefined): FakeReplier {
  return (req, conn) =>
    req.text.includes('SET CONTEXT_INFO @tag') ? { sets: [sessionRow(conn, { login_name: 'app', user_name: 'app' })] } : reply(req, conn);
}

/**
 * A new endpoint answering with `reply`, listening; `before`: set it up first (latency, recording of transactions).
 * A store opened on it: quiet, without migrating, unless `opts` says otherwise (`opts` as openMssqlStore's).
 */
export async function openFakeStore(reply: FakeReplier, opts: MssqlStoreOptions = {}, before?: (tds: FakeTds) => void): Promise<FakeStore> {
  const tds = new FakeTds(reply);
  before?.(tds);
  endpoints.add(tds);
  await tds.start();
  const store = await openMssqlStore(tds.url(), { log: () => {}, migrate: false, ...opts });
  stores.add(store);
  return { tds, store };
}

/** For afterEach: close every store openFakeStore opened (an error closing is no concern here), then stop their endpoints. */
export async function closeFakeStores(): Promise<void> {
  for (const store of stores) await store.close().catch(() => {});
  stores.clear();
  for (const tds of endpoints) await tds.stop();
  endpoints.clear();
}

/**
 * closeFakeStores, after stopping `pool` (a worker pool on one of the stores: null, or one stopped already, is
 * nothing to stop) with no grace, an error stopping it no concern here.
 */
export async function closeFakeStoresAfter(pool: { stop(graceMs: number): Promise<unknown> } | null): Promise<void> {
  await pool?.stop(0).catch(() => {});
  await closeFakeStores();
}
