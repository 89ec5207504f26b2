// Workflows (lib/engine/types/flows.ts has the rules): tasks that wait for other tasks. Readiness when parents
// succeed, the failure policies (cancel — transitive, with the reason —, run, wait) from every way a parent fails
// (a settlement, a lease rescue, a cancel, a batch), retry re-arming, parents settled before their child's enqueue,
// the parents a claimed task sees, dedup keys held by waiting tasks. Claim-driven: a task starts only when the
// claim says so. Flows as a whole, deleting and pruning: workflow-operations.ts.
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../lib/engine/errors';
import type { EnqueueInput, ParentFailurePolicy } from '../../lib/engine/types';
import { sleep, useStore, type StoreFactory } from './harness';
import { after, claimAll, expectTallied, flowOf, statuses } from './workflow-helpers';

export function workflowTests(factory: StoreFactory) {
  describe('workflows', () => {
    const h = useStore(factory);

    it('diamond: a → b, c → d; d starts only after b and c succeeded, and sees their results', async () => {
      const { store } = h();
      const f = await store.commands.createFlow(flowOf([['a'], ['b', ['a']], ['c', ['a']], ['d', ['b', 'c']]]));
      expect(f.flowId).toBeGreaterThan(0);
      const { a, b, c, d } = f.tokens as Record<string, string>;
      expect(await statuses(h(), [a!, b!, c!, d!])).toEqual(['pending', 'waiting', 'waiting', 'waiting']);
      const ta = await h().task(d!);
      expect(ta).toMatchObject({ flowId: f.flowId, flowNode: 'd', parentCount: 2, parentsLeft: 2 });

      let got = await claimAll(h());
      expect([...got.keys()]).toEqual([a]);
      expect(got.get(a!)!.parents).toEqual([]);
      expect(await h().succeed(got.get(a!)!, { rows: 1 })).toBe(true);

      got = await claimAll(h());
      expect(new Set(got.keys())).toEqual(new Set([b, c]));
      expect(got.get(b!)!.parents).toEqual([{ token: a, nodeId: 'a', command: 'node.a', status: 'succeeded', result: { rows: 1 } }]);
      expect(await h().succeed(got.get(b!)!, 'from b')).toBe(true);
      expect(await h().status(d!)).toBe('waiting');
      expect((await h().task(d!)).parentsLeft).toBe(1);
      expect((await claimAll(h())).size).toBe(0);
      await expectTallied(h(), [a!, b!, c!, d!]);

      expect(await h().succeed(got.get(c!)!, ['from', 'c'])).toBe(true);
      expect(await h().status(d!)).toBe('pending');
      got = await claimAll(h());
      expect([...got.keys()]).toEqual([d]);
      expect(got.get(d!)!.parents).toEqual([
        { token: b, nodeId: 'b', command: 'node.b', status: 'succeeded', result: 'from b' },
        { token: c, nodeId: 'c', command: 'node.c', status: 'succeeded', result: ['from', 'c'] },
      ]);
      await expectTallied(h(), [a!, b!, c!, d!]);
    });

    it('a waiting task is never claimed, even when due', async () => {
      const { store } = h();
      const parent = await h().add({ runAt: new Date(Date.now() + 60_000) });
      const child = await after(h(), [parent]);
      expect(await h().status(child)).toBe('waiting');
      await h().claimNone(await h().worker());
      await expectTallied(h(), [parent, child]);
    });

    it('dependsOn: a parent succeeded before counts as done; one still open makes the child wait; it joins the parent flow', async () => {
      const { store } = h();
      const slot = await h().worker();
      const done = await h().doneTask(slot);
      const ready = await store.commands.enqueue({
        kind: 'handler',
        command: 'next',
        queue: 'r',
        payload: null,
        dependsOn: [{ token: done, onParentFailure: 'cancel' }],
      });
      expect(await h().task(ready.token)).toMatchObject({ status: 'pending', parentCount: 1, parentsLeft: 0, flowId: null });

      const f = await store.commands.createFlow(flowOf([['x']]));
      const waits = await store.commands.enqueue({
        kind: 'handler',
        command: 'after',
        payload: null,
        dependsOn: [
          { token: done, onParentFailure: 'cancel' },
          { token: f.tokens.x!, onParentFailure: 'cancel' },
        ],
      });
      expect(await h().task(waits.token)).toMatchObject({
        status: 'waiting',
        parentCount: 2,
        parentsLeft: 1,
        flowId: f.flowId,
        flowNode: null,
      });
      const c = await h().claimOne(slot, { queues: ['r'] });
      expect(c.token).toBe(ready.token);
      expect(c.parents).toEqual([{ token: done, nodeId: null, command: 'demo.echo', status: 'succeeded', result: null }]);
    });

    it('dependsOn naming no task is refused, the field named; nothing is written', async () => {
      const { store } = h();
      const parent = await h().add();
      const missing = '01930000-0000-7000-8000-000000000000';
      const one = await store.commands
        .enqueue({
          kind: 'handler',
          command: 'c',
          payload: null,
          dependsOn: [
            { token: parent, onParentFailure: 'cancel' },
            { token: missing, onParentFailure: 'cancel' },
          ],
        })
        .catch((e: unknown) => e);
      expect(one).toBeInstanceOf(ValidationError);
      expect((one as ValidationError).field).toBe('dependsOn.1');
      expect((one as Error).message).toContain(missing);
      const many = await store.commands
        .enqueueMany([
          { kind: 'handler', command: 'ok', payload: null },
          { kind: 'handler', command: 'c', payload: null, dependsOn: [{ token: missing, onParentFailure: 'run' }] },
        ])
        .catch((e: unknown) => e);
      expect(many).toBeInstanceOf(ValidationError);
      expect((many as ValidationError).field).toBe('tasks.1.dependsOn.0');
      expect((await store.reads.countsByQueue()).reduce((n, r) => n + r.pending, 0)).toBe(1);
    });

    it('policy cancel: a dead parent cancels its waiting children, transitively, each naming why', async () => {
      const { store } = h();
      const f = await store.commands.createFlow(flowOf([['a'], ['b', ['a']], ['c', ['b']], ['other']]));
      const { a, b, c, other } = f.tokens as Record<string, string>;
      const slot = await h().worker();
      const ca = await h().claimOne(slot, {});
      const first = ca.token === a ? ca : await h().claimOne(slot);
      expect(first.token).toBe(a);
      expect(await h().kill(first, 'load failed')).toBe(true);
      const tb = await h().task(b!);
      const tc = await h().task(c!);
      expect(tb.status).toBe('cancelled');
      expect(tb.lastError?.message).toBe(`parent ${a} dead`);
      expect(tb.finishedAt).not.toBeNull();
      expect(tb.history).toEqual([]);
      expect(tc.status).toBe('cancelled');
      expect(tc.lastError?.message).toBe(`parent ${b} cancelled`);
      expect(await h().status(other!)).not.toBe('cancelled');
      await expectTallied(h(), [a!, b!, c!, other!]);
    });

    it('policy run: a dead parent lets its child run, which sees the parent dead', async () => {
      const { store } = h();
      const f = await store.commands.createFlow(flowOf([['a'], ['b', [['a', 'run']]]]));
      const slot = await h().worker();
      const ca = await h().claimOne(slot);
      expect(await h().kill(ca)).toBe(true);
      expect(await h().status(f.tokens.b!)).toBe('pending');
      const cb = await h().claimOne(slot);
      expect(cb.token).toBe(f.tokens.b);
      expect(cb.parents).toEqual([{ token: f.tokens.a, nodeId: 'a', command: 'node.a', status: 'dead', result: null }]);
      await expectTallied(h(), Object.values(f.tokens));
    });

    it('policy wait: the child keeps waiting for an operator; the parent retried and succeeded lets it run', async () => {
      const { store } = h();
      const f = await store.commands.createFlow(flowOf([['a'], ['b', [['a', 'wait']]]]));
      const slot = await h().worker();
      expect(await h().kill(await h().claimOne(slot))).toBe(true);
      expect(await h().status(f.tokens.b!)).toBe('waiting');
      await h().claimNone(slot);
      expect(await store.commands.retry(f.tokens.a!)).toBe('retried');
      expect(await h().succeed(await h().claimOne(slot))).toBe(true);
      expect((await h().claimOne(slot)).token).toBe(f.tokens.b);
      await expectTallied(h(), Object.values(f.tokens));
    });

    it('retrying a dead parent re-arms the children it cancelled (back to waiting), which then run', async () => {
      const { store } = h();
      const f = await store.commands.createFlow(flowOf([['a'], ['b', ['a']], ['c', ['b']]]));
      const { a, b, c } = f.tokens as Record<string, string>;
      const slot = await h().worker();
      expect(await h().kill(await h().claimOne(slot))).toBe(true);
      expect(await statuses(h(), [a!, b!, c!])).toEqual(['dead', 'cancelled', 'cancelled']);
      // a blocked child is re-armed by its parent, not retried on its own terms by retryFlow
      expect(await store.commands.retry(a!)).toBe('retried');
      expect(await statuses(h(), [a!, b!, c!])).toEqual(['pending', 'waiting', 'waiting']);
      const tb = await h().task(b!);
      expect(tb).toMatchObject({ parentsLeft: 1, finishedAt: null, lastError: null });
      await expectTallied(h(), [a!, b!, c!]);
      for (const want of [a, b, c]) {
        const got = await h().claimOne(slot);
        expect(got.token).toBe(want);
        expect(await h().succeed(got)).toBe(true);
      }
      expect(await statuses(h(), [a!, b!, c!])).toEqual(['succeeded', 'succeeded', 'succeeded']);
    });

    it('a run edge counts as unfinished again when its dead parent is retried', async () => {
      const { store } = h();
      const f = await store.commands.createFlow(
        flowOf([
          ['a', [], { queue: 'qa' }],
          ['x', [], { queue: 'qx' }],
          ['b', [['a', 'run'], 'x']],
        ]),
      );
      const { a, x, b } = f.tokens as Record<string, string>;
      const slot = await h().worker();
      expect(await h().kill(await h().claimOne(slot, { queues: ['qa'] }))).toBe(true);
      expect(await h().task(b!)).toMatchObject({ status: 'waiting', parentsLeft: 1 });
      expect(await store.commands.retry(a!)).toBe('retried');
      expect(await h().task(b!)).toMatchObject({ status: 'waiting', parentsLeft: 2 });
      expect(await h().succeed(await h().claimOne(slot, { queues: ['qx'] }))).toBe(true);
      expect(await h().task(b!)).toMatchObject({ status: 'waiting', parentsLeft: 1 });
      const again = await h().claimOne(slot, { queues: ['qa'] });
      expect(again.token).toBe(a);
      expect(await h().succeed(again)).toBe(true);
      expect(await h().task(b!)).toMatchObject({ status: 'pending', parentsLeft: 0 });
      await expectTallied(h(), [a!, x!, b!]);
    });

    it('a parent already dead or cancelled at the enqueue applies the policy at once', async () => {
      const { store } = h();
      const slot = await h().worker();
      const dead = await h().deadTask(slot, 'gone');
      const cancelled = await h().add();
      expect(await store.commands.cancel(cancelled)).toBe('cancelled');
      const add = (token: string, policy: ParentFailurePolicy) => after(h(), [[token, policy]]);
      const t1 = await h().task(await add(dead, 'cancel'));
      expect(t1).toMatchObject({ status: 'cancelled', parentsLeft: 1 });
      expect(t1.lastError?.message).toBe(`parent ${dead} dead`);
      expect(t1.finishedAt).not.toBeNull();
      const t2 = await add(cancelled, 'cancel');
      expect((await h().task(t2)).lastError?.message).toBe(`parent ${cancelled} cancelled`);
      const run = await add(dead, 'run');
      expect(await h().task(run)).toMatchObject({ status: 'pending', parentsLeft: 0 });
      const wait = await add(cancelled, 'wait');
      expect(await h().task(wait)).toMatchObject({ status: 'waiting', parentsLeft: 1 });
      // the dead parent retried re-arms the child it cancelled at its enqueue
      expect(await store.commands.retry(dead)).toBe('retried');
      expect(await h().status(t1.token)).toBe('waiting');
      await expectTallied(h(), [dead, cancelled, t1.token, t2, run, wait]);
    });

    it('cancelling a waiting task cancels its own waiting children', async () => {
      const { store } = h();
      const f = await store.commands.createFlow(flowOf([['a'], ['b', ['a']], ['c', ['b']], ['d', [['b', 'run']]]]));
      const { a, b, c, d } = f.tokens as Record<string, string>;
      expect(await store.commands.cancel(b!)).toBe('cancelled');
      expect(await statuses(h(), [a!, b!, c!, d!])).toEqual(['pending', 'cancelled', 'cancelled', 'pending']);
      expect((await h().task(b!)).lastError).toBeNull();
      expect((await h().task(c!)).lastError?.message).toBe(`parent ${b} cancelled`);
      await expectTallied(h(), [a!, b!, c!, d!]);
      // bulk cancel does the same
      const g = await store.commands.createFlow(flowOf([['p'], ['q', ['p']]]));
      expect(await store.commands.bulk('cancel', [g.tokens.p!], {})).toMatchObject({ done: 1 });
      expect((await h().task(g.tokens.q!)).lastError?.message).toBe(`parent ${g.tokens.p} cancelled`);
    });

    it('a lease rescued to dead applies its children’s policies', async () => {
      const { store } = h();
      const f = await store.commands.createFlow(
        flowOf([
          ['a', [], { maxAttempts: 1 }],
          ['b', ['a']],
          ['c', [['a', 'run']]],
        ]),
      );
      const slot = await h().worker();
      expect((await h().claimOne(slot, { leaseMs: 50 })).token).toBe(f.tokens.a);
      await sleep(150);
      expect(await store.maintenance.rescueExpired()).toMatchObject({ dead: 1 });
      expect(await h().status(f.tokens.a!)).toBe('dead');
      expect((await h().task(f.tokens.b!)).lastError?.message).toBe(`parent ${f.tokens.a} dead`);
      expect(await h().status(f.tokens.c!)).toBe('pending');
      await expectTallied(h(), Object.values(f.tokens));
    });

    it('a waiting task holds its dedup key', async () => {
      const { store } = h();
      const parent = await h().add({ runAt: new Date(Date.now() + 60_000) });
      const input: EnqueueInput = {
        kind: 'handler',
        command: 'c',
        payload: null,
        dedupKey: 'k1',
        dependsOn: [{ token: parent, onParentFailure: 'cancel' }],
      };
      const first = await store.commands.enqueue(input);
      expect(first.created).toBe(true);
      expect(await h().status(first.token)).toBe('waiting');
      expect(await store.commands.enqueue(input)).toEqual({ token: first.token, created: false });
      expect(await store.commands.enqueue({ kind: 'handler', command: 'other', payload: null, dedupKey: 'k1' })).toEqual({
        token: first.token,
        created: false,
      });
    });

    it('retry of a task with an unfinished parent puts it back to waiting', async () => {
      const { store } = h();
      const f = await store.commands.createFlow(
        flowOf([
          ['a', [], { runAt: new Date(Date.now() + 60_000) }],
          ['b', ['a']],
        ]),
      );
      expect(await store.commands.cancel(f.tokens.b!)).toBe('cancelled');
      expect(await store.commands.retry(f.tokens.b!)).toBe('retried');
      expect(await h().status(f.tokens.b!)).toBe('waiting');
      expect(await store.commands.cancel(f.tokens.b!)).toBe('cancelled');
      expect(await store.commands.editTask(f.tokens.b!, { priority: 3 }, true)).toMatchObject({
        result: 'retried',
        after: { status: 'waiting' },
      });
      await expectTallied(h(), Object.values(f.tokens));
    });

    it('editTask retrying a cancelled child counts its edges as its parents stand now', async () => {
      const { store } = h();
      const slot = await h().worker();
      const parent = await h().add({ queue: 'ep' });
      const child = await after(h(), [[parent, 'run']], { queue: 'ec' });
      expect(await store.commands.cancel(child)).toBe('cancelled');
      expect(await h().kill(await h().claimOne(slot, { queues: ['ep'] }))).toBe(true);
      // the run parent died while the child was cancelled: done, so the child comes back pending
      expect(await store.commands.editTask(child, { priority: 2 }, true)).toMatchObject({
        result: 'retried',
        after: { status: 'pending', parentsLeft: 0, priority: 2 },
      });
      await expectTallied(h(), [parent, child]);
    });

    it('a batch cancelled, or aborted by a failed stage, applies its tasks’ children’s policies', async () => {
      const { store } = h();
      const b = await store.commands.createBatch({ onFailure: 'abort' });
      const s0 = await h().add({ batchId: b.id, stage: 0 });
      const s1 = await h().add({ batchId: b.id, stage: 1 });
      const after1 = await after(h(), [s1]);
      const runs = await after(h(), [[s1, 'run']]);
      const slot = await h().worker();
      const c0 = await h().claimOne(slot);
      expect(c0.token).toBe(s0);
      expect(await h().kill(c0)).toBe(true);
      // the abort cancelled stage 1, and with it its children under cancel
      expect(await statuses(h(), [s1, after1, runs])).toEqual(['cancelled', 'cancelled', 'pending']);
      expect((await h().task(after1)).lastError?.message).toBe(`parent ${s1} cancelled`);
      await expectTallied(h(), [s0, s1, after1, runs]);

      const c = await store.commands.createBatch({});
      const t = await h().add({ batchId: c.id, stage: 0, queue: 'cb' });
      const child = await after(h(), [t], { queue: 'cb' });
      expect(await store.commands.cancelBatch(c.id)).toMatchObject({ result: 'cancelled', cancelled: 1 });
      expect((await h().task(child)).lastError?.message).toBe(`parent ${t} cancelled`);
    });

    it('retryFailed and a bulk retry re-arm the children their tasks cancelled', async () => {
      const { store } = h();
      const slot = await h().worker();
      const p1 = await h().deadTask(slot, 'first', { queue: 'p' });
      const p2 = await h().deadTask(slot, 'second', { queue: 'q' });
      const c1 = await after(h(), [p1]);
      const c2 = await after(h(), [p2]);
      expect(await statuses(h(), [c1, c2])).toEqual(['cancelled', 'cancelled']);
      expect(await store.commands.retryFailed({ queue: 'p' })).toMatchObject({ retried: 1 });
      expect(await statuses(h(), [p1, c1])).toEqual(['pending', 'waiting']);
      expect(await store.commands.bulk('retry', [p2], {})).toMatchObject({ done: 1 });
      expect(await statuses(h(), [p2, c2])).toEqual(['pending', 'waiting']);
      await expectTallied(h(), [p1, p2, c1, c2]);
    });
  });
}
