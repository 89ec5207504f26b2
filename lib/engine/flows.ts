// Flows: a graph of tasks created at once (rp.flow, POST /api/flows). Validation here — each node as an
// enqueue, node ids, edges, and the graph itself (no self-edge, no unknown id, no cycle: the offending ids
// named) — and the nodes put in topological order, so a store inserts every parent before its children.
// The rules the stores apply to waiting tasks and edges are in types/flows.ts.
import { z } from 'zod';
import { ValidationError } from './errors';
import { FLOW_NODE_ID, MAX_FLOW_NAME_LENGTH, MAX_FLOW_NODES, MAX_PARENTS } from './limits';
import type { FlowInput, FlowNodeInput, ParentFailurePolicy, ParentResult } from './types';
import { parentFailurePolicy, parseWith, type EnqueueContext } from './validation';
import { validateEnqueueMany } from './validation-bulk';

const nodeId = z.string().regex(FLOW_NODE_ID, 'letters, digits and . _ : - (1 to 100 characters)');

const nodeDependency = z.union([nodeId, z.strictObject({ id: nodeId, onParentFailure: parentFailurePolicy.optional() })]);

/** a node: its id, its edges, and the task's own fields (checked by validateEnqueue) */
const flowNode = z.looseObject({
  id: nodeId,
  dependsOn: z.array(nodeDependency).max(MAX_PARENTS).optional(),
  onParentFailure: parentFailurePolicy.optional(),
});

export const flowRequest = z.strictObject({
  name: z.string().trim().min(1).max(MAX_FLOW_NAME_LENGTH).optional(),
  /** the policy of every edge that names none (default cancel) */
  onParentFailure: parentFailurePolicy.optional(),
  nodes: z.array(z.unknown()).min(1).max(MAX_FLOW_NODES),
});

export type FlowRequest = z.input<typeof flowRequest>;

/** A node of the common shape (id, dependsOn as plain ids, no policy of its own) read without zod; null: let zod read it. */
function plainNode(raw: unknown): z.output<typeof flowNode> | null {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null;
  const n = raw as Record<string, unknown>;
  if (typeof n.id !== 'string' || !FLOW_NODE_ID.test(n.id) || n.onParentFailure !== undefined) return null;
  const deps = n.dependsOn;
  if (deps !== undefined) {
    if (!Array.isArray(deps) || deps.length > MAX_PARENTS) return null;
    for (const d of deps) if (typeof d !== 'string' || !FLOW_NODE_ID.test(d)) return null;
  }
  return n as z.output<typeof flowNode>;
}

/** task fields a flow node may not take */
const NOT_IN_FLOW: Record<string, string> = {
  dedupKey: 'flow nodes take no dedup key',
  batchId: 'flow nodes take no batch (the flow orders them)',
  stage: 'flow nodes take no batch (the flow orders them)',
};
const NOT_IN_FLOW_FIELDS = Object.keys(NOT_IN_FLOW);

/**
 * Validate a flow request; throws ValidationError naming the field (`nodes.3.dependsOn.1`) or, for a cycle,
 * `nodes` with the cycle's ids (`a → b → c → a`). Nodes come back in topological order (ties: as given).
 */
