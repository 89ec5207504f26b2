'use client';
// A flow's bulk actions, each behind a confirmation: cancel every unfinished node, retry the failed ones.
import { useState } from 'react';
import { cancelFlow, retryFlow } from '@/app/flows/actions';
import { formatNumber } from '../format';
import { useCanOperate } from '../role';
import { useAction } from '../useAction';
import { Button } from '../ui/Button';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { counted, type FlowJson } from './types';

function FlowActionsControl({ flow }: { flow: FlowJson }) {
  const [confirm, setConfirm] = useState<'cancel' | 'retry' | null>(null);
  const cancel = useAction(cancelFlow, {
    success: (r) =>
      `Flow ${flow.id} cancelled: ${counted(r.cancelled, 'node')} cancelled` +
      (r.cancelRequested ? `, ${formatNumber(r.cancelRequested)} running asked to stop` : ''),
  });
  const retry = useAction(retryFlow, {
    success: (r) => `Flow ${flow.id}: ${counted(r.retried, 'failed node')} retried; the nodes they cancelled wait again`,
  });
  const c = flow.counts;
  const unfinished = c.waiting + c.pending + c.running;
  const failed = c.dead + c.cancelled;
  const busy = confirm === 'cancel' ? cancel.busy : retry.busy;

  return (
    <>
      <Button
        variant="primary"
        disabled={failed === 0}
        onClick={() => setConfirm('retry')}
        data-testid="flow-retry"
        title={failed ? 'Retry the dead nodes and those cancelled by an operator' : 'No dead or cancelled node'}
      >
        Retry failed nodes
      </Button>
      <Button
        variant="danger"
        disabled={unfinished === 0}
        onClick={() => setConfirm('cancel')}
        data-testid="flow-cancel"
        title={unfinished ? 'Cancel waiting and pending nodes, ask running ones to stop' : 'Every node is finished'}
      >
        Cancel flow
      </Button>
      <ConfirmDialog
        open={confirm !== null}
        title={confirm === 'cancel' ? `Cancel flow ${flow.id}?` : `Retry the failed nodes of flow ${flow.id}?`}
        confirmLabel={confirm === 'cancel' ? 'Cancel flow' : 'Retry failed nodes'}
        tone={confirm === 'cancel' ? 'danger' : 'primary'}
        busy={busy}
        onClose={() => setConfirm(null)}
        onConfirm={async () => {
          const r = confirm === 'cancel' ? await cancel.run(flow.id) : await retry.run(flow.id);
          if (r.ok) setConfirm(null);
        }}
      >
        {confirm === 'cancel' ? (
          <>
            {counted(c.waiting + c.pending, 'waiting or pending node')} will be cancelled
            {c.running > 0 && <> and {counted(c.running, 'running node')} asked to stop (handlers see their AbortSignal fire)</>}. Their
            children are cancelled, run or kept waiting as their failure policy says. Retry failed nodes brings them back.
          </>
        ) : (
          <>
            Of {counted(failed, 'dead or cancelled node')}, the dead ones and those cancelled by an operator get another attempt (back to
            waiting while a parent is unfinished); the nodes a failed parent cancelled return to waiting with it.
          </>
        )}
      </ConfirmDialog>
    </>
  );
}

/** the operator's control; a viewer sees nothing */
export function FlowActions(props: { flow: FlowJson }) {
  return useCanOperate() ? <FlowActionsControl {...props} /> : null;
}
