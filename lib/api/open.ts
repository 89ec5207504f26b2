// Wiring: a database URL → the Store of its dialect, migrated; and the Readpast facade over it.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Readpast } from './readpast';
import { HandlerRegistry, defaultRegistry, type Handler } from '../engine/handlers';
import type { Logger } from '../engine/logger';
import type { Store } from '../engine/ports';
import { isMssqlUrl } from '../../db/mssql/url';

export const DEFAULT_DATABASE_URL = 'sqlite:data/readpast.db';

export function databaseUrl(url?: string): string {
  return url ?? process.env.READPAST_DATABASE_URL ?? DEFAULT_DATABASE_URL;
}

/** Open (and migrate) the store a URL names: `sqlite:<path>`, `mssql://…` or an ADO connection string. */
export async function openStore(url?: string, opts: { logger?: Logger } = {}): Promise<Store> {
  const u = databaseUrl(url);
  if (u.startsWith('sqlite:')) {
    const path = u.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (!path) throw new Error('READPAST_DATABASE_URL: sqlite: needs a file path, e.g. sqlite:data/readpast.db');
    const { openSqliteStore } = await import('../../db/sqlite/store');
    return openSqliteStore(path);
  }
  if (isMssqlUrl(u)) {
    const { openMssqlStore } = await import('../../db/mssql/store');
    const logger = opts.logger;
    return openMssqlStore(u, {
      log: logger && ((message, err) => logger.warn({ err: err instanceof Error ? err.message : err }, message)),
    });
  }
  throw new Error('READPAST_DATABASE_URL: expected sqlite:<path>, mssql://… or an ADO string (Server=…;Database=…)');
}

export type HandlerModule = ((registry: HandlerRegistry) => void | Promise<void>) | Record<string, Handler>;

/** Import a user module of handlers: a default (or `register`) export `(registry) => void`, or an object name → function. */
export async function loadHandlers(registry: HandlerRegistry, modulePath: string): Promise<void> {
  // a user module is loaded by Node at run time, never bundled
  const url = pathToFileURL(resolve(modulePath)).href;
  const mod = (await import(/* webpackIgnore: true */ /* turbopackIgnore: true */ url)) as Record<string, unknown>;
  const entry = (mod.register ?? mod.default ?? mod) as unknown;
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

export interface OpenOptions {
  url?: string;
  registry?: HandlerRegistry;
  logger?: Logger;
  /** a module of user handlers to register (see loadHandlers) */
  handlersModule?: string;
}

export async function openReadpast(opts: OpenOptions = {}): Promise<Readpast> {
  const registry = opts.registry ?? defaultRegistry();
  if (opts.handlersModule) await loadHandlers(registry, opts.handlersModule);
  const store = await openStore(opts.url, { logger: opts.logger });
  return new Readpast(store, { registry, logger: opts.logger });
}
