// The audit trail: appended in order, read newest first with keyset paging and filters, values kept as JSON;
// a command's row written in the command's own transaction (AuditWrite): both commit or neither.
import { describe, expect, it } from 'vitest';
import type { AuditWrite, Store } from '../../lib/engine/ports';
import type { AuditInput } from '../../lib/engine/types';
import { useStore, type Harness, type StoreFactory } from './harness';

/** An audit row the store refuses: AuditLog.actor is NOT NULL on every store. */
const refused = <R>(): AuditWrite<R> => ({
  entry: () => ({ actor: null as unknown as string, source: 'api', action: 'test.refused', target: 'x' }),
});

/** A row for every outcome (what a careless caller would write); `seen` keeps the outcomes the store passed. */
function always<R>(action: string, seen: R[] = []): AuditWrite<R> & { seen: R[] } {
  return {
    seen,
    entry: (o: R): AuditInput => {
      seen.push(o);
      return { actor: 'op', source: 'api', action, target: 't', after: { outcome: o as unknown }, count: 1 };
    },
  };
}

/** Only what changed something, as the front door writes it. */
const onSuccess = <R>(action: string, ok: (o: R) => boolean): AuditWrite<R> => ({
  entry: (o) => (ok(o) ? { actor: 'op', source: 'api', action, target: 't', count: 1 } : null),
});

const rows = async (store: Store) => (await store.reads.listAudit({ limit: 100 })).items;

/** A dead task, a pending one and a released batch to act on. */
async function scene(h: Harness) {
  const slot = await h.worker();
  const dead = await h.deadTask(slot, 'boom', { queue: 'audited' });
  const pending = await h.add({ queue: 'audited', payload: { v: 1 } });
  return { slot, dead, pending };
}

