import { describe, expect, it } from 'vitest';
import { ValidationError } from './errors';
import { validateFlow } from './flows';
import { validateEnqueue, type EnqueueContext } from './validation';
import { whyNotRunning } from './why';

const ctx: EnqueueContext = { kinds: ['handler', 'sql'], knowsHandler: (n) => n !== 'nope', caller: 'test' };
const node = (id: string, dependsOn?: unknown[], extra: Record<string, unknown> = {}) => ({
  id,
  command: 'demo.echo',
  dependsOn,
  ...extra,
});

async function refusal(raw: unknown): Promise<{ field: string; message: string }> {
  try {
    await validateFlow(raw, ctx);
  } catch (e) {
    if (e instanceof ValidationError) return { field: e.field, message: e.message.slice(e.field.length + 2) };
    throw e;
  }
  throw new Error('accepted');
}

describe('validateFlow', () => {
  it('orders a diamond parents first, keeping the given order among ready nodes', async () => {
    const f = await validateFlow({ name: 'd', nodes: [node('d', ['b', 'c']), node('b', ['a']), node('c', ['a']), node('a')] }, ctx);
    expect(f.nodes.map((n) => n.id)).toEqual(['a', 'b', 'c', 'd']);
    expect(f.nodes[3]!.dependsOn).toEqual([
      { id: 'b', onParentFailure: 'cancel' },
      { id: 'c', onParentFailure: 'cancel' },
    ]);
    expect(f.name).toBe('d');
    expect(f.caller).toBe('test');
  });

  it('takes policies per edge, per node and per flow, in that order of precedence', async () => {
    const f = await validateFlow(
      {
        onParentFailure: 'wait',
        nodes: [
          node('a'),
          node('b'),
          node('c', ['a', { id: 'b', onParentFailure: 'cancel' }], { onParentFailure: 'run' }),
          node('d', ['a']),
        ],
      },
      ctx,
    );
    const c = f.nodes.find((n) => n.id === 'c')!;
    expect(c.dependsOn.map((d) => d.onParentFailure)).toEqual(['run', 'cancel']);
    expect(f.nodes.find((n) => n.id === 'd')!.dependsOn[0]!.onParentFailure).toBe('wait');
  });

  it('names a cycle by its ids', async () => {
    const r = await refusal({ nodes: [node('a', ['c']), node('b', ['a']), node('c', ['b']), node('x')] });
    expect(r.field).toBe('nodes');
    expect(r.message).toMatch(/^cycle: /);
    const ids = r.message.replace('cycle: ', '').split(' → ');
    expect(ids[0]).toBe(ids.at(-1));
    expect(new Set(ids)).toEqual(new Set(['a', 'b', 'c']));
  });

  it('refuses self-edges, unknown ids, duplicate ids and edges, and fields a node may not take', async () => {
    expect(await refusal({ nodes: [node('a', ['a'])] })).toEqual({ field: 'nodes.0.dependsOn.0', message: 'node "a" depends on itself' });
    expect(await refusal({ nodes: [node('a'), node('b', ['a', 'zz'])] })).toEqual({
      field: 'nodes.1.dependsOn.1',
      message: 'no node with id "zz" in this flow',
    });
    expect((await refusal({ nodes: [node('a'), node('a')] })).field).toBe('nodes.1.id');
    expect((await refusal({ nodes: [node('a'), node('b', ['a', 'a'])] })).field).toBe('nodes.1.dependsOn.1');
    expect((await refusal({ nodes: [node('a'), node('b', ['a', { id: 'a', onParentFailure: 'run' }])] })).field).toBe(
      'nodes.1.dependsOn.1',
    );
    // a long list (looked up in a set rather than among the earlier entries)
    const many = Array.from({ length: 30 }, (_, i) => node(`p${i}`));
    const twice = [...many.map((n) => n.id), 'p7'];
    expect(await refusal({ nodes: [...many, node('c', twice)] })).toEqual({
      field: 'nodes.30.dependsOn.30',
      message: '"p7" is listed twice',
    });
    expect((await refusal({ nodes: [node('a', [], { dedupKey: 'k' })] })).field).toBe('nodes.0.dedupKey');
    expect((await refusal({ nodes: [node('a', [], { command: 'nope' })] })).field).toBe('nodes.0.command');
    expect((await refusal({ nodes: [node("a'; DROP TABLE x")] })).field).toBe('nodes.0.id');
    expect((await refusal({ nodes: [] })).field).toBe('nodes');
    expect((await refusal({ nodes: [node('a')], extra: 1 })).field).toBe('extra');
  });

  it('validates 10,000 nodes in a long chain without recursion limits', async () => {
    const nodes = Array.from({ length: 10_000 }, (_, i) => node(`n${i}`, i ? [`n${i - 1}`] : undefined));
    const f = await validateFlow({ nodes: nodes.reverse() }, ctx);
    expect(f.nodes[0]!.id).toBe('n0');
    expect(f.nodes.at(-1)!.id).toBe('n9999');
    expect((await refusal({ nodes: Array.from({ length: 10_001 }, (_, i) => node(`n${i}`)) })).field).toBe('nodes');
  });
});

