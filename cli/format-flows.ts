// Human-readable forms of `flow create|show|list` and `tasks` (--json prints the front door's JSON as is).
import type { FlowJson, FlowSummaryJson } from '../lib/api/flows';
import type { taskJson } from '../lib/api/present';
import { TASK_STATUSES, type FlowResult } from '../lib/engine/types';
import { table } from './format';
import { NODES_SHOWN } from './help-flows';

type TaskJson = ReturnType<typeof taskJson>;

/** `3 waiting, 1 running, 5 succeeded` (states without nodes left out) */
export function countsLine(counts: Record<string, number>): string {
  const parts = TASK_STATUSES.filter((s) => (counts[s] ?? 0) > 0).map((s) => `${counts[s]} ${s}`);
  return parts.length === 0 ? 'none' : parts.join(', ');
}

export function formatCreated(r: FlowResult): string {
  const rows = [['NODE', 'TOKEN'], ...Object.entries(r.tokens).map(([id, token]) => [id, token])];
  return `flow ${r.flowId}: ${rows.length - 1} node(s)\n` + table(rows);
}

export function formatFlow(f: FlowJson): string {
  const head = table([
    ['flow:', String(f.id)],
    ['name:', f.name ?? '-'],
    ['caller:', f.caller ?? '-'],
    ['created:', f.createdAt ?? '-'],
    ['finished:', f.finishedAt ?? '-'],
    ['nodes:', `${f.nodes} (${countsLine(f.counts)})`],
    ['edges:', String(f.edges.length)],
  ]);
  const parts = [head];
  for (const state of TASK_STATUSES) {
    const nodes = f.nodeList.filter((n) => n.status === state);
    if (nodes.length === 0) continue;
    const rows = nodes
      .slice(0, NODES_SHOWN)
      .map((n) => ['  ' + (n.nodeId ?? '(added)'), n.token, n.command, `${n.attempts} attempt(s)`, n.error ?? '']);
    const more = nodes.length - rows.length;
    parts.push(`${state} (${nodes.length}):\n` + table(rows) + (more > 0 ? `\n  … and ${more} more (--json lists every node)` : ''));
  }
  return parts.join('\n\n');
}

export function formatFlowList(items: FlowSummaryJson[], nextCursor: number | null): string {
  if (items.length === 0) return 'no flows';
  const rows = [['ID', 'NAME', 'NODES', 'STATES', 'CREATED', 'FINISHED']];
  for (const f of items)
    rows.push([String(f.id), f.name ?? '-', String(f.nodes), countsLine(f.counts), f.createdAt ?? '-', f.finishedAt ?? '-']);
  return table(rows) + (nextCursor === null ? '' : `\n(more: --cursor ${nextCursor})`);
}

export function formatTasks(items: TaskJson[], nextCursor: number | null, partial: boolean): string {
  const rows = [['TOKEN', 'STATUS', 'QUEUE', 'COMMAND', 'ATTEMPTS', 'FLOW', 'CREATED']];
  for (const t of items) {
    const flow = t.flowId === null ? '-' : `${t.flowId}${t.flowNode === null ? '' : `:${t.flowNode}`}`;
    const status = t.status === 'waiting' ? `waiting (${t.parentsLeft} of ${t.parentCount} parents left)` : t.status;
    rows.push([t.token, status, t.queue, t.command, `${t.attempts}/${t.maxAttempts}`, flow, t.createdAt ?? '-']);
  }
  const body = items.length === 0 ? 'no tasks' : table(rows);
  if (nextCursor === null) return body;
  return body + `\n(${partial ? 'stopped after a bounded scan; more' : 'more'}: --cursor ${nextCursor})`;
}
