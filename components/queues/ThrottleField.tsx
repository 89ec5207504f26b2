'use client';
// One throttle setting of a queue edited in place, as the limit is: type, then Save (or Enter) or Undo
// (or Esc); checked while typing with the server's own rules, saved with setQueueThrottle, recorded with who.
import { useEffect, useId, useState } from 'react';
import { setQueueThrottle, type QueueThrottleChange } from '@/app/actions';
import { useCanOperate } from '../role';
import { useAction } from '../useAction';
import { Button } from '../ui/Button';
import { cx } from '../ui/cx';
import { EditorNotes } from './EditorNotes';
import type { QueueJson } from './types';

/** What a typed value stands for: what to send and how it reads back (`none` for no setting), or a problem. */
export type ThrottleParse = { ok: true; send: number | string | null; text: string } | { ok: false; error: string };

export interface ThrottleFieldSpec {
  field: keyof QueueThrottleChange;
  label: string;
  /** the setting of a queue as text, `none` when unset */
  textOf: (q: QueueJson) => string;
  parse: (typed: string) => ThrottleParse;
  placeholder: string;
  hint: string;
  numeric?: boolean;
}

const shown = (text: string) => (text === 'none' ? '' : text);

function ThrottleFieldControl({ q, spec }: { q: QueueJson; spec: ThrottleFieldSpec }) {
  const id = useId();
  const current = spec.textOf(q);
  const [value, setValue] = useState(shown(current));
  const [dirty, setDirty] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!dirty) setValue(shown(current));
  }, [current, dirty]);

  const save = useAction(setQueueThrottle, {
    success: (r) => `${q.name}: ${spec.label.toLowerCase()} ${current} → ${spec.textOf(r.queue)}`,
    toastErrors: false,
  });
  const parsed = spec.parse(value);
  const changed = parsed.ok && parsed.text !== current;
  const undo = () => {
    setDirty(false);
    setError(null);
    setValue(shown(current));
  };

  return (
    <form
      className="min-w-0"
      data-testid="throttle-field"
      data-field={spec.field}
      data-value={current}
      onSubmit={async (e) => {
        e.preventDefault();
        if (!parsed.ok || !changed) return;
        setError(null);
        const r = await save.run(q.name, { [spec.field]: parsed.send });
        if (r.ok) setDirty(false);
        else setError(r.error);
      }}
    >
      <label htmlFor={id} className="mb-1 block text-xs font-medium text-slate-700">
        {spec.label}
      </label>
      <div className="flex flex-wrap items-center gap-2">
        <input
          id={id}
          data-testid="throttle-input"
          inputMode={spec.numeric ? 'numeric' : 'text'}
          placeholder={spec.placeholder}
          value={value}
          aria-invalid={!parsed.ok}
          aria-describedby={`${id}-hint`}
          onChange={(e) => {
            setValue(e.target.value);
            setDirty(true);
            setError(null);
          }}
          onKeyDown={(e) => {
            if (e.key === 'Escape') undo();
          }}
          className={cx(
            'min-w-0 flex-1 rounded-md border-0 bg-white px-2 py-1 text-sm text-slate-900 shadow-xs ring-1 ring-inset ' +
              'focus:ring-2 focus:ring-brand-500 focus:outline-none',
            spec.numeric ? 'tabular max-w-24' : 'font-mono',
            parsed.ok ? 'ring-slate-300' : 'ring-rose-400',
          )}
        />
        {dirty && changed && (
          <Button type="submit" size="sm" variant="primary" busy={save.busy} data-testid="throttle-save">
            Save
          </Button>
        )}
        {dirty && (
          <Button size="sm" variant="ghost" onClick={undo} data-testid="throttle-undo">
            Undo
          </Button>
        )}
      </div>
      <p id={`${id}-hint`} className="mt-1 text-[11px] text-slate-500">
        {spec.hint}
      </p>
      <EditorNotes prefix="throttle" invalid={!parsed.ok && dirty ? parsed.error : null} error={error} />
    </form>
  );
}

/** the operator's control; a viewer sees the value */
export function ThrottleField(props: { q: QueueJson; spec: ThrottleFieldSpec }) {
  return useCanOperate() ? (
    <ThrottleFieldControl {...props} />
  ) : (
    <div data-testid="throttle-field" data-field={props.spec.field}>
      <p className="mb-1 text-xs font-medium text-slate-700">{props.spec.label}</p>
      <span className="font-mono text-xs text-slate-700" data-testid="throttle-value">
        {props.spec.textOf(props.q)}
      </span>
    </div>
  );
}
