'use client';
// Recorded limit, pause and throttle changes: when, by whom or from where, old → new.
import { useState } from 'react';
import { formatLocal } from '../format';
import { useLive } from '../live';
import { Badge } from '../ui/Badge';
import { Card, CardHeader } from '../ui/Card';
import { DataTable, type Column } from '../ui/DataTable';
import { EmptyState, ErrorState, LoadingState } from '../ui/States';
import { RelativeTime, WhenCell } from '../ui/Time';
import type { ChangesJson, QueueChangeJson } from './types';

const FIELD: Record<string, string> = {
  concurrencyLimit: 'limit',
  paused: 'paused',
  perKeyLimit: 'per-key limit',
  keyFrom: 'key from',
  rateLimit: 'rate',
};

function show(c: QueueChangeJson, v: string) {
  if (c.field === 'paused') return v === 'true' ? 'paused' : 'active';
  return v;
}

function Change({ c }: { c: QueueChangeJson }) {
  return (
    <span className="whitespace-nowrap font-mono text-xs" data-testid="change-value">
      <span className="text-slate-500">{show(c, c.oldValue)}</span>
      <span className="text-slate-400"> → </span>
      <span className="font-semibold text-slate-900">{show(c, c.newValue)}</span>
    </span>
  );
}

const columns: Column<QueueChangeJson>[] = [
  {
    key: 'at',
    header: 'When',
    cell: (c) => <WhenCell iso={c.at} />,
  },
  { key: 'queue', header: 'Queue', cell: (c) => <span className="font-mono text-xs text-slate-700">{c.queue}</span> },
  {
    key: 'field',
    header: 'Setting',
    cell: (c) => <Badge tone={c.field === 'paused' ? 'amber' : 'blue'}>{FIELD[c.field] ?? c.field}</Badge>,
  },
  { key: 'change', header: 'Old → new', cell: (c) => <Change c={c} /> },
  {
    key: 'by',
    header: 'By',
    cell: (c) => (
      <span className="font-mono text-xs text-slate-600" data-testid="change-by">
        {c.changedBy}
      </span>
    ),
  },
];

function PhoneRow({ c }: { c: QueueChangeJson }) {
  return (
    <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
      <span className="min-w-0 truncate font-mono text-xs text-slate-700" title={c.queue}>
        {c.queue}
      </span>
      <Badge tone={c.field === 'paused' ? 'amber' : 'blue'}>{FIELD[c.field] ?? c.field}</Badge>
      <Change c={c} />
      {/* who may be long (a signed-in name, an address): it wraps; the time stays in one piece */}
      <span className="ml-auto min-w-0 break-words text-xs text-slate-500">
        <span className="font-mono" data-testid="change-by">
          {c.changedBy}
        </span>{' '}
        ·{' '}
        <span className="whitespace-nowrap">
          <RelativeTime iso={c.at} />
        </span>
      </span>
    </div>
  );
}

const FIRST = 15;

export function ChangeHistory({ queue, all }: { queue: string; all: QueueChangeJson[] | undefined }) {
  const [expanded, setExpanded] = useState(false);
  const one = useLive<ChangesJson>(['queue-changes', queue], `/api/queues/${encodeURIComponent(queue)}/changes`, { enabled: queue !== '' });
  const changes = queue ? one.data?.changes : all;
  const pending = queue ? one.isPending : all === undefined;

  return (
    <Card testId="history-card">
      <CardHeader
        title={<>Change history{queue && <span className="font-mono text-slate-500"> · {queue}</span>}</>}
        subtitle={
          'Every limit, pause and throttle change, newest first (the name is the signed-in user, or where the change ' +
          'came from: dashboard, api, cli).'
        }
      />
      {queue && one.isError && !one.data ? (
        <ErrorState error={one.error} onRetry={() => void one.refetch()} />
      ) : pending ? (
        <LoadingState rows={3} />
      ) : !changes || changes.length === 0 ? (
        <EmptyState title="No changes recorded" icon="history" testId="history-empty">
          Set a limit or pause a queue above; the change shows here with who made it.
        </EmptyState>
      ) : (
        <DataTable
          testId="history-table"
          rows={expanded ? changes : changes.slice(0, FIRST)}
          columns={queue ? columns.filter((c) => c.key !== 'queue') : columns}
          rowKey={(c) => c.id}
          rowAttrs={(c) => ({ 'data-testid': 'change-row', 'data-queue': c.queue, 'data-field': c.field })}
          phoneRow={(c) => <PhoneRow c={c} />}
          footer={
            changes.length > FIRST ? (
              <button
                type="button"
                className="text-xs font-medium text-brand-600 hover:underline"
                onClick={() => setExpanded((v) => !v)}
                data-testid="history-more"
              >
                {expanded ? `Show the newest ${FIRST}` : `Show all ${changes.length}`}
              </button>
            ) : undefined
          }
        />
      )}
    </Card>
  );
}
