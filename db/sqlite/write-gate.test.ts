// The store's write gate (connection.ts): one transaction of this process at a time, even when two waiters are woken
// by one release; and this process's writers waiting for it go before the next transaction, so a stream of
// transactions (transactional steps) never starves the heartbeats that renew the leases.
import { describe, expect, it } from 'vitest';
import { WriteGate } from './connection';

describe('WriteGate', () => {
  it('two transactions woken by one release never both hold it', async () => {
    const gate = new WriteGate();
    const first = await gate.take();
    const order: string[] = [];
    let holders = 0;
    let most = 0;
    const hold = async (name: string) => {
      const release = await gate.take();
      holders++;
      most = Math.max(most, holders);
      order.push(name);
      await new Promise((r) => setTimeout(r, 5));
      holders--;
      release();
    };
    const both = Promise.all([hold('a'), hold('b'), hold('c')]);
    first();
    await both;
    expect(most).toBe(1);
    expect(order.sort()).toEqual(['a', 'b', 'c']);
  });

  it('a writer waiting for the gate writes before the next transaction takes it', async () => {
    const gate = new WriteGate();
    const first = await gate.take();
    const order: string[] = [];
    const tx = gate.take().then((release) => {
      order.push('transaction');
      release();
    });
    const write = gate.free().then(() => order.push('writer'));
    first();
    await Promise.all([tx, write]);
    expect(order).toEqual(['writer', 'transaction']);
  });
});
