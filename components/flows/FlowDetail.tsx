'use client';
// One flow: its graph (live, laid out by dagre; collapsed by command above COLLAPSE_ABOVE nodes), its counts
// by state, cancel / retry failed nodes, and its nodes as a list.
import Link from 'next/link';
import { useState } from 'react';
import { ApiError } from '../api';
import { formatLocal } from '../format';
import { useLive } from '../live';
import { Badge } from '../ui/Badge';
import { Card, CardHeader, Field, PageHeader } from '../ui/Card';
import { EmptyState, ErrorState, LoadingState, StaleBanner } from '../ui/States';
import { Elapsed, RelativeTime } from '../ui/Time';
import { FlowActions } from './FlowActions';
import { CountChips, CountsBar } from './FlowCounts';
import { FlowGraph } from './FlowGraph';
import { FlowNodes } from './FlowNodes';
import { COLLAPSE_ABOVE, MAX_EXPANDED } from './graph';
import { counted, flowState, isOpen, type FlowJson, type FlowState } from './types';

/** a big flow's JSON is polled less often */
const SLOW_ABOVE = 2000;
const SLOW_POLL_MS = 5000;

function When({ iso }: { iso: string | null }) {
  if (!iso) return <span className="text-slate-400">—</span>;
  return (
    <span title={iso}>
      <RelativeTime iso={iso} /> <span className="block text-xs text-slate-400">{formatLocal(iso)}</span>
    </span>
  );
}

function CollapseToggle({ flow, collapse, onChange }: { flow: FlowJson; collapse: boolean; onChange: (c: boolean) => void }) {
  const forced = flow.nodeList.length > MAX_EXPANDED;
  return (
    <label
      className="inline-flex cursor-pointer items-center gap-2 text-xs text-slate-600"
      title={forced ? `Over ${MAX_EXPANDED} nodes the graph shows one box per command` : 'One box per command, with its counts by state'}
    >
      <input
        type="checkbox"
        className="size-4 rounded border-slate-300 accent-brand-600"
        checked={collapse}
        disabled={forced}
        onChange={(e) => onChange(e.target.checked)}
        data-testid="flow-collapse"
      />
      Collapse by command
    </label>
  );
}

function Summary({ f }: { f: FlowJson }) {
  const done = f.counts.succeeded + f.counts.dead + f.counts.cancelled;
  return (
    <Card testId="flow-summary">
      <CardHeader title="Summary" />
      <div className="px-4 pt-4">
        <div className="mb-1 flex items-baseline justify-between text-xs text-slate-500">
          <span>
            <span className="tabular text-lg font-semibold text-slate-900" data-testid="flow-done">
              {done.toLocaleString('en-US')}
            </span>{' '}
            / {counted(f.nodeList.length, 'node')} finished
          </span>
          <Elapsed
            from={f.createdAt}
            to={isOpen(f) ? null : (f.finishedAt ?? f.createdAt)}
            testId="flow-elapsed"
            className="tabular font-mono text-sm font-semibold text-slate-700"
          />
        </div>
        <CountsBar counts={f.counts} total={f.nodeList.length} className="h-2.5" />
      </div>
      <dl className="grid grid-cols-2 gap-x-6 gap-y-4 p-4">
        <Field label="Name">{f.name ?? '—'}</Field>
        <Field label="Caller">{f.caller ?? '—'}</Field>
        <Field label="Created">
          <When iso={f.createdAt} />
        </Field>
        <Field label="Finished">
          <When iso={f.finishedAt} />
        </Field>
        <Field label="Edges">
          <span className="tabular">{f.edges.length.toLocaleString('en-US')}</span>
        </Field>
      </dl>
    </Card>
  );
}

export function FlowDetail({ id }: { id: string }) {
  const [slow, setSlow] = useState(false);
  const q = useLive<FlowJson>(['flow', id], `/api/flows/${encodeURIComponent(id)}`, { intervalMs: slow ? SLOW_POLL_MS : undefined });
  const f = q.data;
  const [collapsePick, setCollapse] = useState<boolean | null>(null);
  const [picked, setPicked] = useState<FlowState | null>(null);
  if (f && !slow && f.nodeList.length > SLOW_ABOVE) setSlow(true);

  if (!f) {
    const notFound = q.error instanceof ApiError && (q.error.status === 404 || q.error.status === 400);
    return (
      <>
        <PageHeader title={`Flow ${id}`} />
        <Card>
          {q.isPending ? (
            <LoadingState rows={8} />
          ) : notFound ? (
            <EmptyState title="No such flow" icon="help" testId="flow-not-found">
              {q.error?.message}. A finished flow is pruned as a whole after the retention period.{' '}
              <Link className="text-brand-600 hover:underline" href="/flows">
                See every flow
              </Link>
              .
            </EmptyState>
          ) : (
            <ErrorState error={q.error} onRetry={() => void q.refetch()} />
          )}
        </Card>
      </>
    );
  }

  const state = flowState(f);
  const collapse = f.nodeList.length > MAX_EXPANDED || (collapsePick ?? f.nodeList.length > COLLAPSE_ABOVE);
  return (
    <>
      <PageHeader
        title={
          <span className="flex flex-wrap items-center gap-2">
            Flow <span className="tabular font-mono">#{f.id}</span>
            {f.name && <span className="font-normal text-slate-600">{f.name}</span>}
            <Badge tone={state.tone} dot pulse={state.label === 'running'} testId="flow-status">
              {state.label}
            </Badge>
          </span>
        }
        meta={
          <p className="mt-1 text-sm text-slate-500">
            {counted(f.nodeList.length, 'node')} · {counted(f.edges.length, 'edge')} ·{' '}
            <Link href="/flows" className="text-brand-600 hover:underline">
              all flows
            </Link>{' '}
            ·{' '}
            <Link href={`/tasks?flow=${f.id}`} className="text-brand-600 hover:underline" data-testid="flow-tasks-link">
              its tasks
            </Link>
          </p>
        }
        actions={<FlowActions flow={f} />}
      />
      <StaleBanner error={q.error} updatedAt={q.dataUpdatedAt} />

      <Card className="mb-5 overflow-hidden" testId="flow-graph-card">
        <CardHeader
          title="Graph"
          subtitle={<CountChips counts={f.counts} flowId={f.id} picked={picked} onPick={setPicked} />}
          actions={<CollapseToggle flow={f} collapse={collapse} onChange={setCollapse} />}
        />
        <FlowGraph flow={f} collapse={collapse} />
      </Card>

      <div className="grid gap-5 lg:grid-cols-3">
        <Summary f={f} />
        <Card className="lg:col-span-2" testId="flow-nodes">
          <CardHeader title="Nodes" subtitle={picked ? `${picked} only (pick the state again for every node)` : 'by task id'} />
          <FlowNodes flowId={f.id} nodes={f.nodeList} picked={picked} />
        </Card>
      </div>
    </>
  );
}