describe('dependsOn at enqueue', () => {
  const t1 = '0193a000-0000-7000-8000-000000000001';
  const t2 = '0193A000-0000-7000-8000-000000000002';
  it('normalises tokens and policies', async () => {
    const input = await validateEnqueue(
      { command: 'demo.echo', dependsOn: [t1, { token: t2, onParentFailure: 'run' }], onParentFailure: 'wait' },
      ctx,
    );
    expect(input.dependsOn).toEqual([
      { token: t1, onParentFailure: 'wait' },
      { token: t2.toLowerCase(), onParentFailure: 'run' },
    ]);
    expect((await validateEnqueue({ command: 'demo.echo' }, ctx)).dependsOn).toBeUndefined();
  });
  it('refuses duplicates, non-tokens, batches and a policy without dependencies', async () => {
    const field = (raw: unknown) =>
      validateEnqueue(raw, ctx).then(
        () => 'accepted',
        (e: ValidationError) => e.field,
      );
    expect(await field({ command: 'demo.echo', dependsOn: [t1, t1.toUpperCase()] })).toBe('dependsOn.1');
    expect(await field({ command: 'demo.echo', dependsOn: ['1; DROP TABLE Tasks'] })).toBe('dependsOn.0');
    expect(await field({ command: 'demo.echo', dependsOn: [t1], batchId: 3 })).toBe('dependsOn');
    expect(await field({ command: 'demo.echo', onParentFailure: 'run' })).toBe('onParentFailure');
    expect(await field({ command: 'demo.echo', dependsOn: Array(1001).fill(t1) })).toBe('dependsOn');
  });
});

describe('why a waiting task waits', () => {
  it('names its unfinished parents with their states', () => {
    const now = new Date('2026-11-27T12:00:00Z');
    const why = whyNotRunning({
      now,
      task: {
        status: 'waiting',
        queue: 'default',
        kind: 'handler',
        command: 'merge',
        runAfter: now,
        attempts: 0,
        maxAttempts: 3,
        batchId: null,
        stage: null,
        concurrencyKey: null,
        startedAt: null,
        finishedAt: null,
      },
      parents: {
        left: 2,
        total: 3,
        links: [
          { token: '0193abcd-0000-7000-8000-000000000001', nodeId: 'load-a', status: 'running' },
          { token: '0193beef-0000-7000-8000-000000000002', nodeId: null, status: 'pending' },
          { token: '0193cafe-0000-7000-8000-000000000003', nodeId: 'c', status: 'succeeded' },
        ],
      },
      queue: {
        name: 'default',
        paused: false,
        concurrencyLimit: null,
        perKeyLimit: null,
        rate: null,
        held: 0,
        holders: [],
        pausedBy: null,
        ready: 0,
        scheduled: 0,
        retrying: 0,
        nextRunAt: null,
      },
      batch: null,
      workers: { live: 1, busy: 0, handlers: null },
    });
    expect(why.reason).toBe('waiting');
    expect(why.text).toBe('Waiting for 2 of 3 parents: load-a (running), 0193beef-0000-7000-8000-000000000002 (pending)');
  });
});
