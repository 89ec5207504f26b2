'use client';
// A queue's concurrency limit, edited in place: a number, or unlimited; saved with setQueueLimit.
import { useCanOperate } from '../role';
import { useEffect, useId, useState } from 'react';
import { setQueueLimit } from '@/app/actions';
import { MAX_CONCURRENCY_LIMIT, MIN_CONCURRENCY_LIMIT } from '@/lib/engine/limits';
import { useAction } from '../useAction';
import { Button } from '../ui/Button';
import { cx } from '../ui/cx';
import { EditorNotes } from './EditorNotes';
import { limitText } from './types';

/** The limit a form value stands for, or an error message. */
export function parseLimit(value: string, unlimited: boolean): { ok: true; limit: number | null } | { ok: false; error: string } {
  if (unlimited) return { ok: true, limit: null };
  const v = value.trim();
  if (!/^\d+$/.test(v)) return { ok: false, error: `a whole number from ${MIN_CONCURRENCY_LIMIT} to ${MAX_CONCURRENCY_LIMIT}` };
  const n = Number(v);
  if (n < MIN_CONCURRENCY_LIMIT || n > MAX_CONCURRENCY_LIMIT) {
    return { ok: false, error: `from ${MIN_CONCURRENCY_LIMIT} to ${MAX_CONCURRENCY_LIMIT}` };
  }
  return { ok: true, limit: n };
}

function LimitEditorControl({ queue, limit }: { queue: string; limit: number | null }) {
  const id = useId();
  const [value, setValue] = useState(limit === null ? '' : String(limit));
  const [unlimited, setUnlimited] = useState(limit === null);
  const [dirty, setDirty] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (dirty) return;
    setValue(limit === null ? '' : String(limit));
    setUnlimited(limit === null);
  }, [limit, dirty]);

  const save = useAction(setQueueLimit, {
    success: (r) => `${queue}: limit ${limitText(limit)} → ${limitText(r.queue.concurrencyLimit)}`,
    toastErrors: false,
  });
  const parsed = parseLimit(value, unlimited);
  const changed = parsed.ok && parsed.limit !== limit;
  const reset = () => {
    setDirty(false);
    setError(null);
  };

  return (
    <form
      className="min-w-0"
      data-testid="limit-editor"
      onSubmit={async (e) => {
        e.preventDefault();
        if (!parsed.ok || !changed) return;
        setError(null);
        const r = await save.run(queue, parsed.limit);
        if (r.ok) reset();
        else setError(r.error);
      }}
    >
      <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
        <span className="flex items-center gap-2 whitespace-nowrap">
          <label htmlFor={`${id}-n`} className="sr-only">
            Concurrency limit of {queue}
          </label>
          <input
            id={`${id}-n`}
            data-testid="limit-input"
            type="number"
            inputMode="numeric"
            min={MIN_CONCURRENCY_LIMIT}
            max={MAX_CONCURRENCY_LIMIT}
            placeholder="∞"
            value={unlimited ? '' : value}
            disabled={unlimited}
            aria-invalid={!parsed.ok}
            onChange={(e) => {
              setValue(e.target.value);
              setDirty(true);
              setError(null);
            }}
            onKeyDown={(e) => {
              if (e.key === 'Escape') {
                reset();
                setValue(limit === null ? '' : String(limit));
                setUnlimited(limit === null);
              }
            }}
            className={cx(
              'tabular w-16 rounded-md border-0 bg-white px-2 py-1 text-right text-sm text-slate-900 shadow-xs ring-1 ' +
                'ring-inset focus:ring-2 focus:ring-brand-500 focus:outline-none disabled:bg-slate-50 disabled:text-slate-400',
              parsed.ok ? 'ring-slate-300' : 'ring-rose-400',
            )}
          />
          <label className="flex items-center gap-1 text-xs text-slate-600">
            <input
              type="checkbox"
              data-testid="limit-unlimited"
              checked={unlimited}
              onChange={(e) => {
                setUnlimited(e.target.checked);
                if (!e.target.checked && value === '') setValue(String(limit ?? 1));
                setDirty(true);
                setError(null);
              }}
              className="size-3.5 rounded border-slate-300 accent-brand-600"
            />
            unlimited
          </label>
        </span>
        {dirty && changed && (
          <Button type="submit" size="sm" variant="primary" busy={save.busy} data-testid="limit-save">
            Save
          </Button>
        )}
        {dirty && (
          <Button
            size="sm"
            variant="ghost"
            onClick={() => {
              reset();
              setValue(limit === null ? '' : String(limit));
              setUnlimited(limit === null);
            }}
          >
            Undo
          </Button>
        )}
      </div>
      <EditorNotes prefix="limit" invalid={!parsed.ok && dirty ? parsed.error : null} error={error} />
    </form>
  );
}

/** the operator's control; a viewer sees the value */
export function LimitEditor(props: { queue: string; limit: number | null }) {
  return useCanOperate() ? (
    <LimitEditorControl {...props} />
  ) : (
    <span className="font-mono text-xs text-slate-700">{props.limit === null ? 'unlimited' : props.limit}</span>
  );
}
