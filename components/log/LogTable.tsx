'use client';
import Link from 'next/link';
import type { AttemptJson } from '../api';
import { Badge, OutcomeBadge } from '../ui/Badge';
import { DataTable, type Column } from '../ui/DataTable';
import { Elapsed, RelativeTime } from '../ui/Time';
import { Icon } from '../ui/Icon';
import { TokenLink } from '../ui/TokenLink';
import { ABANDON_TEXT } from '../task/abandon';
import { formatAbsolute, type TimeMode } from './time';

/** the attempt that made its task dead (its last, with the task dead now) */
function FinalMark({ a }: { a: AttemptJson }) {
  if (!a.final) return null;
  return (
    <Badge tone="red" testId="log-final" className="ml-1">
      <span
        className="inline-flex items-center gap-1"
        title="This attempt made its task dead: no attempts were left (or the error was not retryable)"
      >
        <Icon name="stop" className="size-3" />
        final
      </span>
    </Badge>
  );
}

/** an abandoned attempt: lease lost while its worker was alive, or its worker stopped */
function AbandonMark({ a }: { a: AttemptJson }) {
  const text = a.abandonReason ? ABANDON_TEXT[a.abandonReason] : undefined;
  if (!text) return null;
  return (
    <Badge tone={a.abandonReason === 'lease_lost' ? 'amber' : 'gray'} testId="log-abandon-reason" className="ml-1">
      <span title={text.long}>{text.short}</span>
    </Badge>
  );
}

/** `2 of 3`: the attempt and the task's max attempts */
function AttemptOf({ a }: { a: AttemptJson }) {
  return (
    <span className="tabular whitespace-nowrap text-xs" data-testid="log-attempt">
      {a.attempt}
      {a.maxAttempts !== null && <span className="text-slate-400"> of {a.maxAttempts}</span>}
    </span>
  );
}

/** relative, with the absolute time (local or UTC) under it */
function Started({ a, mode }: { a: AttemptJson; mode: TimeMode }) {
  return (
    <span className="whitespace-nowrap text-xs">
      <RelativeTime iso={a.startedAt} className="text-slate-700" />
      <span className="tabular block font-mono text-[11px] text-slate-400" data-testid="log-abs-time" suppressHydrationWarning>
        {formatAbsolute(a.startedAt, mode)}
        {mode === 'utc' ? 'Z' : ''}
      </span>
    </span>
  );
}

