import { describe, expect, it } from 'vitest';
import { buildGraph, dominant, layoutKey, place } from './graph';
import type { FlowJson } from './types';

type Node = FlowJson['nodeList'][number];

function node(token: string, command: string, status: Node['status'], nodeId: string | null = token): Node {
  return {
    nodeId,
    token,
    status,
    queue: 'default',
    kind: 'handler',
    command,
    attempts: 0,
    startedAt: null,
    finishedAt: null,
    error: null,
  };
}

const edge = (parent: string, child: string) => ({ parent, child, onParentFailure: 'cancel' as const });

// a → b, a → c, b → d, c → d (the diamond), and e added later after d
const diamond = {
  nodeList: [
    node('a', 'load', 'succeeded'),
    node('b', 'load', 'running'),
    node('c', 'transform', 'dead'),
    node('d', 'merge', 'waiting'),
    node('e', 'notify', 'waiting', null),
  ],
  edges: [edge('a', 'b'), edge('a', 'c'), edge('b', 'd'), edge('c', 'd'), edge('d', 'e')],
};

describe('flow graph', () => {
  it('draws one box per task, labelled by node id (or command), with its edges', () => {
    const g = buildGraph(diamond, false);
    expect(g.boxes.map((b) => (b.kind === 'task' ? b.label : b.command))).toEqual(['a', 'b', 'c', 'd', 'notify']);
    expect(g.links.map((l) => [l.source, l.target, l.done])).toEqual([
      ['a', 'b', true],
      ['a', 'c', true],
      ['b', 'd', false],
      ['c', 'd', false],
      ['d', 'e', false],
    ]);
  });

  it('collapses by command: counts per state, edges between groups counted, none inside a group', () => {
    const g = buildGraph(diamond, true);
    const load = g.boxes.find((b) => b.id === 'cmd:load');
    expect(load).toMatchObject({ kind: 'group', total: 2, status: 'running' });
    expect(load?.kind === 'group' && load.counts).toMatchObject({ succeeded: 1, running: 1, dead: 0 });
    expect(g.boxes).toHaveLength(4);
    // a → b stays inside `load`; a → c is load → transform; b → d and c → d reach merge from two groups
    expect(g.links.map((l) => `${l.id}:${l.count}:${l.done}`).sort()).toEqual([
      'cmd:load>cmd:merge:1:false',
      'cmd:load>cmd:transform:1:true',
      'cmd:merge>cmd:notify:1:false',
      'cmd:transform>cmd:merge:1:false',
    ]);
  });

  it('colours a group by its most pressing state', () => {
    const c = { waiting: 3, pending: 1, claimed: 0, running: 0, succeeded: 5, dead: 1, cancelled: 0 };
    expect(dominant(c)).toBe('dead');
    expect(dominant({ ...c, dead: 0 })).toBe('pending');
    expect(dominant({ ...c, dead: 0, pending: 0, waiting: 0 })).toBe('succeeded');
  });

  it('lays parents out left of their children, and keys the layout on the shape only', () => {
    const g = buildGraph(diamond, false);
    const p = place(g);
    const x = (id: string) => p.positions.get(id)!.x;
    expect(x('a')).toBeLessThan(x('b'));
    expect(x('b')).toBe(x('c'));
    expect(x('c')).toBeLessThan(x('d'));
    expect(x('d')).toBeLessThan(x('e'));
    expect(p.positions.get('b')!.y).not.toBe(p.positions.get('c')!.y);
    const later = buildGraph({ ...diamond, nodeList: diamond.nodeList.map((n) => ({ ...n, status: 'succeeded' as const })) }, false);
    expect(layoutKey(later)).toBe(layoutKey(g));
    expect(layoutKey(buildGraph(diamond, true))).not.toBe(layoutKey(g));
  });

  it('lays out 1,000 nodes in layers within seconds', { timeout: 30_000 }, () => {
    const nodeList: Node[] = [];
    const edges: ReturnType<typeof edge>[] = [];
    for (let layer = 0; layer < 10; layer++)
      for (let i = 0; i < 100; i++) {
        const t = `n${layer}-${i}`;
        nodeList.push(node(t, `step${layer}`, 'waiting'));
        if (layer > 0) edges.push(edge(`n${layer - 1}-${i}`, t), edge(`n${layer - 1}-${(i + 1) % 100}`, t));
      }
    const collapsed = place(buildGraph({ nodeList, edges }, true));
    expect(collapsed.positions.size).toBe(10);
    const started = Date.now();
    const full = place(buildGraph({ nodeList, edges }, false));
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(full.positions.size).toBe(1000);
    expect(full.positions.get('n9-0')!.x).toBeGreaterThan(full.positions.get('n8-0')!.x);
  });
});
