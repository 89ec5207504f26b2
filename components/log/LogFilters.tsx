'use client';
import { useEffect, useState } from 'react';
import { inputToIso, isoToInput, zoneLabel, type TimeMode } from './time';
import { useIsDesktop } from '../live';
import { Button } from '../ui/Button';

export const OUTCOME_OPTIONS = ['running', 'succeeded', 'failed', 'timed_out', 'abandoned', 'cancelled'] as const;

export interface LogFilter {
  outcome: string;
  queue: string;
  batch: string;
  q: string;
  from: string;
  to: string;
}

export const inputCls =
  'block w-full rounded-md border-0 bg-white px-2.5 py-1.5 text-sm text-slate-900 shadow-xs ring-1 ring-inset ' +
  'ring-slate-300 placeholder:text-slate-400 focus:ring-2 focus:ring-brand-500 focus:outline-none';
export const labelCls = 'mb-1 block text-xs font-medium text-slate-600';

export function LogFilters({
  value,
  queues,
  onChange,
  timeMode = 'local',
}: {
  value: LogFilter;
  queues: string[];
  onChange: (next: Partial<LogFilter>) => void;
  /** the zone the range pickers are read and shown in */
  timeMode?: TimeMode;
}) {
  const zone = zoneLabel(timeMode);
  const [text, setText] = useState(value.q);
  // keep the box in step when the URL changes (back/forward, "clear")
  useEffect(() => setText(value.q), [value.q]);
  useEffect(() => {
    if (text === value.q) return;
    const t = setTimeout(() => onChange({ q: text }), 300);
    return () => clearTimeout(t);
  }, [text, value.q, onChange]);

  const active = value.outcome || value.queue || value.batch || value.q || value.from || value.to;
  const activeCount = [value.outcome, value.queue, value.batch, value.q, value.from, value.to].filter(Boolean).length;
  const desktop = useIsDesktop();
  const [open, setOpen] = useState(false);

  if (!desktop && !open) {
    return (
      <div className="flex items-center justify-between gap-2 border-b border-slate-100 px-4 py-3">
        <span className="text-sm text-slate-600">
          {activeCount ? `${activeCount} filter${activeCount === 1 ? '' : 's'} on` : 'All attempts'}
        </span>
        <Button size="sm" onClick={() => setOpen(true)} data-testid="filters-toggle">
          Filters{activeCount ? ` (${activeCount})` : ''}
        </Button>
      </div>
    );
  }
  const queueOptions = value.queue && !queues.includes(value.queue) ? [value.queue, ...queues] : queues;

  return (
    <form
      role="search"
      className="grid grid-cols-2 gap-3 border-b border-slate-100 p-4 lg:grid-cols-12"
      onSubmit={(e) => {
        e.preventDefault();
        onChange({ q: text });
      }}
    >
      <div className="lg:col-span-2">
        <label htmlFor="f-outcome" className={labelCls}>
          Outcome
        </label>
        <select
          id="f-outcome"
          data-testid="filter-outcome"
          className={inputCls}
          value={value.outcome}
          onChange={(e) => onChange({ outcome: e.target.value })}
        >
          <option value="">any</option>
          {OUTCOME_OPTIONS.map((o) => (
            <option key={o} value={o}>
              {o.replace('_', ' ')}
            </option>
          ))}
        </select>
      </div>
      <div className="lg:col-span-2">
        <label htmlFor="f-queue" className={labelCls}>
          Queue
        </label>
        <select
          id="f-queue"
          data-testid="filter-queue"
          className={inputCls}
          value={value.queue}
          onChange={(e) => onChange({ queue: e.target.value })}
        >
          <option value="">all</option>
          {queueOptions.map((q) => (
            <option key={q} value={q}>
              {q}
            </option>
          ))}
        </select>
      </div>
      <div className="lg:col-span-2">
        <label htmlFor="f-batch" className={labelCls}>
          Batch
        </label>
        <input
          id="f-batch"
          data-testid="filter-batch"
          type="number"
          min={1}
          inputMode="numeric"
          className={inputCls}
          placeholder="id"
          value={value.batch}
          onChange={(e) => onChange({ batch: /^\d*$/.test(e.target.value) ? e.target.value : value.batch })}
        />
      </div>
      <div className="lg:col-span-6">
        <label htmlFor="f-q" className={labelCls}>
          Search
        </label>
        <input
          id="f-q"
          data-testid="filter-text"
          type="search"
          className={inputCls}
          placeholder="text in command or error"
          value={text}
          onChange={(e) => setText(e.target.value)}
        />
      </div>
      <div className="col-span-2 sm:col-span-1 lg:col-span-3">
        <label htmlFor="f-from" className={labelCls}>
          From{' '}
          <span className="font-normal text-slate-400" data-testid="filter-from-zone" suppressHydrationWarning>
            ({zone})
          </span>
        </label>
        <input
          id="f-from"
          data-testid="filter-from"
          type="datetime-local"
          step={1}
          className={inputCls}
          value={isoToInput(value.from, timeMode)}
          onChange={(e) => onChange({ from: inputToIso(e.target.value, timeMode) ?? '' })}
        />
      </div>
      <div className="col-span-2 sm:col-span-1 lg:col-span-3">
        <label htmlFor="f-to" className={labelCls}>
          To{' '}
          <span className="font-normal text-slate-400" data-testid="filter-to-zone" suppressHydrationWarning>
            ({zone})
          </span>
        </label>
        <input
          id="f-to"
          data-testid="filter-to"
          type="datetime-local"
          step={1}
          className={inputCls}
          value={isoToInput(value.to, timeMode)}
          onChange={(e) => onChange({ to: inputToIso(e.target.value, timeMode) ?? '' })}
        />
      </div>
      {(active || !desktop) && (
        <div className="col-span-2 flex items-end justify-between lg:col-span-6 lg:pb-0.5">
          {active ? (
            <Button
              size="sm"
              variant="ghost"
              onClick={() => {
                setText('');
                onChange({ outcome: '', queue: '', batch: '', q: '', from: '', to: '' });
              }}
            >
              Clear filters
            </Button>
          ) : (
            <span />
          )}
          {!desktop && (
            <Button size="sm" onClick={() => setOpen(false)}>
              Done
            </Button>
          )}
        </div>
      )}
    </form>
  );
}
