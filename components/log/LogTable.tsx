'use client';
import Link from 'next/link';
import type { AttemptJson } from '../api';
import { formatLocal } from '../format';
import { KindBadge, OutcomeBadge } from '../ui/Badge';
import { DataTable, type Column } from '../ui/DataTable';
import { Elapsed, RelativeTime } from '../ui/Time';
import { TokenLink } from '../ui/TokenLink';

function ErrorCell({ a }: { a: AttemptJson }) {
  if (!a.errorMessage) return <span className="text-xs text-slate-300">—</span>;
  const head = (
    <>
      {a.errorNumber !== null && <span className="mr-1 font-mono text-rose-500">#{a.errorNumber}</span>}
      <span className="text-rose-800">{a.errorMessage}</span>
    </>
  );
  if (!a.errorDetail) return <p className="max-w-96 break-words text-xs" data-testid="log-error">{head}</p>;
  return (
    <details className="group max-w-96 text-xs" data-testid="log-error">
      <summary className="cursor-pointer list-none break-words">
        {head} <span className="text-slate-400 group-open:hidden">▸ stack</span>
      </summary>
      <pre className="mt-1 max-h-64 overflow-auto rounded bg-slate-900 p-2 font-mono text-[11px] text-slate-100">{a.errorDetail}</pre>
    </details>
  );
}

export function LogTable({ items }: { items: AttemptJson[] }) {
  const columns: Column<AttemptJson>[] = [
    {
      key: 'started',
      header: 'Started',
      mobile: 'primary',
      cell: (a) => (
        <div className="whitespace-nowrap text-xs">
          <RelativeTime iso={a.startedAt} className="text-slate-800" />
          <div className="hidden text-slate-400 md:block">{formatLocal(a.startedAt)}</div>
        </div>
      ),
    },
    { key: 'outcome', header: 'Outcome', mobile: 'primary', cell: (a) => <OutcomeBadge outcome={a.outcome} testId="log-outcome" /> },
    {
      key: 'task',
      header: 'Task',
      mobile: 'primary',
      cell: (a) => (
        <div className="flex min-w-0 items-center gap-2">
          <TokenLink token={a.token} testId="log-token" />
          <KindBadge kind={a.kind} />
          <Link href={`/tasks/${a.token}`} className="max-w-64 truncate font-mono text-xs text-slate-800 hover:underline" title={a.command}>
            {a.command}
          </Link>
        </div>
      ),
    },
    { key: 'queue', header: 'Queue', cell: (a) => <span className="font-mono text-xs">{a.queue}</span> },
    { key: 'attempt', header: 'Attempt', align: 'right', cell: (a) => <span className="tabular text-xs">#{a.attempt}</span> },
    {
      key: 'session',
      header: 'Worker · session',
      cell: (a) => (
        <div className="text-xs">
          <span className="block max-w-40 truncate font-mono text-slate-600" title={a.workerId ?? ''}>{a.workerId ?? '—'}</span>
          <span className="font-mono text-slate-400" data-testid="log-session">spid {a.session ?? '—'}</span>
        </div>
      ),
    },
    { key: 'duration', header: 'Duration', align: 'right', cell: (a) => <Elapsed from={a.startedAt} to={a.endedAt} /> },
    { key: 'error', header: 'Error', cell: (a) => <ErrorCell a={a} /> },
  ];
  return (
    <DataTable
      testId="log-table"
      rows={items}
      columns={columns}
      rowKey={(a) => a.id}
      rowAttrs={(a) => ({ 'data-testid': 'log-row', 'data-token': a.token, 'data-outcome': a.outcome })}
    />
  );
}
