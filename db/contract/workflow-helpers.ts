// Helpers of the workflow contract tests (workflows.ts, workflow-operations.ts): flows written as validateFlow
// returns them, children enqueued after parents, claims of everything claimable, kept counts checked.
import { expect } from 'vitest';
import type { ClaimedTask, EnqueueInput, FlowInput, ParentFailurePolicy } from '../../lib/engine/types';
import { LONG_LEASE, type Harness } from './harness';

export type Node = [id: string, deps?: (string | [string, ParentFailurePolicy])[], task?: Partial<EnqueueInput>];

/** A flow as validateFlow returns it (nodes given parents first). */
export function flowOf(nodes: Node[], name: string | null = 'contract'): FlowInput {
  return {
    name,
    caller: null,
    nodes: nodes.map(([id, deps = [], task = {}]) => ({
      id,
      task: { kind: 'handler', command: `node.${id}`, payload: { node: id }, ...task },
      dependsOn: deps.map((d) => (typeof d === 'string' ? { id: d, onParentFailure: 'cancel' } : { id: d[0], onParentFailure: d[1] })),
    })),
  };
}

/** Enqueue a handler task after `parents` (each `cancel` unless given a policy); returns its token. */
export function after(h: Harness, parents: (string | [string, ParentFailurePolicy])[], over: Partial<EnqueueInput> = {}): Promise<string> {
  const dependsOn = parents.map((p) =>
    typeof p === 'string' ? { token: p, onParentFailure: 'cancel' as const } : { token: p[0], onParentFailure: p[1] },
  );
  return h.add({ command: 'c', dependsOn, ...over });
}

/** Claim everything claimable now (up to 10), by token. */
export async function claimAll(h: Harness): Promise<Map<string, ClaimedTask>> {
  const slots = await Promise.all(Array.from({ length: 10 }, () => h.worker()));
  const got = await h.store.worker.claim(slots, { leaseMs: LONG_LEASE });
  return new Map(got.map((c) => [c.token, c]));
}

/** The tokens' statuses, in order. */
export const statuses = (h: Harness, tokens: string[]) => Promise.all(tokens.map((t) => h.status(t)));

/** countsByQueue agrees with the tasks themselves (every task of the test), waiting tasks included. */
export async function expectTallied(h: Harness, tokens: string[]): Promise<void> {
  expect(await h.counts()).toEqual(await h.expectedCounts(tokens));
}
