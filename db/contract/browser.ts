// Contract tests of the task browser's reads: every filter of listTasks (payload paths included), keyset
// paging under filters, the bounded scan (`partial`), and pendingBreakdown's ready / scheduled / retrying.
import { describe, expect, it } from 'vitest';
import type { Page, TaskFilter, TaskView } from '../../lib/engine/types';
import { LONG_LEASE, useStore, type StoreFactory } from './harness';

const tokens = (p: Page<TaskView>) => p.items.map((t) => t.token);

/** Every page of a filter, following nextCursor; checks newest first and no duplicates. */
async function everyPage(list: (f: TaskFilter) => Promise<Page<TaskView>>, f: TaskFilter): Promise<{ items: TaskView[]; pages: number }> {
  const items: TaskView[] = [];
  let cursor: number | undefined;
  let pages = 0;
  for (;;) {
    const p = await list({ ...f, cursor });
    pages++;
    items.push(...p.items);
    if (p.nextCursor === null) break;
    expect(p.nextCursor).toBeLessThan(cursor ?? Number.MAX_SAFE_INTEGER);
    cursor = p.nextCursor;
    expect(pages).toBeLessThan(1000);
  }
  const ids = items.map((t) => t.id);
  expect(new Set(ids).size).toBe(ids.length);
  expect(ids).toEqual([...ids].sort((a, b) => b - a));
  return { items, pages };
}

