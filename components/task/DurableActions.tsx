'use client';
// A suspended durable task's operator actions: wake it now (its sleep or wait returns null), and — waiting for an
// event — send that event, prefilled with the event's name and the payload its match asks for.
import { useEffect, useRef, useState } from 'react';
import { wakeTask } from '@/app/actions';
import type { StepJson } from '@/lib/api/present';
import type { StatusJson } from '../api';
import { SendEventForm } from '../events/SendEventForm';
import { useLive } from '../live';
import { useAction } from '../useAction';
import { Button } from '../ui/Button';

function SendEventDialog({ step, onClose }: { step: StepJson | undefined; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    if (ref.current && !ref.current.open) ref.current.showModal();
  }, []);
  return (
    <dialog
      ref={ref}
      onClose={onClose}
      data-testid="send-event-dialog"
      className="m-auto w-[min(32rem,calc(100vw-2rem))] rounded-lg p-0 text-left shadow-xl"
    >
      <div className="p-5">
        <h2 className="text-base font-semibold text-slate-900">Send an event</h2>
        <p className="mt-1 mb-4 text-sm text-slate-600">
          Every task waiting for this event whose match the payload contains resumes with the payload — this one, and any other.
        </p>
        <SendEventForm
          compact
          name={step?.event ?? ''}
          payload={step?.match && Object.keys(step.match).length ? JSON.stringify(step.match, null, 2) : ''}
          onSent={() => ref.current?.close()}
        />
        <div className="mt-3 flex justify-start">
          <Button variant="ghost" size="sm" onClick={() => ref.current?.close()}>
            Close
          </Button>
        </div>
      </div>
    </dialog>
  );
}

export function DurableActions({ task }: { task: StatusJson }) {
  const [sending, setSending] = useState(false);
  const wake = useAction(wakeTask, {
    success: () => (task.suspended === 'sleep' ? 'Woken: it runs again now' : 'Stopped waiting: it runs again now'),
  });
  const steps = useLive<StepJson[]>(['steps', task.token], `/api/tasks/${encodeURIComponent(task.token)}/steps`, {
    enabled: task.suspended === 'event',
  });
  if (!task.suspended) return null;
  const waitingStep = steps.data?.findLast((s) => s.status === 'waiting');
  return (
    <>
      <Button
        onClick={() => void wake.run(task.token)}
        busy={wake.busy}
        data-testid="task-wake"
        title={
          task.suspended === 'sleep'
            ? 'End the sleep now: the task runs again'
            : 'Stop waiting: the wait returns null and the task runs again'
        }
      >
        {task.suspended === 'sleep' ? 'Wake now' : 'Stop waiting'}
      </Button>
      {task.suspended === 'event' && (
        <Button variant="primary" onClick={() => setSending(true)} data-testid="task-send-event">
          Send event
        </Button>
      )}
      {sending && <SendEventDialog step={waitingStep} onClose={() => setSending(false)} />}
    </>
  );
}
