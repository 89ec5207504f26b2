'use client';
// ConcurrencyTokens: which task holds which token of which queue, on which worker and session, for how long.
import { withQuery } from '../api';
import { formatLocal } from '../format';
import { useLive } from '../live';
import { Badge } from '../ui/Badge';
import { Card, CardHeader } from '../ui/Card';
import { DataTable, type Column } from '../ui/DataTable';
import { QueryStates } from '../ui/QueryStates';
import { EmptyState } from '../ui/States';
import { Elapsed, RelativeTime } from '../ui/Time';
import { TokenLink } from '../ui/TokenLink';
import { cx } from '../ui/cx';
import type { TokenJson, TokensJson } from './types';

export type TokenMode = 'granted' | 'all';

function DeadFlag() {
  return (
    <Badge tone="red" dot testId="holder-dead">
      <span title="The grantee's worker stopped heartbeating or no longer owns the task. The token is reclaimed once the lease expires.">
        holder dead
      </span>
    </Badge>
  );
}

function StatusCell({ t }: { t: TokenJson }) {
  return (
    <div className="flex flex-wrap items-center gap-1">
      <Badge tone={t.status === 'granted' ? 'amber' : 'gray'} dot={t.status === 'granted'}>
        {t.status}
      </Badge>
      {t.holderDead && <DeadFlag />}
    </div>
  );
}

const columns: Column<TokenJson>[] = [
  { key: 'queue', header: 'Queue', cell: (t) => <span className="font-mono text-xs text-slate-700">{t.queue}</span> },
  {
    key: 'no',
    header: 'Token',
    align: 'right',
    cell: (t) => (
      <span className="tabular font-mono text-xs font-semibold text-slate-900" data-testid="token-no">
        #{t.tokenNo}
      </span>
    ),
  },
  { key: 'status', header: 'Status', cell: (t) => <StatusCell t={t} /> },
  {
    key: 'task',
    header: 'Grantee task',
    cell: (t) =>
      t.token ? (
        <span className="whitespace-nowrap text-xs">
          <TokenLink token={t.token} testId="token-grantee" />
          {t.attempt !== null && <span className="ml-1.5 text-slate-400">attempt {t.attempt}</span>}
        </span>
      ) : (
        <span className="text-xs text-slate-300">—</span>
      ),
  },
  {
    key: 'worker',
    header: 'Worker',
    cell: (t) => (
      <span className="block max-w-48 truncate font-mono text-xs text-slate-600" title={t.workerId ?? ''}>
        {t.workerId ?? '—'}
      </span>
    ),
  },
  {
    key: 'session',
    header: 'Session',
    align: 'right',
    cell: (t) => (
      <span className="tabular font-mono text-xs" data-testid="token-session">
        {t.session ?? '—'}
      </span>
    ),
  },
  {
    key: 'granted',
    header: 'Granted at',
    cell: (t) =>
      t.grantedAt ? (
        <span className="whitespace-nowrap text-xs text-slate-600" title={t.grantedAt}>
          {formatLocal(t.grantedAt).slice(11)}
        </span>
      ) : (
        <span className="text-xs text-slate-300">—</span>
      ),
  },
  {
    key: 'age',
    header: 'Age',
    align: 'right',
    cell: (t) => (t.grantedAt ? <Elapsed from={t.grantedAt} testId="token-age" /> : <span className="text-xs text-slate-300">—</span>),
  },
];

