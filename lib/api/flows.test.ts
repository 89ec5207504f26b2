// rp.flow and the flow commands on a real SQLite file: a diamond created at once (tokens by node id, nodes
// waiting for their parents), run by a pool with each node seeing its parents' results, refusals naming the
// field, tx.flow committed and rolled back with its transaction, cancel and retry of a flow, and the audit.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NotFoundError, ValidationError } from '../engine/errors';
import { defaultRegistry, sleep } from '../engine/handlers';
import { MAX_FLOW_NODES } from '../engine/limits';
import { asActor } from './audit';
import { openReadpast } from './open';
import type { Readpast } from './readpast';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let dir: string;
let rp: Readpast;
/** node id → the parents' node ids and results its attempt saw */
const seen = new Map<string, { parents: (string | null)[]; results: unknown[]; at: number }>();

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'readpast-flows-'));
  seen.clear();
  const registry = defaultRegistry().register('flow.step', (payload, ctx) => {
    const id = (payload as { id: string }).id;
    seen.set(id, { parents: ctx.parents.map((p) => p.nodeId), results: ctx.parents.map((p) => p.result), at: Date.now() });
    return { id };
  });
  rp = await openReadpast({ url: `sqlite:${join(dir, 'f.db')}`, registry });
});

afterEach(async () => {
  await rp.close();
  rmSync(dir, { recursive: true, force: true });
});

const later = () => new Date(Date.now() + 3_600_000).toISOString();
const step = (id: string, dependsOn?: unknown[], extra: Record<string, unknown> = {}) => ({
  id,
  command: 'flow.step',
  payload: { id },
  ...(dependsOn ? { dependsOn } : {}),
  ...extra,
});
/** load-a, load-b → merge → notify */
const diamond = (extra: Record<string, unknown> = {}) => ({
  name: 'nightly',
  nodes: [
    step('notify', ['merge']),
    step('merge', ['load-a', 'load-b']),
    step('load-a', undefined, extra),
    step('load-b', undefined, extra),
  ],
});

async function refusal(call: () => Promise<unknown>): Promise<ValidationError> {
  const err = await call().then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ValidationError);
  return err as ValidationError;
}

async function until(fn: () => Promise<boolean>, ms = 15_000) {
  const end = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error('timed out');
    await sleep(20);
  }
}

