'use client';
// An attempt's output as a live tail: the handler's ctx.log lines, and on SQL Server a sql or procedure
// task's PRINT / RAISERROR output and error messages, polled with `after` (only new lines) every second
// while the task runs. Follows the end; scrolling up pauses that until the reader scrolls back down.
import { useCallback, useEffect, useRef, useState } from 'react';
import { fetchJson } from '../api';
import { useStoreInfo } from '../enqueue/storeInfo';
import { ProgressBar, type ProgressJson } from '../running/ProgressCell';
import { Card, CardHeader } from '../ui/Card';
import { cx } from '../ui/cx';
import { RelativeTime } from '../ui/Time';

/** `GET /api/tasks/{token}/logs` (lib/api/attempt-output.ts). */
export interface AttemptOutputJson {
  attempt: number;
  lines: { seq: number; at: string; stream: 'log' | 'error' | 'print'; line: string }[];
  truncated: boolean;
  dropped: number;
  progress: ProgressJson | null;
  next: number;
}

type Line = AttemptOutputJson['lines'][number];

/** What the tail keeps on screen (the store keeps no more per attempt). */
const MAX_SHOWN = 1000;
const POLL_MS = 1000;
/** Closer than this to the bottom counts as at the bottom (following). */
const STICKY_PX = 24;

const STREAM_CLASS: Record<Line['stream'], string> = {
  log: 'text-slate-100',
  print: 'text-sky-200',
  error: 'text-rose-300',
};

const clock = (iso: string) => {
  const d = new Date(iso);
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
};

