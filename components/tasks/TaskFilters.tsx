'use client';
// The Tasks page's filters: queue and times apply at once; text fields (command, key, search, priority,
// payload) apply with Enter or "Apply".
import { useEffect, useState } from 'react';
import { isoToLocalInput, localInputToIso } from '../format';
import { inputCls, labelCls } from '../log/LogFilters';
import { Button } from '../ui/Button';
import { FILTER_KEYS, joinPayload, splitPayload, type Filters } from './tabs';

interface Draft {
  command: string;
  key: string;
  batch: string;
  priorityMin: string;
  priorityMax: string;
  q: string;
  path: string;
  op: 'eq' | 'contains';
  value: string;
}

function draftOf(v: Filters): Draft {
  const p = splitPayload(v.payload);
  return {
    command: v.command,
    key: v.key,
    batch: v.batch,
    priorityMin: v.priorityMin,
    priorityMax: v.priorityMax,
    q: v.q,
    path: p.path,
    op: p.op,
    value: p.value,
  };
}

export function TaskFilters({
  value,
  queues,
  timeColumn,
  onChange,
}: {
  value: Filters;
  queues: string[];
  /** what from/to compare: `finished` on the terminal tabs, `created` otherwise */
  timeColumn: 'created' | 'finished';
  onChange: (next: Partial<Filters>) => void;
}) {
  const [d, setD] = useState<Draft>(() => draftOf(value));
  const key = FILTER_KEYS.map((k) => value[k]).join('\u0000');
  // keep the boxes in step when the URL changes (back/forward, "clear", a tab)
  // biome-ignore lint/correctness/useExhaustiveDependencies: the key stands for the value
  useEffect(() => setD(draftOf(value)), [key]);
  const set = (patch: Partial<Draft>) => setD((x) => ({ ...x, ...patch }));
  const apply = () =>
    onChange({
      command: d.command.trim(),
      key: d.key,
      batch: d.batch.trim(),
      priorityMin: d.priorityMin.trim(),
      priorityMax: d.priorityMax.trim(),
      q: d.q.trim(),
      payload: joinPayload(d.path, d.op, d.value),
    });
  const active = FILTER_KEYS.some((k) => value[k]);
  const queueOptions = value.queue && !queues.includes(value.queue) ? [value.queue, ...queues] : queues;

  return (
    <form
      role="search"
      data-testid="task-filters"
      className="grid grid-cols-2 gap-3 border-b border-slate-100 p-4 lg:grid-cols-12"
      onSubmit={(e) => {
        e.preventDefault();
        apply();
      }}
    >
      <div className="lg:col-span-2">
        <label htmlFor="tf-queue" className={labelCls}>
          Queue
        </label>
        <select
          id="tf-queue"
          data-testid="tasks-filter-queue"
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
        <label htmlFor="tf-command" className={labelCls}>
          Command
        </label>
        <input
          id="tf-command"
          data-testid="tasks-filter-command"
          className={inputCls}
          placeholder="exact handler or procedure name"
          value={d.command}
          onChange={(e) => set({ command: e.target.value })}
        />
      </div>
      <div className="lg:col-span-2">
        <label htmlFor="tf-key" className={labelCls}>
          Key
        </label>
        <input
          id="tf-key"
          data-testid="tasks-filter-key"
          className={`${inputCls} font-mono`}
          placeholder="concurrency key"
          title="exact concurrency key (given at enqueue, or found by the queue's keyFrom)"
          value={d.key}
          onChange={(e) => set({ key: e.target.value })}
        />
      </div>
      <div className="lg:col-span-1">
        <label htmlFor="tf-batch" className={labelCls}>
          Batch
        </label>
        <input
          id="tf-batch"
          data-testid="tasks-filter-batch"
          inputMode="numeric"
          className={inputCls}
          placeholder="id"
          value={d.batch}
          onChange={(e) => set({ batch: e.target.value })}
        />
      </div>
      <div className="lg:col-span-2">
        <span className={labelCls}>Priority</span>
        <div className="flex items-center gap-1">
          <input
            aria-label="Priority at least"
            data-testid="tasks-filter-pmin"
            inputMode="numeric"
            className={inputCls}
            placeholder="min"
            value={d.priorityMin}
            onChange={(e) => set({ priorityMin: e.target.value })}
          />
          <span className="text-slate-400">–</span>
          <input
            aria-label="Priority at most"
            data-testid="tasks-filter-pmax"
            inputMode="numeric"
            className={inputCls}
            placeholder="max"
            value={d.priorityMax}
            onChange={(e) => set({ priorityMax: e.target.value })}
          />
        </div>
      </div>
      <div className="col-span-2 lg:col-span-3">
        <label htmlFor="tf-q" className={labelCls}>
          Search
        </label>
        <input
          id="tf-q"
          data-testid="tasks-filter-text"
          type="search"
          className={inputCls}
          placeholder="token, or text in command, error or dedup key"
          value={d.q}
          onChange={(e) => set({ q: e.target.value })}
        />
      </div>
      <div className="col-span-2 lg:col-span-4">
        <span className={labelCls}>Payload</span>
        <div className="grid grid-cols-[minmax(0,1.4fr)_6.5rem_minmax(0,1fr)] items-center gap-1">
          <input
            aria-label="Payload JSON path"
            data-testid="tasks-filter-payload-path"
            className={`${inputCls} font-mono`}
            placeholder="customer.id"
            value={d.path}
            onChange={(e) => set({ path: e.target.value })}
          />
          <select
            aria-label="Payload comparison"
            data-testid="tasks-filter-payload-op"
            className={inputCls}
            value={d.op}
            onChange={(e) => set({ op: e.target.value === 'contains' ? 'contains' : 'eq' })}
          >
            <option value="eq">equals</option>
            <option value="contains">contains</option>
          </select>
          <input
            aria-label="Payload value"
            data-testid="tasks-filter-payload-value"
            className={`${inputCls} font-mono`}
            placeholder="42"
            value={d.value}
            onChange={(e) => set({ value: e.target.value })}
          />
        </div>
      </div>
      <div className="lg:col-span-3">
        <label htmlFor="tf-from" className={labelCls}>
          {timeColumn === 'finished' ? 'Finished from' : 'Created from'}
        </label>
        <input
          id="tf-from"
          data-testid="tasks-filter-from"
          type="datetime-local"
          step={1}
          className={inputCls}
          value={isoToLocalInput(value.from)}
          onChange={(e) => onChange({ from: localInputToIso(e.target.value) ?? '' })}
        />
      </div>
      <div className="lg:col-span-3">
        <label htmlFor="tf-to" className={labelCls}>
          {timeColumn === 'finished' ? 'Finished to' : 'Created to'}
        </label>
        <input
          id="tf-to"
          data-testid="tasks-filter-to"
          type="datetime-local"
          step={1}
          className={inputCls}
          value={isoToLocalInput(value.to)}
          onChange={(e) => onChange({ to: localInputToIso(e.target.value) ?? '' })}
        />
      </div>
      <div className="col-span-2 flex items-end justify-end gap-2 lg:col-span-2 lg:pb-0.5">
        {active && (
          <Button
            size="sm"
            variant="ghost"
            data-testid="tasks-filter-clear"
            onClick={() => onChange(Object.fromEntries(FILTER_KEYS.map((k) => [k, ''])) as Partial<Filters>)}
          >
            Clear
          </Button>
        )}
        <Button size="sm" type="submit" variant="primary" data-testid="tasks-filter-apply">
          Apply
        </Button>
      </div>
    </form>
  );
}
