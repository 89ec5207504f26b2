'use client';
// Every stage of one batch: a progress bar, its counts, when it started and ended.
import { Badge } from '../ui/Badge';
import { Elapsed, RelativeTime } from '../ui/Time';
import { cx } from '../ui/cx';
import { CountsLine, SegmentBar, stageState } from './StageBars';
import type { BatchJson } from './types';

const STATE_BADGE = {
  done: <Badge tone="green">done</Badge>,
  active: (
    <Badge tone="amber" dot pulse>
      active
    </Badge>
  ),
  waiting: <Badge tone="gray">waiting</Badge>,
} as const;

export function StageProgress({ batch }: { batch: BatchJson }) {
  return (
    <ol className="divide-y divide-slate-100" data-testid="stage-progress">
      {batch.stages.map((s) => {
        const state = stageState(batch, s);
        const done = s.succeeded + s.dead + s.cancelled;
        return (
          <li
            key={s.stage}
            className={cx('px-4 py-3', state === 'active' && 'bg-amber-50/40')}
            data-testid="stage-row"
            data-stage={s.stage}
            data-state={state}
          >
            <div className="mb-1.5 flex flex-wrap items-center gap-x-3 gap-y-1">
              <span className="text-sm font-semibold text-slate-900">Stage {s.stage}</span>
              {state === 'done' && s.dead > 0 ? (
                <Badge tone="red">done, {s.dead} dead</Badge>
              ) : state === 'done' && s.cancelled === s.total ? (
                <Badge tone="gray">cancelled</Badge>
              ) : (
                STATE_BADGE[state]
              )}
              <span className="tabular text-xs text-slate-500" data-testid="stage-done">
                {done} / {s.total} done
              </span>
              <span className="ml-auto flex flex-wrap items-center gap-x-2 text-xs text-slate-500">
                {s.firstStartedAt ? (
                  <>
                    <span>
                      started <RelativeTime iso={s.firstStartedAt} />
                    </span>
                    <span>·</span>
                    <span>
                      {state === 'done' ? 'took' : 'running for'}{' '}
                      <Elapsed from={s.firstStartedAt} to={state === 'done' ? s.lastEndedAt : null} />
                    </span>
                  </>
                ) : (
                  <span>not started</span>
                )}
              </span>
            </div>
            <SegmentBar c={s} className="h-3" testId="stage-bar" />
            <CountsLine c={s} className="mt-1.5" />
          </li>
        );
      })}
    </ol>
  );
}
