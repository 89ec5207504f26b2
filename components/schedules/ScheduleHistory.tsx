'use client';
// The tasks a schedule fired, newest first (the last 50), each linked to its task page.
import Link from 'next/link';
import { useLive } from '../live';
import { Badge, StatusBadge } from '../ui/Badge';
import { Card, CardHeader } from '../ui/Card';
import { DataTable, type Column } from '../ui/DataTable';
import { QueryStates } from '../ui/QueryStates';
import { EmptyState } from '../ui/States';
import { TokenLink } from '../ui/TokenLink';
import { formatInZone } from './format';
import type { ScheduleDetailJson, ScheduleFireJson } from './types';

export function ScheduleHistory({ name, onClose }: { name: string; onClose: () => void }) {
  const q = useLive<ScheduleDetailJson>(['schedule', name], `/api/schedules/${encodeURIComponent(name)}`);
  const s = q.data;
  const columns: Column<ScheduleFireJson>[] = [
    {
      key: 'fireAt',
      header: 'Fired for',
      mobile: 'primary',
      cell: (f) => (
        <span className="tabular text-sm" title={f.fireAt}>
          {formatInZone(f.fireAt)} {f.manual && <Badge tone="violet">run now</Badge>}
        </span>
      ),
    },
    { key: 'status', header: 'Status', cell: (f) => <StatusBadge status={f.status} /> },
    { key: 'task', header: 'Task', cell: (f) => <TokenLink token={f.token} testId="history-token" /> },
  ];
  return (
    <Card className="mb-5" testId="schedule-history-card">
      <CardHeader
        title={`History of ${name}`}
        subtitle={s ? `The last ${s.recent.length} tasks it fired, newest first${s.enabled ? '' : ' · paused: no next fires'}` : undefined}
        actions={
          <>
            <Link href={`/log?q=${encodeURIComponent(s?.command ?? '')}`} className="text-xs text-brand-600 hover:underline">
              execution log
            </Link>
            <button type="button" onClick={onClose} className="text-xs text-slate-500 hover:text-slate-800">
              close
            </button>
          </>
        }
      />
      {s && s.nextFires.length > 0 && (
        <ol
          className="flex flex-wrap gap-x-4 gap-y-1 border-b border-slate-100 px-4 py-2 text-xs text-slate-600"
          data-testid="history-next-fires"
        >
          {s.nextFires.map((t) => (
            <li key={t} className="tabular">
              {formatInZone(t, s.timezone)} <span className="text-slate-400">{s.timezone}</span>
            </li>
          ))}
        </ol>
      )}
      <QueryStates
        query={q}
        rows={3}
        isEmpty={(d) => d.recent.length === 0}
        empty={<EmptyState title="No fires yet">It fires at its next tick, or press Run now.</EmptyState>}
      >
        {(d) => <DataTable testId="schedule-history-list" rows={d.recent} columns={columns} rowKey={(f) => f.token} />}
      </QueryStates>
    </Card>
  );
}