function PhoneRow({ t }: { t: TokenJson }) {
  return (
    <div className="space-y-1">
      <div className="flex items-center gap-2">
        <span className="tabular font-mono text-sm font-semibold text-slate-900" data-testid="token-no">
          #{t.tokenNo}
        </span>
        <span className="min-w-0 flex-1 truncate font-mono text-xs text-slate-600" title={t.queue}>
          {t.queue}
        </span>
        <StatusCell t={t} />
      </div>
      {t.token && (
        <div className="flex flex-wrap items-center gap-x-3 gap-y-0.5 text-xs text-slate-500">
          <TokenLink token={t.token} testId="token-grantee" />
          {t.attempt !== null && <span>attempt {t.attempt}</span>}
          <span className="font-mono">
            spid <span data-testid="token-session">{t.session ?? '—'}</span>
          </span>
          {t.grantedAt && (
            <span>
              granted <RelativeTime iso={t.grantedAt} />
            </span>
          )}
          {t.grantedAt && (
            <span>
              held <Elapsed from={t.grantedAt} testId="token-age" />
            </span>
          )}
        </div>
      )}
      {t.workerId && (
        <div className="truncate font-mono text-[11px] text-slate-400" title={t.workerId}>
          {t.workerId}
        </div>
      )}
    </div>
  );
}

export function TokenGrants({ queue, mode, onMode }: { queue: string; mode: TokenMode; onMode: (m: TokenMode) => void }) {
  const url = withQuery('/api/tokens', { queue });
  const q = useLive<TokensJson>(['tokens', url], url, { keepPrevious: true });
  const all = q.data?.tokens ?? [];
  const rows = mode === 'granted' ? all.filter((t) => t.status === 'granted') : all;
  const granted = all.filter((t) => t.status === 'granted').length;
  const dead = all.filter((t) => t.holderDead).length;

  return (
    <Card testId="tokens-card">
      <CardHeader
        title={
          <span className="flex flex-wrap items-center gap-2">
            Token grants{queue && <span className="font-mono text-slate-500">· {queue}</span>}
            {q.data && <Badge tone={granted ? 'amber' : 'gray'}>{granted} granted</Badge>}
            {dead > 0 && (
              <Badge tone="red" dot>
                {dead} held by dead workers
              </Badge>
            )}
          </span>
        }
        subtitle={
          'ConcurrencyTokens of limited queues: a claim takes a free token in the same transaction; success, ' +
          'failure, cancel and lease rescue give it back.'
        }
        actions={
          <div role="group" aria-label="Tokens shown" className="inline-flex rounded-md bg-white p-0.5 shadow-xs ring-1 ring-slate-200">
            {(['granted', 'all'] as const).map((m) => (
              <button
                key={m}
                type="button"
                aria-pressed={m === mode}
                data-testid={`tokens-${m}`}
                onClick={() => onMode(m)}
                className={cx(
                  'rounded px-2.5 py-1 text-xs font-medium',
                  m === mode ? 'bg-slate-900 text-white' : 'text-slate-600 hover:bg-slate-100',
                )}
              >
                {m === 'granted' ? 'Granted' : 'All tokens'}
              </button>
            ))}
          </div>
        }
      />
      <QueryStates
        query={q}
        rows={3}
        isEmpty={() => rows.length === 0}
        empty={
          <EmptyState title={mode === 'granted' ? 'No token is granted right now' : 'No tokens yet'} icon="key" testId="tokens-empty">
            {mode === 'granted'
              ? 'Tasks of limited queues hold a token while they run.'
              : 'A limited queue makes its tokens on its first claim; unlimited queues have none.'}
          </EmptyState>
        }
      >
        {() => (
          <DataTable
            testId="token-table"
            rows={rows}
            columns={queue ? columns.filter((c) => c.key !== 'queue') : columns}
            rowKey={(t) => `${t.queue}\u0000${t.tokenNo}`}
            rowAttrs={(t) => ({
              'data-testid': 'token-row',
              'data-queue': t.queue,
              'data-status': t.status,
              'data-dead': String(t.holderDead),
              'data-token': t.token ?? undefined,
            })}
            rowClassName={(t) => (t.holderDead ? 'bg-rose-50' : t.status === 'free' ? 'text-slate-400' : undefined)}
            phoneRow={(t) => <PhoneRow t={t} />}
          />
        )}
      </QueryStates>
    </Card>
  );
}
