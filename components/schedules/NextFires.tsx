'use client';
// Overview: the next few fires across every enabled schedule, with a countdown.
import Link from 'next/link';
import { useLive, useNow } from '../live';
import { Card, CardHeader } from '../ui/Card';
import { countdown, formatInZone } from './format';
import type { SchedulesJson } from './types';

export function NextFires({ max = 5 }: { max?: number }) {
  const q = useLive<SchedulesJson>(['schedules'], '/api/schedules');
  const now = useNow();
  const next = (q.data?.schedules ?? [])
    .filter((s) => s.enabled && s.nextFireAt)
    .sort((a, b) => Date.parse(a.nextFireAt!) - Date.parse(b.nextFireAt!))
    .slice(0, max);
  if (!q.data || q.data.schedules.length === 0) return null;
  return (
    <Card className="mb-5" testId="next-fires">
      <CardHeader
        title="Next fires"
        subtitle="The schedules due soonest"
        actions={
          <Link href="/schedules" className="text-xs text-brand-600 hover:underline">
            all schedules
          </Link>
        }
      />
      {next.length === 0 ? (
        <p className="px-4 py-3 text-sm text-slate-500">Every schedule is paused.</p>
      ) : (
        <ul className="divide-y divide-slate-100">
          {next.map((s) => (
            <li key={s.name} className="flex flex-wrap items-center justify-between gap-x-4 gap-y-1 px-4 py-2" data-testid="next-fire">
              <div className="min-w-0">
                <Link
                  href={`/schedules?schedule=${encodeURIComponent(s.name)}`}
                  className="font-mono text-sm font-medium text-slate-900 hover:underline"
                >
                  {s.name}
                </Link>
                <span className="ml-2 text-xs text-slate-500">{s.description}</span>
              </div>
              <div className="tabular text-right text-xs text-slate-600">
                {formatInZone(s.nextFireAt!)} · <span className="font-medium text-slate-800">{countdown(s.nextFireAt!, now)}</span>
              </div>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
