// Flows: a graph of tasks created at once (rp.flow, POST /api/flows). Validation here — each node as an
// enqueue, node ids, edges, and the graph itself (no self-edge, no unknown id, no cycle: the offending ids
// named) — and the nodes put in topological order, so a store inserts every parent before its children.
// The rules the stores apply to waiting tasks and edges are in types/flows.ts.
import { z } from 'zod';
import { ValidationError } from './errors';
import { Slices } from './slices';
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
    // a parent's id needs no pattern check: one that matches no node is refused as unknown
    for (const d of deps) if (typeof d !== 'string') return null;
  }
  return n as z.output<typeof flowNode>;
}

/** a node as read: its own fields, and the task's (any) */
type NodeShape = z.output<typeof flowNode> & Record<string, unknown>;

/** task fields a flow node may not take */
const NOT_IN_FLOW: Record<string, string> = {
  dedupKey: 'flow nodes take no dedup key',
  batchId: 'flow nodes take no batch (the flow orders them)',
  stage: 'flow nodes take no batch (the flow orders them)',
};
const NOT_IN_FLOW_FIELDS = Object.keys(NOT_IN_FLOW);

/** a node's own fields, not its task's */
const NODE_FIELDS: ReadonlySet<string> = new Set(['id', 'dependsOn', 'onParentFailure']);

/**
 * Validate a flow request; throws ValidationError naming the field (`nodes.3.dependsOn.1`) or, for a cycle,
 * `nodes` with the cycle's ids (`a → b → c → a`). Nodes come back in topological order (ties: as given).
 */
export async function validateFlow(raw: unknown, ctx: EnqueueContext): Promise<FlowInput> {
  const r = parseWith(flowRequest, raw);
  const byId = new Map<string, number>();
  const shapes: { id: string; deps: { id: string; onParentFailure: ParentFailurePolicy }[] }[] = [];
  const tasks: unknown[] = [];
  const flowPolicy: ParentFailurePolicy = r.onParentFailure ?? 'cancel';
  // thousands of nodes: the event loop runs between slices of them
  const slices = new Slices();
  for (let i = 0; i < r.nodes.length; i++) {
    if ((i & 63) === 63 && slices.due) await slices.pause();
    // (the field names of refusals are built only when refusing: this loop runs 10,000 times for a large flow)
    const n = (plainNode(r.nodes[i]) ?? parseWith(flowNode, r.nodes[i], `nodes.${i}`)) as NodeShape;
    const id = n.id;
    // one map operation per node: a set that adds nothing found a duplicate (the earlier one is then looked for)
    const size = byId.size;
    byId.set(id, i);
    if (byId.size === size) {
      const first = shapes.findIndex((s) => s.id === id);
      throw new ValidationError(`nodes.${i}.id`, `duplicate id ${JSON.stringify(id)} (also nodes.${first})`);
    }
    // (named reads: a loop over the names is a keyed read per name, slow over nodes of several shapes)
    if (n.dedupKey !== undefined || n.batchId !== undefined || n.stage !== undefined) {
      const field = NOT_IN_FLOW_FIELDS.find((f) => n[f] !== undefined)!;
      throw new ValidationError(`nodes.${i}.${field}`, NOT_IN_FLOW[field]!);
    }
    const policy: ParentFailurePolicy = n.onParentFailure ?? flowPolicy;
    const list = n.dependsOn;
    const deps: FlowNodeInput['dependsOn'] = [];
    if (list !== undefined && list.length > 0) {
      // a repeated parent: looked up among the earlier ones (a set only for long lists)
      const seen = list.length > 16 ? new Set<string>() : null;
      for (let j = 0; j < list.length; j++) {
        const d = list[j]!;
        const depId = typeof d === 'string' ? d : d.id;
        if (depId === id) throw new ValidationError(`nodes.${i}.dependsOn.${j}`, `node ${JSON.stringify(id)} depends on itself`);
        if (seen ? seen.has(depId) : deps.some((e) => e.id === depId))
          throw new ValidationError(`nodes.${i}.dependsOn.${j}`, `${JSON.stringify(depId)} is listed twice`);
        seen?.add(depId);
        deps.push({ id: depId, onParentFailure: (typeof d === 'string' ? undefined : d.onParentFailure) ?? policy });
      }
    }
    shapes.push({ id, deps });
    tasks.push(n);
  }
  // the tasks as enqueueMany checks them (its fast path for the common shape; `nodes.i.field` names a refusal)
  const inputs = await validateEnqueueMany(tasks, ctx, 'nodes', NODE_FIELDS);
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
