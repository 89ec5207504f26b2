// The trace context a task carries (lib/engine/tracing.ts): stored at enqueue (one task, many, a flow's nodes) and
// handed back by the claim; an attempt's span kept with its end and handed to the next attempt (previousTrace) and to
// a flow child (parentTraces); the views' trace ids. No context: nothing stored, nothing handed back.
import { describe, expect, it } from 'vitest';
import type { Store } from '../../lib/engine/ports';
import type { TraceContext, WorkerSlot } from '../../lib/engine/types';
import { LONG_LEASE, useStore, type StoreFactory } from './harness';
import { flowOf } from './workflow-helpers';

const ENQUEUED: TraceContext = {
  traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
  tracestate: 'rojo=00f067aa0ba902b7',
};
const FIRST = '00-4bf92f3577b34da6a3ce929d0e0e4736-a1a2a3a4a5a6a7a8-01';
const SECOND = '00-0af7651916cd43dd8448eb211c80319c-b1b2b3b4b5b6b7b8-01';

export function tracingTests(factory: StoreFactory) {
  describe('trace context', () => {
    const h = useStore(factory);

    it('stored at enqueue, handed back by the claim; an attempt’s span goes to the next attempt and into the views', async () => {
      const { store } = h();
      const token = await h().add({ trace: ENQUEUED, maxAttempts: 3 });
      expect((await h().task(token)).traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
      const slot = await h().worker();
      const first = await h().claimOne(slot);
      expect(first).toMatchObject({ traceParent: ENQUEUED.traceparent, traceState: ENQUEUED.tracestate, previousTrace: null });
      const failed = await store.worker.finish([
        {
          taskId: first.id,
          workerId: first.workerId,
          attempt: first.attempt,
          trace: FIRST,
          settlement: { kind: 'retry', outcome: 'failed', error: { number: null, message: 'x', detail: null }, runAfter: new Date(0) },
        },
      ]);
      expect(failed).toEqual([true]);
      const second = await h().claimOne(slot);
      expect(second).toMatchObject({ attempt: 2, traceParent: ENQUEUED.traceparent, previousTrace: FIRST });
      expect(
        await store.worker.finish([
          { taskId: second.id, workerId: second.workerId, attempt: 2, trace: SECOND, settlement: { kind: 'succeeded', result: null } },
        ]),
      ).toEqual([true]);
      const t = await h().task(token);
      expect(t.traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
      expect(t.history.map((a) => a.traceId)).toEqual(['4bf92f3577b34da6a3ce929d0e0e4736', '0af7651916cd43dd8448eb211c80319c']);
      const listed = (await store.reads.listAttempts({ limit: 10 })).items.filter((a) => a.token === token);
      expect(listed.map((a) => a.traceId).sort()).toEqual(['0af7651916cd43dd8448eb211c80319c', '4bf92f3577b34da6a3ce929d0e0e4736']);
    });

    it('no context: nothing stored, nothing handed back; an untraced attempt keeps none', async () => {
      const { store } = h();
      const [token] = (await store.commands.enqueueMany([{ kind: 'handler', command: 'plain' }])).map((r) => r.token);
      const c = await h().claimOne(await h().worker());
      expect(c.token).toBe(token);
      expect(c.traceParent ?? null).toBeNull();
      expect(c.traceState ?? null).toBeNull();
      expect(c.previousTrace ?? null).toBeNull();
      expect(await h().settle(c, { kind: 'succeeded', result: 1 })).toBe(true);
      const t = await h().task(token!);
      expect(t.traceId ?? null).toBeNull();
      expect(t.history[0]!.traceId ?? null).toBeNull();
    });

    it("enqueueMany and a flow store each task's context; a flow child gets its parents' attempt spans", async () => {
      const { store } = h();
      const many = await store.commands.enqueueMany([
        { kind: 'handler', command: 'm', trace: ENQUEUED },
        { kind: 'handler', command: 'm', trace: { traceparent: SECOND, tracestate: null } },
      ]);
      expect((await h().task(many[0]!.token)).traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
      expect((await h().task(many[1]!.token)).traceId).toBe('0af7651916cd43dd8448eb211c80319c');

      const f = await store.commands.createFlow(
        flowOf([
          ['a', [], { trace: ENQUEUED, runAt: new Date(0) }],
          ['b', ['a'], { trace: ENQUEUED }],
        ]),
      );
      const slot = await h().worker();
      // the two tasks of enqueueMany may come first
      const parent = await claimToken(store, slot, f.tokens.a!);
      expect(parent.traceParent).toBe(ENQUEUED.traceparent);
      expect(
        await store.worker.finish([
          { taskId: parent.id, workerId: parent.workerId, attempt: 1, trace: FIRST, settlement: { kind: 'succeeded', result: null } },
        ]),
      ).toEqual([true]);
      const child = await claimToken(store, slot, f.tokens.b!);
      expect(child.traceParent).toBe(ENQUEUED.traceparent);
      expect(child.parentTraces).toEqual([FIRST]);
      expect(child.parents.map((p) => p.token)).toEqual([f.tokens.a]);
    });
  });
}

/** Claim (and succeed, untraced) whatever comes before `token`, until it is claimed. */
async function claimToken(store: Store, slot: WorkerSlot, token: string) {
  for (let i = 0; i < 10; i++) {
    const [c] = await store.worker.claim([slot], { leaseMs: LONG_LEASE });
    if (!c) break;
    if (c.token === token) return c;
    await store.worker.finish([
      { taskId: c.id, workerId: c.workerId, attempt: c.attempt, settlement: { kind: 'succeeded', result: null } },
    ]);
  }
  throw new Error(`task ${token} was never claimed`);
}