describe('rp.flow', () => {
  it('creates a diamond at once: tokens by node id, roots pending, the rest waiting on their parents', async () => {
    const r = await rp.flow(diamond({ runAt: later() }));
    expect(Object.keys(r.tokens).sort()).toEqual(['load-a', 'load-b', 'merge', 'notify']);
    for (const t of Object.values(r.tokens)) expect(t).toMatch(UUID);
    expect(new Set(Object.values(r.tokens)).size).toBe(4);

    const f = await rp.getFlow(r.flowId);
    expect(f).toMatchObject({ id: r.flowId, name: 'nightly', nodes: 4, finishedAt: null });
    expect(f.counts).toMatchObject({ waiting: 2, pending: 2, claimed: 0, running: 0, succeeded: 0 });
    // nodes by task id: parents were inserted before their children
    expect(f.nodeList.map((n) => n.nodeId)).toEqual(['load-a', 'load-b', 'merge', 'notify']);
    expect(f.nodeList.map((n) => n.token)).toEqual(['load-a', 'load-b', 'merge', 'notify'].map((id) => r.tokens[id]));
    const edge = (p: string, c: string) => ({ parent: r.tokens[p], child: r.tokens[c], onParentFailure: 'cancel' });
    expect(f.edges).toHaveLength(3);
    expect(f.edges).toEqual(expect.arrayContaining([edge('load-a', 'merge'), edge('load-b', 'merge'), edge('merge', 'notify')]));

    const merge = await rp.status(r.tokens.merge!);
    expect(merge).toMatchObject({ status: 'waiting', flowId: r.flowId, flowNode: 'merge', parentCount: 2, parentsLeft: 2, childCount: 1 });
    expect(merge.parents.map((p) => p.token).sort()).toEqual([r.tokens['load-a'], r.tokens['load-b']].sort());
    expect(merge.children).toEqual([
      { token: r.tokens.notify, nodeId: 'notify', command: 'flow.step', status: 'waiting', onParentFailure: 'cancel' },
    ]);

    const waiting = await rp.tasks({ status: 'waiting', flowId: r.flowId, limit: 50 });
    expect(waiting.items.map((t) => t.flowNode).sort()).toEqual(['merge', 'notify']);
    expect((await rp.flows({ unfinished: true })).items.map((x) => x.id)).toEqual([r.flowId]);
    expect((await rp.flows({ unfinished: false })).items).toEqual([]);
  });

  it('runs each node only after its parents succeeded, with their results in ctx.parents', async () => {
    const r = await rp.flow(diamond());
    const pool = rp.createPool({ concurrency: 4, pollMs: 20, heartbeatMs: 50 });
    await pool.start();
    try {
      await until(async () => (await rp.getFlow(r.flowId)).finishedAt !== null);
    } finally {
      await pool.stop(0);
    }
    const f = await rp.getFlow(r.flowId);
    expect(f.counts.succeeded).toBe(4);
    expect(seen.get('load-a')?.parents).toEqual([]);
    expect(seen.get('merge')?.parents).toEqual(['load-a', 'load-b']);
    expect(seen.get('merge')?.results).toEqual([{ id: 'load-a' }, { id: 'load-b' }]);
    expect(seen.get('notify')).toMatchObject({ parents: ['merge'], results: [{ id: 'merge' }] });
    const ended = (id: string) => Date.parse(f.nodeList.find((n) => n.nodeId === id)!.finishedAt!);
    const started = (id: string) => Date.parse(f.nodeList.find((n) => n.nodeId === id)!.startedAt!);
    expect(started('merge')).toBeGreaterThanOrEqual(Math.max(ended('load-a'), ended('load-b')));
    expect(started('notify')).toBeGreaterThanOrEqual(ended('merge'));
    expect((await rp.flows({ unfinished: false })).items.map((x) => x.id)).toEqual([r.flowId]);
  });

  it('refuses bad flows naming the field (cycles, unknown ids, self-edges, sizes, types, SQL in ids)', async () => {
    const cases: [unknown, string, RegExp][] = [
      [{ nodes: [step('a', ['b']), step('b', ['c']), step('c', ['a'])] }, 'nodes', /^nodes: cycle: c → b → a → c$/],
      [{ nodes: [step('a'), step('b', ['nope'])] }, 'nodes.1.dependsOn.0', /no node with id "nope"/],
      [{ nodes: [step('a', ['a'])] }, 'nodes.0.dependsOn.0', /depends on itself/],
      [{ nodes: [step('a'), step('a')] }, 'nodes.1.id', /duplicate id "a"/],
      [{ nodes: [step('a'), step('b', ['a', 'a'])] }, 'nodes.1.dependsOn.1', /listed twice/],
      [{ nodes: [step("a'; DROP TABLE Tasks;--")] }, 'nodes.0.id', /letters, digits/],
      [{ nodes: Array.from({ length: MAX_FLOW_NODES + 1 }, (_, i) => step(`n${i}`)) }, 'nodes', /at most 10000/],
      [{ nodes: [] }, 'nodes', /./],
      [{ nodes: 'a,b' }, 'nodes', /./],
      [{ nodes: [step('a', 'b' as unknown as unknown[])] }, 'nodes.0.dependsOn', /./],
      [
        { nodes: [step('a'), step('b', [{ id: 'a', onParentFailure: 'explode' }])] },
        'nodes.1.dependsOn.0.onParentFailure',
        /cancel, run, wait/,
      ],
      [{ nodes: [step('a', undefined, { priority: 'high' })] }, 'nodes.0.priority', /./],
      [{ nodes: [{ id: 'a', command: 'no.such.handler' }] }, 'nodes.0.command', /./],
      [{ nodes: [step('a', undefined, { dedupKey: 'k' })] }, 'nodes.0.dedupKey', /no dedup key/],
      [{ nodes: [step('a', undefined, { batchId: 1 })] }, 'nodes.0.batchId', /no batch/],
      [{ nodes: [step('a')], colour: 'red' }, 'colour', /unknown field/],
      [null, 'body', /must be an object/],
    ];
    for (const [raw, field, message] of cases) {
      const err = await refusal(() => rp.flow(raw));
      expect(err.field, JSON.stringify(raw).slice(0, 120)).toBe(field);
      expect(err.message).toMatch(message);
    }
    expect((await rp.flows()).items).toEqual([]);
    expect((await rp.tasks({ limit: 10 })).items).toEqual([]);
  });

  it('refuses an enqueue whose parent token is unknown, or that is in a batch; checks ids and list filters', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    let err = await refusal(() => rp.enqueue({ command: 'demo.echo', dependsOn: [unknown] }));
    expect(err.field).toBe('dependsOn.0');
    expect(err.message).toContain(`no task with token ${unknown}`);
    err = await refusal(() => rp.enqueue({ command: 'demo.echo', dependsOn: ['x; DROP TABLE Tasks'] }));
    expect(err.field).toBe('dependsOn.0');
    err = await refusal(() => rp.enqueue({ command: 'demo.echo', onParentFailure: 'run' }));
    expect(err.field).toBe('onParentFailure');
    const parent = await rp.enqueue({ command: 'demo.echo', runAt: later() });
    const batch = await rp.createBatch({});
    err = await refusal(() => rp.enqueue({ command: 'demo.echo', batchId: batch.id, dependsOn: [parent.token] }));
    expect(err.field).toBe('dependsOn');
    expect((await rp.tasks({ limit: 10 })).items).toHaveLength(1);

    for (const bad of ['x', 0, -1, 1.5, '1 OR 1=1', null]) expect((await refusal(() => rp.getFlow(bad))).field).toBe('flowId');
    await expect(rp.getFlow(999)).rejects.toThrow(NotFoundError);
    await expect(rp.cancelFlow(999)).rejects.toThrow('no flow 999');
    await expect(rp.retryFlow('999')).rejects.toThrow(NotFoundError);
    expect((await refusal(() => rp.flows({ limit: 201 }))).field).toBe('limit');
    expect((await refusal(() => rp.flows({ cursor: 0 }))).field).toBe('cursor');
    expect((await refusal(() => rp.flows({ unfinished: 'yes' } as never))).field).toBe('unfinished');
  });

  it('a continuation enqueued with dependsOn joins its parent flow and waits for it', async () => {
    const r = await rp.flow(diamond({ runAt: later() }));
    const next = await rp.enqueue({ command: 'demo.echo', dependsOn: [r.tokens.notify], onParentFailure: 'wait' });
    expect(await rp.status(next.token)).toMatchObject({ status: 'waiting', flowId: r.flowId, flowNode: null, parentsLeft: 1 });
    const f = await rp.getFlow(r.flowId);
    expect(f.nodeList.at(-1)).toMatchObject({ nodeId: null, token: next.token, status: 'waiting' });
    expect(f.edges).toContainEqual({ parent: r.tokens.notify, child: next.token, onParentFailure: 'wait' });
  });
});

