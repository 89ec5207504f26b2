'use client';
// `readpast doctor` on the Workers page: what works on this database, each missing piece with its
// remedy (the exact GRANT, a setting, a command). Asked once when the page opens and again on
// demand, never polled: on SQL Server it costs a few round trips and a claim rolled back.
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { fetchJson, type DoctorCheckJson, type DoctorJson } from '../api';
import { Badge } from '../ui/Badge';
import { Button } from '../ui/Button';
import { Card, CardHeader } from '../ui/Card';
import { ErrorState, LoadingState } from '../ui/States';
import { RelativeTime } from '../ui/Time';
import { cx } from '../ui/cx';

function Mark({ c }: { c: DoctorCheckJson }) {
  const [symbol, cls, label] =
    c.ok === true
      ? ['✓', 'bg-emerald-50 text-emerald-700 ring-emerald-200', 'passed']
      : c.ok === false
        ? c.needed
          ? ['✗', 'bg-rose-50 text-rose-700 ring-rose-200', 'failed']
          : ['✗', 'bg-amber-50 text-amber-700 ring-amber-200', 'optional feature off']
        : ['–', 'bg-slate-50 text-slate-500 ring-slate-200', 'information'];
  return (
    <span
      className={cx('mt-0.5 flex size-5 shrink-0 items-center justify-center rounded-full text-xs font-bold ring-1 ring-inset', cls)}
      title={label}
      aria-label={label}
    >
      {symbol}
    </span>
  );
}

function CheckRow({ c }: { c: DoctorCheckJson }) {
  return (
    <li
      className="flex gap-3 px-4 py-2.5"
      data-testid="doctor-check"
      data-id={c.id}
      data-ok={String(c.ok)}
      data-needed={c.needed ? '1' : '0'}
    >
      <Mark c={c} />
      <div className="min-w-0 flex-1">
        <p className="flex flex-wrap items-center gap-x-2 text-sm">
          <span className="font-medium text-slate-900" data-testid="doctor-title">
            {c.title}
          </span>
          {c.ok === false && !c.needed && <Badge tone="amber">optional</Badge>}
          {c.ok === false && c.needed && <Badge tone="red">needed</Badge>}
        </p>
        <p className={cx('mt-0.5 break-words text-xs', c.ok === false ? 'text-slate-700' : 'text-slate-500')} data-testid="doctor-detail">
          {c.detail}
        </p>
        {c.remedy && c.ok !== true && (
          <pre
            className="mt-1.5 whitespace-pre-wrap break-words rounded-md bg-slate-900 px-3 py-2 font-mono text-xs text-slate-100"
            data-testid="doctor-remedy"
          >
            {c.remedy}
          </pre>
        )}
      </div>
    </li>
  );
}

function Verdict({ d }: { d: DoctorJson }) {
  const { failed, optional } = d.summary;
  if (!d.ok) {
    return (
      <Badge tone="red" dot testId="doctor-verdict">
        {failed} needed check{failed === 1 ? '' : 's'} failed
      </Badge>
    );
  }
  return (
    <Badge tone={optional ? 'amber' : 'green'} dot testId="doctor-verdict">
      {optional ? `ready · ${optional} optional feature${optional === 1 ? '' : 's'} off` : 'ready'}
    </Badge>
  );
}

export function DoctorPanel() {
  const q = useQuery<DoctorJson, Error>({
    queryKey: ['doctor'],
    queryFn: ({ signal }) => fetchJson<DoctorJson>('/api/doctor', signal),
    staleTime: Number.POSITIVE_INFINITY,
    refetchOnWindowFocus: false,
    retry: false,
  });
  const [open, setOpen] = useState<boolean | null>(null);
  const d = q.data;
  // open by default when something is off; a healthy database shows its verdict only
  const expanded = open ?? (d ? d.checks.some((c) => c.ok === false) : false);

  return (
    <Card testId="doctor-panel" className="mb-5">
      <CardHeader
        title={
          <span className="flex flex-wrap items-center gap-2">
            Doctor <span className="font-normal text-slate-500">what works on this database</span>
            {d && <Verdict d={d} />}
          </span>
        }
        subtitle={
          d ? (
            <span data-testid="doctor-summary">
              <span className="break-all font-mono">{d.database}</span> · {d.summary.passed} passed
              {d.summary.failed > 0 && `, ${d.summary.failed} needed failing`}
              {d.summary.optional > 0 && `, ${d.summary.optional} optional off`} · checked <RelativeTime iso={d.checkedAt} /> · also{' '}
              <code className="font-mono">readpast doctor</code>
            </span>
          ) : (
            'Checks the database, its schema and this login’s permissions.'
          )
        }
        actions={
          <>
            {d && (
              <Button size="sm" variant="ghost" onClick={() => setOpen(!expanded)} data-testid="doctor-toggle" aria-expanded={expanded}>
                {expanded ? 'Hide checks' : `Show ${d.checks.length} checks`}
              </Button>
            )}
            <Button size="sm" onClick={() => void q.refetch()} busy={q.isFetching} data-testid="doctor-rerun">
              Check again
            </Button>
          </>
        }
      />
      {q.isPending ? (
        <LoadingState rows={2} label="Checking the database…" />
      ) : q.isError && !d ? (
        <ErrorState error={q.error} onRetry={() => void q.refetch()} title="The doctor could not run" />
      ) : d && expanded ? (
        <ul className="divide-y divide-slate-100" data-testid="doctor-checks">
          {d.checks.map((c) => (
            <CheckRow key={c.id} c={c} />
          ))}
        </ul>
      ) : null}
    </Card>
  );
}