function ErrorCell({ a }: { a: AttemptJson }) {
  if (!a.errorMessage) return <span className="text-xs text-slate-300">—</span>;
  const head = (
    <>
      {a.errorNumber !== null && <span className="mr-1 font-mono text-rose-500">#{a.errorNumber}</span>}
      <span className="text-rose-800">{a.errorMessage}</span>
    </>
  );
  if (!a.errorDetail)
    return (
      <p className="max-w-64 break-words text-xs" data-testid="log-error">
        {head}
      </p>
    );
  return (
    <details className="group max-w-64 text-xs" data-testid="log-error">
      <summary className="cursor-pointer list-none break-words">
        {head} <span className="whitespace-nowrap text-slate-400 group-open:hidden">▸ stack</span>
      </summary>
      <pre className="mt-1 max-h-64 overflow-auto whitespace-pre rounded bg-slate-900 p-2 font-mono text-[11px] text-slate-100">
        {a.errorDetail}
      </pre>
    </details>
  );
}

function Command({ a }: { a: AttemptJson }) {
  return (
    <Link
      href={`/tasks/${a.token}`}
      className="block max-w-56 truncate font-mono text-xs text-slate-800 hover:underline"
      title={`${a.kind}: ${a.command}`}
    >
      {a.command}
    </Link>
  );
}

function BatchRef({ a }: { a: AttemptJson }) {
  if (a.batchId === null) return null;
  return (
    <span className="whitespace-nowrap">
      <Link
        href={`/batches/${a.batchId}`}
        className="text-violet-700 hover:underline"
        title="The batch: progress per stage, timeline, tasks"
      >
        batch {a.batchId}
        {a.stage !== null && ` · stage ${a.stage}`}
      </Link>
      <Link
        href={`/log?batch=${a.batchId}`}
        className="ml-1 text-slate-400 hover:text-violet-700"
        title="Show only this batch's attempts"
        aria-label={`Show only the attempts of batch ${a.batchId}`}
      >
        <Icon name="search" className="inline size-3 align-[-2px]" />
      </Link>
    </span>
  );
}

/** Phones: one dense block per attempt. */
function PhoneRow({ a, mode }: { a: AttemptJson; mode: TimeMode }) {
  return (
    <div className="space-y-1">
      <div className="flex items-center gap-2">
        <OutcomeBadge outcome={a.outcome} testId="log-outcome" />
        <FinalMark a={a} />
        <AbandonMark a={a} />
        <div className="min-w-0 flex-1">
          <Command a={a} />
        </div>
        <RelativeTime iso={a.startedAt} className="shrink-0 text-xs text-slate-500" />
      </div>
      <div className="flex flex-wrap gap-x-3 text-xs text-slate-500">
        <TokenLink token={a.token} testId="log-token" />
        <span className="font-mono">{a.queue}</span>
        <BatchRef a={a} />
        <span>
          attempt <AttemptOf a={a} />
        </span>
        <span className="font-mono" suppressHydrationWarning>
          {formatAbsolute(a.startedAt, mode)}
          {mode === 'utc' ? 'Z' : ''}
        </span>
        <span className="font-mono" data-testid="log-session">
          spid {a.session ?? '—'}
        </span>
        <Elapsed from={a.startedAt} to={a.endedAt} />
      </div>
      {a.errorMessage && <ErrorCell a={a} />}
    </div>
  );
}

const columnsIn = (mode: TimeMode): Column<AttemptJson>[] => [
  {
    key: 'started',
    header: mode === 'utc' ? 'Started (UTC)' : 'Started (local)',
    cell: (a) => <Started a={a} mode={mode} />,
  },
  {
    key: 'outcome',
    header: 'Outcome',
    cell: (a) => (
      <span className="inline-flex items-center whitespace-nowrap">
        <OutcomeBadge outcome={a.outcome} testId="log-outcome" />
        <FinalMark a={a} />
        <AbandonMark a={a} />
      </span>
    ),
  },
  {
    key: 'task',
    header: 'Task',
    cell: (a) => (
      <div className="min-w-0">
        <Command a={a} />
        <div className="flex gap-2 text-xs">
          <TokenLink token={a.token} testId="log-token" />
          <span className="font-mono text-slate-400">{a.queue}</span>
          <BatchRef a={a} />
        </div>
      </div>
    ),
  },
  { key: 'attempt', header: 'Attempt', align: 'right', cell: (a) => <AttemptOf a={a} /> },
  {
    key: 'session',
    header: 'Worker · session',
    cell: (a) => (
      <div className="text-xs">
        <span className="block max-w-40 truncate font-mono text-slate-600" title={a.workerId ?? ''}>
          {a.workerId ?? '—'}
        </span>
        <span className="font-mono text-slate-400" data-testid="log-session">
          spid {a.session ?? '—'}
        </span>
      </div>
    ),
  },
  {
    key: 'duration',
    header: 'Duration',
    align: 'right',
    cell: (a) => <Elapsed from={a.startedAt} to={a.endedAt} className="tabular whitespace-nowrap font-mono text-xs" />,
  },
  // pinned at the end: when an error makes the table wider than its card, it stays in view while the rest scrolls
  { key: 'error', header: 'Error', pin: 'end', cell: (a) => <ErrorCell a={a} /> },
];

/** the table scrolls inside the page with its header row kept in view */
const STICKY =
  '[&>div]:max-h-[calc(100vh-15rem)] [&>div]:overflow-auto [&_thead_th]:sticky [&_thead_th]:top-0 [&_thead_th]:z-10 ' +
  '[&_thead_th]:bg-slate-50 [&_thead_th]:shadow-[inset_0_-1px_0_var(--color-slate-200)] [&_thead_th.dt-pin]:z-20';

export function LogTable({ items, timeMode = 'local' }: { items: AttemptJson[]; timeMode?: TimeMode }) {
  return (
    <div className={STICKY} data-testid="log-scroll">
      <DataTable
        testId="log-table"
        rows={items}
        columns={columnsIn(timeMode)}
        rowKey={(a) => a.id}
        rowAttrs={(a) => ({
          'data-testid': 'log-row',
          'data-token': a.token,
          'data-outcome': a.outcome,
          'data-final': a.final ? 'true' : undefined,
        })}
        phoneRow={(a) => <PhoneRow a={a} mode={timeMode} />}
      />
    </div>
  );
}
