'use client';
// Alerts: the rules (create, edit, enable, test-send, delete) and the history of fired alerts with each
// delivery's status. Any process with a pool judges the rules every 5 s.
import { useState } from 'react';
import { useLive } from '../live';
import { useCanOperate } from '../role';
import { Button } from '../ui/Button';
import { Card, CardHeader, PageHeader } from '../ui/Card';
import { EmptyState, ErrorState, LoadingState, StaleBanner } from '../ui/States';
import { AlertForm } from './AlertForm';
import { AlertHistory } from './AlertHistory';
import { AlertRow } from './AlertRow';
import type { AlertRuleJson } from './types';

type Editing = { mode: 'new' } | { mode: 'edit'; rule: AlertRuleJson } | null;

export function Alerts() {
  const operator = useCanOperate();
  const [editing, setEditing] = useState<Editing>(null);
  const q = useLive<{ rules: AlertRuleJson[] }>(['alerts', 'rules'], '/api/alerts');
  const rules = q.data?.rules ?? [];
  const enabled = rules.filter((r) => r.enabled).length;

  return (
    <>
      <PageHeader
        title="Alerts"
        description={
          'Webhook POSTs when tasks die, a queue backs up, no worker serves it, a schedule misses its tick or a command keeps ' +
          'failing — signed, de-duplicated, and retried by readpast itself.'
        }
        actions={
          <Button
            variant="primary"
            hidden={!operator}
            disabled={editing?.mode === 'new'}
            onClick={() => setEditing({ mode: 'new' })}
            data-testid="alert-new"
          >
            New rule
          </Button>
        }
      />
      {q.data && <StaleBanner error={q.error} updatedAt={q.dataUpdatedAt} />}
      {editing && (
        <AlertForm
          key={editing.mode === 'edit' ? editing.rule.id : 'new'}
          initial={editing.mode === 'edit' ? editing.rule : null}
          onDone={() => setEditing(null)}
        />
      )}
      <Card testId="alert-rules">
        <CardHeader
          title={q.data ? `${rules.length} rule${rules.length === 1 ? '' : 's'}` : 'Rules'}
          subtitle={q.data ? `${enabled} enabled · ${rules.length - enabled} disabled` : 'What each rule watches and where it posts'}
        />
        {q.isPending ? (
          <LoadingState rows={3} />
        ) : q.isError && !q.data ? (
          <ErrorState error={q.error} onRetry={() => void q.refetch()} />
        ) : rules.length === 0 ? (
          <EmptyState title="No alert rules yet" icon="alerts" testId="alert-rules-empty">
            Press <strong>New rule</strong>, or run{' '}
            <code className="font-mono">readpast alert add NAME --kind task_dead --url https://…</code>.
          </EmptyState>
        ) : (
          <ul className="divide-y divide-slate-100" data-testid="alert-list">
            {rules.map((r) => (
              <AlertRow key={r.id} r={r} onEdit={() => setEditing({ mode: 'edit', rule: r })} />
            ))}
          </ul>
        )}
      </Card>
      <AlertHistory />
    </>
  );
}
