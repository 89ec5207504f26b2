// One engine per server process: the Readpast facade over the configured store and this process's
// worker pool. Kept on globalThis because Next.js loads instrumentation, route handlers and server
// actions as separate bundles that must all share the same instance.
import os from 'node:os';
import type { Readpast } from '@/lib/api/readpast';
import type { Pool } from '@/lib/engine/pool';
import type { Logger } from '@/lib/engine/logger';
import { openReadpast } from '@/lib/api/open';
import { loadDeclaredSchedules } from '@/lib/api/schedules';
import { ConflictError } from '@/lib/engine/errors';
import { parseWith } from '@/lib/engine/validation';
import { poolSize } from '@/lib/api/requests';
import { MAX_DASHBOARD_WORKERS } from '@/lib/engine/limits';
import { serverConfig, type ServerConfig } from './config';
import { serverLogger } from './log';
import { markShuttingDown, ShuttingDownError } from './shutdown';

export interface ServerEngine {
  readpast: Readpast;
  /** this process's pool; always present (size 0 when READPAST_WORKERS=0) */
  pool: Pool | null;
  config: ServerConfig;
  /** where the pool's start size came from: READPAST_WORKERS, or the size stored by a resize (PoolSettings) */
  poolSource: PoolSource;
}

export type PoolSource = { from: 'env'; size: number } | { from: 'stored'; size: number; by: string; at: string };

export interface PoolInfo {
  size: number;
  /** workers a shrink asked to leave, still finishing their task */
  retiring: number;
  role: string;
  host: string;
  pid: number;
  /** READPAST_WORKERS, or the size set on the Workers page (it survives a restart) */
  source: PoolSource;
}

export const POOL_ROLE = 'web';

const KEY = Symbol.for('readpast.server.engine');

interface Slot {
  engine?: Promise<ServerEngine>;
  started?: Promise<ServerEngine>;
  stopped?: Promise<void>;
  /** a short-lived pool of POST /api/engine/drain, stopped with the engine */
  drainPool?: Pool;
}

function slot(): Slot {
  const g = globalThis as { [KEY]?: Slot };
  return (g[KEY] ??= {});
}

/** The pool logs its own start and stop lines; the dashboard's lines (boot.ts) say the same, so those are quieter. */
function poolLogger(logger: Logger): Logger {
  return {
    debug: (o, m) => logger.debug(o, m),
    info: (o, m) => (m === 'pool started' || m === 'pool stopped' ? logger.debug(o, m) : logger.info(o, m)),
    warn: (o, m) => logger.warn(o, m),
    error: (o, m) => logger.error(o, m),
  };
}

/**
 * The size this host's dashboard pool starts with: the one stored by the last resize (Workers page,
 * PATCH /api/pool) wins over READPAST_WORKERS, which is the size until one was set.
 */
async function startSize(readpast: Readpast, config: ServerConfig): Promise<PoolSource> {
  const stored = await readpast.poolSetting(os.hostname(), POOL_ROLE).catch((err: unknown) => {
    serverLogger().warn({ err }, 'could not read the stored pool size; starting with READPAST_WORKERS');
    return null;
  });
  if (!stored || stored.size > MAX_DASHBOARD_WORKERS) return { from: 'env', size: config.workers };
  return { from: 'stored', size: stored.size, by: stored.updatedBy, at: stored.updatedAt.toISOString() };
}

async function open(): Promise<ServerEngine> {
  const config = serverConfig();
  const logger = serverLogger();
  const readpast = await openReadpast({
    url: config.databaseUrl,
    logger,
    ...(config.handlersModule ? { handlersModule: config.handlersModule } : {}),
    webhooks: { allow: config.webhookAllow ?? '' },
  });
  const poolSource = await startSize(readpast, config);
  const pool = readpast.createPool({ concurrency: poolSource.size, role: POOL_ROLE, logger: poolLogger(logger) });
  return { readpast, pool, config, poolSource };
}

/** The process's engine, opened (and the database migrated) on first use; refused (503) once the server is stopping. */
export function getEngine(): Promise<ServerEngine> {
  const s = slot();
  if (s.stopped) return Promise.reject(new ShuttingDownError());
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
    return engine;
  });
  return s.started;
}

/** Stop the pool (running tasks get `graceMs` to finish) and close the store; idempotent. */
export function stopEngine(graceMs?: number): Promise<void> {
  const s = slot();
  const engine = s.engine;
  markShuttingDown();
  s.stopped ??= (async () => {
    if (!engine) return;
    const e = await engine.catch(() => null);
    if (!e) return;
    try {
      await Promise.all([e.pool?.stop(graceMs), s.drainPool?.stop(graceMs)]);
    } finally {
      await e.readpast.close();
    }
  })();
  return s.stopped;
}

/** Keep a drain's short-lived pool known, so a stop of the server stops it before the store closes. */
export function trackDrainPool(pool: Pool | null): void {
  slot().drainPool = pool ?? undefined;
}

export function poolInfo(engine: Pick<ServerEngine, 'pool' | 'poolSource'>): PoolInfo | null {
  const { pool } = engine;
  if (!pool) return null;
  return { size: pool.size, retiring: pool.retiring, role: POOL_ROLE, host: os.hostname(), pid: process.pid, source: engine.poolSource };
}

/**
 * Resize this process's pool live (`workers`: 0…MAX_DASHBOARD_WORKERS, validated here) and store the size for
 * this host (the pool starts with it after a restart); recorded in the audit trail as `pool.resize` with the
 * size before and after.
 */
export async function resizePool(engine: ServerEngine, workers: unknown): Promise<PoolInfo> {
  const n = parseWith(poolSize, workers, 'workers');
  const { pool, readpast } = engine;
  if (!pool) throw new ConflictError('this server has no worker pool');
  const before = pool.size;
  await pool.resize(n);
  const host = os.hostname();
  await readpast.savePoolSize({ host, role: POOL_ROLE, size: n, before });
  const stored = await readpast.poolSetting(host, POOL_ROLE);
  if (stored) engine.poolSource = { from: 'stored', size: stored.size, by: stored.updatedBy, at: stored.updatedAt.toISOString() };
  return poolInfo(engine)!;
}
