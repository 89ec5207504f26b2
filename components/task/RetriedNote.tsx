'use client';
// The line under a task's state after this tab retried it (components/task/retried.ts).
import { cx } from '../ui/cx';
import { retriedNote, useRetryMark, type RetriedTask } from './retried';

export function RetriedNote({ task, className }: { task: RetriedTask & { token: string }; className?: string }) {
  const text = retriedNote(task, useRetryMark(task.token));
  if (!text) return null;
  const failed = task.status === 'dead';
  return (
    <p
      data-testid="retried-note"
      className={cx('text-xs', failed ? 'font-medium text-rose-700' : 'text-slate-600', className)}
      title="What the attempt after your retry did, from the task's execution log"
    >
      {text}
    </p>
  );
}
