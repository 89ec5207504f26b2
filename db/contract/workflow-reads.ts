// The reads of workflows (lib/engine/types/flows.ts): a task's parents and children with their states, a flow
// with its nodes and edges, the list of flows with their counts, the task list's waiting tab and flow filter,
// the kept counts of waiting tasks, and "why isn't it running?" for a waiting task.
import { describe, expect, it } from 'vitest';
import { MAX_LINKS_SHOWN } from '../../lib/engine/limits';
import type { ParentFailurePolicy, TaskFilter, WorkerSlot } from '../../lib/engine/types';
import { whyOfTask } from '../../lib/engine/why-read';
import { type Harness, type StoreFactory, useStore } from './harness';
import { flowOf, type Node } from './workflow-helpers';

/** A flow as validateFlow returns it (workflow-helpers.ts), with a caller. */
const flowBy = (nodes: Node[], name: string | null = null) => ({ ...flowOf(nodes, name), caller: 'contract' });

/** Claim the task (its queue only) and settle it succeeded. */
async function runOk(h: Harness, slot: WorkerSlot, token: string, queue = 'default'): Promise<void> {
  const c = await h.store.worker.claim([slot], { leaseMs: 60_000, queues: [queue] });
  expect(c.map((x) => x.token)).toEqual([token]);
  expect(await h.succeed(c[0]!)).toBe(true);
}

const dep = (token: string, onParentFailure: ParentFailurePolicy = 'cancel') => ({ token, onParentFailure });

