'use client';
// Send an event from the dashboard (operator): its name and JSON payload; every task waiting for that name whose
// match the payload contains resumes. Used on the Events page and on a task waiting for an event (prefilled).
import { useState } from 'react';
import { sendEvent } from '@/app/actions';
import { useAction } from '../useAction';
import { Button } from '../ui/Button';
import { FieldError } from '../ui/FieldError';

export function SendEventForm({
  name: initialName = '',
  payload: initialPayload = '',
  onSent,
  compact,
}: {
  name?: string;
  payload?: string;
  onSent?: (r: { id: number; resumed: number }) => void;
  compact?: boolean;
}) {
  const [name, setName] = useState(initialName);
  const [payload, setPayload] = useState(initialPayload);
  const [error, setError] = useState<{ field?: string; error: string } | null>(null);
  const send = useAction(sendEvent, {
    success: (r) => `Event #${r.id} sent: resumed ${r.resumed} task${r.resumed === 1 ? '' : 's'}`,
    toastErrors: false,
  });
  const input = 'w-full rounded-md border border-slate-300 bg-white px-2.5 py-1.5 text-sm text-slate-900 placeholder:text-slate-400';
  return (
    <form
      data-testid="send-event-form"
      className={compact ? 'space-y-3' : 'grid gap-3 p-4 sm:grid-cols-[minmax(0,16rem)_minmax(0,1fr)_auto] sm:items-start'}
      onSubmit={async (e) => {
        e.preventDefault();
        setError(null);
        const r = await send.run(name.trim(), payload);
        if (!r.ok) setError(r);
        else onSent?.(r);
      }}
    >
      <label className="block text-xs text-slate-500">
        Event name
        <input
          className={`${input} mt-1 font-mono`}
          name="event"
          placeholder="order.paid"
          value={name}
          onChange={(e) => setName(e.target.value)}
          data-testid="send-event-name"
        />
        <FieldError id="send-event-name-error">{error?.field === 'name' ? error.error : null}</FieldError>
      </label>
      <label className="block text-xs text-slate-500">
        Payload (JSON)
        <textarea
          className={`${input} mt-1 h-20 font-mono text-xs`}
          name="payload"
          placeholder='{"orderId": 42}'
          value={payload}
          onChange={(e) => setPayload(e.target.value)}
          data-testid="send-event-payload"
        />
        <FieldError id="send-event-payload-error">{error?.field === 'payload' ? error.error : null}</FieldError>
      </label>
      <div className={compact ? 'flex justify-end' : 'sm:pt-5'}>
        <Button type="submit" variant="primary" busy={send.busy} data-testid="send-event-submit">
          Send event
        </Button>
      </div>
      {error && error.field !== 'name' && error.field !== 'payload' && (
        <p className="text-sm text-rose-700 sm:col-span-3" role="alert">
          {error.error}
        </p>
      )}
    </form>
  );
}
