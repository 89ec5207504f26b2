import { describe, expect, it } from 'vitest';
import { buildTimeline, formatOffset } from './timeline';
import type { TimelineAttemptJson } from './types';

const T0 = Date.parse('2025-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();

function attempt(id: number, stage: number, start: number, end: number | null, outcome = 'succeeded'): TimelineAttemptJson {
  return {
    id,
    token: `00000000-0000-7000-8000-${String(id).padStart(12, '0')}`,
    queue: 'etl',
    command: 'demo.sleep',
    stage,
    attempt: 1,
    workerId: 'w1',
    session: 51,
    tokenNo: null,
    startedAt: at(start),
    endedAt: end === null ? null : at(end),
    outcome,
  };
}

describe('buildTimeline', () => {
  it('is empty without attempts', () => {
    const m = buildTimeline([], T0);
    expect(m.rows).toEqual([]);
    expect(m.stageStarts).toEqual([]);
  });

  it('draws one row per attempt, grouped by stage in start order, labelled on the first row of each stage', () => {
    const m = buildTimeline(
      [attempt(3, 1, 2500, 3000), attempt(1, 0, 200, 2000), attempt(2, 0, 0, 2400, 'failed'), attempt(4, 1, 2450, null, 'running')],
      T0 + 4000,
    );
    expect(m.mode).toBe('attempt');
    expect(m.t0).toBe(T0);
    expect(m.span).toBe(4000);
    expect(m.rows.map((r) => [r.key, r.label, r.stage, r.outcome])).toEqual([
      ['a2', 'stage 0', 0, 'failed'],
      ['a1', '', 0, 'succeeded'],
      ['a4', 'stage 1', 1, 'running'],
      ['a3', '', 1, 'succeeded'],
    ]);
    expect(m.rows[0]!.range).toEqual([0, 2400]);
    // a running attempt reaches to now
    expect(m.rows[2]!.range).toEqual([2450, 4000]);
    expect(m.stageStarts).toEqual([{ stage: 1, at: 2450 }]);
  });

  it('gives a zero-length attempt a visible width', () => {
    const m = buildTimeline([attempt(1, 0, 0, 3000), attempt(2, 1, 3000, 3000)], T0 + 3000);
    const [start, end] = m.rows[1]!.range;
    expect(start).toBe(3000);
    expect(end).toBeGreaterThan(start);
  });

  it('draws one row per stage and outcome above the limit, spanning those attempts', () => {
    const list = [
      attempt(1, 0, 0, 1000),
      attempt(2, 0, 100, 1500, 'failed'),
      attempt(5, 0, 200, 1200),
      attempt(3, 2, 1600, 2000),
      attempt(4, 2, 1700, null, 'running'),
    ];
    const m = buildTimeline(list, T0 + 2500, 3);
    expect(m.mode).toBe('stage');
    expect(m.rows.map((r) => [r.label, r.stage, r.outcome, r.count, r.range])).toEqual([
      ['stage 0', 0, 'succeeded', 2, [0, 1200]],
      ['', 0, 'failed', 1, [100, 1500]],
      ['stage 2', 2, 'succeeded', 1, [1600, 2000]],
      ['', 2, 'running', 1, [1700, 2500]],
    ]);
    expect(m.rows.every((r) => r.attempt === null)).toBe(true);
    expect(new Set(m.rows.map((r) => r.key)).size).toBe(m.rows.length);
  });
});

describe('formatOffset', () => {
  it('reads like a stopwatch', () => {
    expect(formatOffset(0)).toBe('0 s');
    expect(formatOffset(1500)).toBe('1.5 s');
    expect(formatOffset(2000)).toBe('2 s');
    expect(formatOffset(45_400)).toBe('45 s');
    expect(formatOffset(150_000)).toBe('2.5 min');
    expect(formatOffset(9_000_000)).toBe('2.5 h');
  });
});