export function LogTail({ task }: { task: { token: string; kind: string; status: string; attempts: number } }) {
  const dialect = useStoreInfo().data?.dialect;
  const mssql = dialect === 'mssql';
  const [chosen, setChosen] = useState<number | null>(null);
  const attempt = chosen ?? task.attempts;
  const [lines, setLines] = useState<Line[]>([]);
  const [meta, setMeta] = useState<Omit<AttemptOutputJson, 'lines'> | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [follow, setFollow] = useState(true);
  const box = useRef<HTMLDivElement>(null);
  const next = useRef(0);
  const live = task.status === 'running' || task.status === 'pending';

  const load = useCallback(
    async (signal?: AbortSignal) => {
      if (attempt < 1) return;
      const q = new URLSearchParams({ attempt: String(attempt), after: String(next.current) });
      try {
        const r = await fetchJson<AttemptOutputJson>(`/api/tasks/${encodeURIComponent(task.token)}/logs?${q}`, signal);
        if (r.attempt !== attempt) return;
        next.current = r.next;
        if (r.lines.length) {
          setLines((prev) => {
            const last = prev.at(-1)?.seq ?? 0;
            return [...prev, ...r.lines.filter((l) => l.seq > last)].slice(-MAX_SHOWN);
          });
        }
        const { lines: _l, ...rest } = r;
        setMeta(rest);
        setError(null);
      } catch (err) {
        if (!signal?.aborted) setError((err as Error).message);
      }
    },
    [attempt, task.token],
  );

  // a new attempt: start over
  useEffect(() => {
    next.current = 0;
    setLines([]);
    setMeta(null);
    setFollow(true);
  }, [attempt, task.token]);

  // read now (and once more when the task ends), then every second while it runs and the tab is visible
  useEffect(() => {
    const ac = new AbortController();
    void load(ac.signal);
    if (!live) return () => ac.abort();
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') void load(ac.signal);
    }, POLL_MS);
    return () => {
      ac.abort();
      clearInterval(timer);
    };
  }, [load, live]);

  // follow the end
  useEffect(() => {
    const el = box.current;
    if (el && follow) el.scrollTop = el.scrollHeight;
  }, [lines, follow]);

  const onScroll = () => {
    const el = box.current;
    if (!el) return;
    const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < STICKY_PX;
    setFollow(atBottom);
  };

  const noPrint = task.kind === 'sql' && dialect === 'sqlite';
  const hint =
    task.kind === 'handler'
      ? 'What the handler writes with ctx.log and reports with ctx.progress.'
      : mssql
        ? 'PRINT and RAISERROR … WITH NOWAIT output as it arrives; error messages in red.'
        : '';

  return (
    <Card testId="output-tail">
      <CardHeader
        title="Output"
        subtitle={
          <>
            {hint}
            {live && attempt === task.attempts && <span className="ml-1 text-emerald-700">Live.</span>}
          </>
        }
        actions={
          task.attempts > 1 ? (
            <label className="flex items-center gap-1.5 text-xs text-slate-500">
              attempt
              <select
                className="rounded border border-slate-300 bg-white px-1.5 py-0.5 text-xs text-slate-800"
                value={attempt}
                data-testid="output-attempt"
                onChange={(e) => setChosen(Number(e.target.value) === task.attempts ? null : Number(e.target.value))}
              >
                {Array.from({ length: task.attempts }, (_, i) => task.attempts - i).map((n) => (
                  <option key={n} value={n}>
                    {n}
                    {n === task.attempts ? ' (latest)' : ''}
                  </option>
                ))}
              </select>
            </label>
          ) : undefined
        }
      />
      {noPrint && (
        <p className="border-b border-slate-100 px-4 py-2 text-xs text-slate-500" data-testid="output-sqlite-note">
          SQLite has no PRINT: a sql task on SQLite records no output lines (on SQL Server its PRINT and RAISERROR messages appear here).
        </p>
      )}
      {meta?.progress && (
        <div className="border-b border-slate-100 px-4 py-3" data-testid="output-progress">
          <div className="mb-1 flex items-baseline justify-between gap-3 text-xs">
            <span
              className="min-w-0 truncate text-slate-700"
              title={`${Math.round(meta.progress.percent * 10) / 10}% ${meta.progress.message ?? ''}`}
            >
              <span className="tabular mr-2 font-semibold text-slate-900">{Math.round(meta.progress.percent * 10) / 10}%</span>
              {meta.progress.message}
            </span>
            <RelativeTime iso={meta.progress.at} className="shrink-0 text-slate-400" />
          </div>
          <ProgressBar percent={meta.progress.percent} />
        </div>
      )}
      <div className="relative">
        <div
          ref={box}
          onScroll={onScroll}
          className="max-h-96 min-h-24 overflow-auto bg-slate-900 px-3 py-2 font-mono text-xs leading-5"
          data-testid="output-lines"
          aria-live="polite"
        >
          {meta?.truncated && (
            <p className="text-amber-300" data-testid="output-truncated">
              … {meta.dropped.toLocaleString()} earlier line{meta.dropped === 1 ? '' : 's'} dropped (the last 1,000 lines / 256 KB of an
              attempt are kept)
            </p>
          )}
          {lines.length === 0 ? (
            <p className="text-slate-400" data-testid="output-empty">
              {attempt < 1
                ? 'Not started yet.'
                : noPrint
                  ? 'No output lines.'
                  : live
                    ? 'Waiting for output…'
                    : 'This attempt wrote no output.'}
            </p>
          ) : (
            lines.map((l) => (
              <div key={l.seq} className="flex gap-3 whitespace-pre-wrap break-all" data-testid="output-line" data-stream={l.stream}>
                <span className="shrink-0 select-none text-slate-500" title={l.at}>
                  {clock(l.at)}
                </span>
                <span className={cx('min-w-0', STREAM_CLASS[l.stream])}>{l.line}</span>
              </div>
            ))
          )}
          {error && <p className="text-rose-300">Could not read the output: {error}</p>}
        </div>
        {!follow && (
          <button
            type="button"
            data-testid="output-paused"
            className={cx(
              'absolute bottom-2 right-4 rounded-full bg-amber-400 px-3 py-1',
              'text-xs font-medium text-slate-900 shadow hover:bg-amber-300',
            )}
            onClick={() => setFollow(true)}
          >
            Paused — jump to the end
          </button>
        )}
      </div>
    </Card>
  );
}
