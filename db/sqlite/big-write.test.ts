// Big writes on the SQLite store (big-write.ts): one transaction written in slices on the store's second
// connection, the event loop free between slices. What that must keep: the write is atomic (reads meanwhile see
// none of it, a failure half-way leaves nothing), this process's short writes go before the next big write, and
// the write gate serves its holders one at a time, in order.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { validateFlow } from '../../lib/engine/flows';
import type { EnqueueInput, FlowInput } from '../../lib/engine/types';
import { validateEnqueueMany } from '../../lib/engine/validation-bulk';
import { BIG_WRITE_ROWS } from './big-write';
import { WriteGate } from './connection';
import { openSqliteStore, type SqliteStore } from './store';

let dir: string;
let store: SqliteStore;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'readpast-big-'));
  store = await openSqliteStore(join(dir, 'big.db'));
});

afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const ctx = { kinds: ['handler', 'sql'] as const, knowsHandler: () => true, caller: null };

/** A chain-shaped flow of `n` nodes in `queue`, validated as rp.flow does. */
function chainFlow(n: number, queue: string): Promise<FlowInput> {
  const nodes = Array.from({ length: n }, (_, i) => ({
    id: `n${i}`,
    command: 'demo.echo',
    queue,
    payload: { i },
    ...(i > 0 ? { dependsOn: [`n${Math.floor((i - 1) / 2)}`] } : {}),
  }));
  return validateFlow({ nodes }, ctx);
}

const tasks = (n: number, queue: string): Promise<EnqueueInput[]> =>
  validateEnqueueMany(
    Array.from({ length: n }, (_, i) => ({ command: 'demo.echo', queue, payload: { i } })),
    ctx,
    'tasks',
  );

/** The tasks of `queue` the store's reads count (every status). */
async function counted(queue: string): Promise<number> {
  const c = (await store.reads.countsByQueue()).find((q) => q.queue === queue);
  return c ? c.waiting + c.pending + c.running + c.succeeded + c.dead + c.cancelled : 0;
}

/** Turns of the event loop while `work` runs, and what `look` saw at each (stops when `work` settles). */
async function watch<T, L>(work: Promise<T>, look: () => Promise<L>): Promise<{ out: T; turns: number; seen: L[] }> {
  let done = false;
  const seen: L[] = [];
  let turns = 0;
  const watcher = (async () => {
    while (!done) {
      await new Promise<void>((r) => setImmediate(r));
      if (done) break;
      turns++;
      seen.push(await look());
    }
  })();
  try {
    return { out: await work, turns, seen };
  } finally {
    done = true;
    await watcher;
  }
}

describe('big writes on SQLite', () => {
  it('a 5,000-node flow is written in slices: the event loop turns meanwhile, and reads see none of it until all of it', async () => {
    const input = await chainFlow(5000, 'flow-q');
    const { out, turns, seen } = await watch(store.commands.createFlow(input), () => counted('flow-q'));
    expect(Object.keys(out.tokens)).toHaveLength(5000);
    // written at once it would leave the event loop no turn at all
    expect(turns).toBeGreaterThan(2);
    expect(new Set(seen)).toEqual(new Set([0]));
    expect(await counted('flow-q')).toBe(5000);
    const flow = await store.reads.getFlow(out.flowId);
    expect(flow?.nodeList).toHaveLength(5000);
    expect(flow?.edges.length).toBe(4999);
  });

  it('enqueueMany of many tasks is written in slices; one that fails half-way leaves nothing behind', async () => {
    const many = await tasks(BIG_WRITE_ROWS * 3, 'many-q');
    const { turns, seen } = await watch(store.commands.enqueueMany(many), () => counted('many-q'));
    expect(turns).toBeGreaterThan(0);
    expect(new Set(seen)).toEqual(new Set([0]));
    expect(await counted('many-q')).toBe(BIG_WRITE_ROWS * 3);

    // the 2,500th task names a batch that does not exist: refused by the store half-way through the write
    const doomed = await tasks(BIG_WRITE_ROWS * 3, 'doomed-q');
    doomed[2499] = { ...doomed[2499]!, batchId: 999_999, stage: 0 };
    await expect(store.commands.enqueueMany(doomed)).rejects.toThrow(/no batch 999999/);
    expect(await counted('doomed-q')).toBe(0);
    // and the store writes on afterwards (the gate was released, the second connection is not left in a transaction)
    await store.commands.enqueue((await tasks(1, 'after-q'))[0]!);
    expect(await counted('after-q')).toBe(1);
  });

  it("this process's short writes go between two big writes, not after every one queued", async () => {
    const [a, b] = await Promise.all([chainFlow(3000, 'big-a'), chainFlow(3000, 'big-b')]);
    const first = store.commands.createFlow(a);
    const second = store.commands.createFlow(b);
    // asked while the first big write is under way, with the second queued behind it
    await new Promise<void>((r) => setImmediate(r));
    const small = store.commands.enqueue((await tasks(1, 'small-q'))[0]!);
    const [fa, fb, s] = await Promise.all([first, second, small]);
    const idOf = async (token: string) => (await store.reads.getTask(token))!.id;
    const smallId = await idOf(s.token);
    // task ids are taken in commit order (one writer): the short write came after the first flow, before the second
    expect(smallId).toBeGreaterThan(await idOf(fa.tokens.n2999!));
    expect(smallId).toBeLessThan(await idOf(fb.tokens.n0!));
  });

  it('two caller transactions asked at once run one after the other, both committed', async () => {
    const one = (await tasks(1, 'tx-q'))[0]!;
    const results = await Promise.all(
      [1, 2, 3].map(() =>
        store.commands.transaction(async (tx) => {
          const r = await tx.enqueue(one);
          await new Promise((res) => setTimeout(res, 5));
          return r.created;
        }),
      ),
    );
    expect(results).toEqual([true, true, true]);
    expect(await counted('tx-q')).toBe(3);
  });
});

describe('WriteGate', () => {
  it('has one holder at a time, in the order they asked; waiting writers go before the next holder', async () => {
    const gate = new WriteGate();
    const order: string[] = [];
    let holders = 0;
    let most = 0;
    const hold = async (name: string) => {
      const release = await gate.take();
      holders++;
      most = Math.max(most, holders);
      order.push(name);
      if (name === 'a') {
        // a short writer arrives while `a` holds the gate, with b and c queued
        void gate.free().then(() => order.push('short'));
      }
      await new Promise((r) => setTimeout(r, 5));
      holders--;
      release();
      release(); // a second release changes nothing
    };
    await Promise.all(['a', 'b', 'c'].map(hold));
    expect(most).toBe(1);
    expect(order).toEqual(['a', 'short', 'b', 'c']);
    expect(gate.busy).toBe(false);
  });
});