export function workflowReadTests(factory: StoreFactory): void {
  describe('workflow reads: parents and children, flows, the waiting tab, counts, why', () => {
    const h = useStore(factory);
    const list = async (f: TaskFilter) => (await h().store.reads.listTasks(f)).items.map((t) => t.token);

    it('a task lists its parents (with their states and its policies) and each parent lists it as a child', async () => {
      const slot = await h().worker();
      const done = await h().doneTask(slot);
      const plain = await h().add();
      const child = await h().add({ command: 'demo.child', dependsOn: [dep(plain), dep(done, 'run')] });
      const t = await h().task(child);
      expect(t).toMatchObject({ status: 'waiting', parentCount: 2, parentsLeft: 1, flowId: null, flowNode: null, childCount: 0 });
      // by parent id, whatever the order given
      expect(t.parents).toEqual([
        { token: done, nodeId: null, command: 'demo.echo', status: 'succeeded', onParentFailure: 'run' },
        { token: plain, nodeId: null, command: 'demo.echo', status: 'pending', onParentFailure: 'cancel' },
      ]);
      expect(t.children).toEqual([]);
      const link = { token: child, nodeId: null, command: 'demo.child', status: 'waiting', onParentFailure: 'cancel' };
      expect(await h().task(plain)).toMatchObject({ parents: [], parentCount: 0, parentsLeft: 0, children: [link], childCount: 1 });
      expect((await h().task(done)).children).toEqual([{ ...link, onParentFailure: 'run' }]);
      // the parent succeeds: the child is pending, its page says so
      await runOk(h(), slot, plain);
      const after = await h().task(child);
      expect(after).toMatchObject({ status: 'pending', parentCount: 2, parentsLeft: 0 });
      expect(after.parents.map((p) => p.status)).toEqual(['succeeded', 'succeeded']);
      expect((await h().task(plain)).children).toEqual([{ ...link, status: 'pending' }]);
      // a task without links
      expect(await h().task(done)).toMatchObject({ parents: [], parentCount: 0, parentsLeft: 0, flowId: null, flowNode: null });
    });

    it('a flow reads back whole: its row, every task with its node id, every edge as tokens, counts, when it finished', async () => {
      const { store } = h();
      const slot = await h().worker();
      const before = Date.now();
      const flow = flowBy([['a'], ['b'], ['c', ['a', ['b', 'wait']]], ['d', [['c', 'run']]]], 'nightly');
      const { flowId, tokens } = await store.commands.createFlow(flow);
      const f = (await store.reads.getFlow(flowId))!;
      expect(f).toMatchObject({ id: flowId, name: 'nightly', caller: 'contract', nodes: 4, finishedAt: null });
      expect(f.createdAt.getTime()).toBeGreaterThanOrEqual(before - 5_000);
      expect(f.counts).toEqual({ waiting: 2, pending: 2, claimed: 0, running: 0, succeeded: 0, dead: 0, cancelled: 0 });
      expect(f.nodeList.map((n) => [n.nodeId, n.token, n.status])).toEqual([
        ['a', tokens.a, 'pending'],
        ['b', tokens.b, 'pending'],
        ['c', tokens.c, 'waiting'],
        ['d', tokens.d, 'waiting'],
      ]);
      expect(f.nodeList[2]).toEqual({
        nodeId: 'c',
        token: tokens.c,
        status: 'waiting',
        queue: 'default',
        kind: 'handler',
        command: 'node.c',
        attempts: 0,
        startedAt: null,
        finishedAt: null,
        error: null,
      });
      const edge = (p: string, c: string, onParentFailure: ParentFailurePolicy) => ({
        parent: tokens[p],
        child: tokens[c],
        onParentFailure,
      });
      expect(f.edges).toHaveLength(3);
      expect(f.edges).toEqual(expect.arrayContaining([edge('a', 'c', 'cancel'), edge('b', 'c', 'wait'), edge('c', 'd', 'run')]));
      expect(await h().task(tokens.c!)).toMatchObject({ flowId, flowNode: 'c', parentCount: 2, parentsLeft: 2 });
      expect((await h().task(tokens.c!)).parents.map((p) => [p.nodeId, p.command, p.onParentFailure])).toEqual([
        ['a', 'node.a', 'cancel'],
        ['b', 'node.b', 'wait'],
      ]);
      expect(await store.reads.getFlow(flowId + 1000)).toBeNull();

      for (const n of ['a', 'b', 'c', 'd']) await runOk(h(), slot, tokens[n]!);
      const done = (await store.reads.getFlow(flowId))!;
      expect(done.counts).toMatchObject({ waiting: 0, pending: 0, succeeded: 4 });
      const last = Math.max(...done.nodeList.map((n) => n.finishedAt!.getTime()));
      expect(done.finishedAt?.getTime()).toBe(last);
      expect(done.nodeList.every((n) => n.attempts === 1 && n.startedAt !== null)).toBe(true);

      // a task enqueued later after one of the flow's tasks shows in the flow, without a node id
      const more = await h().add({ command: 'demo.more', dependsOn: [dep(tokens.d!)] });
      expect(await h().task(more)).toMatchObject({ flowId, flowNode: null, status: 'pending' });
      const grown = (await store.reads.getFlow(flowId))!;
      expect(grown).toMatchObject({ nodes: 4, finishedAt: null });
      expect(grown.counts).toMatchObject({ pending: 1, succeeded: 4 });
      expect(grown.nodeList.map((n) => n.nodeId)).toEqual(['a', 'b', 'c', 'd', null]);
      expect(grown.edges).toEqual(expect.arrayContaining([{ parent: tokens.d, child: more, onParentFailure: 'cancel' }]));
      await runOk(h(), slot, more);
      expect((await store.reads.getFlow(flowId))!.finishedAt).toBeInstanceOf(Date);
    });

    it("a dead node's error shows on the flow's node", async () => {
      const { store } = h();
      const slot = await h().worker();
      const { flowId, tokens } = await store.commands.createFlow(flowBy([['x'], ['y', ['x']]]));
      const c = await h().claimOne(slot);
      expect(c.token).toBe(tokens.x);
      expect(await h().kill(c, 'the disk is full')).toBe(true);
      const f = (await store.reads.getFlow(flowId))!;
      expect(f.nodeList.map((n) => [n.nodeId, n.status])).toEqual([
        ['x', 'dead'],
        ['y', 'cancelled'],
      ]);
      expect(f.nodeList[0]!.error).toBe('the disk is full');
      expect(f.nodeList[1]!.error).toContain(tokens.x!);
      expect(f.finishedAt).toBeInstanceOf(Date);
      expect(f.counts).toMatchObject({ dead: 1, cancelled: 1 });
    });

    it('the flow list: newest first, keyset pages, counts per flow, unfinished or finished only', async () => {
      const { store } = h();
      const slot = await h().worker();
      const f1 = await store.commands.createFlow(flowBy([['one']], 'first'));
      const f2 = await store.commands.createFlow(flowBy([['a'], ['b', ['a']]]));
      const f3 = await store.commands.createFlow(flowBy([['solo']], 'third'));
      await runOk(h(), slot, f1.tokens.one!);
      const all = await store.reads.listFlows({});
      expect(all.items.map((f) => f.id)).toEqual([f3.flowId, f2.flowId, f1.flowId]);
      expect(all.nextCursor).toBeNull();
      const [s3, s2, s1] = all.items;
      expect(s3).toMatchObject({ name: 'third', caller: 'contract', nodes: 1, finishedAt: null });
      expect(s2!.counts).toEqual({ waiting: 1, pending: 1, claimed: 0, running: 0, succeeded: 0, dead: 0, cancelled: 0 });
      expect(s1).toMatchObject({ name: 'first', nodes: 1 });
      expect(s1!.counts).toMatchObject({ succeeded: 1, pending: 0 });
      expect(s1!.finishedAt).toBeInstanceOf(Date);
      expect(s1!.createdAt).toBeInstanceOf(Date);

      const p1 = await store.reads.listFlows({ limit: 2 });
      expect(p1.items.map((f) => f.id)).toEqual([f3.flowId, f2.flowId]);
      expect(p1.nextCursor).toBe(f2.flowId);
      const p2 = await store.reads.listFlows({ limit: 2, cursor: p1.nextCursor! });
      expect(p2.items.map((f) => f.id)).toEqual([f1.flowId]);
      expect(p2.nextCursor).toBeNull();

      expect((await store.reads.listFlows({ unfinished: true })).items.map((f) => f.id)).toEqual([f3.flowId, f2.flowId]);
      expect((await store.reads.listFlows({ unfinished: false })).items.map((f) => f.id)).toEqual([f1.flowId]);
      const open = await store.reads.listFlows({ unfinished: true, limit: 1, cursor: f3.flowId });
      expect(open.items.map((f) => f.id)).toEqual([f2.flowId]);
    });

    it('the task list: the waiting tab, and a flow filter alone, with a status or another filter, paged', async () => {
      const { store } = h();
      const f = await store.commands.createFlow(flowBy([['a'], ['b', ['a']], ['c', ['b']]]));
      const g = await store.commands.createFlow(
        flowBy([
          ['x', [], { queue: 'other' }],
          ['y', ['x'], { queue: 'other' }],
        ]),
      );
      const parent = await h().add();
      const child = await h().add({ dependsOn: [dep(parent)] });
      const later = await h().add({ dependsOn: [dep(f.tokens.c!)] });
      const { a, b, c } = f.tokens;
      expect(await list({ status: 'waiting' })).toEqual([later, child, g.tokens.y, c, b]);
      expect(await list({ status: 'waiting', limit: 2 })).toEqual([later, child]);
      expect(await list({ status: 'pending' })).toEqual([parent, g.tokens.x, a]);
      expect(await list({ flowId: f.flowId })).toEqual([later, c, b, a]);
      expect(await list({ flowId: f.flowId, status: 'waiting' })).toEqual([later, c, b]);
      expect(await list({ flowId: f.flowId, status: 'pending' })).toEqual([a]);
      expect(await list({ flowId: g.flowId, queue: 'other', status: 'waiting' })).toEqual([g.tokens.y]);
      expect(await list({ flowId: g.flowId, queue: 'default' })).toEqual([]);
      expect(await list({ flowId: g.flowId + f.flowId + 100 })).toEqual([]);
      const p1 = await store.reads.listTasks({ flowId: f.flowId, limit: 3 });
      expect(p1.items.map((t) => t.token)).toEqual([later, c, b]);
      const p2 = await store.reads.listTasks({ flowId: f.flowId, limit: 3, cursor: p1.nextCursor! });
      expect(p2.items.map((t) => t.token)).toEqual([a]);
      expect(p2.nextCursor).toBeNull();
      // every task read carries its flow, node and parent counts
      const row = (await store.reads.listTasks({ flowId: f.flowId, status: 'waiting', limit: 3 })).items;
      expect(row.map((t) => [t.flowId, t.flowNode, t.parentCount, t.parentsLeft])).toEqual([
        [f.flowId, null, 1, 1],
        [f.flowId, 'c', 1, 1],
        [f.flowId, 'b', 1, 1],
      ]);
    });

    it('counts: waiting tasks are counted and kept through every move; the pending breakdown leaves them out', async () => {
      const { store } = h();
      const slot = await h().worker();
      const all = new Set<string>();
      const check = async (step: string) => expect(await h().counts(), step).toEqual(await h().expectedCounts(all));
      const p = await h().add({ queue: 'wq' });
      const q = await h().add({ queue: 'wq' });
      const c1 = await h().add({ queue: 'wq', dependsOn: [dep(p)] });
      const c2 = await h().add({ queue: 'wq2', dependsOn: [dep(p), dep(q)] });
      for (const t of [p, q, c1, c2]) all.add(t);
      await check('enqueued');
      expect((await store.reads.countsByQueue()).find((r) => r.queue === 'wq')).toMatchObject({ waiting: 1, pending: 2 });
      expect((await store.reads.countsByQueue()).find((r) => r.queue === 'wq2')).toMatchObject({ waiting: 1, pending: 0 });
      expect((await store.reads.pendingBreakdown()).map((b) => [b.queue, b.ready])).toEqual([['wq', 2]]);
      await runOk(h(), slot, p, 'wq');
      await check('a parent succeeded');
      expect((await store.reads.countsByQueue()).find((r) => r.queue === 'wq')).toMatchObject({ waiting: 0, pending: 2 });
      const cq = await h().claimOne(slot, { queues: ['wq'] });
      expect(cq.token).toBe(q);
      expect(await h().kill(cq)).toBe(true);
      await check('the other parent died: its child is cancelled');
      expect(await h().status(c2)).toBe('cancelled');
      expect(await store.commands.retry(q)).toBe('retried');
      await check('the parent retried: its child waits again');
      const f = await store.commands.createFlow(
        flowBy([
          ['a', [], { queue: 'wf' }],
          ['b', ['a'], { queue: 'wf' }],
          ['c', ['b'], { queue: 'wf' }],
        ]),
      );
      for (const t of Object.values(f.tokens)) all.add(t);
      await check('a flow created');
      expect((await store.reads.countsByQueue()).find((r) => r.queue === 'wf')).toMatchObject({ waiting: 2, pending: 1 });
      expect((await store.commands.cancelFlow(f.flowId)).result).toBe('cancelled');
      await check('the flow cancelled');
      expect((await store.commands.retryFlow(f.flowId)).result).toBe('retried');
      await check('the flow retried');
      expect((await store.reads.countsByQueue()).find((r) => r.queue === 'wf')).toMatchObject({ waiting: 2, pending: 1 });
    });

    it(`a task with more parents or children than its page lists: the first ${MAX_LINKS_SHOWN} by id, and the totals`, async () => {
      const { store } = h();
      const n = MAX_LINKS_SHOWN + 1;
      const roots = Array.from({ length: n }, (_, i): Node => [`r${i}`]);
      const kids = Array.from({ length: n }, (_, i): Node => [`k${i}`, ['hub']]);
      const hub: Node = ['hub', roots.map((r) => r[0])];
      const { tokens } = await store.commands.createFlow(flowBy([...roots, hub, ...kids]));
      const t = await h().task(tokens.hub!);
      expect(t).toMatchObject({ parentCount: n, parentsLeft: n, childCount: n, status: 'waiting' });
      expect(t.parents.map((p) => p.nodeId)).toEqual(roots.slice(0, MAX_LINKS_SHOWN).map((r) => r[0]));
      expect(t.children.map((c) => c.nodeId)).toEqual(kids.slice(0, MAX_LINKS_SHOWN).map((k) => k[0]));
      expect(t.children.every((c) => c.status === 'waiting' && c.token === tokens[c.nodeId!])).toBe(true);
    });

    it('why a waiting task is not running: how many parents are left, which, in what state', async () => {
      const { store } = h();
      const slot = await h().worker();
      await store.worker.registerHandlers(['node.a', 'node.b', 'node.c', 'node.d']);
      const { tokens } = await store.commands.createFlow(flowBy([['a'], ['b'], ['c'], ['d', ['a', 'b', ['c', 'wait']]]]));
      await runOk(h(), slot, tokens.a!);
      const cb = await h().claimOne(slot);
      expect(cb.token).toBe(tokens.b);
      const d = await h().task(tokens.d!);
      const why = await whyOfTask(store.reads, d, new Date());
      expect(why.reason).toBe('waiting');
      expect(why.text).toBe(`Waiting for 2 of 3 parents: b (running), c (pending)`);
      expect(why.detail).toMatchObject({ left: 2, total: 3 });
      // from a task as the list has it (no links): the parents are read again
      const view = (await store.reads.listTasks({ flowId: d.flowId!, status: 'waiting' })).items[0]!;
      expect((await whyOfTask(store.reads, view, new Date())).text).toBe(why.text);
      // a parent under `wait` is cancelled: the task keeps waiting, and why says what to do
      expect(await store.commands.cancel(tokens.c!)).toBe('cancelled');
      const stuck = await whyOfTask(store.reads, await h().task(tokens.d!), new Date());
      expect(stuck.text).toBe(
        `Waiting for 2 of 3 parents: b (running), c (cancelled)` + ' — 1 parent failed: retry it, or cancel this task',
      );
      expect(await h().succeed(cb)).toBe(true);
      expect((await whyOfTask(store.reads, await h().task(tokens.d!), new Date())).text).toMatch(/^Waiting for 1 of 3 parents: c /);
    });
  });
}
