'use client';
// The audit trail: every change made from the dashboard, the API, the CLI — who, from where, what, on
// what, before → after, how many — newest first, filtered in the URL, keyset-paged.
import Link from 'next/link';
import { useSearchParams } from 'next/navigation';
import { useState } from 'react';
import type { AuditJson } from '@/lib/api/audit';
import { withQuery } from '../api';
import { useLive } from '../live';
import { useReplaceQuery } from '../useReplaceQuery';
import { Badge, type Tone } from '../ui/Badge';
import { Button } from '../ui/Button';
import { Card, PageHeader } from '../ui/Card';
import { DataTable, type Column } from '../ui/DataTable';
import { QueryStates } from '../ui/QueryStates';
import { EmptyState } from '../ui/States';
import { WhenCell } from '../ui/Time';

interface AuditPageJson {
  items: AuditJson[];
  next: number | null;
}

const SOURCE_TONE: Record<string, Tone> = { ui: 'blue', api: 'violet', cli: 'green', tsql: 'amber', library: 'gray', system: 'gray' };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function Target({ a }: { a: AuditJson }) {
  if (UUID.test(a.target)) {
    return (
      <Link href={`/tasks/${a.target}`} className="font-mono text-xs text-brand-700 hover:underline">
        {a.target.slice(0, 8)}
      </Link>
    );
  }
  return (
    <span className="block max-w-56 truncate font-mono text-xs text-slate-700" title={a.target}>
      {a.target}
    </span>
  );
}

function text(v: unknown): string {
  if (v === null || v === undefined) return '';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

const short = (s: string) => (s.length > 120 ? s.slice(0, 119) + '…' : s);

/** before → after, each cut at 120 characters (the whole in the tooltip), wrapping anywhere: JSON has few spaces */
function Change({ a }: { a: AuditJson }) {
  const whole = [text(a.before), text(a.after)];
  const [before, after] = whole.map(short);
  if (!before && !after) return <span className="text-xs text-slate-400">—</span>;
  return (
    <span
      className="block max-w-xs font-mono text-xs [overflow-wrap:anywhere] sm:min-w-48"
      data-testid="audit-change"
      title={whole.filter(Boolean).join(' → ')}
    >
      {before && <span className="text-slate-500">{before}</span>}
      {before && after && <span className="text-slate-400"> → </span>}
      {after && <span className="text-slate-900">{after}</span>}
    </span>
  );
}

const columns: Column<AuditJson>[] = [
  {
    key: 'at',
    header: 'When',
    cell: (a) => <WhenCell iso={a.at} wrapNarrow />,
  },
  {
    key: 'who',
    header: 'Who',
    mobile: 'primary',
    cell: (a) => (
      <span className="flex items-center gap-1.5 whitespace-nowrap">
        <span className="font-mono text-xs text-slate-800" data-testid="audit-actor">
          {a.actor}
        </span>
        <Badge tone={SOURCE_TONE[a.source] ?? 'gray'}>{a.source}</Badge>
      </span>
    ),
  },
  {
    key: 'action',
    header: 'Action',
    cell: (a) => (
      <span className="font-mono text-xs font-semibold text-slate-900" data-testid="audit-action">
        {a.action}
      </span>
    ),
  },
  { key: 'target', header: 'Target', cell: (a) => <Target a={a} /> },
  { key: 'change', header: 'Before → after', cell: (a) => <Change a={a} /> },
  {
    key: 'count',
    header: 'Count',
    align: 'right',
    // pinned at the end: a long change that makes the table wider than its card leaves it in view
    pin: 'end',
    cell: (a) => <span className="text-xs tabular-nums text-slate-700">{a.count ?? ''}</span>,
  },
];

export function Audit() {
  const params = useSearchParams();
  const replace = useReplaceQuery();
  const action = params.get('action') ?? '';
  const target = params.get('target') ?? '';
  const actor = params.get('actor') ?? '';
  const cursor = params.get('cursor') ?? '';
  const [draft, setDraft] = useState({ action, target, actor });
  const url = withQuery('/api/audit', {
    action: action || null,
    target: target || null,
    actor: actor || null,
    cursor: cursor || null,
    limit: 50,
  });
  const q = useLive<AuditPageJson>(['audit', action, target, actor, cursor], url, { keepPrevious: true });

  const apply = (e: React.FormEvent) => {
    e.preventDefault();
    replace({ action: draft.action.trim(), target: draft.target.trim(), actor: draft.actor.trim() });
  };
  const input = 'w-44 rounded-md border border-slate-300 bg-white px-2.5 py-1.5 text-sm text-slate-900 placeholder:text-slate-400';

  return (
    <div>
      <PageHeader
        title="Audit"
        description="Every change made from the dashboard, the API and the CLI: who, from where, what, before → after. Kept 90 days."
      />
      <Card>
        <form onSubmit={apply} className="flex flex-wrap items-end gap-2 border-b border-slate-200 p-3" data-testid="audit-filters">
          <label className="text-xs text-slate-500">
            Action
            <input
              className={`${input} mt-1 block`}
              placeholder="task.retry or task."
              value={draft.action}
              data-search
              onChange={(e) => setDraft({ ...draft, action: e.target.value })}
              name="action"
            />
          </label>
          <label className="text-xs text-slate-500">
            Target
            <input
              className={`${input} mt-1 block`}
              placeholder="token or name"
              value={draft.target}
              onChange={(e) => setDraft({ ...draft, target: e.target.value })}
              name="target"
            />
          </label>
          <label className="text-xs text-slate-500">
            Who
            <input
              className={`${input} mt-1 block`}
              placeholder="user"
              value={draft.actor}
              onChange={(e) => setDraft({ ...draft, actor: e.target.value })}
              name="actor"
            />
          </label>
          <Button type="submit" size="sm">
            Filter
          </Button>
          {(action || target || actor) && (
            <Button
              size="sm"
              variant="ghost"
              onClick={() => {
                setDraft({ action: '', target: '', actor: '' });
                replace({});
              }}
            >
              Clear
            </Button>
          )}
        </form>
        <QueryStates
          query={q}
          rows={6}
          errorOverData
          empty={
            <EmptyState title="Nothing recorded">
              {action || target || actor ? 'No change matches these filters.' : 'No change has been made yet.'}
            </EmptyState>
          }
        >
          {(page) => <DataTable rows={page.items} columns={columns} rowKey={(a) => a.id} testId="audit-table" />}
        </QueryStates>
        <div className="flex justify-end gap-2 border-t border-slate-200 p-3">
          {cursor && (
            <Button size="sm" onClick={() => replace({ action, target, actor })}>
              Newest
            </Button>
          )}
          {q.data?.next != null && (
            <Button size="sm" data-testid="audit-older" onClick={() => replace({ action, target, actor, cursor: String(q.data!.next) })}>
              Older
            </Button>
          )}
        </div>
      </Card>
    </div>
  );
}
