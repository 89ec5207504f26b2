'use client';
import { useEffect, useState } from 'react';
import { setPoolSize } from '@/app/actions';
import { MAX_DASHBOARD_WORKERS } from '@/lib/engine/limits';
import { useAction } from '../useAction';
import { Button } from '../ui/Button';

export function PoolSize({ size }: { size: number }) {
  const [value, setValue] = useState(String(size));
  const [dirty, setDirty] = useState(false);
  useEffect(() => {
    if (!dirty) setValue(String(size));
  }, [size, dirty]);
  const apply = useAction(setPoolSize, { success: (r) => `Pool resized to ${r.size} worker${r.size === 1 ? '' : 's'}` });

  const n = Number(value);
  const valid = value.trim() !== '' && Number.isInteger(n) && n >= 0 && n <= MAX_DASHBOARD_WORKERS;
  const step = (d: number) => {
    const base = valid ? n : size;
    setValue(String(Math.min(MAX_DASHBOARD_WORKERS, Math.max(0, base + d))));
    setDirty(true);
  };

  return (
    <form
      className="flex flex-wrap items-center gap-2"
      onSubmit={async (e) => {
        e.preventDefault();
        if (!valid) return;
        const r = await apply.run(n);
        if (r.ok) {
          setDirty(false);
          setValue(String(r.size));
        }
      }}
    >
      <label htmlFor="pool-size" className="text-sm text-slate-600">
        Pool size
      </label>
      <div className="flex items-stretch overflow-hidden rounded-md shadow-xs ring-1 ring-slate-300">
        <button type="button" aria-label="One fewer worker" className="px-2.5 text-slate-600 hover:bg-slate-100" onClick={() => step(-1)}>
          −
        </button>
        <input
          id="pool-size"
          data-testid="pool-size-input"
          inputMode="numeric"
          type="number"
          min={0}
          max={MAX_DASHBOARD_WORKERS}
          value={value}
          aria-invalid={!valid}
          onChange={(e) => {
            setValue(e.target.value);
            setDirty(true);
          }}
          className={
            'tabular w-16 border-x border-slate-200 py-1.5 text-center text-sm [appearance:textfield] ' +
            'focus:outline-none [&::-webkit-inner-spin-button]:appearance-none'
          }
        />
        <button type="button" aria-label="One more worker" className="px-2.5 text-slate-600 hover:bg-slate-100" onClick={() => step(1)}>
          +
        </button>
      </div>
      <Button
        type="submit"
        variant="primary"
        size="sm"
        busy={apply.busy}
        disabled={!valid || !dirty || n === size}
        data-testid="pool-size-apply"
      >
        Apply
      </Button>
      {!valid && <span className="text-xs text-rose-700">0 to {MAX_DASHBOARD_WORKERS}</span>}
      {valid && n === 0 && dirty && <span className="text-xs text-amber-700">0 stops this process&apos;s workers (dashboard only)</span>}
    </form>
  );
}
