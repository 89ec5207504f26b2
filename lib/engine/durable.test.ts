// The durable context over a fake worker port that keeps steps in memory: what the engine alone decides (limits,
// nesting, suspension, the transaction's timeout, the tracing hook). The stores are held to the rest by db/contract.
import { describe, expect, it } from 'vitest';
import { DurableRun, type StepInfo } from './durable';
import { HandlerRegistry } from './handlers';
import { MAX_STEPS_PER_TASK } from './limits';
import type { RunningAttempt, StepSql, WorkerPort } from './ports';
import { runTask } from './run';
import type { ClaimedTask, StepRecord, StepWrite } from './types';

function fakePort() {
  const steps = new Map<number, StepRecord>();
  const timeouts: number[] = [];
  let owns = true;
  const put = (a: RunningAttempt, s: StepWrite) => {
    const prior = steps.get(s.seq);
    steps.set(s.seq, { ...s, attempt: a.attempt, tries: (prior?.tries ?? 0) + 1, eventId: null });
  };
  const port = {
    loadSteps: async () => ({ suspensions: 0, steps: [...steps.values()] }),
    recordStep: async (a: RunningAttempt, s: StepWrite) => {
      if (!owns) return false;
      put(a, s);
      return true;
    },
    transactionStep: async (a: RunningAttempt, s: StepWrite, fn: (sql: StepSql) => Promise<unknown>, timeoutMs: number) => {
      timeouts.push(timeoutMs);
      const result = await fn({ execute: async () => ({ rows: [], rowsAffected: 1 }) });
      put(a, { ...s, result });
      return owns;
    },
  } as unknown as WorkerPort;
  return { port, steps, timeouts, lose: () => (owns = false) };
}

const attempt: RunningAttempt = { taskId: 1, attempt: 1, workerId: 'w', session: 1, parents: [] };

describe('the durable context', () => {
  it('numbers steps in call order (parallel ones too) and refuses more than the limit', async () => {
    const { port, steps } = fakePort();
    const run = new DurableRun(port, attempt, new AbortController().signal, 30_000);
    expect(await Promise.all([run.step('a', async () => 1), run.step('b', () => 2)])).toEqual([1, 2]);
    expect([...steps.values()].map((s) => [s.seq, s.name])).toEqual([
      [1, 'a'],
      [2, 'b'],
    ]);
    for (let i = 3; i <= MAX_STEPS_PER_TASK; i++) await run.step(`s${i}`, () => null);
    await expect(run.step('one too many', () => null)).rejects.toThrow(/a task records at most 1000 steps/);
  });

  it('a sleep ends the attempt, and every step call after it throws the same suspension', async () => {
    const { port } = fakePort();
    const run = new DurableRun(port, attempt, new AbortController().signal, 30_000);
    const err = await run.sleep('nap', '5m').catch((e: unknown) => e);
    expect(run.suspension).toBe(err);
    expect(run.suspension!.settlement).toMatchObject({ kind: 'suspended', step: { seq: 1, name: 'nap', status: 'sleeping' } });
    await expect(run.step('later', () => 1)).rejects.toBe(err);
  });

  it('a handler that swallows its suspension still suspends; a sleep already over records and goes on', async () => {
    const { port, steps } = fakePort();
    const reg = new HandlerRegistry().register('swallow', async (_p, ctx) => {
      await ctx.sleep('past', new Date(Date.now() - 1000));
      try {
        await ctx.waitForEvent('wait', { event: 'x.y', match: { a: 1 }, timeoutMs: '1h' });
      } catch {
        // swallowed
      }
      return 'went on';
    });
    const task = { id: 1, token: 't', kind: 'handler', command: 'swallow', attempt: 1, maxAttempts: 3, workerId: 'w', session: 1 };
    const { settlement: s } = await runTask(port, reg, task as unknown as ClaimedTask, new AbortController());
    expect(s).toMatchObject({ kind: 'suspended', step: { seq: 2, kind: 'event', event: 'x.y', match: { a: 1 } } });
    expect(steps.get(1)).toMatchObject({ kind: 'sleep', status: 'succeeded' });
  });

  it('a transaction step is bounded by half the lease; a step not recorded (task lost) fails its attempt', async () => {
    const { port, timeouts, lose } = fakePort();
    const seen: StepInfo[] = [];
    const hook = <T>(info: StepInfo, fn: () => Promise<T>) => {
      seen.push(info);
      return fn();
    };
    const run = new DurableRun(port, attempt, new AbortController().signal, 4_000, hook);
    await run.transaction('tx', async (tx) => (await tx.execute('UPDATE t SET n = @n', { n: 1 })).rowsAffected);
    expect(timeouts).toEqual([2_000]);
    await expect(run.transaction('tx2', async () => 1, { timeoutMs: 0 })).rejects.toThrow(/timeoutMs is an integer from 1 to 20000/);
    await expect(run.transaction('tx3', (tx) => tx.execute('x', [1] as never))).rejects.toThrow(/parameters are named/);
    lose();
    await expect(run.step('after', () => 1)).rejects.toThrow(/no longer owns its task/);
    expect(seen.map((s) => [s.seq, s.name, s.kind, s.replayed])).toEqual([
      [1, 'tx', 'transaction', false],
      [3, 'tx3', 'transaction', false],
      [4, 'after', 'step', false],
    ]);
  });
});
