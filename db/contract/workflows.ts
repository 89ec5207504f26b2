// Workflows (lib/engine/types/flows.ts has the rules): tasks that wait for other tasks. Readiness when parents
// succeed, the failure policies (cancel — transitive, with the reason —, run, wait), retry re-arming, parents
// settled before their child's enqueue, cancel and retry of flows, delete and prune, lease rescue, the parents
// a claimed task sees, dedup keys held by waiting tasks. Claim-driven: a task starts only when the claim says so.
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../lib/engine/errors';
import type { ClaimedTask, EnqueueInput, FlowInput, ParentFailurePolicy, QueueCounts, TaskStatus } from '../../lib/engine/types';
import { LONG_LEASE, sleep, useStore, type Harness, type StoreFactory } from './harness';

type Node = [id: string, deps?: (string | [string, ParentFailurePolicy])[], task?: Partial<EnqueueInput>];

/** A flow as validateFlow returns it (nodes given parents first). */
function flowOf(nodes: Node[], name: string | null = 'contract'): FlowInput {
  return {
    name,
    caller: null,
    nodes: nodes.map(([id, deps = [], task = {}]) => ({
      id,
      task: { kind: 'handler', command: `node.${id}`, payload: { node: id }, ...task },
      dependsOn: deps.map((d) => (typeof d === 'string' ? { id: d, onParentFailure: 'cancel' } : { id: d[0], onParentFailure: d[1] })),
    })),
  };
}

/** Enqueue a handler task after `parents` (each `cancel` unless given a policy); returns its token. */
function after(h: Harness, parents: (string | [string, ParentFailurePolicy])[], over: Partial<EnqueueInput> = {}): Promise<string> {
  const dependsOn = parents.map((p) =>
    typeof p === 'string' ? { token: p, onParentFailure: 'cancel' as const } : { token: p[0], onParentFailure: p[1] },
  );
  return h.add({ command: 'c', dependsOn, ...over });
}

/** Claim everything claimable now (up to 10), by token. */
async function claimAll(h: Harness): Promise<Map<string, ClaimedTask>> {
  const slots = await Promise.all(Array.from({ length: 10 }, () => h.worker()));
  const got = await h.store.worker.claim(slots, { leaseMs: LONG_LEASE });
  return new Map(got.map((c) => [c.token, c]));
}

/** The tokens' statuses, in order. */
const statuses = (h: Harness, tokens: string[]) => Promise.all(tokens.map((t) => h.status(t)));

/** countsByQueue agrees with the tasks themselves, waiting tasks included. */
async function expectTallied(h: Harness, tokens: string[]): Promise<void> {
  const want = new Map<string, Record<TaskStatus, number>>();
  for (const token of tokens) {
    const t = await h.store.reads.getTask(token);
    if (!t) continue;
    const row = want.get(t.queue) ?? { waiting: 0, pending: 0, running: 0, succeeded: 0, dead: 0, cancelled: 0 };
    row[t.status]++;
    want.set(t.queue, row);
  }
  const have = new Map((await h.store.reads.countsByQueue()).map((r: QueueCounts) => [r.queue, r]));
  for (const [queue, row] of want) {
    const r = have.get(queue);
    const got = {
      waiting: r?.waiting ?? 0,
      pending: r?.pending,
      running: r?.running,
      succeeded: r?.succeeded,
      dead: r?.dead,
      cancelled: r?.cancelled,
    };
    expect(got, `counts of ${queue}`).toEqual(row);
  }
}

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
