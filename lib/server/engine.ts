// One engine per server process: the Readpast facade over the configured store and this process's
// worker pool. Kept on globalThis because Next.js loads instrumentation, route handlers and server
// actions as separate bundles that must all share the same instance.
import os from 'node:os';
import type { Readpast } from '@/lib/api/readpast';
import type { Pool } from '@/lib/engine/pool';
import { openReadpast } from '@/lib/api/open';
import { loadDeclaredSchedules } from '@/lib/api/schedules';
import { serverConfig, type ServerConfig } from './config';
import { serverLogger } from './log';

export interface ServerEngine {
  readpast: Readpast;
  /** this process's pool; always present (size 0 when READPAST_WORKERS=0) */
  pool: Pool | null;
  config: ServerConfig;
}

export interface PoolInfo {
  size: number;
  role: string;
  host: string;
  pid: number;
}

export const POOL_ROLE = 'web';

const KEY = Symbol.for('readpast.server.engine');

interface Slot {
  engine?: Promise<ServerEngine>;
  started?: Promise<ServerEngine>;
  stopped?: Promise<void>;
}

function slot(): Slot {
  const g = globalThis as { [KEY]?: Slot };
  return (g[KEY] ??= {});
}

async function open(): Promise<ServerEngine> {
  const config = serverConfig();
  const logger = serverLogger();
  const readpast = await openReadpast({
    url: config.databaseUrl,
    logger,
    ...(config.handlersModule ? { handlersModule: config.handlersModule } : {}),
  });
  const pool = readpast.createPool({ concurrency: config.workers, role: POOL_ROLE });
  return { readpast, pool, config };
}

/** The process's engine, opened (and the database migrated) on first use. */
export function getEngine(): Promise<ServerEngine> {
  const s = slot();
  if (s.stopped) return Promise.reject(new Error('the server is shutting down'));
  s.engine ??= open().catch((err: unknown) => {
    s.engine = undefined; // let a later request try again (database briefly unreachable)
    throw err;
  });
  return s.engine;
}

/** Start this process's pool; idempotent (instrumentation may be evaluated more than once). */
export function startEngine(): Promise<ServerEngine> {
  const s = slot();
  s.started ??= getEngine().then(async (engine) => {
    // READPAST_HANDLERS' `schedules` export, like `readpast worker --handlers` does
    const declared = engine.config.handlersModule ? await loadDeclaredSchedules(engine.config.handlersModule) : null;
    if (declared) serverLogger().info(await engine.readpast.declareSchedules(declared), 'schedules declared in code');
    await engine.pool?.start();
    serverLogger().info(
      { database: engine.readpast.description, workers: engine.pool?.size ?? 0, pid: process.pid },
      'readpast dashboard engine started',
    );
    return engine;
  });
  return s.started;
}

/** Stop the pool (running tasks get `graceMs` to finish) and close the store; idempotent. */
export function stopEngine(graceMs?: number): Promise<void> {
  const s = slot();
  const engine = s.engine;
  s.stopped ??= (async () => {
    if (!engine) return;
    const e = await engine.catch(() => null);
    if (!e) return;
    try {
      await e.pool?.stop(graceMs);
    } finally {
      await e.readpast.close();
    }
  })();
  return s.stopped;
}

export function poolInfo(pool: Pool | null): PoolInfo | null {
  if (!pool) return null;
  return { size: pool.size, role: POOL_ROLE, host: os.hostname(), pid: process.pid };
}
