'use client';
// Edit a task that is not running — payload, queue, priority, run-at, max attempts — checked as an enqueue
// is; a dead or cancelled one can be saved and retried in one step. The old values go to the audit trail.
import { useEffect, useRef, useState } from 'react';
import { editTask } from '@/app/tasks/actions';
import { MAX_ATTEMPTS, MAX_PRIORITY, MIN_ATTEMPTS, MIN_PRIORITY } from '@/lib/engine/limits';
import type { StatusJson } from '../api';
import { inputCls, labelCls } from '../log/LogFilters';
import { useCanOperate } from '../role';
import { clearRetried, markRetried } from './retried';
import { useAction } from '../useAction';
import { Button } from '../ui/Button';

const EDITABLE = ['pending', 'dead', 'cancelled'];
const RETRYABLE = ['dead', 'cancelled'];

/** `YYYY-MM-DDTHH:MM` in the browser's time zone, for a datetime-local input. */
function localInput(iso: string): string {
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

interface Form {
  payload: string;
  queue: string;
  priority: string;
  runAt: string;
  maxAttempts: string;
}

const initial = (t: StatusJson): Form => ({
  payload: t.payload === null || t.payload === undefined ? '' : JSON.stringify(t.payload, null, 2),
  queue: t.queue,
  priority: String(t.priority),
  runAt: t.runAfter ? localInput(t.runAfter) : '',
  maxAttempts: String(t.maxAttempts),
});

/** The fields that changed, as the PATCH body; a problem names its field. */
function patchOf(t: StatusJson, f: Form): { patch: Record<string, unknown> } | { field: string; error: string } {
  const start = initial(t);
  const patch: Record<string, unknown> = {};
  if (f.payload !== start.payload) {
    try {
      patch.payload = f.payload.trim() === '' ? null : JSON.parse(f.payload);
    } catch {
      return { field: 'payload', error: 'not valid JSON' };
    }
  }
  if (f.queue !== start.queue) patch.queue = f.queue.trim();
  if (f.priority !== start.priority) {
    const n = Number(f.priority);
    if (!Number.isInteger(n) || n < MIN_PRIORITY || n > MAX_PRIORITY) {
      return { field: 'priority', error: `an integer from ${MIN_PRIORITY} to ${MAX_PRIORITY}` };
    }
    patch.priority = n;
  }
  if (f.maxAttempts !== start.maxAttempts) {
    const n = Number(f.maxAttempts);
    if (!Number.isInteger(n) || n < MIN_ATTEMPTS || n > MAX_ATTEMPTS) {
      return { field: 'maxAttempts', error: `an integer from ${MIN_ATTEMPTS} to ${MAX_ATTEMPTS}` };
    }
    patch.maxAttempts = n;
  }
  if (f.runAt !== start.runAt) {
    const d = new Date(f.runAt);
    if (Number.isNaN(d.getTime())) return { field: 'runAt', error: 'not a date and time' };
    patch.runAt = d.toISOString();
  }
  return { patch };
}

export function EditTaskButton({ task }: { task: StatusJson }) {
  const [open, setOpen] = useState(false);
  const operator = useCanOperate();
  const can = EDITABLE.includes(task.status);
  if (!operator) return null;
  return (
    <>
      <Button
        disabled={!can}
        onClick={() => setOpen(true)}
        data-testid="task-edit"
        title={
          can ? 'Change payload, queue, priority, run-at or max attempts' : 'Only a task that is not running and not finished can be edited'
        }
      >
        Edit
      </Button>
      {open && <EditTaskDialog task={task} onClose={() => setOpen(false)} />}
    </>
  );
}

export function EditTaskDialog({ task, onClose }: { task: StatusJson; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const [form, setForm] = useState<Form>(() => initial(task));
  const [problem, setProblem] = useState<{ field?: string; error: string } | null>(null);
  const save = useAction(editTask, {
    toastErrors: false,
    success: (r) => (r.result === 'retried' ? 'Task saved and queued for another attempt' : 'Task saved'),
  });
  const retryable = RETRYABLE.includes(task.status);

  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
  }, []);

  const submit = async (retry: boolean) => {
    const p = patchOf(task, form);
    if ('error' in p) return setProblem(p);
    if (Object.keys(p.patch).length === 0 && !retry) return setProblem({ error: 'nothing changed' });
    const r = await save.run(task.token, retry ? { ...p.patch, retry: true } : p.patch);
    if (r.ok) {
      if (r.result === 'retried') markRetried([task], r.at);
      else clearRetried(task.token);
      onClose();
    } else setProblem({ field: r.field, error: r.error });
  };

  const set = (k: keyof Form) => (e: { target: { value: string } }) => setForm((f) => ({ ...f, [k]: e.target.value }));
  const err = (k: keyof Form) =>
    problem?.field === k ? (
      <p className="mt-1 text-xs text-rose-700" data-testid={`edit-error-${k}`}>
        {problem.error}
      </p>
    ) : null;

  return (
    <dialog
      ref={ref}
      data-testid="edit-dialog"
      onClose={onClose}
      onCancel={(e) => {
        e.preventDefault();
        if (!save.busy) onClose();
      }}
      className="m-auto w-[min(36rem,calc(100vw-2rem))] rounded-lg p-0 shadow-xl"
    >
      <form
        className="space-y-3 p-5"
        onSubmit={(e) => {
          e.preventDefault();
          void submit(false);
        }}
      >
        <h2 className="text-base font-semibold text-slate-900">Edit task</h2>
        <p className="text-xs text-slate-500">
          <span className="font-mono">{task.command}</span> · {task.status} · the old values are kept in the audit trail.
        </p>
        <div>
          <label htmlFor="edit-payload" className={labelCls}>
            Payload (JSON)
          </label>
          <textarea
            id="edit-payload"
            data-testid="edit-payload"
            rows={7}
            className={`${inputCls} font-mono text-xs`}
            value={form.payload}
            onChange={set('payload')}
            spellCheck={false}
          />
          {err('payload')}
        </div>
        <div className="grid grid-cols-2 gap-3 sm:grid-cols-4">
          <div className="col-span-2">
            <label htmlFor="edit-queue" className={labelCls}>
              Queue
            </label>
            <input id="edit-queue" data-testid="edit-queue" className={inputCls} value={form.queue} onChange={set('queue')} />
            {err('queue')}
          </div>
          <div>
            <label htmlFor="edit-priority" className={labelCls}>
              Priority
            </label>
            <input
              id="edit-priority"
              data-testid="edit-priority"
              type="number"
              min={MIN_PRIORITY}
              max={MAX_PRIORITY}
              className={inputCls}
              value={form.priority}
              onChange={set('priority')}
            />
            {err('priority')}
          </div>
          <div>
            <label htmlFor="edit-max" className={labelCls}>
              Max attempts
            </label>
            <input
              id="edit-max"
              data-testid="edit-max-attempts"
              type="number"
              min={MIN_ATTEMPTS}
              max={MAX_ATTEMPTS}
              className={inputCls}
              value={form.maxAttempts}
              onChange={set('maxAttempts')}
            />
            {err('maxAttempts')}
          </div>
        </div>
        <div>
          <label htmlFor="edit-run-at" className={labelCls}>
            Run at ({Intl.DateTimeFormat().resolvedOptions().timeZone})
          </label>
          <input
            id="edit-run-at"
            data-testid="edit-run-at"
            type="datetime-local"
            className={inputCls}
            value={form.runAt}
            onChange={set('runAt')}
          />
          {err('runAt')}
        </div>
        {problem && !problem.field && (
          <p className="text-sm text-rose-700" data-testid="edit-error">
            {problem.error}
          </p>
        )}
        {problem?.field && !['payload', 'queue', 'priority', 'maxAttempts', 'runAt'].includes(problem.field) && (
          <p className="text-sm text-rose-700" data-testid="edit-error">
            {problem.field}: {problem.error}
          </p>
        )}
        <div className="flex justify-end gap-2 pt-2">
          <Button onClick={onClose} disabled={save.busy} data-testid="edit-cancel">
            Cancel
          </Button>
          <Button type="submit" variant={retryable ? 'secondary' : 'primary'} busy={save.busy} data-testid="edit-save">
            Save
          </Button>
          {retryable && (
            <Button variant="primary" busy={save.busy} onClick={() => void submit(true)} data-testid="edit-save-retry">
              Save and retry
            </Button>
          )}
        </div>
      </form>
    </dialog>
  );
}
