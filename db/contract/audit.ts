// The audit trail: appended in order, read newest first with keyset paging and filters, values kept as JSON.
import { describe, expect, it } from 'vitest';
import { useStore, type StoreFactory } from './harness';

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
}
