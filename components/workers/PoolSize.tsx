'use client';
// This process's pool size: set live, stored for this host (the pool starts with it after a restart).
// A shrink is confirmed with how many workers leave; they finish their task first ("n retiring").
import { useCanOperate } from '../role';
import { useEffect, useState } from 'react';
import { setPoolSize } from '@/app/actions';
import type { WorkersJson } from '../api';
import { MAX_DASHBOARD_WORKERS } from '@/lib/engine/limits';
import { useAction } from '../useAction';
import { Button } from '../ui/Button';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { RelativeTime } from '../ui/Time';

type Source = NonNullable<NonNullable<WorkersJson['pool']>['source']>;

const workers = (n: number) => `${n} worker${n === 1 ? '' : 's'}`;

function PoolSizeControl({ size, busy = 0, source }: { size: number; busy?: number; source?: Source }) {
  const [value, setValue] = useState(String(size));
  const [dirty, setDirty] = useState(false);
  const [confirming, setConfirming] = useState(false);
  useEffect(() => {
    if (!dirty) setValue(String(size));
  }, [size, dirty]);
  const apply = useAction(setPoolSize, {
    success: (r) => `Pool resized to ${workers(r.size)}${r.retiring ? ` (${r.retiring} retiring after their task)` : ''}`,
  });

  const n = Number(value);
  const valid = value.trim() !== '' && Number.isInteger(n) && n >= 0 && n <= MAX_DASHBOARD_WORKERS;
  const step = (d: number) => {
    const base = valid ? n : size;
    setValue(String(Math.min(MAX_DASHBOARD_WORKERS, Math.max(0, base + d))));
    setDirty(true);
  };
  const submit = async () => {
    const r = await apply.run(n);
    setConfirming(false);
    if (r.ok) {
      setDirty(false);
      setValue(String(r.size));
    }
  };
  const leaving = size - n;

  return (
    <div className="flex flex-col items-end gap-1">
      <form
        className="flex flex-wrap items-center gap-2"
        onSubmit={async (e) => {
          e.preventDefault();
          if (!valid) return;
          if (n < size) setConfirming(true);
          else await submit();
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
              'tabular w-16 border-x border-slate-200 bg-white py-1.5 text-center text-sm [appearance:textfield] ' +
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
          busy={apply.busy && !confirming}
          disabled={!valid || !dirty || n === size}
          data-testid="pool-size-apply"
        >
          Apply
        </Button>
        {!valid && <span className="text-xs text-rose-700">0 to {MAX_DASHBOARD_WORKERS}</span>}
        {valid && n === 0 && dirty && <span className="text-xs text-amber-700">0 stops this process&apos;s workers (dashboard only)</span>}
      </form>
      {source && (
        <p className="text-[11px] text-slate-500" data-testid="pool-size-source">
          {source.from === 'stored' ? (
            <>
              Kept across restarts · set by {source.by} <RelativeTime iso={source.at} />
            </>
          ) : (
            <>Starts with READPAST_WORKERS ({source.size}) until set here</>
          )}
        </p>
      )}
      <ConfirmDialog
        open={confirming}
        title={`Shrink the pool to ${workers(n)}?`}
        confirmLabel={`Retire ${workers(leaving)}`}
        busy={apply.busy}
        onConfirm={() => void submit()}
        onClose={() => setConfirming(false)}
      >
        {workers(leaving)} of {size} leave this process{busy > 0 ? '; a busy one finishes its current task first' : ''}. The size is kept
        for this host: the dashboard starts with {workers(n)} after a restart.
      </ConfirmDialog>
    </div>
  );
}

/** the operator's control; a viewer sees the value */
export function PoolSize(props: { size: number; busy?: number; source?: Source }) {
  return useCanOperate() ? (
    <PoolSizeControl {...props} />
  ) : (
    <span className="text-sm tabular-nums text-slate-700">{props.size} workers</span>
  );
}
