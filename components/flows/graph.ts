// A flow as a graph to draw: one box per task, or (collapsed) one box per command with its counts, the
// edges between them, and a layered left-to-right layout computed by dagre. The layout depends only on the
// graph's shape (nodes and edges), so a poll that only changes states reuses it (layoutKey).
import { graphlib, layout } from '@dagrejs/dagre';
import { FLOW_STATES, type FlowCountsJson, type FlowJson, type FlowState } from './types';

export const TASK_BOX = { width: 184, height: 54 };
export const GROUP_BOX = { width: 216, height: 74 };

/** Above this many nodes the graph starts collapsed by command. */
export const COLLAPSE_ABOVE = 300;
/** Above this many nodes one box per task is not offered (the layout and the drawing get too slow). */
export const MAX_EXPANDED = 2500;

// type aliases (not interfaces): React Flow's node data must be a Record
export type TaskBox = {
  kind: 'task';
  id: string;
  token: string;
  label: string;
  command: string;
  status: FlowState;
  attempts: number;
  error: string | null;
};

export type GroupBox = {
  kind: 'group';
  id: string;
  command: string;
  /** the group's tasks by state */
  counts: FlowCountsJson;
  total: number;
  /** the state that colours the box: the most pressing one present */
  status: FlowState;
};

export type Box = TaskBox | GroupBox;

export interface Link {
  id: string;
  source: string;
  target: string;
  /** how many task edges it stands for (1 between tasks) */
  count: number;
  /** every parent behind it succeeded */
  done: boolean;
}

export interface FlowGraph {
  boxes: Box[];
  links: Link[];
}

export interface Placed {
  /** top-left corners by box id */
  positions: Map<string, { x: number; y: number }>;
  width: number;
  height: number;
}

const emptyCounts = (): FlowCountsJson => Object.fromEntries(FLOW_STATES.map((s) => [s, 0])) as FlowCountsJson;

/** The state a group shows: running, then failed, then what is still to run, then the finished ones. */
const PRESSING: FlowState[] = ['running', 'dead', 'pending', 'waiting', 'cancelled', 'succeeded'];

export function dominant(counts: FlowCountsJson): FlowState {
  return PRESSING.find((s) => counts[s] > 0) ?? 'waiting';
}

/** A task's label: its node id, or (a task added later with dependsOn) its command. */
function labelOf(n: FlowJson['nodeList'][number]): string {
  return n.nodeId ?? n.command;
}

/** One box per task (collapse false) or per command (collapse true), with the edges between them. */
export function buildGraph(flow: Pick<FlowJson, 'nodeList' | 'edges'>, collapse: boolean): FlowGraph {
  const status = new Map(flow.nodeList.map((n) => [n.token, n.status as FlowState]));
  if (!collapse) {
    const boxes: TaskBox[] = flow.nodeList.map((n) => ({
      kind: 'task',
      id: n.token,
      token: n.token,
      label: labelOf(n),
      command: n.command,
      status: n.status as FlowState,
      attempts: n.attempts,
      error: n.error,
    }));
    const known = new Set(boxes.map((b) => b.id));
    const links = flow.edges
      .filter((e) => known.has(e.parent) && known.has(e.child))
      .map((e) => ({
        id: `${e.parent}>${e.child}`,
        source: e.parent,
        target: e.child,
        count: 1,
        done: status.get(e.parent) === 'succeeded',
      }));
    return { boxes, links };
  }
  const groupOf = new Map<string, string>();
  const groups = new Map<string, GroupBox>();
  for (const n of flow.nodeList) {
    const id = `cmd:${n.command}`;
    groupOf.set(n.token, id);
    let g = groups.get(id);
    if (!g) {
      g = { kind: 'group', id, command: n.command, counts: emptyCounts(), total: 0, status: 'waiting' };
      groups.set(id, g);
    }
    g.counts[n.status as FlowState] += 1;
    g.total += 1;
  }
  for (const g of groups.values()) g.status = dominant(g.counts);
  const links = new Map<string, Link>();
  for (const e of flow.edges) {
    const source = groupOf.get(e.parent);
    const target = groupOf.get(e.child);
    if (!source || !target || source === target) continue;
    const id = `${source}>${target}`;
    const done = status.get(e.parent) === 'succeeded';
    const l = links.get(id);
    if (l) {
      l.count += 1;
      l.done &&= done;
    } else links.set(id, { id, source, target, count: 1, done });
  }
  return { boxes: [...groups.values()], links: [...links.values()] };
}

/** The graph's shape: what the layout depends on (not the states). */
export function layoutKey(g: FlowGraph): string {
  return `${g.boxes.map((b) => b.id).join('\u0001')}\u0002${g.links.map((l) => l.id).join('\u0001')}`;
}

/**
 * How hard dagre works by size: its network-simplex ranking takes minutes on 1,000 boxes and its crossing
 * minimisation seconds, so bigger graphs get the faster rankers, and above 400 boxes no crossing reduction
 * (about a second for 1,000 boxes and 1,800 edges; the layout is computed once per shape).
 */
function effort(boxes: number): { ranker: 'network-simplex' | 'tight-tree' | 'longest-path'; fast: boolean } {
  if (boxes <= 100) return { ranker: 'network-simplex', fast: false };
  if (boxes <= 400) return { ranker: 'tight-tree', fast: false };
  return { ranker: 'longest-path', fast: true };
}

/** A layered left-to-right layout (dagre): parents left of their children. */
export function place(g: FlowGraph): Placed {
  const d = new graphlib.Graph();
  const { ranker, fast } = effort(g.boxes.length);
  d.setGraph({ rankdir: 'LR', nodesep: 16, ranksep: 56, marginx: 8, marginy: 8, ranker });
  d.setDefaultEdgeLabel(() => ({}));
  for (const b of g.boxes) d.setNode(b.id, { ...(b.kind === 'task' ? TASK_BOX : GROUP_BOX) });
  for (const l of g.links) d.setEdge(l.source, l.target);
  layout(d, { disableOptimalOrderHeuristic: fast });
  const positions = new Map<string, { x: number; y: number }>();
  for (const b of g.boxes) {
    const n = d.node(b.id);
    // dagre gives centres; React Flow places boxes by their top-left corner
    positions.set(b.id, { x: n.x - n.width / 2, y: n.y - n.height / 2 });
  }
  const { width = 0, height = 0 } = d.graph();
  return { positions, width, height };
}
