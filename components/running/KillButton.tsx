'use client';
// KILL the SQL Server session running a sql or procedure task: an operator option behind a confirmation.
import { useCanOperate } from '../role';
import { useState } from 'react';
import { createPortal } from 'react-dom';
import { killTask } from '@/app/actions';
import type { RunningJson } from '../api';
import { shortToken } from '../format';
import { useAction } from '../useAction';
import { Button } from '../ui/Button';
import { ConfirmDialog } from '../ui/ConfirmDialog';

/** Only sql and procedure tasks run on their worker's session; a handler task's session is idle. */
export const killable = (r: Pick<RunningJson, 'kind' | 'session'>) => (r.kind === 'sql' || r.kind === 'procedure') && r.session !== null;

function KillButtonControl({ row, disabled, refusal }: { row: RunningJson; disabled?: boolean; refusal?: string | null }) {
  const [open, setOpen] = useState(false);
  const kill = useAction(killTask, { success: () => `Session ${row.session} killed; the attempt is recorded as cancelled` });
  return (
    <>
      <Button
        size="sm"
        disabled={disabled || !!refusal}
        onClick={() => setOpen(true)}
        data-testid="kill-session"
        title={refusal ? `KILL is not available: ${refusal}` : `KILL ${row.session} (asks first)`}
      >
        <span className="text-rose-700">Kill session</span>
      </Button>
      {/* mounted only while asked (one dialog, not one per row), outside the table so it inherits no cell alignment */}
      {open &&
        createPortal(
          <ConfirmDialog
            open={open}
            title={`Kill session ${row.session}?`}
            confirmLabel={`KILL ${row.session}`}
            busy={kill.busy}
            onClose={() => setOpen(false)}
            onConfirm={async () => {
              const r = await kill.run(row.token);
              if (r.ok) setOpen(false);
            }}
          >
            <div className="space-y-2" data-testid="kill-explain">
              <p className="truncate font-mono text-xs text-slate-500" title={row.command}>
                {shortToken(row.token)} · {row.kind} · {row.command}
                <br />
                worker {row.workerId}
              </p>
              <p>
                This runs <code className="rounded bg-slate-100 px-1 font-mono text-slate-800">KILL {row.session}</code> on the SQL Server:
                the worker&apos;s session is disconnected, its open transaction is rolled back (which can take as long as the work done so
                far), and this attempt is recorded as <b>cancelled</b>. The worker reconnects with a new session.
              </p>
              <p>
                The dashboard&apos;s login needs <b>ALTER ANY CONNECTION</b> (on Azure SQL Database: KILL DATABASE CONNECTION).
                <b> Cancel</b> is gentler: it asks the server to stop the running request.
              </p>
            </div>
          </ConfirmDialog>,
          document.body,
        )}
    </>
  );
}

/** the operator's control; a viewer sees nothing */
export function KillButton(props: { row: RunningJson; disabled?: boolean; refusal?: string | null }) {
  return useCanOperate() ? <KillButtonControl {...props} /> : null;
}
