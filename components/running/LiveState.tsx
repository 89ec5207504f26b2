'use client';
// The server's own view of a running task's request (SQL Server DMVs), and where it sits in a blocking chain.
import type { RunningJson } from '../api';
import { formatDuration, formatNumber, shortToken } from '../format';
import { Badge } from '../ui/Badge';
import { TokenLink } from '../ui/TokenLink';
import { blockerLabel, type ChainInfo } from './chains';

type Live = NonNullable<RunningJson['live']>;

const STATUS_TONE: Record<string, 'green' | 'amber' | 'red' | 'gray' | 'blue'> = {
  running: 'green',
  runnable: 'blue',
  suspended: 'amber',
  sleeping: 'gray',
  background: 'gray',
};

/** sys.dm_exec_requests of the task's session: status, command, wait, CPU, progress, open transactions. */
export function LiveState({ live }: { live: Live }) {
  return (
    <div className="space-y-0.5 text-xs" data-testid="live-state">
      <div className="flex flex-wrap items-center gap-1">
        {live.status && (
          <Badge tone={STATUS_TONE[live.status] ?? 'gray'} testId="live-status">
            {live.status}
          </Badge>
        )}
        {live.command && (
          <span className="font-mono text-slate-700" data-testid="live-command">
            {live.command}
          </span>
        )}
      </div>
      {live.waitType && (
        <div className="font-mono text-slate-600" data-testid="live-wait">
          {live.waitType}
          {live.waitTimeMs !== null && <span className="text-slate-400"> · waiting {formatDuration(live.waitTimeMs)}</span>}
        </div>
      )}
      <div className="flex flex-wrap gap-x-2 text-slate-500">
        {live.cpuMs !== null && <span data-testid="live-cpu">cpu {formatNumber(live.cpuMs)} ms</span>}
        {live.percentComplete ? <span data-testid="live-percent">{live.percentComplete.toFixed(0)}% complete</span> : null}
        {live.openTransactions ? (
          <span data-testid="live-tran" className="text-amber-700">
            {live.openTransactions} open tran{live.openTransactions === 1 ? '' : 's'}
          </span>
        ) : null}
      </div>
    </div>
  );
}

/** "blocked by SPID 63 (task …1a2b3c4d)" or "(not a task)"; "blocking n tasks" on a chain's head. */
export function ChainMarks({ chain }: { chain: ChainInfo | undefined }) {
  if (!chain || (!chain.blocker && chain.blocking === 0)) return null;
  return (
    <div className="mt-0.5 flex flex-wrap items-center gap-1.5 text-xs">
      {chain.blocker && (
        <span className="text-rose-700" data-testid="blocked-by" data-blocker={chain.blocker.session}>
          <span className="mr-1 inline-block size-1.5 rounded-full bg-rose-500 align-middle" aria-hidden />
          blocked by {blockerLabel(chain.blocker.session)}
          {chain.blocker.session > 0 &&
            (chain.blocker.token ? (
              <>
                {' '}
                (task <TokenLink token={chain.blocker.token} />)
              </>
            ) : (
              <> (not a task)</>
            ))}
        </span>
      )}
      {chain.blocking > 0 && (
        <Badge tone="red" testId="blocking">
          blocking {chain.blocking} task{chain.blocking === 1 ? '' : 's'}
        </Badge>
      )}
    </div>
  );
}

/** Screen-reader text for a row's place in a chain (the indentation says it visually). */
export function chainTitle(chain: ChainInfo | undefined): string | undefined {
  if (!chain?.blocker) return undefined;
  return `blocked by ${blockerLabel(chain.blocker.session)}${chain.blocker.token ? ` (task ${shortToken(chain.blocker.token)})` : ''}`;
}
