// Workflows operated on as a whole (lib/engine/types/flows.ts has the rules): cancelling and retrying a flow,
// creating one inside the caller's transaction or of thousands of nodes, deleting and pruning tasks with edges,
// and a sql task reading its parents' results from @Parents.
import { describe, expect, it } from 'vitest';
import { sleep, useStore, type StoreFactory } from './harness';
import { after, expectTallied, flowOf, statuses, type Node } from './workflow-helpers';

export function workflowOperationTests(factory: StoreFactory) {
  describe('workflow operations', () => {
    const h = useStore(factory);

    it('cancelFlow cancels every unfinished node and asks the running ones to stop; retryFlow brings them back', async () => {
      const { store } = h();
      const f = await store.commands.createFlow(flowOf([['a'], ['b', ['a']], ['c', ['b']]]));
      const { a, b, c } = f.tokens as Record<string, string>;
      const slot = await h().worker();
      const ca = await h().claimOne(slot);
      expect(await store.commands.cancelFlow(f.flowId)).toEqual({ result: 'cancelled', cancelled: 2, cancelRequested: 1 });
      expect(await statuses(h(), [a!, b!, c!])).toEqual(['running', 'cancelled', 'cancelled']);
      expect(await h().settle(ca, { kind: 'cancelled', error: null })).toBe(true);
      expect(await store.commands.cancelFlow(f.flowId + 1000)).toEqual({ result: 'not_found', cancelled: 0, cancelRequested: 0 });
      await expectTallied(h(), [a!, b!, c!]);

      expect(await store.commands.retryFlow(f.flowId)).toEqual({ result: 'retried', retried: 3 });
      expect(await statuses(h(), [a!, b!, c!])).toEqual(['pending', 'waiting', 'waiting']);
      expect(await store.commands.retryFlow(f.flowId + 1000)).toEqual({ result: 'not_found', retried: 0 });
      await expectTallied(h(), [a!, b!, c!]);
      // a dead node: retried; its blocked child comes back through it
      expect(await h().kill(await h().claimOne(slot))).toBe(true);
      expect(await store.commands.retryFlow(f.flowId)).toEqual({ result: 'retried', retried: 1 });
      expect(await statuses(h(), [a!, b!, c!])).toEqual(['pending', 'waiting', 'waiting']);
    });

    it('a task an unfinished task depends on cannot be deleted; once it finished, it can, and its edges go', async () => {
      const { store } = h();
      const slot = await h().worker();
      const parent = await h().doneTask(slot);
      const child = await after(h(), [parent]);
      expect(await store.commands.deleteTask(parent)).toBe('conflict');
      expect(await store.commands.bulk('delete', [parent], {})).toMatchObject({ done: 0, skipped: 1 });
      expect(await store.commands.deleteTask(child)).toBe('conflict');
      expect(await h().succeed(await h().claimOne(slot))).toBe(true);
      expect(await store.commands.deleteTask(parent)).toBe('deleted');
      expect(await h().task(child)).toMatchObject({ status: 'succeeded' });
      expect(await store.commands.deleteTask(child)).toBe('deleted');

      // deleteFailed skips a dead task whose child waits on it (policy wait)
      const dead = await h().deadTask(slot, 'kept');
      const waits = await after(h(), [[dead, 'wait']]);
      expect(await store.commands.deleteFailed({})).toBe(0);
      expect(await store.commands.cancel(waits)).toBe('cancelled');
      expect(await store.commands.deleteFailed({})).toBe(1);
    });

    it('pruning keeps a flow until all of it finished, then prunes it whole; keeps a parent an open task depends on', async () => {
      const { store } = h();
      const slot = await h().worker();
      const f = await store.commands.createFlow(flowOf([['a'], ['b', ['a']]]));
      const parent = await h().doneTask(slot, { queue: 'solo' });
      const child = await after(h(), [parent], { queue: 'solo' });
      const ca = await h().claimOne(slot, { queues: ['default'] });
      expect(ca.token).toBe(f.tokens.a);
      expect(await h().succeed(ca)).toBe(true);
      await sleep(20);
      const future = new Date(Date.now() + 60_000);
      expect(await store.maintenance.prune(future)).toEqual({ tasks: 0, attempts: 0 });
      expect(await h().status(f.tokens.a!)).toBe('succeeded');
      expect(await h().status(parent)).toBe('succeeded');

      expect(await h().succeed(await h().claimOne(slot, { queues: ['default'] }))).toBe(true);
      expect(await h().succeed(await h().claimOne(slot, { queues: ['solo'] }))).toBe(true);
      // finished now, but after the cutoff: kept
      expect(await store.maintenance.prune(new Date(Date.now() - 60_000))).toEqual({ tasks: 0, attempts: 0 });
      expect(await store.maintenance.prune(future)).toEqual({ tasks: 4, attempts: 4 });
      for (const t of [f.tokens.a!, f.tokens.b!, parent, child]) expect(await store.reads.getTask(t)).toBeNull();
      expect(await store.commands.cancelFlow(f.flowId)).toMatchObject({ result: 'not_found' });
    });

    it('a flow created inside the caller transaction commits with it, or is gone with its rollback', async () => {
      const { store } = h();
      const f = await store.commands.transaction((tx) => tx.createFlow(flowOf([['a'], ['b', ['a']]])));
      expect(await statuses(h(), [f.tokens.a!, f.tokens.b!])).toEqual(['pending', 'waiting']);
      let inside: string | null = null;
      const failed = await store.commands
        .transaction(async (tx) => {
          inside = (await tx.createFlow(flowOf([['x'], ['y', ['x']]]))).tokens.x!;
          throw new Error('changed my mind');
        })
        .catch((e: unknown) => e);
      expect((failed as Error).message).toBe('changed my mind');
      expect(inside).not.toBeNull();
      expect(await store.reads.getTask(inside!)).toBeNull();
      await expectTallied(h(), Object.values(f.tokens));
    });

    it('a sql task reads its parents and their results from @Parents; a text not naming it binds nothing', async () => {
      const { store } = h();
      const f = await store.commands.createFlow(flowOf([['a'], ['s', ['a'], { kind: 'sql', command: 'SELECT @Parents AS parents' }]]));
      const slot = await h().worker();
      expect(await h().succeed(await h().claimOne(slot), { total: 3 })).toBe(true);
      const c = await h().claimOne(slot);
      expect(c.token).toBe(f.tokens.s);
      const attempt = { ...slot, taskId: c.id, attempt: c.attempt, parents: c.parents };
      const signal = new AbortController().signal;
      const r = await store.worker.runSql(attempt, c.command, signal);
      expect(JSON.parse(String(r.rows[0]!.parents))).toEqual([
        { token: f.tokens.a, nodeId: 'a', command: 'node.a', status: 'succeeded', result: { total: 3 } },
      ]);
      expect((await store.worker.runSql(attempt, 'SELECT 2 AS two', signal)).rows).toEqual([{ two: 2 }]);
    });

    it('a flow of 2,000 nodes is created at once, roots pending and the rest waiting', async () => {
      const { store } = h();
      const nodes: Node[] = [];
      for (let i = 0; i < 2000; i++) nodes.push([`n${i}`, i < 1000 ? [] : [`n${i - 1000}`, `n${(i + 1) % 1000}`]]);
      const f = await store.commands.createFlow(flowOf(nodes));
      expect(Object.keys(f.tokens)).toHaveLength(2000);
      expect(await h().task(f.tokens.n1500!)).toMatchObject({ status: 'waiting', flowNode: 'n1500', parentCount: 2, parentsLeft: 2 });
      expect(await h().status(f.tokens.n999!)).toBe('pending');
      const counts = (await store.reads.countsByQueue()).find((r) => r.queue === 'default')!;
      expect(counts.pending).toBe(1000);
    });
  });
}
