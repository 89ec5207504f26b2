// Durable handlers' sleeps and events against every store (rules: lib/engine/types/durable.ts): a suspended task
// holds no token or key slot and is never claimed before its time or its event; an event resumes every matching
// waiter with its payload, a timeout with null; cancel and wake; pruning keeps what an unfinished task needs.
// A task claimed ahead (db/contract/claimed.ts) runs before its start is recorded: a step's write has it recorded
// first, and its suspension, its start going with it, frees what its claim held.
import { describe, expect, it } from 'vitest';
import type { Handler } from '../../lib/engine/handlers';
import { PendingStart, stillRunning } from '../../lib/engine/pool-starts';
import { runTask } from '../../lib/engine/run';
import { registry, runOne, until, wakeUntilPending } from './durable-helpers';
import { LONG_LEASE, type StoreFactory, useStore } from './harness';

const waiter =
  (match: Record<string, unknown>, timeoutMs?: number): Handler =>
  async (_p, ctx) => {
    const e = await ctx.waitForEvent('paid', { event: 'order.paid', match: match as never, timeoutMs });
    return { got: e };
  };

export function durableWaitTests(factory: StoreFactory) {
  describe('durable handlers: sleeps and events', () => {
    const h = useStore(factory);

    it('a sleep releases the queue token and the key slot; the task is not claimed before its time, then resumes', async () => {
      const { store } = h();
      await store.commands.setQueue('dl', { concurrencyLimit: 1, perKeyLimit: 1 }, 'contract');
      const reg = registry({
        'd.nap': async (_p, ctx) => {
          const before = await ctx.step('before', () => 'b');
          await ctx.sleep('cool-down', 600);
          return { before, after: await ctx.step('after', () => 'a') };
        },
        'demo.echo': (p) => p,
      });
      const sleeper = await h().add({ command: 'd.nap', queue: 'dl', concurrencyKey: 'k' });
      const other = await h().add({ command: 'demo.echo', queue: 'dl', concurrencyKey: 'k', payload: 'ran' });
      const slot = await h().worker();
      const r = await runOne(h(), reg, slot, 'dl');
      expect(r.task.token).toBe(sleeper);
      expect(r.settlement).toMatchObject({ kind: 'suspended', step: { name: 'cool-down', kind: 'sleep', status: 'sleeping' } });
      expect(r.accepted).toBe(true);
      expect(await h().task(sleeper)).toMatchObject({ status: 'waiting', suspended: 'sleep', suspensions: 1 });
      expect((await store.reads.suspendedCounts()).find((c) => c.queue === 'dl')).toEqual({ queue: 'dl', sleeping: 1, waitingEvent: 0 });
      // the Tasks page's tabs: the waiting tasks suspended on a sleep, and on an event (none)
      const tokens = async (suspended: 'sleep' | 'event') =>
        (await store.reads.listTasks({ status: 'waiting', suspended, queue: 'dl' })).items.map((t) => t.token);
      expect(await tokens('sleep')).toEqual([sleeper]);
      expect(await tokens('event')).toEqual([]);
      expect((await h().counts()).find((c) => c.queue === 'dl')).toMatchObject({ waiting: 1, pending: 1, running: 0 });
      // the one token and the key's one slot are free: the other task of the queue and key runs meanwhile
      const o = await h().claimOne(slot, { queues: ['dl'] });
      expect(o.token).toBe(other);
      expect(await h().succeed(o, 'ran')).toBe(true);
      await store.maintenance.wakeDue();
      await h().claimNone(slot, { queues: ['dl'] });
      expect(await h().status(sleeper)).toBe('waiting');
      await wakeUntilPending(h(), sleeper);
      expect(await h().task(sleeper)).toMatchObject({ status: 'pending', suspended: null });
      const done = await runOne(h(), reg, slot, 'dl');
      expect(done.settlement).toEqual({ kind: 'succeeded', result: { before: 'b', after: 'a' } });
      const steps = (await store.reads.listSteps(sleeper))!;
      expect(steps.map((s) => [s.name, s.kind, s.status, s.attempt])).toEqual([
        ['before', 'step', 'succeeded', 1],
        ['cool-down', 'sleep', 'succeeded', 1],
        ['after', 'step', 'succeeded', 2],
      ]);
      expect(steps[1]!.wakeAt!.getTime() - steps[1]!.startedAt.getTime()).toBe(600);
      expect(steps[1]!.endedAt!.getTime()).toBeGreaterThanOrEqual(steps[1]!.wakeAt!.getTime());
    });

    it('an event resumes every task waiting for it whose match its payload contains, with the payload', async () => {
      const { store } = h();
      const reg = registry({ 'd.w42': waiter({ orderId: 42 }), 'd.w43': waiter({ orderId: 43 }), 'd.any': waiter({}) });
      const a = await h().add({ command: 'd.w42', queue: 'dq' });
      const b = await h().add({ command: 'd.w42', queue: 'dq' });
      const c = await h().add({ command: 'd.w43', queue: 'dq' });
      const slot = await h().worker();
      for (let i = 0; i < 3; i++) expect((await runOne(h(), reg, slot, 'dq')).settlement.kind).toBe('suspended');
      expect(await h().task(a)).toMatchObject({ status: 'waiting', suspended: 'event' });
      expect(await store.commands.sendEvent({ name: 'order.shipped', payload: { orderId: 42 }, caller: 'contract' })).toMatchObject({
        resumed: 0,
      });
      const payload = { orderId: 42, amount: 9.5, note: 'é' };
      const sent = await store.commands.sendEvent({ name: 'order.paid', payload, caller: 'contract' });
      expect(sent.resumed).toBe(2);
      expect([...sent.tokens].sort()).toEqual([a, b].sort());
      expect(await h().status(c)).toBe('waiting');
      for (let i = 0; i < 2; i++)
        expect((await runOne(h(), reg, slot, 'dq')).settlement).toEqual({ kind: 'succeeded', result: { got: payload } });
      const ev = (await store.reads.getEvent(sent.id))!;
      expect(ev).toMatchObject({ id: sent.id, name: 'order.paid', payload, caller: 'contract', resumed: 2 });
      expect(ev.tasks.map((t) => t.token).sort()).toEqual([a, b].sort());
      expect(ev.tasks[0]).toMatchObject({ command: 'd.w42', status: 'succeeded', step: 'paid' });
      const page = await store.reads.listEvents({ limit: 10 });
      expect(page.items.map((e) => e.name)).toEqual(['order.paid', 'order.shipped']);
      expect((await store.reads.listEvents({ limit: 10, name: 'order.shipped' })).items).toHaveLength(1);
      const first = await store.reads.listEvents({ limit: 1 });
      expect(first.nextCursor).toBe(sent.id);
      expect((await store.reads.listEvents({ limit: 1, before: first.nextCursor! })).items[0]!.name).toBe('order.shipped');
      // an empty match takes any event of the name
      const any = await h().add({ command: 'd.any', queue: 'dq' });
      expect((await runOne(h(), reg, slot, 'dq')).settlement.kind).toBe('suspended');
      expect((await store.commands.sendEvent({ name: 'order.paid', payload: null, caller: null })).tokens).toEqual([any]);
    });

    it('a wait times out: the task resumes with null; an event sent after resumes nothing', async () => {
      const { store } = h();
      const reg = registry({ 'd.w': waiter({ orderId: 1 }, 400) });
      const token = await h().add({ command: 'd.w', queue: 'dq' });
      const slot = await h().worker();
      expect((await runOne(h(), reg, slot, 'dq')).settlement).toMatchObject({
        kind: 'suspended',
        step: { kind: 'event', event: 'order.paid' },
      });
      await store.maintenance.wakeDue();
      expect(await h().status(token)).toBe('waiting');
      await wakeUntilPending(h(), token);
      expect((await store.commands.sendEvent({ name: 'order.paid', payload: { orderId: 1 }, caller: null })).resumed).toBe(0);
      expect((await runOne(h(), reg, slot, 'dq')).settlement).toEqual({ kind: 'succeeded', result: { got: null } });
    });

    it('an event sent while the task ran towards its wait resumes it when it suspends', async () => {
      const { store } = h();
      const reg = registry({
        'd.self': async (_p, ctx) => {
          await ctx.step('ask', () => store.commands.sendEvent({ name: 'order.paid', payload: { orderId: 7 }, caller: 'itself' }));
          return ctx.waitForEvent('paid', { event: 'order.paid', match: { orderId: 7 } });
        },
      });
      const token = await h().add({ command: 'd.self', queue: 'dq' });
      const slot = await h().worker();
      expect((await runOne(h(), reg, slot, 'dq')).settlement.kind).toBe('suspended');
      expect(await h().task(token)).toMatchObject({ status: 'pending', suspended: null });
      expect((await runOne(h(), reg, slot, 'dq')).settlement).toEqual({ kind: 'succeeded', result: { orderId: 7 } });
    });

    it('cancel while sleeping or waiting; wake resumes a sleeping task now and refuses one not suspended', async () => {
      const { store } = h();
      const reg = registry({
        'd.nap': async (_p, ctx) => {
          await ctx.sleep('long', '1h');
          return 'woke';
        },
        'd.w': waiter({ orderId: 5 }),
      });
      const slot = await h().worker();
      const sleeping = await h().add({ command: 'd.nap', queue: 'dq' });
      await runOne(h(), reg, slot, 'dq');
      const waiting = await h().add({ command: 'd.w', queue: 'dq' });
      await runOne(h(), reg, slot, 'dq');
      expect(await store.commands.cancel(waiting)).toBe('cancelled');
      expect((await store.commands.sendEvent({ name: 'order.paid', payload: { orderId: 5 }, caller: null })).resumed).toBe(0);
      expect(await store.commands.wake(waiting)).toBe('conflict');
      expect(await h().status(waiting)).toBe('cancelled');
      const woken = await h().add({ command: 'd.nap', queue: 'dq' });
      await runOne(h(), reg, slot, 'dq');
      expect(await store.commands.cancel(sleeping)).toBe('cancelled');
      expect(await store.commands.wake(woken)).toBe('woken');
      expect(await store.commands.wake(woken)).toBe('conflict');
      expect(await store.commands.wake('00000000-0000-0000-0000-000000000000')).toBe('not_found');
      expect((await runOne(h(), reg, slot, 'dq')).settlement).toEqual({ kind: 'succeeded', result: 'woke' });
      expect(await h().status(sleeping)).toBe('cancelled');
      expect(await store.reads.suspendedCounts()).toEqual([]);
    });

    it('pruning keeps what an unfinished task needs: its steps and the event it was resumed by', async () => {
      const { store } = h();
      let asks = 0;
      const reg = registry({
        'd.two': async (_p, ctx) => {
          await ctx.step('ask', () => ++asks);
          const e = await ctx.waitForEvent('paid', { event: 'order.paid', match: { orderId: 9 } });
          await ctx.sleep('settle', 400);
          return e;
        },
        'd.w': waiter({ orderId: 8 }),
      });
      const slot = await h().worker();
      const open = await h().add({ command: 'd.two', queue: 'dq' });
      await runOne(h(), reg, slot, 'dq');
      const done = await h().add({ command: 'd.w', queue: 'dq' });
      await runOne(h(), reg, slot, 'dq');
      const kept = await store.commands.sendEvent({ name: 'order.paid', payload: { orderId: 9 }, caller: null });
      const gone = await store.commands.sendEvent({ name: 'order.paid', payload: { orderId: 8 }, caller: null });
      expect((await runOne(h(), reg, slot, 'dq')).settlement.kind).toBe('suspended'); // the open one sleeps now
      expect((await runOne(h(), reg, slot, 'dq')).settlement.kind).toBe('succeeded');
      await store.maintenance.prune(new Date(Date.now() + 60_000));
      expect(await store.reads.getTask(done)).toBeNull();
      expect(await store.reads.getEvent(gone.id)).toBeNull();
      expect(await store.reads.getEvent(kept.id)).toMatchObject({ resumed: 1 });
      expect((await store.reads.listSteps(open))!.map((s) => s.name)).toEqual(['ask', 'paid', 'settle']);
      await wakeUntilPending(h(), open);
      expect((await runOne(h(), reg, slot, 'dq')).settlement).toEqual({ kind: 'succeeded', result: { orderId: 9 } });
      expect(asks).toBe(1);
      await until('the event to go once its task is finished', async () => {
        await store.maintenance.prune(new Date(Date.now() + 60_000));
        return (await store.reads.getEvent(kept.id)) === null;
      });
    });

    it('a task claimed ahead: its step has its start recorded first; suspended, it holds nothing, not claimed nor running', async () => {
      const { store } = h();
      if (store.capabilities.prefetch === 0) return;
      await store.commands.setQueue('da', { concurrencyLimit: 1 }, 'contract');
      const reg = registry({
        'd.nap': async (_p, ctx) => {
          await ctx.step('before', () => 'b');
          await ctx.sleep('nap', 3_600_000);
          return 'never';
        },
      });
      const token = await h().add({ command: 'd.nap', queue: 'da' });
      const claimer = await h().worker('claimer');
      const runner = await h().worker('runner');
      const [t] = await store.worker.claim([], { leaseMs: LONG_LEASE, queues: ['da'], ahead: { count: 1, claimer } });
      expect(await h().status(token)).toBe('claimed');
      // as a pool's slot starts it (pool.ts): the runner's copy, its start sent when its first write needs it
      const task = { ...t!, workerId: runner.workerId, session: runner.session, startedAt: new Date(), ahead: false };
      let sent = 0;
      const pending: PendingStart = new PendingStart(
        { at: task.startedAt, claimer: claimer.workerId, session: runner.session, due: t!.runAfter },
        0,
        () => {
          sent++;
          void store.worker.finish([stillRunning(task, pending)]).then(() => pending.settle());
        },
      );
      const { settlement } = await runTask(store.worker, reg, task, new AbortController(), { leaseMs: LONG_LEASE }, pending);
      expect(sent).toBe(1);
      expect(settlement).toMatchObject({ kind: 'suspended', step: { name: 'nap', kind: 'sleep' } });
      expect(await store.worker.finish([{ taskId: t!.id, workerId: runner.workerId, attempt: t!.attempt, settlement }])).toEqual([true]);
      expect(await h().task(token)).toMatchObject({ status: 'waiting', suspended: 'sleep', attempts: 1, workerId: runner.workerId });
      expect((await store.reads.listSteps(token))!.map((s) => [s.name, s.status])).toEqual([
        ['before', 'succeeded'],
        ['nap', 'sleeping'],
      ]);
      expect((await h().counts()).find((c) => c.queue === 'da')).toMatchObject({ waiting: 1, claimed: 0, running: 0 });
      expect((await store.reads.listTokens('da')).every((k) => k.status === 'free')).toBe(true);
      // the queue's one token is free: another task of it is claimed at once
      const other = await h().add({ queue: 'da' });
      expect((await h().claimOne(runner, { queues: ['da'] })).token).toBe(other);
    });
  });
}