export function browserTests(factory: StoreFactory): void {
  describe('task browser: listTasks filters', () => {
    const h = useStore(factory);

    it('filters by payload path: equals and contains, nested and array paths, numbers and booleans', async () => {
      const { store } = h();
      const acme = await h().add({ payload: { customer: { id: 42, name: 'Acme Corp' }, items: [{ sku: 'A-1' }], rush: true } });
      const globex = await h().add({ payload: { customer: { id: 7, name: 'Globex' }, items: [{ sku: 'B-2' }], rush: false } });
      const other = await h().add({ payload: { customer: { id: '42' } } });
      await h().add({ payload: null });
      await h().add({ payload: [1, 2, 3] });
      const list = (payload: TaskFilter['payload']) => store.reads.listTasks({ payload }).then(tokens);

      expect(await list({ path: '$.customer.id', op: 'eq', value: '42' })).toEqual([other, acme]);
      expect(await list({ path: '$.customer.id', op: 'eq', value: '7' })).toEqual([globex]);
      expect(await list({ path: '$.customer.name', op: 'eq', value: 'Globex' })).toEqual([globex]);
      expect(await list({ path: '$.customer.name', op: 'eq', value: 'Glob' })).toEqual([]);
      expect(await list({ path: '$.customer.name', op: 'contains', value: 'corp' })).toEqual([acme]);
      expect(await list({ path: '$.items[0].sku', op: 'eq', value: 'B-2' })).toEqual([globex]);
      expect(await list({ path: '$.rush', op: 'eq', value: 'true' })).toEqual([acme]);
      expect(await list({ path: '$.rush', op: 'eq', value: 'false' })).toEqual([globex]);
      expect(await list({ path: '$.nothing.here', op: 'eq', value: '42' })).toEqual([]);
      // LIKE wildcards in the value are literal
      expect(await list({ path: '$.customer.name', op: 'contains', value: '%' })).toEqual([]);
      // combined with other filters
      expect(tokens(await store.reads.listTasks({ status: 'pending', payload: { path: '$.customer.id', op: 'eq', value: '42' } }))).toEqual(
        [other, acme],
      );
    });

    it('refuses a JSON path that is not a plain path', async () => {
      const { store } = h();
      await h().add({ payload: { a: 1 } });
      for (const path of ["$.a') OR 1=1 --", '$.a b', '$..a', "$.'a'", '$[*]', 'a.b']) {
        await expect(store.reads.listTasks({ payload: { path, op: 'eq', value: '1' } }), path).rejects.toMatchObject({
          name: 'ValidationError',
          field: 'payload',
        });
      }
    });

    it('filters by status and pending sub-state, queue, command, batch, priority, times and text', async () => {
      const { store } = h();
      const slot = await h().worker();
      const t0 = Date.now();
      const low = await h().add({ queue: 'bq', command: 'mail.send', priority: -5, dedupKey: 'invoice-19' });
      const high = await h().add({ queue: 'bq', command: 'report.build', priority: 9 });
      const later = await h().add({ queue: 'bq', command: 'mail.send', runAt: new Date(t0 + 3_600_000) });
      const dead = await h().deadTask(slot, 'mailbox unavailable', { queue: 'bq-dead', command: 'mail.send' });
      const done = await h().doneTask(slot, { queue: 'bq-done' });
      // a retrying task: failed once, backing off for an hour
      const retrying = await h().add({ queue: 'bq-retry', command: 'mail.send' });
      const c = await h().claimOne(slot, { queues: ['bq-retry'] });
      expect(await h().retryLater(c, 3_600_000)).toBe(true);
      const batch = await store.commands.createBatch({});
      const inBatch = await h().add({ queue: 'bq', batchId: batch.id, stage: 1 });

      const list = (f: TaskFilter) => store.reads.listTasks(f).then(tokens);
      expect(await list({ status: 'pending', sub: 'ready' })).toEqual([inBatch, high, low]);
      expect(await list({ status: 'pending', sub: 'scheduled' })).toEqual([later]);
      expect(await list({ status: 'pending', sub: 'retrying' })).toEqual([retrying]);
      expect(await list({ status: 'pending' })).toEqual([inBatch, retrying, later, high, low]);
      expect(await list({ status: 'dead' })).toEqual([dead]);
      expect(await list({ status: 'succeeded' })).toEqual([done]);
      expect(await list({ queue: 'bq', command: 'mail.send' })).toEqual([later, low]);
      expect(await list({ command: 'mail.send' })).toEqual([retrying, dead, later, low]);
      expect(await list({ batchId: batch.id })).toEqual([inBatch]);
      expect(await list({ batchId: batch.id, stage: 0 })).toEqual([]);
      expect(await list({ priorityMin: 1 })).toEqual([high]);
      expect(await list({ priorityMax: -1 })).toEqual([low]);
      expect(await list({ priorityMin: -5, priorityMax: 0, queue: 'bq' })).toEqual([inBatch, later, low]);
      expect(await list({ q: 'invoice-1' })).toEqual([low]);
      expect(await list({ q: 'unavailable' })).toEqual([dead]);
      expect(await list({ q: high })).toEqual([high]);

      // created range (not terminal), finished range (terminal)
      const all = (await store.reads.listTasks({})).items;
      const created = all.map((t) => t.createdAt.getTime());
      const past = new Date(Math.min(...created) - 60_000);
      const future = new Date(Math.max(...created) + 60_000);
      expect(await list({ from: future })).toEqual([]);
      expect((await list({ from: past, to: future })).length).toBe(all.length);
      expect(await list({ to: past })).toEqual([]);
      const deadAt = (await h().task(dead)).finishedAt!.getTime();
      expect(await list({ status: 'dead', from: new Date(deadAt - 1), to: new Date(deadAt + 1) })).toEqual([dead]);
      expect(await list({ status: 'dead', from: new Date(deadAt + 1) })).toEqual([]);
      expect(await list({ status: 'dead', to: new Date(deadAt - 1) })).toEqual([]);
    });

    it('pages a filtered list with no duplicates and no gaps', async () => {
      const { store } = h();
      const want: string[] = [];
      for (let i = 0; i < 23; i++) {
        const t = await h().add({ queue: i % 3 === 0 ? 'pq-a' : 'pq-b', payload: { n: i, group: i % 2 === 0 ? 'even' : 'odd' } });
        if (i % 2 === 0) want.push(t);
      }
      const f: TaskFilter = { status: 'pending', payload: { path: '$.group', op: 'eq', value: 'even' }, limit: 4 };
      const { items, pages } = await everyPage((x) => store.reads.listTasks(x), f);
      expect(items.map((t) => t.token)).toEqual([...want].reverse());
      expect(pages).toBe(3);
      const unfiltered = await everyPage((x) => store.reads.listTasks(x), { limit: 5 });
      expect(unfiltered.items).toHaveLength(23);
    });

    it('stops a scanning filter after scanLimit rows and says partial, with a cursor that goes on', async () => {
      const { store } = h();
      const match: string[] = [];
      for (let i = 0; i < 30; i++) {
        const t = await h().add({ queue: 'scan', payload: { hit: i < 3 ? 'yes' : 'no' } });
        if (i < 3) match.push(t);
      }
      const f: TaskFilter = { payload: { path: '$.hit', op: 'eq', value: 'yes' }, limit: 10, scanLimit: 10 };
      const p1 = await store.reads.listTasks(f);
      expect(p1.items).toEqual([]);
      expect(p1.partial).toBe(true);
      expect(p1.scanned).toBe(10);
      expect(p1.nextCursor).not.toBeNull();
      // following the cursor reaches the matches, and the end
      const { items } = await everyPage((x) => store.reads.listTasks(x), f);
      expect(items.map((t) => t.token)).toEqual([...match].reverse());
      // the same over an index (pending tasks)
      const { items: pending } = await everyPage((x) => store.reads.listTasks(x), { ...f, status: 'pending' });
      expect(pending.map((t) => t.token)).toEqual([...match].reverse());
      // a filter an index answers alone is not capped
      const exact = await store.reads.listTasks({ status: 'pending', limit: 50, scanLimit: 5 });
      expect(exact.items).toHaveLength(30);
      expect(exact.partial).toBeFalsy();
      // a token is looked up, however old (upper case too)
      for (const q of [match[0]!, match[0]!.toUpperCase(), ` ${match[0]} `]) {
        const byToken = await store.reads.listTasks({ q, scanLimit: 5 });
        expect(tokens(byToken), q).toEqual([match[0]]);
        expect(byToken.partial).toBeFalsy();
      }
      expect(tokens(await store.reads.listTasks({ q: match[0]!, status: 'dead', scanLimit: 5 }))).toEqual([]);
    });
  });

  describe('task browser: pendingBreakdown', () => {
    const h = useStore(factory);

    it('splits pending tasks into ready, scheduled and retrying per queue', async () => {
      const { store } = h();
      const slot = await h().worker();
      expect(await store.reads.pendingBreakdown()).toEqual([]);
      const t0 = Date.now();
      const first = await h().add({ queue: 'pb' });
      await h().add({ queue: 'pb' });
      await h().add({ queue: 'pb', runAt: new Date(t0 + 7_200_000) });
      await h().add({ queue: 'pb', runAt: new Date(t0 + 3_600_000) });
      await h().add({ queue: 'pb-retry' });
      const c = await h().claimOne(slot, { queues: ['pb-retry'] });
      expect(await h().retryLater(c, 1_800_000)).toBe(true);
      await h().add({ queue: 'pb-other' });
      // not pending: running and finished tasks are not in it
      await h().add({ queue: 'pb-run' });
      await h().claimOne(slot, { queues: ['pb-run'] });
      await h().doneTask(slot, { queue: 'pb-done' });

      const rows = (await store.reads.pendingBreakdown()).sort((a, b) => a.queue.localeCompare(b.queue));
      expect(rows.map((r) => [r.queue, r.ready, r.scheduled, r.retrying])).toEqual([
        ['pb', 2, 2, 0],
        ['pb-other', 1, 0, 0],
        ['pb-retry', 0, 0, 1],
      ]);
      const pb = rows[0]!;
      expect(pb.oldestReadyAt?.getTime()).toBe((await h().task(first)).createdAt.getTime());
      expect(pb.nextRunAt?.getTime()).toBeGreaterThanOrEqual(t0 + 3_600_000 - 5);
      expect(pb.nextRunAt?.getTime()).toBeLessThan(t0 + 7_200_000 - 5);
      const retry = rows[2]!;
      expect(retry.oldestReadyAt).toBeNull();
      expect(retry.nextRunAt?.getTime()).toBeGreaterThan(t0 + 1_700_000);
      expect(rows[1]!.nextRunAt).toBeNull();
      void LONG_LEASE;
    });
  });
}
