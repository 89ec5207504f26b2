// listTasks, listAttempts (filters, keyset pagination) and listRunning (ExecutionStatus).
import { describe, expect, it } from 'vitest';
import type { Page } from '../../lib/engine/types';
import { LONG_LEASE, sleep, useStore, type StoreFactory } from './harness';

/** Follow nextCursor to the end; checks order (id descending) and that there are no duplicates. */
async function walk<T extends { id: number }>(fetchPage: (cursor?: number) => Promise<Page<T>>, limit: number): Promise<T[]> {
  const all: T[] = [];
  let cursor: number | undefined;
  for (let guard = 0; guard < 100; guard++) {
    const page = await fetchPage(cursor);
    expect(page.items.length).toBeLessThanOrEqual(limit);
    all.push(...page.items);
    if (page.nextCursor === null) break;
    expect(page.items).toHaveLength(limit);
    cursor = page.nextCursor;
  }
  const ids = all.map((x) => x.id);
  expect(new Set(ids).size).toBe(ids.length);
  expect(ids).toEqual([...ids].sort((a, b) => b - a));
  return all;
}

export function listTests(factory: StoreFactory) {
  describe('listTasks', () => {
    const h = useStore(factory);

    it('lists newest first and pages with a cursor', async () => {
      const { store } = h();
      const tokens: string[] = [];
      for (let i = 0; i < 5; i++) tokens.push(await h().add({ payload: { i } }));
      const p1 = await store.reads.listTasks({ limit: 2 });
      expect(p1.items.map((t) => t.token)).toEqual([tokens[4], tokens[3]]);
      expect(p1.nextCursor).not.toBeNull();
      const p2 = await store.reads.listTasks({ limit: 2, cursor: p1.nextCursor! });
      expect(p2.items.map((t) => t.token)).toEqual([tokens[2], tokens[1]]);
      const p3 = await store.reads.listTasks({ limit: 2, cursor: p2.nextCursor! });
      expect(p3.items.map((t) => t.token)).toEqual([tokens[0]]);
      expect(p3.nextCursor).toBeNull();

      const all = await walk((cursor) => store.reads.listTasks({ limit: 3, cursor }), 3);
      expect(all.map((t) => t.token)).toEqual([...tokens].reverse());
      expect(all[0]).toMatchObject({ status: 'pending', queue: 'default', command: 'demo.echo', payload: { i: 4 } });

      const everything = await store.reads.listTasks({});
      expect(everything.items).toHaveLength(5);
      expect(everything.nextCursor).toBeNull();
    });

    it('has no cursor after a last page that is exactly full', async () => {
      const { store } = h();
      for (let i = 0; i < 4; i++) await h().add();
      const p1 = await store.reads.listTasks({ limit: 2 });
      const p2 = await store.reads.listTasks({ limit: 2, cursor: p1.nextCursor! });
      expect(p2.items).toHaveLength(2);
      expect(p2.nextCursor).toBeNull();
      expect((await store.reads.listTasks({ limit: 10 })).nextCursor).toBeNull();
    });

    it('filters by status, queue and text', async () => {
      const { store } = h();
      const slot = await h().worker();
      const done = await h().doneTask(slot, { queue: 'mail', command: 'mail.send' });
      const dead = await h().deadTask(slot, 'SMTP refused the connection', { queue: 'mail', command: 'mail.send' });
      const running = await h().add({ queue: 'reports', command: 'report.build' });
      await h().claimOne(slot, { queues: ['reports'] });
      const pendingMail = await h().add({ queue: 'mail', command: 'mail.send', dedupKey: 'invoice-77' });
      const pendingReport = await h().add({ queue: 'reports', command: 'report.build' });
      const tokens = (p: { items: { token: string }[] }) => p.items.map((t) => t.token);

      expect(tokens(await store.reads.listTasks({ status: 'pending' }))).toEqual([pendingReport, pendingMail]);
      expect(tokens(await store.reads.listTasks({ status: 'running' }))).toEqual([running]);
      expect(tokens(await store.reads.listTasks({ status: 'dead' }))).toEqual([dead]);
      expect(tokens(await store.reads.listTasks({ status: 'succeeded' }))).toEqual([done]);
      expect(tokens(await store.reads.listTasks({ status: 'cancelled' }))).toEqual([]);
      expect(tokens(await store.reads.listTasks({ queue: 'mail' }))).toEqual([pendingMail, dead, done]);
      expect(tokens(await store.reads.listTasks({ queue: 'mail', status: 'pending' }))).toEqual([pendingMail]);
      expect(tokens(await store.reads.listTasks({ queue: 'nowhere' }))).toEqual([]);
      // text: command, dedup key, last error message
      expect(tokens(await store.reads.listTasks({ q: 'report.bu' }))).toEqual([pendingReport, running]);
      expect(tokens(await store.reads.listTasks({ q: 'invoice-7' }))).toEqual([pendingMail]);
      expect(tokens(await store.reads.listTasks({ q: 'refused the' }))).toEqual([dead]);
      expect(tokens(await store.reads.listTasks({ q: 'no such text anywhere' }))).toEqual([]);

      const deadRow = (await store.reads.listTasks({ status: 'dead' })).items[0]!;
      expect(deadRow.lastError).toMatchObject({ message: 'SMTP refused the connection' });
      expect(deadRow.finishedAt).toBeInstanceOf(Date);
    });

    it('pages through a filtered list', async () => {
      const { store } = h();
      const mine: string[] = [];
      for (let i = 0; i < 7; i++) {
        mine.push(await h().add({ queue: 'mine' }));
        await h().add({ queue: 'theirs' });
      }
      const all = await walk((cursor) => store.reads.listTasks({ queue: 'mine', status: 'pending', limit: 3, cursor }), 3);
      expect(all.map((t) => t.token)).toEqual([...mine].reverse());
    });
  });

  describe('listAttempts', () => {
    const h = useStore(factory);

    it('lists attempts newest first with filters and pages', async () => {
      const { store } = h();
      const slot = await h().worker('attempt-worker');
      const early: string[] = [];
      early.push(await h().doneTask(slot, { queue: 'q1', command: 'job.alpha' }));
      early.push(await h().deadTask(slot, 'alpha exploded', { queue: 'q1', command: 'job.alpha' }));
      // the store's clock, not this machine's: the attempts' times are the store's
      await sleep(80);
      const mid = new Date(await h().storeNow(slot));
      await sleep(80);
      const late: string[] = [];
      late.push(await h().doneTask(slot, { queue: 'q2', command: 'job.beta' }));
      const retried = await h().add({ queue: 'q2', command: 'job.beta' });
      const c1 = await h().claimOne(slot, { queues: ['q2'] });
      expect(await h().retryLater(c1, 0, 'beta hiccup')).toBe(true);
      const c2 = await h().claimOne(slot, { queues: ['q2'] });
      expect(c2.token).toBe(retried);
      late.push(retried);

      const all = await walk((cursor) => store.reads.listAttempts({ limit: 2, cursor }), 2);
      expect(all).toHaveLength(5);
      expect(all[0]).toMatchObject({
        token: retried,
        attempt: 2,
        outcome: 'running',
        workerId: 'attempt-worker',
        session: slot.session,
        queue: 'q2',
        command: 'job.beta',
        kind: 'handler',
        endedAt: null,
      });
      expect(all[1]).toMatchObject({ token: retried, attempt: 1, outcome: 'failed', errorMessage: 'beta hiccup' });

      const outcomes = async (f: Parameters<typeof store.reads.listAttempts>[0]) =>
        (await store.reads.listAttempts(f)).items.map((a) => [a.token, a.outcome]);
      expect(await outcomes({ outcome: 'failed' })).toEqual([
        [retried, 'failed'],
        [early[1], 'failed'],
      ]);
      expect(await outcomes({ outcome: 'succeeded' })).toEqual([
        [late[0], 'succeeded'],
        [early[0], 'succeeded'],
      ]);
      expect(await outcomes({ outcome: 'running' })).toEqual([[retried, 'running']]);
      expect(await outcomes({ outcome: 'abandoned' })).toEqual([]);
      expect((await store.reads.listAttempts({ queue: 'q1' })).items.map((a) => a.token)).toEqual([early[1], early[0]]);
      expect((await store.reads.listAttempts({ q: 'exploded' })).items.map((a) => a.token)).toEqual([early[1]]);
      expect((await store.reads.listAttempts({ q: 'job.bet' })).items).toHaveLength(3);
      expect((await store.reads.listAttempts({ queue: 'q2', outcome: 'failed' })).items.map((a) => a.errorMessage)).toEqual([
        'beta hiccup',
      ]);

      const after = (await store.reads.listAttempts({ from: mid })).items.map((a) => a.token);
      expect(after).toEqual([retried, retried, late[0]]);
      const before = (await store.reads.listAttempts({ to: mid })).items.map((a) => a.token);
      expect(before).toEqual([early[1], early[0]]);
      expect(
        (await store.reads.listAttempts({ from: new Date(mid.getTime() - 60_000), to: new Date(mid.getTime() - 30_000) })).items,
      ).toEqual([]);
      const window = await walk(
        (cursor) => store.reads.listAttempts({ from: mid, to: new Date(mid.getTime() + 60_000), limit: 1, cursor }),
        1,
      );
      expect(window.map((a) => a.token)).toEqual([retried, retried, late[0]]);
    });
  });

  describe('listRunning', () => {
    const h = useStore(factory);

    it('shows running attempts with their worker and session', async () => {
      const { store } = h();
      expect(await store.reads.listRunning()).toEqual([]);
      const a = await h().worker('runner-a');
      const b = await h().worker('runner-b');
      const ta = await h().add({ queue: 'qa', command: 'demo.sleep', maxAttempts: 3 });
      const tb = await h().add({ queue: 'qb', command: 'demo.echo' });
      await h().add({ queue: 'qc' }); // stays pending
      const ca = await h().claimOne(a, { queues: ['qa'] });
      const cb = await h().claimOne(b, { queues: ['qb'], leaseMs: LONG_LEASE });

      const running = await store.reads.listRunning();
      expect(running).toHaveLength(2);
      const ra = running.find((r) => r.token === ta)!;
      const rb = running.find((r) => r.token === tb)!;
      expect(ra).toMatchObject({
        queue: 'qa',
        kind: 'handler',
        command: 'demo.sleep',
        attempt: 1,
        maxAttempts: 3,
        workerId: 'runner-a',
        session: a.session,
        cancelRequested: false,
      });
      expect(rb).toMatchObject({ queue: 'qb', command: 'demo.echo', workerId: 'runner-b', session: b.session });
      expect(ra.startedAt).toBeInstanceOf(Date);
      expect(ra.leaseUntil!.getTime()).toBeGreaterThan(Date.now());
      expect(ra.attemptId).not.toBe(rb.attemptId);
      const attempt = (await h().task(ta)).history[0]!;
      expect(ra.attemptId).toBe(attempt.id);

      expect(await h().succeed(ca)).toBe(true);
      expect((await store.reads.listRunning()).map((r) => r.token)).toEqual([tb]);
      expect(await h().kill(cb)).toBe(true);
      expect(await store.reads.listRunning()).toEqual([]);
    });
  });
}
