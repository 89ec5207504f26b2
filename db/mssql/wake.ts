// The wake-up long poll (sql/wake.ts): one per process, started when a worker pool first listens for
// wake-ups (WorkerPort.onWake) and stopped when the last stops listening or the store closes. A task
// another process enqueued (readpast.ExecAsync, a producer elsewhere) wakes this process's pool within
// about WAKE_STEP (100 ms) of its commit, instead of at the pool's next poll.
//
// Cost: one connection per process (not per worker) and, while idle, one round trip per `waitMs` (1 s)
// doing about ten one-row seeks on the server. The connection holds no lock and no transaction (see
// sql/wake.ts), so it can never block a claim.
import { sql, type Logger, type Shared } from './connection';
import { WAKE_POLL } from './sql/wake';
import { toConfig } from './url';

export interface WakeOptions {
  /** how long one poll may wait on the server before it returns (ms); 0: no long poll at all */
  waitMs?: number;
  /** pause after a failed poll (ms) */
  retryMs?: number;
}

export const WAKE_WAIT_MS = 1000;

/** The least time between two polls that found nothing new. */
const MIN_GAP_MS = 100;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class WakePoller {
  private readonly listeners = new Set<() => void>();
  private request: { cancel(): void } | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;
  /** each start a new generation: a loop of an earlier one ends (its poll may still be finishing) */
  private generation = 0;
  private pool: ReturnType<Shared['openPool']> | null = null;
  private readonly waitMs: number;
  private readonly retryMs: number;

  constructor(
    private readonly shared: Shared,
    private readonly log: Logger,
    opts: WakeOptions = {},
  ) {
    this.waitMs = opts.waitMs ?? WAKE_WAIT_MS;
    this.retryMs = opts.retryMs ?? 1000;
  }

  /** WorkerPort.onWake: the in-process wake-ups and this poll's. */
  subscribe(listener: () => void): () => void {
    const off = this.shared.onWake(listener);
    this.listeners.add(listener);
    if (this.listeners.size === 1 && this.waitMs > 0) this.start();
    return () => {
      off();
      this.listeners.delete(listener);
      if (this.listeners.size === 0) void this.stop();
    };
  }

  private start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.running = this.loop(++this.generation);
  }

  private async loop(generation: number): Promise<void> {
    const live = () => !this.stopped && generation === this.generation;
    let last: number | null = null;
    while (live()) {
      try {
        this.pool ??= this.shared.openPool(
          // a poll waits ≤ waitMs, or for an uncommitted insert (sql/wake.ts); past a minute it is simply sent again
          toConfig(this.shared.target, { appName: 'readpast wake', pool: { min: 0, max: 1 }, requestTimeout: 60_000 }),
          'wake-up poll',
        );
        const pool = await this.pool.connect();
        const sent = Date.now();
        const req = pool.request();
        req.input('last', sql.BigInt, last);
        req.input('wait_ms', sql.Int, this.waitMs);
        this.request = req;
        const r = await req.query<{ top_id: number | string; ready: boolean | number | null }>(WAKE_POLL);
        this.request = null;
        const top = Number(r.recordset[0]?.top_id ?? 0);
        // only a new task that is ready now wakes the pool (sql/wake.ts): new rows none of which it could take cost no claim
        const woke = last !== null && top > last && Boolean(r.recordset[0]?.ready);
        if (woke && live()) this.shared.wake();
        // an answer with nothing new long before waitMs (not what the server does): never a busy loop
        if (!woke && last !== null && Date.now() - sent < MIN_GAP_MS) await sleep(MIN_GAP_MS);
        last = top;
      } catch (err) {
        this.request = null;
        if (!live()) return;
        // blocked past the request timeout behind a long uncommitted insert (sql/wake.ts): simply look again
        if ((err as { code?: string }).code === 'ETIMEOUT') continue;
        this.log('wake-up poll failed; the pool still polls on its own', err);
        await sleep(this.retryMs);
      }
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.request?.cancel();
    this.request = null;
    const pool = this.pool;
    this.pool = null;
    if (pool) await pool.close().catch(() => {});
    await this.running?.catch(() => {});
    this.running = null;
  }

  async close(): Promise<void> {
    this.listeners.clear();
    await this.stop();
  }
}
