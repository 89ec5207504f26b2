// Wiring: a database URL → the Store of its dialect, migrated (or not: one-shot commands against a
// server skip it, see OpenOptions.migrate); and the Readpast facade over it.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { doctorJson, type DoctorJson } from './present';
import { Readpast } from './readpast';
import { HandlerRegistry, defaultRegistry, type Handler } from '../engine/handlers';
import { ConfigError } from '../engine/errors';
import type { Logger } from '../engine/logger';
import type { Store } from '../engine/ports';
import { webhookPolicy, type WebhookPolicyOptions } from '../engine/webhook-guard';
import type { HandlerMap, UntypedHandlers, WithBuiltins } from './typed';
import { isMssqlUrl, parseMssqlUrl } from '../../db/mssql/url';

export const DEFAULT_DATABASE_URL = 'sqlite:data/readpast.db';

export function databaseUrl(url?: string): string {
  return url ?? process.env.READPAST_DATABASE_URL ?? DEFAULT_DATABASE_URL;
}

/**
 * Open the store a URL names: `sqlite:<path>`, `mssql://…` or an ADO connection string, and migrate
 * it unless `migrate: false` (see OpenOptions.migrate).
 */
export async function openStore(
  url?: string,
  opts: { logger?: Logger; migrate?: boolean; checkSchema?: boolean; accessToken?: () => Promise<string> } = {},
): Promise<Store> {
  const u = databaseUrl(url);
  if (opts.accessToken !== undefined && !isMssqlUrl(u)) throw new Error('accessToken: only a SQL Server database signs in with a token');
  if (u.startsWith('sqlite:')) {
    const path = u.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (!path) throw new ConfigError('READPAST_DATABASE_URL: sqlite: needs a file path, e.g. sqlite:data/readpast.db');
    const { openSqliteStore } = await import('../../db/sqlite/store');
    return openSqliteStore(path);
  }
  if (isMssqlUrl(u)) {
    const { openMssqlStore } = await import('../../db/mssql/store');
    try {
      parseMssqlUrl(u);
    } catch (err) {
      // a URL or connection string that cannot be read is configuration, not a failure of the server
      throw new ConfigError(`READPAST_DATABASE_URL: ${err instanceof Error ? err.message : String(err)}`);
    }
    const logger = opts.logger;
    return openMssqlStore(u, {
      log: logger && ((message, err) => logger.warn({ err: err instanceof Error ? err.message : err }, message)),
      migrate: opts.migrate,
      checkSchema: opts.checkSchema,
      wakeMs: wakeMs(process.env.READPAST_WAKE_MS),
      accessToken: opts.accessToken,
    });
  }
  throw new ConfigError('READPAST_DATABASE_URL: expected sqlite:<path>, mssql://… or an ADO string (Server=…;Database=…)');
}

/**
 * READPAST_WAKE_MS (SQL Server): how long one wake-up long poll waits on the server (db/mssql/wake.ts);
 * 0 turns it off (then tasks other processes enqueue start at the pool's next poll). Unset: 1000.
 */
export function wakeMs(raw: string | undefined): number | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 60_000) throw new ConfigError('READPAST_WAKE_MS: 0 (off) or 1 to 60000 ms');
  return n;
}

const TSX = Symbol.for('readpast.tsx');

/**
 * A handlers module in TypeScript is loaded through tsx, registered here once, only then (readpast's own
 * code is compiled JavaScript; the repository's CLI has registered it already).
 */
async function registerTsx(): Promise<void> {
  const g = globalThis as { [TSX]?: boolean };
  if (g[TSX]) return;
  const esm = (await import(/* webpackIgnore: true */ /* turbopackIgnore: true */ 'tsx/esm/api')) as { register: () => unknown };
  const cjs = (await import(/* webpackIgnore: true */ /* turbopackIgnore: true */ 'tsx/cjs/api')) as { register: () => unknown };
  esm.register();
  // a TypeScript module outside an ESM package loads as CommonJS
  cjs.register();
  g[TSX] = true;
}

export type HandlerModule = ((registry: HandlerRegistry) => void | Promise<void>) | Record<string, Handler>;

