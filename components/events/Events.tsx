'use client';
// The Events page: events sent to durable tasks (ctx.waitForEvent), newest first, each with how many waiting tasks
// it resumed and, opened, which; filtered by name in the URL, keyset-paged. An operator sends one from here.
import Link from 'next/link';
import { useSearchParams } from 'next/navigation';
import { useState } from 'react';
import type { EventDetailJson, EventJson } from '@/lib/api/present';
import { withQuery, type PageJson } from '../api';
import { useLive } from '../live';
import { useCanOperate } from '../role';
import { useReplaceQuery } from '../useReplaceQuery';
import { Badge, StatusBadge } from '../ui/Badge';
import { Button } from '../ui/Button';
import { Card, CardHeader, PageHeader } from '../ui/Card';
import { DataTable, type Column } from '../ui/DataTable';
import { QueryStates } from '../ui/QueryStates';
import { EmptyState, ErrorState, LoadingState } from '../ui/States';
import { WhenCell } from '../ui/Time';
import { SendEventForm } from './SendEventForm';

function preview(v: unknown): string {
  const s = JSON.stringify(v) ?? 'null';
  return s.length > 100 ? `${s.slice(0, 99)}…` : s;
}

/** The tasks one event resumed (those still kept). */
function Resumed({ id }: { id: number }) {
  const q = useLive<EventDetailJson>(['event', id], `/api/events/${id}`);
  if (q.isPending) return <LoadingState rows={2} />;
  if (q.isError) return <ErrorState error={q.error} />;
  const e = q.data;
  return (
    <div className="space-y-3 p-4" data-testid="event-detail" data-event={e.id}>
      <pre className="max-h-48 overflow-auto whitespace-pre-wrap break-words rounded-md bg-slate-900 p-3 font-mono text-xs text-slate-100">
        {JSON.stringify(e.payload, null, 2)}
      </pre>
      {e.tasks.length === 0 ? (
        <p className="text-sm text-slate-500">
          {e.resumed === 0 ? 'No task was waiting for it with a match its payload contains.' : 'The tasks it resumed have been pruned.'}
        </p>
      ) : (
        <ul className="space-y-1.5">
          {e.tasks.map((t) => (
            <li key={t.token} className="flex flex-wrap items-center gap-2 text-sm" data-testid="event-task">
              <Link href={`/tasks/${t.token}`} className="font-mono text-xs text-brand-700 hover:underline">
                {t.token.slice(0, 8)}
              </Link>
              <span className="font-mono text-xs text-slate-700">{t.command}</span>
              <span className="text-xs text-slate-500">
                {t.queue} · step {t.step}
              </span>
              <StatusBadge status={t.status} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function Events() {
  const params = useSearchParams();
  const replace = useReplaceQuery();
  const name = params.get('name') ?? '';
  const before = params.get('before') ?? '';
  const opened = Number(params.get('id') ?? '') || null;
  const [draft, setDraft] = useState(name);
  const canOperate = useCanOperate();
  const url = withQuery('/api/events', { name: name || null, before: before || null, limit: 50 });
  const q = useLive<PageJson<EventJson>>(['events', name, before], url, { keepPrevious: true });
  const open = (id: number | null) => replace({ name, before, id: id === null ? '' : String(id) });

  const columns: Column<EventJson>[] = [
    {
      key: 'name',
      header: 'Event',
      mobile: 'primary',
      cell: (e) => (
        <button
          type="button"
          className="text-left font-mono text-sm font-semibold text-slate-900 hover:text-brand-700"
          onClick={() => open(opened === e.id ? null : e.id)}
          aria-expanded={opened === e.id}
          data-testid="event-name"
        >
          {e.name}
          <span className="ml-1.5 text-xs font-normal text-slate-400">#{e.id}</span>
        </button>
      ),
    },
    {
      key: 'sent',
      header: 'Sent',
      // on a phone (a field half the card wide) the local time goes under "3 min ago" rather than past the edge
      cell: (e) => <WhenCell iso={e.sentAt} wrapNarrow />,
    },
    {
      key: 'resumed',
      header: 'Resumed',
      align: 'right',
      cell: (e) => (
        <span data-testid="event-resumed">
          <Badge tone={e.resumed > 0 ? 'green' : 'gray'}>
            {e.resumed} task{e.resumed === 1 ? '' : 's'}
          </Badge>
        </span>
      ),
    },
    { key: 'by', header: 'By', cell: (e) => <span className="font-mono text-xs text-slate-600">{e.caller ?? '—'}</span> },
    {
      key: 'payload',
      header: 'Payload',
      cell: (e) => {
        const text = preview(e.payload);
        return (
          <span className="block max-w-96 truncate font-mono text-xs text-slate-600" title={text} data-testid="event-payload">
            {text}
          </span>
        );
      },
    },
  ];

  return (
    <div>
      <PageHeader
        title="Events"
        description={
          'Events resume the durable tasks waiting for them (ctx.waitForEvent) whose match the payload contains. ' +
          'Kept as long as finished tasks are.'
        }
      />
      {canOperate && (
        <Card className="mb-5">
          <CardHeader title="Send an event" subtitle="From here, the API (POST /api/events) or readpast event send" />
          <SendEventForm />
        </Card>
      )}
      <Card>
        <form
          className="flex flex-wrap items-end gap-2 border-b border-slate-200 p-3"
          onSubmit={(e) => {
            e.preventDefault();
            replace({ name: draft.trim() });
          }}
        >
          <label className="text-xs text-slate-500">
            Name
            <input
              className={
                'mt-1 block w-56 rounded-md border border-slate-300 bg-white px-2.5 py-1.5 font-mono text-sm ' +
                'text-slate-900 placeholder:text-slate-400'
              }
              placeholder="order.paid"
              value={draft}
              data-search
              onChange={(e) => setDraft(e.target.value)}
              name="name"
            />
          </label>
          <Button type="submit" size="sm">
            Filter
          </Button>
          {name && (
            <Button
              size="sm"
              variant="ghost"
              onClick={() => {
                setDraft('');
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
            <EmptyState title="No events" icon="events">
              {name ? `No event named ${name} is kept.` : 'No event has been sent yet.'}
            </EmptyState>
          }
        >
          {(page) => (
            <>
              <DataTable rows={page.items} columns={columns} rowKey={(e) => e.id} testId="events-table" />
              {opened !== null && (
                <div className="border-t border-slate-200">
                  <Resumed id={opened} />
                </div>
              )}
            </>
          )}
        </QueryStates>
        {(before || q.data?.nextCursor != null) && (
          <div className="flex justify-end gap-2 border-t border-slate-200 p-3">
            {before && (
              <Button size="sm" onClick={() => replace({ name })}>
                Newest
              </Button>
            )}
            {q.data?.nextCursor != null && (
              <Button size="sm" onClick={() => replace({ name, before: String(q.data?.nextCursor) })} data-testid="events-older">
                Older
              </Button>
            )}
          </div>
        )}
      </Card>
    </div>
  );
}
