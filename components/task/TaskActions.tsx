'use client';
import { useCanOperate } from '../role';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { cancelTask, deleteTask, retryTask } from '@/app/actions';
import type { StatusJson } from '../api';
import { useAction } from '../useAction';
import { Button } from '../ui/Button';
import { ConfirmButton } from '../ui/ConfirmButton';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { DurableActions } from './DurableActions';
import { EditTaskButton } from './EditTask';
import { clearRetried, markRetried } from './retried';

const RETRYABLE = ['dead', 'cancelled'];
const CANCELLABLE = ['waiting', 'pending', 'running'];
const DELETABLE = ['succeeded', 'dead', 'cancelled'];

function TaskActionsControl({ task }: { task: StatusJson }) {
  const router = useRouter();
  const [confirm, setConfirm] = useState(false);
  const retry = useAction(retryTask, { success: () => 'Task queued for another attempt' });
  const cancel = useAction(cancelTask, { success: (r) => (r.status === 'cancelled' ? 'Task cancelled' : 'Cancel requested') });
  const del = useAction(deleteTask, { success: () => 'Task deleted' });

  const canRetry = RETRYABLE.includes(task.status);
  const canCancel = CANCELLABLE.includes(task.status) && !task.cancelRequested;
  const canDelete = DELETABLE.includes(task.status);

  return (
    <>
      <DurableActions task={task} />
      <Button
        variant="primary"
        disabled={!canRetry}
        busy={retry.busy}
        onClick={async () => {
          const r = await retry.run(task.token);
          if (r.ok) markRetried([task], r.at);
        }}
        data-testid="task-retry"
        title={canRetry ? 'Run this task again' : 'Only dead or cancelled tasks can be retried'}
      >
        Retry
      </Button>
      <EditTaskButton task={task} />
      <ConfirmButton
        disabled={!canCancel}
        busy={cancel.busy}
        confirm={{
          title: 'Cancel this task?',
          label: 'Cancel 1 task',
          body:
            task.status === 'running'
              ? 'Its handler is asked to stop (its AbortSignal fires) and the attempt is recorded as cancelled. Retry runs it again.'
              : 'It will not run. Retry runs it again.',
        }}
        onConfirm={async () => {
          const r = await cancel.run(task.token);
          if (r.ok) clearRetried(task.token);
        }}
        data-testid="task-cancel"
        title={
          canCancel
            ? 'Cancel this task'
            : task.cancelRequested
              ? 'Cancel already requested'
              : 'Only waiting, pending or running tasks can be cancelled'
        }
      >
        {task.cancelRequested && task.status === 'running' ? 'Cancelling…' : 'Cancel'}
      </ConfirmButton>
      <Button
        variant="ghost"
        disabled={!canDelete}
        onClick={() => setConfirm(true)}
        data-testid="task-delete"
        title={canDelete ? 'Delete this task and its log' : 'Only finished tasks can be deleted'}
      >
        Delete
      </Button>
      <ConfirmDialog
        open={confirm}
        title="Delete this task?"
        confirmLabel="Delete task"
        busy={del.busy}
        onClose={() => setConfirm(false)}
        onConfirm={async () => {
          const r = await del.run(task.token);
          setConfirm(false);
          if (r.ok) clearRetried(task.token);
          if (r.ok) router.push(task.status === 'dead' ? '/failed' : '/log');
        }}
      >
        The task <span className="font-mono">{task.token}</span> and its {task.history.length} logged attempt
        {task.history.length === 1 ? '' : 's'} are removed for good.
      </ConfirmDialog>
    </>
  );
}

/** the operator's control; a viewer sees nothing */
export function TaskActions(props: { task: StatusJson }) {
  return useCanOperate() ? <TaskActionsControl {...props} /> : null;
}