export function auditTests(factory: StoreFactory): void {
  describe('audit trail', () => {
    const h = useStore(factory);

    it('records entries with the store clock and reads them back newest first, JSON intact', async () => {
      const { store } = h();
      const t0 = Date.now();
      await store.commands.recordAudit([
        {
          actor: 'alice',
          source: 'ui',
          action: 'queue.update',
          target: 'Reports',
          before: { concurrencyLimit: null },
          after: { concurrencyLimit: 3 },
          count: 1,
        },
      ]);
      await store.commands.recordAudit([
        { actor: 'bob', source: 'cli', action: 'task.retry', target: '00000000-0000-4000-8000-000000000009' },
        {
          actor: 'carol',
          source: 'api',
          action: 'tasks.bulk_cancel',
          target: "filter:queue=x'; DROP TABLE Tasks;--",
          count: 250,
          before: { tokens: ['a', 'b'] },
        },
      ]);
      const page = await store.reads.listAudit({ limit: 10 });
      expect(page.nextCursor).toBeNull();
      expect(page.items.map((r) => [r.actor, r.source, r.action])).toEqual([
        ['carol', 'api', 'tasks.bulk_cancel'],
        ['bob', 'cli', 'task.retry'],
        ['alice', 'ui', 'queue.update'],
      ]);
      const [bulk, retry, queue] = page.items;
      expect(bulk).toMatchObject({
        target: "filter:queue=x'; DROP TABLE Tasks;--",
        count: 250,
        before: { tokens: ['a', 'b'] },
        after: null,
      });
      expect(retry).toMatchObject({ before: null, after: null, count: null });
      expect(queue).toMatchObject({ target: 'Reports', before: { concurrencyLimit: null }, after: { concurrencyLimit: 3 }, count: 1 });
      expect(queue!.at.getTime()).toBeGreaterThanOrEqual(t0 - 5_000);
      expect(queue!.at.getTime()).toBeLessThanOrEqual(Date.now() + 5_000);
    });

    it('filters by action (exact or prefix), target and actor, and pages without gaps or repeats', async () => {
      const { store } = h();
      for (let i = 0; i < 7; i++) {
        await store.commands.recordAudit([
          { actor: i % 2 ? 'odd' : 'even', source: 'api', action: i < 4 ? 'task.cancel' : 'task.delete', target: `t${i % 3}` },
        ]);
      }
      await store.commands.recordAudit([{ actor: 'x', source: 'api', action: 'tasks_bulk', target: 't0' }]);
      const ids: number[] = [];
      let cursor: number | undefined;
      for (;;) {
        const p = await store.reads.listAudit({ limit: 3, cursor });
        ids.push(...p.items.map((r) => r.id));
        if (p.nextCursor === null) break;
        cursor = p.nextCursor;
      }
      expect(ids).toHaveLength(8);
      expect(new Set(ids).size).toBe(8);
      expect([...ids].sort((a, b) => b - a)).toEqual(ids);
      expect((await store.reads.listAudit({ limit: 50, action: 'task.cancel' })).items).toHaveLength(4);
      // a prefix ends with '.'; '_' in it is a character, not a LIKE wildcard
      expect((await store.reads.listAudit({ limit: 50, action: 'task.' })).items).toHaveLength(7);
      expect((await store.reads.listAudit({ limit: 50, action: 'tasks.' })).items).toHaveLength(0);
      expect((await store.reads.listAudit({ limit: 50, target: 't0' })).items).toHaveLength(4);
      expect((await store.reads.listAudit({ limit: 50, actor: 'even', action: 'task.delete' })).items.map((r) => r.target)).toEqual([
        't0',
        't1',
      ]);
    });

    it('keeps a huge before/after bounded instead of refusing it', async () => {
      const { store } = h();
      const tokens = Array.from({ length: 5000 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
      await store.commands.recordAudit([
        { actor: 'a', source: 'ui', action: 'tasks.bulk_retry', target: 'tokens:5000', before: { tokens }, count: 5000 },
      ]);
      const [r] = (await store.reads.listAudit({ limit: 1 })).items;
      expect(r!.count).toBe(5000);
      expect(JSON.stringify(r!.before).length).toBeLessThan(20_000);
      expect(r!.before).toMatchObject({ truncated: true });
    });
  });

  describe("a command's audit row, in the command's own transaction", () => {
    const h = useStore(factory);

    it('a command whose audit row the store refuses changes nothing', async () => {
      const { store } = h();
      const { dead, pending } = await scene(h());
      const batch = await store.commands.createBatch({ caller: null, maxParallel: null, onFailure: 'continue' });
      await store.commands.setPoolSetting({ host: 'h', role: 'r', size: 2, updatedBy: 'op' });
      const before = await Promise.all([h().task(dead), h().task(pending)]);
      const queues = await store.reads.listQueues();

      const attempts: [string, () => Promise<unknown>][] = [
        ['cancel', () => store.commands.cancel(pending, refused())],
        ['retry', () => store.commands.retry(dead, refused())],
        ['deleteTask', () => store.commands.deleteTask(dead, refused())],
        ['retryFailed', () => store.commands.retryFailed({}, refused())],
        ['deleteFailed', () => store.commands.deleteFailed({}, refused())],
        ['setQueue', () => store.commands.setQueue('audited', { concurrencyLimit: 3, paused: true }, 'op', refused())],
        ['bulk cancel', () => store.commands.bulk('cancel', [pending], {}, refused())],
        ['bulk retry', () => store.commands.bulk('retry', [dead], {}, refused())],
        ['editTask', () => store.commands.editTask(dead, { payload: { v: 2 } }, true, refused())],
        ['releaseBatch', () => store.commands.releaseBatch(batch.id, refused())],
        ['cancelBatch', () => store.commands.cancelBatch(batch.id, refused())],
        ['setPoolSetting', () => store.commands.setPoolSetting({ host: 'h', role: 'r', size: 9, updatedBy: 'op' }, refused())],
        ['enqueue', () => store.commands.enqueue({ kind: 'handler', command: 'demo.echo', payload: null, queue: 'other' }, {}, refused())],
      ];
      for (const [name, act] of attempts) await expect(act(), name).rejects.toThrow();

      expect(await Promise.all([h().task(dead), h().task(pending)])).toEqual(before);
      expect(await store.reads.listQueues()).toEqual(queues);
      expect((await store.reads.getBatch(batch.id))!.status).toBe('open');
      expect((await store.reads.getPoolSetting('h', 'r'))!.size).toBe(2);
      expect((await store.reads.listTasks({ queue: 'other', limit: 10 })).items).toHaveLength(0);
      expect(await rows(store)).toHaveLength(0);
    });

    it('a command that fails or is refused leaves no audit row', async () => {
      const { store } = h();
      const slot = await h().worker();
      const running = await h().add({ queue: 'audited' });
      expect((await h().claimOne(slot)).token).toBe(running);
      // refused: retry of a running task, cancel of an unknown token (the row is only for a change)
      expect(
        await store.commands.retry(
          running,
          onSuccess('task.retry', (r) => r === 'retried'),
        ),
      ).toBe('conflict');
      const unknown = '00000000-0000-4000-8000-00000000abcd';
      expect(
        await store.commands.cancel(
          unknown,
          onSuccess('task.cancel', (r) => r === 'cancelled'),
        ),
      ).toBe('not_found');
      // failed: an enqueue into a released batch throws inside the store, after the row was asked for
      const b = await store.commands.createBatch({ caller: null, maxParallel: null, onFailure: 'continue' });
      expect(await store.commands.releaseBatch(b.id)).toBe('released');
      const careless = always<unknown>('task.enqueue');
      await expect(
        store.commands.enqueue({ kind: 'handler', command: 'demo.echo', payload: null, batchId: b.id, stage: 0 }, {}, careless),
      ).rejects.toThrow(/batch/);
      expect(await rows(store)).toHaveLength(0);
      // the store hands the builder what the command did
      const seen = always<unknown>('task.cancel');
      expect(await store.commands.cancel(unknown, seen)).toBe('not_found');
      expect(seen.seen).toEqual(['not_found']);
    });

    it('a command and its row commit together; the chunks of one action keep one row up to date', async () => {
      const { store } = h();
      const { dead, pending } = await scene(h());
      expect(await store.commands.cancel(pending, always('task.cancel'))).toBe('cancelled');
      const [cancelRow] = await rows(store);
      expect(cancelRow).toMatchObject({ actor: 'op', source: 'api', action: 'task.cancel', after: { outcome: 'cancelled' }, count: 1 });
      expect(await h().status(pending)).toBe('cancelled');

      // one action in two transactions (lib/api/bulk.ts chunks): the first writes the row, the second rewrites it
      const total = { done: 0 };
      const chunks: AuditWrite<{ done: number }> = {
        entry: (o) => ({
          actor: 'op',
          source: 'ui',
          action: 'tasks.bulk_retry',
          target: 'tokens:2',
          after: { done: total.done + o.done },
          count: total.done + o.done,
        }),
      };
      total.done += (await store.commands.bulk('retry', [dead], {}, chunks)).done;
      expect(chunks.id).toBeGreaterThan(0);
      total.done += (await store.commands.bulk('retry', [pending], {}, chunks)).done;
      const bulkRows = (await rows(store)).filter((r) => r.action === 'tasks.bulk_retry');
      expect(bulkRows).toHaveLength(1);
      expect(bulkRows[0]).toMatchObject({ id: chunks.id, count: 2, after: { done: 2 } });
      expect([await h().status(dead), await h().status(pending)]).toEqual(['pending', 'pending']);
    });
  });
}
