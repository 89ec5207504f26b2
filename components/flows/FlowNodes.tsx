'use client';
// A flow's nodes as a list (by task id): node id, command, state, attempts, when, the last error. At most
// NODES_SHOWN rows (picked by state); the Tasks browser lists them all.
import Link from 'next/link';
import { formatNumber } from '../format';
import { StatusBadge } from '../ui/Badge';
import { DataTable, type Column } from '../ui/DataTable';
import { EmptyState } from '../ui/States';
import { RelativeTime } from '../ui/Time';
import { TokenLink } from '../ui/TokenLink';
import type { FlowNodeJson, FlowState } from './types';

export const NODES_SHOWN = 100;

function NodeName({ n }: { n: FlowNodeJson }) {
  return (
    <div className="min-w-0">
      <Link
        href={`/tasks/${n.token}`}
        className="block max-w-56 truncate text-sm font-medium text-slate-900 hover:underline"
        data-testid="flow-list-node"
        title={n.nodeId ?? 'added after the flow was created (dependsOn)'}
      >
        {n.nodeId ?? <span className="italic text-slate-500">after</span>}
      </Link>
      <TokenLink token={n.token} />
    </div>
  );
}

function When({ n }: { n: FlowNodeJson }) {
  const [label, iso] = n.finishedAt ? ['finished', n.finishedAt] : n.startedAt ? ['started', n.startedAt] : [null, null];
  if (!iso) return <span className="text-xs text-slate-300">—</span>;
  return (
    <span className="whitespace-nowrap text-xs text-slate-500">
      {label} <RelativeTime iso={iso} className="text-slate-700" />
    </span>
  );
}

const columns: Column<FlowNodeJson>[] = [
  { key: 'node', header: 'Node', mobile: 'primary', cell: (n) => <NodeName n={n} /> },
  {
    key: 'command',
    header: 'Command',
    cell: (n) => (
      <span className="block max-w-48 truncate font-mono text-xs" title={n.command}>
        {n.command}
      </span>
    ),
  },
  { key: 'state', header: 'State', cell: (n) => <StatusBadge status={n.status} testId="flow-list-state" /> },
  { key: 'attempts', header: 'Tries', align: 'right', cell: (n) => <span className="tabular text-xs">{n.attempts}</span> },
  { key: 'when', header: 'When', cell: (n) => <When n={n} /> },
  {
    key: 'error',
    header: 'Last error',
    cell: (n) =>
      n.error ? (
        <p className="line-clamp-2 min-w-36 max-w-64 break-words text-xs text-rose-800" title={n.error}>
          {n.error}
        </p>
      ) : (
        <span className="text-xs text-slate-300">—</span>
      ),
  },
];

function PhoneRow({ n }: { n: FlowNodeJson }) {
  return (
    <div className="flex items-start gap-2">
      <div className="min-w-0 flex-1">
        <NodeName n={n} />
        <span className="block truncate font-mono text-[11px] text-slate-500" title={n.command}>
          {n.command}
        </span>
        {n.error && (
          <p className="mt-0.5 line-clamp-2 break-words text-xs text-rose-800" title={n.error}>
            {n.error}
          </p>
        )}
      </div>
      <div className="flex shrink-0 flex-col items-end gap-1">
        <StatusBadge status={n.status} testId="flow-list-state" />
        <When n={n} />
      </div>
    </div>
  );
}

export function FlowNodes({ flowId, nodes, picked }: { flowId: number; nodes: FlowNodeJson[]; picked: FlowState | null }) {
  const matching = picked ? nodes.filter((n) => n.status === picked) : nodes;
  const shown = matching.slice(0, NODES_SHOWN);
  if (shown.length === 0)
    return (
      <EmptyState title={picked ? `No ${picked} node` : 'No nodes'} icon="tasks">
        {picked ? 'Pick another state.' : 'This flow has no task.'}
      </EmptyState>
    );
  return (
    <>
      <DataTable
        testId="flow-node-list"
        rows={shown}
        columns={shown.some((n) => n.error) ? columns : columns.filter((c) => c.key !== 'error')}
        rowKey={(n) => n.token}
        rowAttrs={(n) => ({ 'data-testid': 'flow-list-row', 'data-token': n.token, 'data-status': n.status })}
        phoneRow={(n) => <PhoneRow n={n} />}
      />
      {matching.length > shown.length && (
        <p className="border-t border-slate-100 px-4 py-2 text-xs text-slate-500">
          The first {formatNumber(shown.length)} of {formatNumber(matching.length)} are listed;{' '}
          <Link href={`/tasks?flow=${flowId}${picked ? `&status=${picked}` : ''}`} className="text-brand-600 hover:underline">
            see them all in Tasks
          </Link>
          .
        </p>
      )}
    </>
  );
}
