'use client';
import { useEffect, useState } from 'react';
import { isoToLocalInput, localInputToIso } from '../format';
import { Button } from '../ui/Button';

export const OUTCOME_OPTIONS = ['running', 'succeeded', 'failed', 'timed_out', 'abandoned', 'cancelled'] as const;

export interface LogFilter {
  outcome: string;
  queue: string;
  q: string;
  from: string;
  to: string;
}

export const inputCls =
  'block w-full rounded-md border-0 bg-white px-2.5 py-1.5 text-sm text-slate-900 shadow-xs ring-1 ring-inset ring-slate-300 placeholder:text-slate-400 focus:ring-2 focus:ring-brand-500 focus:outline-none';
export const labelCls = 'mb-1 block text-xs font-medium text-slate-600';

export function LogFilters({ value, queues, onChange }: { value: LogFilter; queues: string[]; onChange: (next: Partial<LogFilter>) => void }) {
  const [text, setText] = useState(value.q);
  // keep the box in step when the URL changes (back/forward, "clear")
  useEffect(() => setText(value.q), [value.q]);
  useEffect(() => {
    if (text === value.q) return;
    const t = setTimeout(() => onChange({ q: text }), 300);
    return () => clearTimeout(t);
  }, [text, value.q, onChange]);

  const active = value.outcome || value.queue || value.q || value.from || value.to;
  const queueOptions = value.queue && !queues.includes(value.queue) ? [value.queue, ...queues] : queues;

  return (
    <form role="search" className="grid grid-cols-2 gap-3 border-b border-slate-100 p-4 md:grid-cols-6" onSubmit={(e) => { e.preventDefault(); onChange({ q: text }); }}>
      <div>
        <label htmlFor="f-outcome" className={labelCls}>Outcome</label>
        <select id="f-outcome" data-testid="filter-outcome" className={inputCls} value={value.outcome} onChange={(e) => onChange({ outcome: e.target.value })}>
          <option value="">any</option>
          {OUTCOME_OPTIONS.map((o) => <option key={o} value={o}>{o.replace('_', ' ')}</option>)}
        </select>
      </div>
      <div>
        <label htmlFor="f-queue" className={labelCls}>Queue</label>
        <select id="f-queue" data-testid="filter-queue" className={inputCls} value={value.queue} onChange={(e) => onChange({ queue: e.target.value })}>
          <option value="">all</option>
          {queueOptions.map((q) => <option key={q} value={q}>{q}</option>)}
        </select>
      </div>
      <div className="col-span-2">
        <label htmlFor="f-q" className={labelCls}>Command or error contains</label>
        <input id="f-q" data-testid="filter-text" type="search" className={inputCls} placeholder="demo.sleep, timeout, 50000…" value={text} onChange={(e) => setText(e.target.value)} />
      </div>
      <div>
        <label htmlFor="f-from" className={labelCls}>From</label>
        <input id="f-from" data-testid="filter-from" type="datetime-local" step={1} className={inputCls} value={isoToLocalInput(value.from)} onChange={(e) => onChange({ from: localInputToIso(e.target.value) ?? '' })} />
      </div>
      <div>
        <label htmlFor="f-to" className={labelCls}>To</label>
        <input id="f-to" data-testid="filter-to" type="datetime-local" step={1} className={inputCls} value={isoToLocalInput(value.to)} onChange={(e) => onChange({ to: localInputToIso(e.target.value) ?? '' })} />
      </div>
      {active && (
        <div className="col-span-2 flex items-center md:col-span-6">
          <Button size="sm" variant="ghost" onClick={() => { setText(''); onChange({ outcome: '', queue: '', q: '', from: '', to: '' }); }}>
            Clear filters
          </Button>
        </div>
      )}
    </form>
  );
}
