'use client';
// A task's parents (what it runs after) and children (what runs after it), each with its state, its node id
// in a flow and the edge's failure policy; links to their pages and to the flow's graph and task list.
import Link from 'next/link';
import type { StatusJson } from '../api';
import { formatNumber } from '../format';
import { Badge, StatusBadge } from '../ui/Badge';
import { Card, CardHeader } from '../ui/Card';
import { TokenLink } from '../ui/TokenLink';

type LinkJson = StatusJson['parents'][number];

const POLICY_HINT: Record<LinkJson['onParentFailure'], string> = {
  cancel: 'if the parent goes dead or is cancelled, the child is cancelled',
  run: 'if the parent goes dead or is cancelled, the child runs anyway',
  wait: 'if the parent goes dead or is cancelled, the child keeps waiting for an operator',
};

function LinkList({ links, testId }: { links: LinkJson[]; testId: string }) {
  return (
    <ul className="divide-y divide-slate-100" data-testid={testId}>
      {links.map((l) => (
        <li key={l.token} className="flex items-center gap-2 px-4 py-2" data-testid="task-link" data-token={l.token} data-status={l.status}>
          <div className="min-w-0 flex-1">
            <Link
              href={`/tasks/${l.token}`}
              className="block truncate font-mono text-xs text-slate-800 hover:underline"
              title={l.command}
              data-testid="task-link-command"
            >
              {l.nodeId !== null && <span className="mr-1.5 font-sans font-semibold text-slate-900">{l.nodeId}</span>}
              {l.command}
            </Link>
            <div className="mt-0.5 flex items-center gap-2 text-[11px] text-slate-500">
              <TokenLink token={l.token} />
              {l.onParentFailure !== 'cancel' && (
                <span title={POLICY_HINT[l.onParentFailure]} data-testid="task-link-policy">
                  on failure: {l.onParentFailure}
                </span>
              )}
            </div>
          </div>
          <StatusBadge status={l.status} />
        </li>
      ))}
    </ul>
  );
}

export function TaskLinks({ task: t }: { task: StatusJson }) {
  if (t.parentCount === 0 && t.childCount === 0) return null;
  const done = t.parentCount - t.parentsLeft;
  return (
    <>
      {t.parentCount > 0 && (
        <Card testId="task-parents">
          <CardHeader
            title={`Parents (${formatNumber(t.parentCount)})`}
            subtitle={
              t.parentsLeft > 0 ? (
                <span data-testid="task-parents-left">
                  {formatNumber(done)} of {formatNumber(t.parentCount)} done; runs once every parent has succeeded
                </span>
              ) : (
                'every parent is done'
              )
            }
            actions={
              t.parentsLeft > 0 ? (
                <Badge tone="violet" testId="task-parents-left-badge">
                  {formatNumber(t.parentsLeft)} left
                </Badge>
              ) : undefined
            }
          />
          <LinkList links={t.parents} testId="task-parents-list" />
          {t.parents.length < t.parentCount && (
            <p className="border-t border-slate-100 px-4 py-2 text-xs text-slate-500">
              The first {formatNumber(t.parents.length)} are listed.
            </p>
          )}
        </Card>
      )}
      {t.childCount > 0 && (
        <Card testId="task-children">
          <CardHeader title={`Children (${formatNumber(t.childCount)})`} subtitle="run after this task has succeeded" />
          <LinkList links={t.children} testId="task-children-list" />
          {t.children.length < t.childCount && (
            <p className="border-t border-slate-100 px-4 py-2 text-xs text-slate-500">
              The first {formatNumber(t.children.length)} are listed
              {t.flowId !== null && (
                <>
                  ; see{' '}
                  <Link href={`/tasks?flow=${t.flowId}`} className="text-brand-600 hover:underline">
                    every task of flow {t.flowId}
                  </Link>
                </>
              )}
              .
            </p>
          )}
        </Card>
      )}
    </>
  );
}