/** Import a user module of handlers: a default (or `register`) export `(registry) => void`, or an object name → function. */
export async function loadHandlers(registry: HandlerRegistry, modulePath: string): Promise<void> {
  // a user module is loaded by Node at run time, never bundled
  const url = pathToFileURL(resolve(modulePath)).href;
  if (/\.[cm]?tsx?$/.test(modulePath)) await registerTsx();
  const mod = (await import(/* webpackIgnore: true */ /* turbopackIgnore: true */ url)) as Record<string, unknown>;
  // a module loaded as CommonJS (TypeScript outside an ESM package, through tsx) may come as its exports object
  // under `default`, its named exports not seen by Node: look for them there too
  const cjs = mod.default && typeof mod.default === 'object' ? (mod.default as Record<string, unknown>) : null;
  const entry = (mod.register ?? cjs?.register ?? cjs?.default ?? mod.default ?? mod) as unknown;
  if (typeof entry === 'function') {
    await (entry as (r: HandlerRegistry) => unknown)(registry);
    return;
  }
  if (entry && typeof entry === 'object') {
    let n = 0;
    for (const [name, fn] of Object.entries(entry as Record<string, unknown>)) {
      if (typeof fn === 'function') {
        registry.register(name, fn as Handler);
        n++;
      }
    }
    if (n > 0) return;
  }
  throw new Error(`${modulePath}: export a function (registry) => void, or an object of handler functions`);
}

export interface OpenOptions<H extends HandlerMap = UntypedHandlers> {
  url?: string;
  /**
   * Your handlers by command name, registered at open; enqueue and status are then typed by them
   * (lib/api/typed.ts): `openReadpast({ handlers: { 'billing.invoice': async (p: { id: number }) => … } })`.
   */
  handlers?: H;
  registry?: HandlerRegistry;
  logger?: Logger;
  /** a module of user handlers to register (see loadHandlers) */
  handlersModule?: string;
  /**
   * Create or upgrade a server's schema on open (default true). False for short commands against SQL
   * Server (enqueue, status, …): no migration check on the way — its lock, version reads and
   * connection cost more round trips than the command — and a schema that is not there fails with
   * "run readpast migrate". The embedded SQLite file is always brought up to date: that costs no
   * round trip, and a new file must work at once.
   */
  migrate?: boolean;
  /** where alert webhooks may point (ReadpastOptions.webhooks); default READPAST_WEBHOOK_ALLOW */
  webhooks?: WebhookPolicyOptions;
  /**
   * SQL Server with Microsoft Entra ID: a function that returns an access token (e.g. from
   * @azure/identity's `getToken('https://database.windows.net/.default')`), asked before each new
   * connection. `Authentication=Active Directory Access Token` in the URL, or no Authentication at all.
   */
  accessToken?: () => Promise<string>;
}

export async function openReadpast<H extends HandlerMap = UntypedHandlers>(opts: OpenOptions<H> = {}): Promise<Readpast<WithBuiltins<H>>> {
  // a bad READPAST_WEBHOOK_ALLOW is refused before the database is touched
  const webhooks = webhookPolicy(opts.webhooks);
  const registry = opts.registry ?? defaultRegistry();
  for (const [name, fn] of Object.entries(opts.handlers ?? {})) registry.register(name, fn as Handler);
  if (opts.handlersModule) await loadHandlers(registry, opts.handlersModule);
  const url = databaseUrl(opts.url);
  const store = await openStore(url, { logger: opts.logger, migrate: opts.migrate, accessToken: opts.accessToken });
  return new Readpast<WithBuiltins<H>>(store, { registry, logger: opts.logger, webhooks, url });
}

/**
 * `readpast doctor` for a URL, before (or instead of) opening it for work: a SQLite file is examined
 * where it is (a missing one is not created, none is migrated); a server's store is opened without
 * migrating and asked. A URL that cannot be read is itself the failing check.
 */
export async function diagnoseDatabase(
  url?: string,
  opts: { logger?: Logger; accessToken?: () => Promise<string> } = {},
): Promise<DoctorJson> {
  const u = databaseUrl(url);
  if (u.startsWith('sqlite:')) {
    const path = u.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (path) {
      const { diagnoseSqliteFile } = await import('../../db/sqlite/store');
      return doctorJson('sqlite', `sqlite:${path}`, await diagnoseSqliteFile(path));
    }
  }
  let store: Store;
  try {
    store = await openStore(u, { logger: opts.logger, migrate: false, checkSchema: false, accessToken: opts.accessToken });
  } catch (err) {
    const check = {
      id: 'connect',
      title: 'Database URL',
      ok: false,
      detail: err instanceof Error ? err.message : String(err),
      remedy: 'set READPAST_DATABASE_URL to sqlite:<path>, mssql://user:password@host:1433/database or an ADO string (Server=…;Database=…)',
      needed: true,
    };
    return doctorJson(u.startsWith('sqlite:') ? 'sqlite' : isMssqlUrl(u) ? 'mssql' : null, 'READPAST_DATABASE_URL', [check]);
  }
  try {
    return await new Readpast(store, { logger: opts.logger }).doctor();
  } finally {
    await store.close();
  }
}