describe('tx.flow', () => {
  it('commits with the transaction, and is gone when it rolls back', async () => {
    const r = await rp.withTransaction((tx) => tx.flow(diamond({ runAt: later() })));
    expect((await rp.getFlow(r.flowId)).nodes).toBe(4);

    let rolledBack: number | null = null;
    await expect(
      rp.withTransaction(async (tx) => {
        rolledBack = (await tx.flow(diamond({ runAt: later() }))).flowId;
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(rolledBack).not.toBeNull();
    await expect(rp.getFlow(rolledBack!)).rejects.toThrow(NotFoundError);
    expect((await rp.flows()).items.map((f) => f.id)).toEqual([r.flowId]);
    expect((await rp.tasks({ limit: 50 })).items).toHaveLength(4);

    // a refused flow dooms the transaction: the task enqueued before it is rolled back too
    await expect(
      rp.withTransaction(async (tx) => {
        await tx.enqueue({ command: 'demo.echo' });
        await tx.flow({ nodes: [step('a', ['a'])] });
      }),
    ).rejects.toThrow(ValidationError);
    expect((await rp.tasks({ limit: 50 })).items).toHaveLength(4);
  });
});

describe('cancel and retry of a flow', () => {
  it('cancels every unfinished node, retries them back to pending and waiting, and records who did it', async () => {
    const quiet = await rp.flow(diamond({ runAt: later() }));
    const r = await asActor({ name: 'alice', source: 'api' }, () => rp.flow(diamond({ runAt: later() })));

    const cancelled = await asActor({ name: 'alice', source: 'api' }, () => rp.cancelFlow(r.flowId));
    expect(cancelled.cancelRequested).toBe(0);
    expect(cancelled.cancelled).toBeGreaterThanOrEqual(2);
    let f = await rp.getFlow(r.flowId);
    expect(f.counts).toMatchObject({ cancelled: 4, waiting: 0, pending: 0 });
    expect(f.finishedAt).not.toBeNull();
    // the other flow is untouched
    expect((await rp.getFlow(quiet.flowId)).counts).toMatchObject({ pending: 2, waiting: 2 });
    // nothing left to cancel: no second audit row
    expect(await rp.cancelFlow(r.flowId)).toEqual({ cancelled: 0, cancelRequested: 0 });

    const retried = await asActor({ name: 'bob', source: 'cli' }, () => rp.retryFlow(r.flowId));
    expect(retried.retried).toBeGreaterThanOrEqual(2);
    f = await rp.getFlow(r.flowId);
    expect(f.counts).toMatchObject({ pending: 2, waiting: 2, cancelled: 0 });
    expect(f.finishedAt).toBeNull();
    expect(await rp.status(r.tokens.merge!)).toMatchObject({ status: 'waiting', parentsLeft: 2 });

    const rows = (await rp.audit.list({ limit: 20 })).items;
    expect(rows.map((a) => [a.actor, a.source, a.action, a.target])).toEqual([
      ['bob', 'cli', 'flow.retry', String(r.flowId)],
      ['alice', 'api', 'flow.cancel', String(r.flowId)],
      ['alice', 'api', 'flow.create', String(r.flowId)],
    ]);
    expect(rows[2]).toMatchObject({ after: { name: 'nightly', nodes: 4 }, count: 4 });
    expect(rows[1]).toMatchObject({ after: { cancelled: cancelled.cancelled, cancelRequested: 0 } });
    expect(rows[0]).toMatchObject({ count: retried.retried });
  });
});
