// Enqueue inside the caller's transaction (CommandPort.transaction): the caller's statements and the
// tasks commit together or roll back together; the kept counts follow exactly; the pool is woken after
// the commit only. The SQL here runs on both dialects: named parameters (@name, an object).
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../lib/engine/errors';
import type { Store } from '../../lib/engine/ports';
import { sleep, useStore, type StoreFactory } from './harness';

const table = () => `rp_tx_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;

async function withTable(store: Store, body: (name: string) => Promise<void>): Promise<void> {
  const name = table();
  await store.commands.transaction((tx) => tx.execute(`CREATE TABLE ${name} (id int NOT NULL PRIMARY KEY, note varchar(50) NULL)`));
  try {
    await body(name);
  } finally {
    await store.commands.transaction((tx) => tx.execute(`DROP TABLE ${name}`));
  }
}

async function rows(store: Store, name: string): Promise<{ id: number; note: string | null }[]> {
  const r = await store.commands.transaction((tx) =>
    tx.execute<{ id: number; note: string | null }>(`SELECT id, note FROM ${name} ORDER BY id`),
  );
  return r.rows;
}

export function transactionTests(factory: StoreFactory) {
  describe('enqueue inside the caller transaction', () => {
    const h = useStore(factory);

    it('commits the caller statements and the tasks together, then wakes the pool', async () => {
      const { store } = h();
      await withTable(store, async (name) => {
        let wakes = 0;
        const off = store.worker.onWake(() => wakes++);
        let wakesInside = -1;
        const token = await store.commands.transaction(async (tx) => {
          const ins = await tx.execute(`INSERT INTO ${name} (id, note) VALUES (@id, @note)`, { id: 1, note: 'order 1' });
          expect(ins.rowsAffected).toBe(1);
          const r = await tx.enqueue({ kind: 'handler', command: 'demo.echo', payload: { order: 1 }, queue: 'txq' });
          const [a, b] = await tx.enqueueMany([
            { kind: 'handler', command: 'demo.echo', payload: 2, queue: 'txq' },
            { kind: 'handler', command: 'demo.echo', payload: 3, queue: 'txq', dedupKey: 'tx-dedup' },
          ]);
          expect(a!.created && b!.created).toBe(true);
          const sel = await tx.execute<{ n: number }>(`SELECT COUNT(*) AS n FROM ${name}`);
          expect(Number(sel.rows[0]!.n)).toBe(1);
          wakesInside = wakes;
          return r.token;
        });
        off();
        expect(wakesInside).toBe(0);
        expect(wakes).toBeGreaterThanOrEqual(1);
        expect(await rows(store, name)).toEqual([{ id: 1, note: 'order 1' }]);
        expect(await h().status(token)).toBe('pending');
        expect(await h().counts()).toEqual([
          { queue: 'txq', waiting: 0, pending: 3, claimed: 0, running: 0, succeeded: 0, dead: 0, cancelled: 0 },
        ]);
        const slot = await h().worker();
        const c = await h().claimOne(slot, { queues: ['txq'] });
        expect(await h().succeed(c)).toBe(true);
        const tokens = (await store.reads.listTasks({ queue: 'txq' })).items.map((t) => t.token);
        expect(await h().counts()).toEqual(await h().expectedCounts(tokens));
      });
    });

    it('rolls back both when the callback throws, and rethrows its error', async () => {
      const { store } = h();
      await withTable(store, async (name) => {
        const boom = new Error('callback failed');
        let token = '';
        await expect(
          store.commands.transaction(async (tx) => {
            await tx.execute(`INSERT INTO ${name} (id, note) VALUES (@id, @note)`, { id: 7, note: 'gone' });
            token = (await tx.enqueue({ kind: 'handler', command: 'demo.echo', payload: null, queue: 'txq' })).token;
            throw boom;
          }),
        ).rejects.toBe(boom);
        expect(token).not.toBe('');
        expect(await rows(store, name)).toEqual([]);
        expect(await store.reads.getTask(token)).toBeNull();
        expect(await h().counts()).toEqual([]);
        await h().claimNone(await h().worker());
      });
    });

    it('a failed enqueue inside rolls back the caller statements too', async () => {
      const { store } = h();
      await withTable(store, async (name) => {
        await expect(
          store.commands.transaction(async (tx) => {
            await tx.execute(`INSERT INTO ${name} (id, note) VALUES (@id, @note)`, { id: 1, note: null });
            await tx.enqueue({ kind: 'handler', command: 'demo.echo', payload: null, queue: 'txq' });
            await tx.enqueue({ kind: 'handler', command: 'demo.echo', payload: null, batchId: 987654321, stage: 0 });
          }),
        ).rejects.toBeInstanceOf(ValidationError);
        expect(await rows(store, name)).toEqual([]);
        expect(await h().counts()).toEqual([]);
      });
    });

    it('a transaction open past its timeout is rolled back and refuses further calls', async () => {
      const { store } = h();
      await withTable(store, async (name) => {
        let late: unknown = null;
        await expect(
          store.commands.transaction(
            async (tx) => {
              await tx.execute(`INSERT INTO ${name} (id, note) VALUES (@id, @note)`, { id: 1, note: 'slow' });
              await sleep(400);
              try {
                await tx.enqueue({ kind: 'handler', command: 'demo.echo', payload: null });
              } catch (err) {
                late = err;
              }
            },
            { timeoutMs: 150 },
          ),
        ).rejects.toThrow(/timeoutMs/);
        expect(String(late)).toMatch(/timeoutMs/);
        expect(await rows(store, name)).toEqual([]);
        expect(await h().counts()).toEqual([]);
        // the store writes again at once
        await h().add();
      });
    });

    it('an enqueue of a key an open transaction is enqueuing waits: its token after a commit, a new task after a rollback', async () => {
      const { store } = h();
      for (const outcome of ['commit', 'rollback'] as const) {
        const key = `tx-race-${outcome}`;
        let release!: () => void;
        const gate = new Promise<void>((r) => (release = r));
        let inside!: (token: string) => void;
        const enqueued = new Promise<string>((r) => (inside = r));
        const tx = store.commands
          .transaction(async (t) => {
            inside((await t.enqueue({ kind: 'handler', command: 'demo.echo', payload: 1, dedupKey: key })).token);
            await gate;
            if (outcome === 'rollback') throw new Error('rolled back by the caller');
          })
          .catch((e: Error) => e.message);
        const held = await enqueued;
        let settled = false;
        const outside = store.commands.enqueue({ kind: 'handler', command: 'demo.echo', payload: 2, dedupKey: key }).finally(() => {
          settled = true;
        });
        await sleep(300);
        expect(settled, 'the second enqueue waits for the open transaction').toBe(false);
        release();
        await tx;
        const r = await outside;
        if (outcome === 'commit') expect(r).toEqual({ token: held, created: false });
        else {
          expect(r.created).toBe(true);
          expect(r.token).not.toBe(held);
          expect((await h().task(r.token)).payload).toBe(2);
        }
      }
      expect((await h().counts())[0]!.pending).toBe(2);
    });

    it('refuses as `transaction` what is not a transaction this store can enqueue on', async () => {
      const { store } = h();
      const e = await store.commands.enqueue({ kind: 'handler', command: 'demo.echo', payload: null }, { transaction: {} }).catch((x) => x);
      expect(e).toBeInstanceOf(ValidationError);
      expect((e as ValidationError).field).toBe('transaction');
      expect(await h().counts()).toEqual([]);
    });
  });
}
