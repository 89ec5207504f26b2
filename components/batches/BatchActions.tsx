'use client';
// Release (no more tasks: the batch completes once all are terminal) and cancel (with a confirmation).
import { useCanOperate } from '../role';
import { useState } from 'react';
import { cancelBatch, releaseBatch } from '@/app/actions';
import { formatNumber } from '../format';
import { useAction } from '../useAction';
import { Button } from '../ui/Button';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import type { BatchJson } from './types';

function BatchActionsControl({ batch }: { batch: BatchJson }) {
  const [confirm, setConfirm] = useState(false);
  const release = useAction(releaseBatch, { success: () => `Batch ${batch.id} released: it completes once its tasks are done` });
  const cancel = useAction(cancelBatch, {
    success: (r) =>
      `Batch ${batch.id} cancelled: ${formatNumber(r.cancelled)} pending task${r.cancelled === 1 ? '' : 's'} ` +
      `cancelled, running ones asked to stop`,
  });
  const open = batch.status === 'open';
  const live = open || batch.status === 'released';
  const { pending, running } = batch.totals;

  return (
    <>
      {open && (
        <Button
          variant="primary"
          busy={release.busy}
          onClick={() => void release.run(batch.id)}
          data-testid="batch-release"
          title="No more tasks will be added; the batch completes once all of its tasks are terminal"
        >
          Release
        </Button>
      )}
      {live && (
        <Button
          variant="danger"
          onClick={() => setConfirm(true)}
          data-testid="batch-cancel"
          title="Cancel pending tasks, ask running ones to stop"
        >
          Cancel batch
        </Button>
      )}
      <ConfirmDialog
        open={confirm}
        title={`Cancel batch ${batch.id}?`}
        confirmLabel="Cancel batch"
        busy={cancel.busy}
        onClose={() => setConfirm(false)}
        onConfirm={async () => {
          const r = await cancel.run(batch.id);
          if (r.ok) setConfirm(false);
        }}
      >
        {formatNumber(pending)} pending task{pending === 1 ? '' : 's'} will be cancelled
        {running > 0 && (
          <>
            {' '}
            and {formatNumber(running)} running task{running === 1 ? '' : 's'} asked to stop (handlers see their AbortSignal fire)
          </>
        )}
        . The batch takes no more tasks. This cannot be undone.
      </ConfirmDialog>
    </>
  );
}

/** the operator's control; a viewer sees nothing */
export function BatchActions(props: { batch: BatchJson }) {
  return useCanOperate() ? <BatchActionsControl {...props} /> : null;
}
