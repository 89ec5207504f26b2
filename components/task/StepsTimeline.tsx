'use client';
// A durable handler's steps on its task's page, as a timeline that fills while it runs (polled each second): each
// step's name and kind, how it stands, the attempt that ran it and how many later runs replayed it, its times, and
// its result or error; a sleep with its wake time, an event wait with its event, match and timeout.
import Link from 'next/link';
import type { StepJson } from '@/lib/api/present';
import type { StatusJson } from '../api';
import { formatLocal } from '../format';
import { useLive } from '../live';
import { Badge, type Tone } from '../ui/Badge';
import { Card, CardHeader } from '../ui/Card';
import { cx } from '../ui/cx';
import { EmptyState } from '../ui/States';
import { DOT } from './AttemptsTimeline';
import { Elapsed, RelativeTime } from '../ui/Time';

const STEP_TONE: Record<string, Tone> = { succeeded: 'green', failed: 'red', sleeping: 'blue', waiting: 'violet' };
const KIND_LABEL: Record<string, string> = { step: 'step', transaction: 'transaction', sleep: 'sleep', event: 'event' };

function preview(s: StepJson): string | null {
  if (s.resultPreview !== null) return `${s.resultPreview}… (${s.resultBytes.toLocaleString()} bytes)`;
  if (s.result === null || s.result === undefined) return null;
  const text = JSON.stringify(s.result);
  return text.length > 160 ? `${text.slice(0, 159)}…` : text;
}

function StepDetail({ s }: { s: StepJson }) {
  if (s.kind === 'sleep') {
    return (
      <p className="mt-1 text-xs text-slate-600">
        {s.status === 'sleeping' ? 'sleeps until ' : 'slept until '}
        <span className="font-mono text-slate-800">{s.wakeAt ? formatLocal(s.wakeAt) : 'an operator woke it'}</span>
        {s.status === 'sleeping' && s.wakeAt && (
          <>
            {' '}
            (<RelativeTime iso={s.wakeAt} />)
          </>
        )}
      </p>
    );
  }
  if (s.kind !== 'event') return null;
  const match = s.match && Object.keys(s.match).length ? ` matching ${JSON.stringify(s.match)}` : '';
  return (
    <p className="mt-1 break-words text-xs text-slate-600">
      {s.status === 'waiting' ? 'waits for ' : 'waited for '}
      <span className="font-mono text-slate-800">{s.event}</span>
      <span className="font-mono">{match}</span>
      {s.status === 'waiting' && (s.wakeAt ? <>, times out {formatLocal(s.wakeAt)}</> : ', no timeout')}
      {s.eventId !== null && (
        <>
          {' · '}
          <Link href={`/events?id=${s.eventId}`} className="text-brand-700 hover:underline">
            event #{s.eventId}
          </Link>
        </>
      )}
      {s.status === 'succeeded' && s.eventId === null && ' · resumed without an event (timed out or woken)'}
    </p>
  );
}

export function StepsTimeline({ task }: { task: StatusJson }) {
  const q = useLive<StepJson[]>(['steps', task.token], `/api/tasks/${encodeURIComponent(task.token)}/steps`);
  const steps = q.data ?? [];
  if (task.kind !== 'handler' || (q.isSuccess && steps.length === 0 && task.suspensions === 0 && task.status !== 'running')) return null;
  return (
    <Card testId="steps-card">
      <CardHeader
        title="Steps"
        subtitle={
          steps.length
            ? `${steps.length} recorded · a finished step is replayed, not run again, when the task runs again`
            : 'none recorded yet'
        }
      />
      {steps.length === 0 ? (
        <EmptyState title="No step recorded yet" icon="timeline">
          A durable handler records each step (ctx.step, ctx.transaction, ctx.sleep, ctx.waitForEvent) as it finishes.
        </EmptyState>
      ) : (
        <ol className="relative space-y-4 px-4 py-4" data-testid="steps">
          {steps.map((s, i) => {
            const tone = STEP_TONE[s.status] ?? 'gray';
            const text = preview(s);
            return (
              <li key={s.seq} className="relative pl-7" data-testid="step" data-name={s.name} data-status={s.status} data-kind={s.kind}>
                {i < steps.length - 1 && <span className="absolute left-[5px] top-4 -bottom-4 w-px bg-slate-200" aria-hidden />}
                <span
                  className={cx(
                    'absolute left-0 top-1 size-3 rounded-full ring-4',
                    DOT[tone] ?? DOT.gray,
                    (s.status === 'sleeping' || s.status === 'waiting') && 'animate-pulse',
                  )}
                  aria-hidden
                />
                <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
                  <span className="tabular text-xs text-slate-400">{s.seq}</span>
                  <span className="break-all font-mono text-sm font-semibold text-slate-900">{s.name}</span>
                  <span className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-[11px] uppercase tracking-wide text-slate-500">
                    {KIND_LABEL[s.kind] ?? s.kind}
                  </span>
                  <Badge tone={tone} dot>
                    {s.status}
                  </Badge>
                  <span className="text-xs text-slate-500" data-testid="step-run">
                    ran in attempt {s.attempt}
                    {s.tries > 1 && ` (try ${s.tries})`}
                    {s.replays > 0 && (
                      <span className="ml-1 text-emerald-700" data-testid="step-replays">
                        · replayed {s.replays}×
                      </span>
                    )}
                  </span>
                </div>
                <p className="mt-0.5 text-xs text-slate-500">
                  <span title={s.startedAt ?? ''}>{formatLocal(s.startedAt)}</span>
                  {s.endedAt && (s.kind === 'step' || s.kind === 'transaction') && (
                    <>
                      {' · took '}
                      <Elapsed from={s.startedAt} to={s.endedAt} className="font-mono text-xs text-slate-700" />
                    </>
                  )}
                </p>
                <StepDetail s={s} />
                {s.error ? (
                  <p className="mt-1 break-words rounded-md border border-rose-100 bg-rose-50/60 px-2 py-1 text-xs text-rose-800">
                    {s.error.number !== null && <span className="mr-1 font-mono">#{s.error.number}</span>}
                    {s.error.message}
                  </p>
                ) : (
                  text && (
                    <p className="mt-1 break-all font-mono text-xs text-slate-700" data-testid="step-result">
                      → {text}
                    </p>
                  )
                )}
              </li>
            );
          })}
        </ol>
      )}
    </Card>
  );
}
