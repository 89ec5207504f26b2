// What a pool is configured with: its options and their defaults, the claim-ahead bounds, and what it needs
// of a store (PoolPorts).
import type { Logger } from './logger';
import type { MaintenancePort, StoreCapabilities, WorkerPort } from './ports';

export interface PoolOptions {
  concurrency: number;
  leaseMs: number;
  heartbeatMs: number;
  pollMs: number;
  role: string;
  queues?: string[];
  shutdownGraceMs: number;
  maintenance: boolean;
  retentionMs: number;
  /**
   * Tasks a pool may claim ahead of its idle workers, spread over them, while its attempts are short (see
   * PREFETCH_BELOW_MS), and never more than PREFETCH_HOLD_MS of work per worker at their average run time: a
   * pool of 4 then pays one claim transaction per many tasks. A prefetched task is running with a lease in the
   * store; its worker starts it as soon as the task before it ends. 0: never.
   * Default: the store's (StoreCapabilities.prefetch: PREFETCH_SQLITE on SQLite, whose one claim transaction
   * serves every slot; 0 on SQL Server, which does not claim ahead).
   */
  prefetch: number;
  logger: Logger;
}

export const POOL_DEFAULTS: Omit<PoolOptions, 'logger'> = {
  concurrency: 4,
  leaseMs: 30_000,
  heartbeatMs: 1_000,
  pollMs: 500,
  role: 'worker',
  shutdownGraceMs: 10_000,
  maintenance: true,
  retentionMs: 7 * 24 * 3600 * 1000,
  prefetch: 0,
};

/**
 * At most this much work (ms, at the recent average run time) is claimed ahead per worker: what a prefetched
 * task can wait behind its worker's earlier ones, and what another process's idle workers cannot take meanwhile.
 */
export const PREFETCH_HOLD_MS = 50;

/**
 * Claim ahead only while attempts take less than this on average (ms): a prefetched task waits for the one
 * before it, so longer ones would sit claimed while another process could run them.
 */
export const PREFETCH_BELOW_MS = 2;

/** What a pool needs of a store: a Store satisfies it. */
export interface PoolPorts {
  worker: WorkerPort;
  maintenance: MaintenancePort;
  /** printed in the pool's start line */
  description: string;
  /** what the store supports (a Store has it): its `prefetch` is the pool's default */
  capabilities?: Pick<StoreCapabilities, 'prefetch'>;
}
