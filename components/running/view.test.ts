import { describe, expect, it } from 'vitest';
import { applyView, isStale, STALE_AFTER_MS } from './view';

const row = (attemptId: number, queue: string, command: string, startedAt: string) => ({ attemptId, queue, command, startedAt });
const rows = [
  row(1, 'reports', 'demo.sleep', '2026-11-24T10:00:05.000Z'),
  row(2, 'mail', 'Send.Mail', '2026-11-24T10:00:01.000Z'),
  row(3, 'reports', 'demo.fail', '2026-11-24T10:00:03.000Z'),
];

describe('Running view', () => {
  it('filters by queue and command (any case)', () => {
    expect(applyView(rows, { queue: 'reports', command: '', sort: 'chain' }).map((r) => r.attemptId)).toEqual([1, 3]);
    expect(applyView(rows, { queue: '', command: 'send', sort: 'chain' }).map((r) => r.attemptId)).toEqual([2]);
    expect(applyView(rows, { queue: 'mail', command: 'sleep', sort: 'chain' })).toEqual([]);
  });

  it('sorts by elapsed both ways, keeping the list order otherwise', () => {
    expect(applyView(rows, { queue: '', command: '', sort: 'chain' }).map((r) => r.attemptId)).toEqual([1, 2, 3]);
    expect(applyView(rows, { queue: '', command: '', sort: 'elapsed_desc' }).map((r) => r.attemptId)).toEqual([2, 3, 1]);
    expect(applyView(rows, { queue: '', command: '', sort: 'elapsed_asc' }).map((r) => r.attemptId)).toEqual([1, 3, 2]);
  });

  it('is stale after a failed poll or about two missed polls', () => {
    expect(isStale(false, 1000, 1000 + STALE_AFTER_MS)).toBe(false);
    expect(isStale(false, 1000, 1001 + STALE_AFTER_MS)).toBe(true);
    expect(isStale(true, 1000, 1000)).toBe(true);
  });
});
