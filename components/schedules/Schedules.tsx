'use client';
// Schedules: every recurring task with its expression in words, zone, next and last run, the last
// 20 outcomes, enabled switch, run now, edit, delete and history (?schedule=NAME).
import { useCanOperate } from '../role';
import { useSearchParams } from 'next/navigation';
import { useCallback, useState } from 'react';
import { useLive } from '../live';
import { useReplaceQuery } from '../useReplaceQuery';
import { Button } from '../ui/Button';
import { Card, CardHeader, PageHeader } from '../ui/Card';
import { QueryStates } from '../ui/QueryStates';
import { EmptyState, StaleBanner } from '../ui/States';
import { ScheduleForm } from './ScheduleForm';
import { ScheduleHistory } from './ScheduleHistory';
import { ScheduleRow } from './ScheduleRow';
import type { ScheduleJson, SchedulesJson } from './types';

type Editing = { mode: 'new' } | { mode: 'edit'; schedule: ScheduleJson } | null;

export function Schedules() {
  const operator = useCanOperate();
  const sp = useSearchParams();
  const selected = sp.get('schedule') ?? '';
  const replaceQuery = useReplaceQuery();
  const select = useCallback((name: string) => replaceQuery({ schedule: name }), [replaceQuery]);
  const [editing, setEditing] = useState<Editing>(null);

  const q = useLive<SchedulesJson>(['schedules'], '/api/schedules');
  const list = q.data?.schedules ?? [];
  const enabled = list.filter((s) => s.enabled).length;
  const code = list.filter((s) => s.source === 'code').length;

  return (
    <>
      <PageHeader
        title="Schedules"
        description={
          'Recurring tasks from cron expressions in a time zone. Every process with workers checks them each second; ' +
          'each tick fires exactly once.'
        }
        actions={
          <Button
            variant="primary"
            onClick={() => setEditing({ mode: 'new' })}
            hidden={!operator}
            disabled={editing?.mode === 'new'}
            data-testid="schedule-new"
          >
            New schedule
          </Button>
        }
      />
      {q.data && <StaleBanner error={q.error} updatedAt={q.dataUpdatedAt} />}

      {editing && (
        <ScheduleForm
          key={editing.mode === 'edit' ? editing.schedule.name : 'new'}
          initial={editing.mode === 'edit' ? editing.schedule : null}
          onCancel={() => setEditing(null)}
          onSaved={() => setEditing(null)}
        />
      )}

      {selected && <ScheduleHistory name={selected} onClose={() => select('')} />}

      <Card testId="schedules-card">
        <CardHeader
          title={q.data ? `${list.length} schedule${list.length === 1 ? '' : 's'}` : 'Schedules'}
          subtitle={
            q.data
              ? `${enabled} enabled · ${list.length - enabled} paused · ${code} declared in code. Times are your local time; ` +
                'hover for the schedule’s own zone.'
              : 'Expression, zone, next and last run'
          }
        />
        <QueryStates
          query={q}
          rows={4}
          isEmpty={() => list.length === 0}
          empty={
            <EmptyState title="No schedules yet" icon="schedules">
              Press <strong>New schedule</strong>, run{' '}
              <code className="font-mono">readpast schedule add NAME --cron EXPR --handler NAME</code>, or export{' '}
              <code className="font-mono">schedules</code> from your handlers module.
            </EmptyState>
          }
        >
          {() => (
            <ul className="divide-y divide-slate-100" data-testid="schedule-list">
              {list.map((s) => (
                <ScheduleRow
                  key={s.name}
                  s={s}
                  selected={s.name === selected}
                  onEdit={() => setEditing({ mode: 'edit', schedule: s })}
                  onHistory={() => select(s.name === selected ? '' : s.name)}
                />
              ))}
            </ul>
          )}
        </QueryStates>
      </Card>
    </>
  );
}
