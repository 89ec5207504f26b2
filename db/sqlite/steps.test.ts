// Steps recorded on SQLite: those of several attempts recorded in the same turn of the event loop share one write
// transaction, each still fenced on its own attempt (an attempt that lost its task gets false, the others are
// written); one step's failure is its own; a step recorded inside withTransaction's callback is refused at once.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RunningAttempt } from '../../lib/engine/ports';
import type { StepWrite } from '../../lib/engine/types';
import { Harness } from '../contract/harness';
import { openSqliteStore, type SqliteStore } from './store';

// every write transaction of the store goes through writeTx (one transaction function per connection): counted here
const writes = vi.hoisted(() => ({ n: 0 }));
vi.mock('./connection', async (importOriginal) => {
  const real = await importOriginal<typeof import('./connection')>();
  return {
    ...real,
    writeTx: (...args: Parameters<typeof real.writeTx>) => {
      writes.n++;
      return real.writeTx(...args);
    },
  };
});

let dir: string;
let store: SqliteStore;
let h: Harness;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'readpast-steps-'));
  store = await openSqliteStore(join(dir, 'steps.db'));
  h = new Harness(store);
});

afterEach(async () => {
  vi.restoreAllMocks();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const step = (seq: number, result: unknown): StepWrite => ({
  seq,
  name: `s${seq}`,
  kind: 'step',
  status: 'succeeded',
  result,
  error: null,
  startedAt: new Date(),
  endedAt: new Date(),
  wakeAt: null,
  event: null,
  match: null,
});

/** `n` tasks claimed by one worker: their running attempts (and tokens) */
async function attempts(n: number): Promise<(RunningAttempt & { token: string })[]> {
  const slot = await h.worker();
  for (let i = 0; i < n; i++) await h.add({ command: 'durable' });
  const claimed = await store.worker.claim(
    Array.from({ length: n }, () => slot),
    { leaseMs: 60_000 },
  );
  expect(claimed).toHaveLength(n);
  return claimed.map((c) => ({ taskId: c.id, attempt: c.attempt, workerId: c.workerId, session: c.session, parents: [], token: c.token }));
}

const recorded = async (a: RunningAttempt) => (await store.worker.loadSteps(a)).steps.map((s) => [s.seq, s.result]);

describe('steps recorded on SQLite', () => {
  it('the steps of several attempts recorded together share one write transaction, each fenced on its own attempt', async () => {
    const [a, b, owned] = await attempts(3);
    // an attempt that does not own its task (its lease taken over by another worker's attempt)
    const c = { ...owned!, attempt: owned!.attempt + 1 };
    const before = writes.n;
    const ok = await Promise.all([
      store.worker.recordStep(a!, step(1, 'a1')),
      store.worker.recordStep(b!, step(1, 'b1')),
      store.worker.recordStep(c, step(1, 'c1')),
      store.worker.recordStep(a!, step(2, { n: 2 })),
    ]);
    expect(writes.n - before).toBe(1);
    expect(ok).toEqual([true, true, false, true]);
    expect(await recorded(a!)).toEqual([
      [1, 'a1'],
      [2, { n: 2 }],
    ]);
    expect(await recorded(b!)).toEqual([[1, 'b1']]);
    expect(await recorded(c)).toEqual([]);
  });

  it("one step's failure is its own: the others of its turn are written", async () => {
    const [a, b] = await attempts(2);
    // its name NOT NULL: the shared write fails, and each is written alone
    const bad = { ...step(1, null), name: null } as unknown as StepWrite;
    const out = await Promise.allSettled([store.worker.recordStep(a!, bad), store.worker.recordStep(b!, step(1, 'b1'))]);
    expect(out[0]!.status).toBe('rejected');
    expect(out[1]).toEqual({ status: 'fulfilled', value: true });
    expect(await recorded(a!)).toEqual([]);
    expect(await recorded(b!)).toEqual([[1, 'b1']]);
  });

  it("a step recorded inside withTransaction's callback is refused at once, not left waiting with the others of its turn", async () => {
    const [a, b] = await attempts(2);
    // queued first, from outside: the turn's write would wait for the caller's transaction to end…
    const outside = store.worker.recordStep(b!, step(1, 'b1'));
    // …which would wait for this step, written in that same turn
    const inside = store.commands.transaction(() => store.worker.recordStep(a!, step(1, 'x')), { timeoutMs: 5_000 });
    await expect(inside).rejects.toThrow(/inside withTransaction/);
    expect(await outside).toBe(true);
    expect(await store.worker.recordStep(a!, step(1, 'y'))).toBe(true);
    expect(await recorded(a!)).toEqual([[1, 'y']]);
    expect(await recorded(b!)).toEqual([[1, 'b1']]);
  });
});
