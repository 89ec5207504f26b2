// Shared scaffolding of the conformance suite: a fresh store per test and small helpers that
// speak only the Store interface.
import { afterEach, beforeEach, expect } from 'vitest';
import type { Store } from '../../lib/engine/ports';
import type {
  ClaimedTask,
  EnqueueInput,
  ErrorInfo,
  QueueCounts,
  Settlement,
  TaskDetail,
  TaskStatus,
  WorkerSlot,
} from '../../lib/engine/types';

export interface StoreUnderTest {
  store: Store;
  cleanup: () => Promise<void>;
}

/** Builds a fresh, migrated, empty store. Called once per test. */
export type StoreFactory = () => Promise<StoreUnderTest>;

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A lease long enough never to expire during a test. */
export const LONG_LEASE = 60_000;

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function err(message: string, number: number | null = null, detail: string | null = null): ErrorInfo {
  return { number, message, detail };
}

/** Helpers over one store. */
export class Harness {
  private workers = 0;

  constructor(readonly store: Store) {}

  /** Register a worker and return its slot (worker id + session number). */
  async worker(workerId = `w${++this.workers}-${Math.random().toString(36).slice(2, 8)}`): Promise<WorkerSlot> {
    const s = await this.store.worker.registerWorker({ workerId, host: 'contract-host', pid: 4242, role: 'contract' });
    return { workerId, session: s.session };
  }

  /**
   * The store's own clock (the server's, on SQL Server) in ms since 1970: the heartbeat time it records for
   * `slot`'s worker. Tests that compare with times the store writes (due times, cut-offs) measure from it, so
   * neither a remote server's round trips nor a skewed local clock decide their outcome.
   */
  async storeNow(slot: WorkerSlot): Promise<number> {
    await this.store.worker.heartbeat({ workerIds: [slot.workerId], running: [], leaseMs: LONG_LEASE });
    const w = (await this.store.reads.listWorkers()).find((x) => x.workerId === slot.workerId);
    expect(w, `worker ${slot.workerId}`).toBeDefined();
    return w!.heartbeatAt.getTime();
  }

  /** Wait until the store's clock is past `at` (ms since 1970). */
  async untilStoreTime(slot: WorkerSlot, at: number): Promise<void> {
    for (;;) {
      const now = await this.storeNow(slot);
      if (now > at) return;
      await sleep(Math.min(500, at - now + 5));
    }
  }

  /** Enqueue a handler task; returns its token. */
  async add(over: Partial<EnqueueInput> = {}): Promise<string> {
    const r = await this.store.commands.enqueue({ kind: 'handler', command: 'demo.echo', payload: null, ...over });
    return r.token;
  }

  /** Claim with one slot; expects exactly one task. */
  async claimOne(slot: WorkerSlot, opts: { leaseMs?: number; queues?: string[] } = {}): Promise<ClaimedTask> {
    const got = await this.store.worker.claim([slot], { leaseMs: opts.leaseMs ?? LONG_LEASE, queues: opts.queues });
    expect(got).toHaveLength(1);
    return got[0]!;
  }

  /** Claim with one slot; expects nothing claimable. */
  async claimNone(slot: WorkerSlot, opts: { leaseMs?: number; queues?: string[] } = {}): Promise<void> {
    const got = await this.store.worker.claim([slot], { leaseMs: opts.leaseMs ?? LONG_LEASE, queues: opts.queues });
    expect(got).toEqual([]);
  }

  async settle(c: { id: number; workerId: string; attempt: number }, settlement: Settlement): Promise<boolean> {
    const [ok] = await this.store.worker.finish([{ taskId: c.id, workerId: c.workerId, attempt: c.attempt, settlement }]);
    return ok === true;
  }

  succeed(c: ClaimedTask, result: unknown = null) {
    return this.settle(c, { kind: 'succeeded', result });
  }

  kill(c: ClaimedTask, message = 'boom', number: number | null = null) {
    return this.settle(c, { kind: 'dead', outcome: 'failed', error: err(message, number, `Error: ${message}\n    at contract`) });
  }

  retryLater(c: ClaimedTask, delayMs: number, message = 'try again') {
    return this.settle(c, { kind: 'retry', outcome: 'failed', error: err(message), runAfter: new Date(Date.now() + delayMs) });
  }

  /** Enqueue, claim and settle a task as dead; returns its token. */
  async deadTask(slot: WorkerSlot, message: string, over: Partial<EnqueueInput> = {}): Promise<string> {
    const token = await this.add(over);
    const c = await this.claimOne(slot, { queues: [over.queue ?? 'default'] });
    expect(c.token).toBe(token);
    expect(await this.kill(c, message)).toBe(true);
    return token;
  }

  /** Enqueue, claim and settle a task as succeeded; returns its token. */
  async doneTask(slot: WorkerSlot, over: Partial<EnqueueInput> = {}): Promise<string> {
    const token = await this.add(over);
    const c = await this.claimOne(slot, { queues: [over.queue ?? 'default'] });
    expect(c.token).toBe(token);
    expect(await this.succeed(c)).toBe(true);
    return token;
  }

  async task(token: string): Promise<TaskDetail> {
    const t = await this.store.reads.getTask(token);
    expect(t, `task ${token}`).not.toBeNull();
    return t!;
  }

  async status(token: string): Promise<TaskStatus> {
    return (await this.task(token)).status;
  }

  /** countsByQueue without all-zero rows, sorted by queue. */
  async counts(): Promise<QueueCounts[]> {
    const rows = await this.store.reads.countsByQueue();
    return rows
      .filter((r) => r.waiting + r.pending + r.claimed + r.running + r.succeeded + r.dead + r.cancelled > 0)
      .map((r) => ({
        queue: r.queue,
        waiting: r.waiting,
        pending: r.pending,
        claimed: r.claimed,
        running: r.running,
        succeeded: r.succeeded,
        dead: r.dead,
        cancelled: r.cancelled,
      }))
      .sort((a, b) => a.queue.localeCompare(b.queue));
  }

  /** What countsByQueue must say, computed from getTask over the given tokens (missing = deleted). */
  async expectedCounts(tokens: Iterable<string>): Promise<QueueCounts[]> {
    const by = new Map<string, QueueCounts>();
    for (const token of tokens) {
      const t = await this.store.reads.getTask(token);
      if (!t) continue;
      const row = by.get(t.queue) ?? {
        queue: t.queue,
        waiting: 0,
        pending: 0,
        claimed: 0,
        running: 0,
        succeeded: 0,
        dead: 0,
        cancelled: 0,
      };
      row[t.status] += 1;
      by.set(t.queue, row);
    }
    return [...by.values()].sort((a, b) => a.queue.localeCompare(b.queue));
  }
}

/**
 * Registers beforeEach/afterEach hooks giving every test of the enclosing describe a fresh store.
 * Returns an accessor for the current test's harness.
 */
export function useStore(factory: StoreFactory): () => Harness {
  let current: { sut: StoreUnderTest; harness: Harness } | null = null;
  beforeEach(async () => {
    const sut = await factory();
    current = { sut, harness: new Harness(sut.store) };
  });
  afterEach(async () => {
    const c = current;
    current = null;
    if (c) await c.sut.cleanup();
  });
  return () => {
    if (!current) throw new Error('the store is only available inside a test');
    return current.harness;
  };
}
