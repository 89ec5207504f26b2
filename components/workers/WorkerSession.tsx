'use client';
// A worker's database session: "SPID 57 · login 14:03:22" on SQL Server (SPIDs are reused, so the
// login time is part of the identity); the plain session number elsewhere.
import type { WorkerJson } from '../api';
import { useIsMssql } from '../enqueue/storeInfo';
import { formatLocal } from '../format';

export function WorkerSession({ w }: { w: Pick<WorkerJson, 'session' | 'loginTime'> }) {
  const mssql = useIsMssql();
  const login = w.loginTime ? formatLocal(w.loginTime).slice(11) : null;
  if (mssql) {
    return (
      <span
        className="whitespace-nowrap font-mono text-xs"
        title={w.loginTime ? `session ${w.session}, login ${formatLocal(w.loginTime)}` : undefined}
      >
        SPID <span data-testid="worker-session">{w.session}</span>
        {login && (
          <span className="text-slate-400" data-testid="worker-login">
            {' '}
            · login {login}
          </span>
        )}
      </span>
    );
  }
  return (
    <span className="font-mono text-xs" title={`login ${w.loginTime ?? '—'}`}>
      <span data-testid="worker-session">{w.session}</span>
      <span className="ml-1 text-slate-400">{login ?? ''}</span>
    </span>
  );
}
