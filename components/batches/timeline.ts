// The batch timeline's rows: one per attempt (grouped by stage, in start order), or, when there are
// too many attempts to draw one by one, one per stage and outcome spanning those attempts. Times are
// milliseconds since the first start.
import type { TimelineAttemptJson } from './types';

/** Above this many attempts the chart draws one row per stage and outcome. */
export const PER_ATTEMPT_MAX = 120;

export const OUTCOME_COLOR: Record<string, string> = {
  running: '#f59e0b',
  succeeded: '#10b981',
  failed: '#f43f5e',
  timed_out: '#be123c',
  abandoned: '#8b5cf6',
  cancelled: '#94a3b8',
};

export interface TimelineRow {
  key: string;
  label: string;
  stage: number;
  /** [start, end] in ms since the first start */
  range: [number, number];
  outcome: string;
  /** per attempt */
  attempt: TimelineAttemptJson | null;
  /** attempts drawn by this row */
  count: number;
}

export interface TimelineModel {
  mode: 'attempt' | 'stage';
  rows: TimelineRow[];
  /** epoch ms of the first start */
  t0: number;
  /** ms from t0 to the last end (or now, while something runs) */
  span: number;
  /** when each stage after the first began, in ms since t0 */
  stageStarts: { stage: number; at: number }[];
}

/** The order of a stage's outcome rows when attempts are drawn per stage. */
export const OUTCOME_ORDER = ['succeeded', 'running', 'failed', 'timed_out', 'abandoned', 'cancelled'];

export function buildTimeline(attempts: TimelineAttemptJson[], now: number, max = PER_ATTEMPT_MAX): TimelineModel {
  const parsed = attempts.map((a) => {
    const start = Date.parse(a.startedAt);
    const end = a.endedAt ? Date.parse(a.endedAt) : Math.max(now, start);
    return { a, stage: a.stage ?? 0, start, end };
  });
  if (parsed.length === 0) return { mode: 'attempt', rows: [], t0: now, span: 0, stageStarts: [] };

  const t0 = Math.min(...parsed.map((p) => p.start));
  const span = Math.max(1, Math.max(...parsed.map((p) => p.end)) - t0);
  // a bar of a zero-length attempt still shows
  const minWidth = span / 300;
  const range = (start: number, end: number): [number, number] => [start - t0, Math.max(end - t0, start - t0 + minWidth)];

  const byStage = new Map<number, typeof parsed>();
  for (const p of parsed) {
    const list = byStage.get(p.stage) ?? [];
    list.push(p);
    byStage.set(p.stage, list);
  }
  const stages = [...byStage.keys()].sort((x, y) => x - y);
  const stageStarts = stages.slice(1).map((stage) => ({ stage, at: Math.min(...byStage.get(stage)!.map((p) => p.start)) - t0 }));

  if (parsed.length > max) {
    // per stage, one row per outcome: from the first start to the last end of the attempts that ended so
    const rows: TimelineRow[] = [];
    for (const stage of stages) {
      const list = byStage.get(stage)!;
      const outcomes = OUTCOME_ORDER.filter((o) => list.some((p) => p.a.outcome === o));
      for (const o of new Set(list.map((p) => p.a.outcome))) if (!outcomes.includes(o)) outcomes.push(o);
      outcomes.forEach((outcome, i) => {
        const of = list.filter((p) => p.a.outcome === outcome);
        rows.push({
          key: `s${stage}-${outcome}`,
          label: i === 0 ? `stage ${stage}` : '',
          stage,
          range: range(Math.min(...of.map((p) => p.start)), Math.max(...of.map((p) => p.end))),
          outcome,
          attempt: null,
          count: of.length,
        });
      });
    }
    return { mode: 'stage', rows, t0, span, stageStarts };
  }

  const rows: TimelineRow[] = [];
  for (const stage of stages) {
    const list = [...byStage.get(stage)!].sort((x, y) => x.start - y.start || x.a.id - y.a.id);
    list.forEach((p, i) => {
      rows.push({
        key: `a${p.a.id}`,
        label: i === 0 ? `stage ${stage}` : '',
        stage,
        range: range(p.start, p.end),
        outcome: p.a.outcome,
        attempt: p.a,
        count: 1,
      });
    });
  }
  return { mode: 'attempt', rows, t0, span, stageStarts };
}

/** Axis ticks: "0 s", "1.5 s", "12 s", "2 min". */
export function formatOffset(ms: number): string {
  if (ms <= 0) return '0 s';
  if (ms < 10_000) return `${Number((ms / 1000).toFixed(1))} s`;
  if (ms < 120_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 7_200_000) return `${Number((ms / 60_000).toFixed(1))} min`;
  return `${Number((ms / 3_600_000).toFixed(1))} h`;
}
