// The wake-up long poll (wake.ts) with the real driver against the stand-in TDS endpoint: one
// connection per process, started by the first listener, waking on a newer task id only, stopped by
// the last listener; off with wakeMs 0.
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeReply } from './test-support/fake-tds';
import { closeFakeStores, openFakeStore } from './test-support/fake-store';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
/** The poll's answer: the newest id, and whether a task newer than the last one is ready (sql/wake.ts). */
const top = (id: number, delayMs = 0, ready = true): FakeReply => ({
  sets: [
    {
      columns: [
        ['top_id', 'bigint'],
        ['ready', 'bit'],
      ],
      rows: [[id, ready]],
    },
  ],
  delayMs,
});

afterEach(closeFakeStores);

describe('wake-up long poll', () => {
  it('one connection for every listener; wakes when the newest task id grows; stops with the last listener', async () => {
    const answers = [top(5), top(5, 30), top(5, 30), top(7, 30)];
    const { tds, store } = await openFakeStore((req, conn) => {
      if (conn.appName !== 'readpast wake') return undefined;
      expect(req.text).toContain('MAX(t.id) FROM readpast.Tasks');
      return answers.shift() ?? top(7, 30);
    });
    let a = 0;
    let b = 0;
    const offA = store.worker.onWake(() => a++);
    const offB = store.worker.onWake(() => b++);
    for (let i = 0; i < 100 && a === 0; i++) await sleep(10);
    expect([a, b]).toEqual([1, 1]); // 5 → 5 → 5 → 7: one wake-up
    expect(tds.logins('readpast wake')).toHaveLength(1);
    offA();
    offB();
    await sleep(100);
    const sent = tds.requests('readpast wake').length;
    await sleep(150);
    expect(tds.requests('readpast wake').length).toBe(sent);
  });

  it('new tasks none of which is ready (a flow’s waiting nodes, delayed ones, taken already) wake nobody', async () => {
    const answers = [top(5), top(9, 30, false), top(12, 30, false), top(12, 30, false)];
    let polls = 0;
    const { store } = await openFakeStore((req, conn) => {
      if (conn.appName !== 'readpast wake') return undefined;
      expect(req.text).toContain("t.id > @seen AND t.id <= @top AND t.status = 'pending' AND t.run_after <= SYSUTCDATETIME()");
      polls++;
      return answers.shift() ?? top(14, 30, true);
    });
    const woke: number[] = [];
    const off = store.worker.onWake(() => woke.push(polls));
    for (let i = 0; i < 200 && woke.length === 0; i++) await sleep(10);
    // 5 → 9, 12 (none ready): no wake-up; 14 (ready): one, on the fifth answer
    expect(woke).toEqual([5]);
    off();
  });

  it('wakeMs 0: no long poll', async () => {
    const { tds, store } = await openFakeStore(() => top(1), { wakeMs: 0 });
    const off = store.worker.onWake(() => {});
    await sleep(100);
    expect(tds.logins('readpast wake')).toHaveLength(0);
    off();
  });
});
