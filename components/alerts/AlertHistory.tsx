'use client';
// Fired alerts, newest first: when, which rule, the message, and the delivery — a task of queue
// readpast.alerts with its status (pending while retried with backoff), linked to the task's page.
import { useState } from 'react';
import { useLive } from '../live';
import { Badge, StatusBadge } from '../ui/Badge';
import { Button } from '../ui/Button';
import { Card, CardHeader } from '../ui/Card';
import { cx } from '../ui/cx';
import { PIN_CELL, ScrollBox } from '../ui/DataTable';
import { EmptyState, ErrorState, LoadingState } from '../ui/States';
import { RelativeTime } from '../ui/Time';
import { TokenLink } from '../ui/TokenLink';
import type { AlertFiringJson, AlertFiringsJson } from './types';

const PAGE = 25;

function Rows({ items }: { items: AlertFiringJson[] }) {
  return (
    <>
      {items.map((f) => (
        <tr key={f.id} className="bg-white align-top hover:bg-slate-50" data-testid="alert-firing">
          <td className={cx('whitespace-nowrap px-4 py-2 text-xs text-slate-600', PIN_CELL, 'dt-pin-start left-0')}>
            <RelativeTime iso={f.firedAt} />
          </td>
          <td className="whitespace-nowrap px-4 py-2 font-mono text-xs text-slate-800">
            {f.rule} {f.test && <Badge tone="violet">test</Badge>}
          </td>
          <td className="px-4 py-2 text-xs text-slate-700" data-testid="alert-firing-message">
            {f.message}
          </td>
          <td className="whitespace-nowrap px-4 py-2">
            <div className="flex items-center gap-2">
              {f.status === 'gone' ? <Badge tone="gray">pruned</Badge> : <StatusBadge status={f.status} testId="alert-firing-status" />}
              {f.taskToken && f.status !== 'gone' && <TokenLink token={f.taskToken} testId="alert-firing-task" />}
            </div>
          </td>
        </tr>
      ))}
    </>
  );
}

/** the older pages, loaded on demand (the first one is polled) */
function Older({ cursor }: { cursor: number }) {
  const q = useLive<AlertFiringsJson>(['alerts', 'firings', cursor], `/api/alerts/firings?limit=${PAGE}&cursor=${cursor}`);
  const [more, setMore] = useState(false);
  if (!q.data) return null;
  return (
    <>
      <Rows items={q.data.items} />
      {q.data.next !== null &&
        (more ? (
          <Older cursor={q.data.next} />
        ) : (
          <tr>
            <td colSpan={4} className="px-4 py-2 text-center">
              <Button size="sm" variant="ghost" onClick={() => setMore(true)}>
                Older
              </Button>
            </td>
          </tr>
        ))}
    </>
  );
}

export function AlertHistory() {
  const q = useLive<AlertFiringsJson>(['alerts', 'firings'], `/api/alerts/firings?limit=${PAGE}`);
  const [more, setMore] = useState(false);
  const items = q.data?.items ?? [];
  return (
    <Card className="mt-5" testId="alert-history">
      <CardHeader
        title="Fired alerts"
        subtitle={
          'Newest first, kept 30 days. Each delivery is a task of queue readpast.alerts: ' +
          'a failed POST is retried with backoff (5 attempts).'
        }
      />
      {q.isPending ? (
        <LoadingState rows={3} />
      ) : q.isError && !q.data ? (
        <ErrorState error={q.error} onRetry={() => void q.refetch()} />
      ) : items.length === 0 ? (
        <EmptyState title="Nothing fired yet" icon="alerts" testId="alert-history-empty">
          Use <strong>Send test</strong> on a rule to check its webhook.
        </EmptyState>
      ) : (
        <ScrollBox>
          <table className="min-w-full divide-y divide-slate-100 text-left">
            <thead className="text-xs font-medium text-slate-500">
              <tr className="bg-slate-50">
                <th className={cx('px-4 py-2', PIN_CELL, 'dt-pin-start left-0')}>Fired</th>
                <th className="px-4 py-2">Rule</th>
                <th className="px-4 py-2">Message</th>
                <th className="px-4 py-2">Delivery</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              <Rows items={items} />
              {q.data?.next != null &&
                (more ? (
                  <Older cursor={q.data.next} />
                ) : (
                  <tr>
                    <td colSpan={4} className="px-4 py-2 text-center">
                      <Button size="sm" variant="ghost" onClick={() => setMore(true)} data-testid="alert-history-older">
                        Older
                      </Button>
                    </td>
                  </tr>
                ))}
            </tbody>
          </table>
        </ScrollBox>
      )}
    </Card>
  );
}
