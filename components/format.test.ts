import { describe, expect, it } from 'vitest';
import { bucketPoints } from './overview/Charts';
import { checkInt, checkJson } from './enqueue/fields';
import { formatAge, formatDuration, formatRelative, isoToLocalInput, localInputToIso, shortToken } from './format';

describe('formatDuration', () => {
  it('picks a unit that reads well', () => {
    expect(formatDuration(850)).toBe('850 ms');
    expect(formatDuration(1234)).toBe('1.2 s');
    expect(formatDuration(42_900)).toBe('42 s');
    expect(formatDuration(245_000)).toBe('4 min 05 s');
    expect(formatDuration(2 * 3_600_000 + 7 * 60_000)).toBe('2 h 07 min');
    expect(formatDuration(3 * 86_400_000 + 4 * 3_600_000)).toBe('3 d 4 h');
    expect(formatDuration(Number.NaN)).toBe('—');
  });
});

describe('formatRelative', () => {
  const now = Date.parse('2025-01-01T12:00:00.000Z');
  it('says how long ago or how soon', () => {
    expect(formatRelative('2025-01-01T11:59:57.000Z', now)).toBe('3 s ago');
    expect(formatRelative('2025-01-01T11:55:00.000Z', now)).toBe('5 min ago');
    expect(formatRelative('2025-01-01T12:02:00.000Z', now)).toBe('in 2 min');
    expect(formatRelative('2025-01-01T11:59:59.600Z', now)).toBe('just now');
    expect(formatRelative(null, now)).toBe('—');
    expect(formatRelative('not a date', now)).toBe('—');
  });
  it('formats ages compactly', () => {
    expect(formatAge(400)).toBe('now');
    expect(formatAge(7_200_000)).toBe('2 h');
  });
});

describe('shortToken', () => {
  it('shows the part tasks created together do not share: the end of a v7 or v4, the start of a v8', () => {
    expect(shortToken('019ab5a1-2e3b-7c4d-8e5f-0123456789ab')).toBe('…456789ab');
    expect(shortToken('3f2b8c1e-1d2a-4c3b-9a8b-0123456789ab')).toBe('…456789ab');
    expect(shortToken('3f2b8c1e-1d2a-8c3b-9a8b-019ab5a12e3b')).toBe('3f2b8c1e…');
  });
});

describe('datetime-local round trip', () => {
  it('keeps the instant', () => {
    const iso = '2025-06-30T08:15:30.000Z';
    expect(localInputToIso(isoToLocalInput(iso))).toBe(iso);
    expect(localInputToIso('')).toBeUndefined();
    expect(localInputToIso('garbage')).toBeUndefined();
  });
});

describe('enqueue form checks', () => {
  it('accepts empty or valid JSON and explains invalid JSON', () => {
    expect(checkJson('')).toEqual({ ok: true, value: undefined });
    expect(checkJson('{"ms": 5}')).toEqual({ ok: true, value: { ms: 5 } });
    const bad = checkJson('{"ms": ');
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error.length).toBeGreaterThan(0);
  });
  it('checks optional integers against their range', () => {
    expect(checkInt('', 1, 100)).toEqual({});
    expect(checkInt('3', 1, 100)).toEqual({ value: 3 });
    expect(checkInt('0', 1, 100).error).toBe('from 1 to 100');
    expect(checkInt('2.5', 1, 100).error).toBe('a whole number');
  });
});

describe('bucketPoints', () => {
  const p = (
    s: number,
    o: Partial<{
      succeeded: number;
      failed: number;
      started: number;
      latencyAvgMs: number | null;
      latencyMaxMs: number | null;
      depth: number | null;
    }> = {},
  ) => ({
    at: new Date(Date.UTC(2025, 0, 1, 0, 0, s)).toISOString(),
    enqueued: 0,
    started: 0,
    succeeded: 0,
    failed: 0,
    latencyAvgMs: null,
    latencyMaxMs: null,
    depth: null,
    ...o,
  });
  it('keeps per-second rates, weights latency by starts and carries the last depth', () => {
    const out = bucketPoints(
      [
        p(0, { succeeded: 4, started: 1, latencyAvgMs: 100, latencyMaxMs: 100, depth: 7 }),
        p(1, { succeeded: 2, failed: 2, started: 3, latencyAvgMs: 20, latencyMaxMs: 50, depth: 5 }),
        p(2, { failed: 1 }),
      ],
      2,
    );
    expect(out).toHaveLength(2);
    expect(out[0]).toMatchObject({ succeeded: 3, failed: 1, latencyAvgMs: 40, latencyMaxMs: 100, depth: 5 });
    expect(out[1]).toMatchObject({ succeeded: 0, failed: 1, latencyAvgMs: null, latencyMaxMs: null, depth: null });
  });
});
