// Running versus limit: one slot per token for small limits, a bar for large ones, a plain count when unlimited.
import { formatNumber } from '../format';
import { cx } from '../ui/cx';

const MAX_SLOTS = 16;

export function Gauge({ running, limit, paused }: { running: number; limit: number | null; paused: boolean }) {
  if (limit === null) {
    return (
      <div data-testid="queue-gauge" data-running={running} className="flex items-center gap-2 whitespace-nowrap text-xs">
        <span className="tabular font-semibold text-slate-900" data-testid="gauge-text">
          {formatNumber(running)} running
        </span>
        <span className="rounded bg-slate-100 px-1.5 py-0.5 text-[11px] font-medium text-slate-500">unlimited</span>
      </div>
    );
  }
  const over = Math.max(0, running - limit);
  const full = running >= limit;
  const slots = Math.max(limit, running);
  const title =
    over > 0
      ? `${running} running, ${over} over the limit of ${limit}: they finish, and nothing new starts until fewer than ${limit} run`
      : `${running} of ${limit} tokens in use`;
  const why = paused ? `${title}; paused: nothing new starts` : full && over === 0 ? `${title}; pending tasks wait for a token` : title;
  return (
    <div data-testid="queue-gauge" data-running={running} data-limit={limit} className="min-w-0 space-y-1" title={why}>
      <div className="flex items-baseline gap-1.5 whitespace-nowrap text-xs">
        <span
          className={cx('tabular font-semibold', over > 0 ? 'text-rose-700' : full ? 'text-amber-700' : 'text-slate-900')}
          data-testid="gauge-text"
        >
          {formatNumber(running)} / {formatNumber(limit)}
        </span>
        <span className="text-slate-500">{over > 0 ? 'over limit' : full ? 'full' : 'running'}</span>
      </div>
      {slots <= MAX_SLOTS ? (
        <div className="flex gap-0.5" aria-hidden>
          {Array.from({ length: slots }, (_, i) => (
            <span
              key={i}
              className={cx('h-2.5 w-3 rounded-[3px]', i >= limit ? 'bg-rose-400' : i < running ? 'bg-amber-400' : 'bg-slate-200')}
            />
          ))}
        </div>
      ) : (
        <div className="relative h-2.5 w-40 max-w-full overflow-hidden rounded-full bg-slate-200" aria-hidden>
          <div
            className={cx('h-full rounded-full', over > 0 ? 'bg-rose-400' : 'bg-amber-400')}
            style={{ width: `${Math.min(100, (running / limit) * 100)}%` }}
          />
        </div>
      )}
    </div>
  );
}