export async function validateFlow(raw: unknown, ctx: EnqueueContext): Promise<FlowInput> {
  const r = parseWith(flowRequest, raw);
  const known = new Map<string, boolean>();
  const cached: EnqueueContext = {
    ...ctx,
    knowsHandler: async (name) => {
      let k = known.get(name);
      if (k === undefined) known.set(name, (k = await ctx.knowsHandler(name)));
      return k;
    },
  };
  const byId = new Map<string, number>();
  const shapes: { id: string; deps: { id: string; onParentFailure: ParentFailurePolicy }[] }[] = [];
  const tasks: Record<string, unknown>[] = [];
  for (let i = 0; i < r.nodes.length; i++) {
    const prefix = `nodes.${i}`;
    const n = plainNode(r.nodes[i]) ?? parseWith(flowNode, r.nodes[i], prefix);
    // one map operation per node: a set that adds nothing found a duplicate (the earlier one is then looked for)
    const size = byId.size;
    byId.set(n.id, i);
    if (byId.size === size) {
      const first = shapes.findIndex((s) => s.id === n.id);
      throw new ValidationError(`${prefix}.id`, `duplicate id ${JSON.stringify(n.id)} (also nodes.${first})`);
    }
    const { id, dependsOn, onParentFailure } = n;
    // the task's own fields (a copy without the node's: faster than a rest pattern, which V8 runs as a runtime call)
    const task: Record<string, unknown> = {};
    for (const k in n) {
      if (Object.hasOwn(n, k) && k !== 'id' && k !== 'dependsOn' && k !== 'onParentFailure') task[k] = (n as Record<string, unknown>)[k];
    }
    for (const field of NOT_IN_FLOW_FIELDS) {
      if (task[field] !== undefined) throw new ValidationError(`${prefix}.${field}`, NOT_IN_FLOW[field]!);
    }
    const policy: ParentFailurePolicy = onParentFailure ?? r.onParentFailure ?? 'cancel';
    const list = dependsOn ?? [];
    // a repeated parent: looked up among the earlier ones (a set only for long lists)
    const seen = list.length > 16 ? new Set<string>() : null;
    const deps: FlowNodeInput['dependsOn'] = [];
    list.forEach((d, j) => {
      const dep = typeof d === 'string' ? { id: d, onParentFailure: undefined } : d;
      if (dep.id === id) throw new ValidationError(`${prefix}.dependsOn.${j}`, `node ${JSON.stringify(id)} depends on itself`);
      if (seen ? seen.has(dep.id) : deps.some((e) => e.id === dep.id))
        throw new ValidationError(`${prefix}.dependsOn.${j}`, `${JSON.stringify(dep.id)} is listed twice`);
      seen?.add(dep.id);
      deps.push({ id: dep.id, onParentFailure: dep.onParentFailure ?? policy });
    });
    shapes.push({ id, deps });
    tasks.push(task);
  }
  // the tasks as enqueueMany checks them (its fast path for the common shape; `nodes.i.field` names a refusal)
  const inputs = await validateEnqueueMany(tasks, cached, 'nodes');
  const nodes: FlowNodeInput[] = shapes.map((s, i) => ({ id: s.id, task: inputs[i]!, dependsOn: s.deps }));
  // each edge's parent as its position (the one lookup per edge the order below uses too)
  const parentsOf = nodes.map((n, i) =>
    n.dependsOn.map((d, j) => {
      const at = byId.get(d.id);
      if (at === undefined) throw new ValidationError(`nodes.${i}.dependsOn.${j}`, `no node with id ${JSON.stringify(d.id)} in this flow`);
      return at;
    }),
  );
  return { name: r.name ?? null, caller: ctx.caller ?? null, nodes: topologicalOrder(nodes, parentsOf) };
}

/**
 * Kahn's order (stable: ready nodes in their given order); a cycle is refused naming its ids. `parentsOf[i]`: the
 * positions in `nodes` of node i's parents. The children lists are one flat array (offsets per node).
 */
export function topologicalOrder(nodes: FlowNodeInput[], parentsOf: number[][]): FlowNodeInput[] {
  const count = nodes.length;
  const left = new Int32Array(count);
  /** node i's children are children[start[i] … start[i + 1]) */
  const start = new Int32Array(count + 1);
  parentsOf.forEach((ps, i) => {
    left[i] = ps.length;
    for (const p of ps) start[p + 1]!++;
  });
  for (let i = 0; i < count; i++) start[i + 1]! += start[i]!;
  const children = new Int32Array(start[count]!);
  const fill = start.slice(0, count);
  parentsOf.forEach((ps, i) => {
    for (const p of ps) children[fill[p]!++] = i;
  });
  const out: FlowNodeInput[] = [];
  const queue = new Int32Array(count);
  let tail = 0;
  for (let i = 0; i < count; i++) if (left[i] === 0) queue[tail++] = i;
  for (let head = 0; head < tail; head++) {
    const i = queue[head]!;
    out.push(nodes[i]!);
    for (let k = start[i]!; k < start[i + 1]!; k++) if (--left[children[k]!]! === 0) queue[tail++] = children[k]!;
  }
  if (out.length < count) throw new ValidationError('nodes', `cycle: ${findCycle(nodes, left, parentsOf).join(' → ')}`);
  return out;
}

/** One cycle among the nodes Kahn's walk could not order (left > 0), as ids from a node back to itself. */
function findCycle(nodes: FlowNodeInput[], left: Int32Array, parentsOf: number[][]): string[] {
  // every unordered node has an unordered parent: walk parents until a node repeats
  let i = left.findIndex((l) => l > 0);
  const seenAt = new Map<number, number>();
  const path: number[] = [];
  while (!seenAt.has(i)) {
    seenAt.set(i, path.length);
    path.push(i);
    i = parentsOf[i]!.find((p) => left[p]! > 0)!;
  }
  // path walks child → parent; the cycle read parent → child ends where it started
  const cycle = path.slice(seenAt.get(i)!).reverse();
  return [...cycle, cycle[0]!].map((k) => nodes[k]!.id);
}

/** The JSON text bound to `@Parents` of a sql or procedure task (RunningAttempt.parents). */
export function parentsJson(parents: readonly ParentResult[]): string {
  return JSON.stringify(parents.map((p) => ({ token: p.token, nodeId: p.nodeId, command: p.command, status: p.status, result: p.result })));
}
