import { describe, expect, it } from 'vitest';
import { retriedNote } from './retried';

describe('retriedNote', () => {
  const mark = { at: '2026-01-01T10:00:00.000Z', attempts: 2 };
  const dead = { status: 'dead', attempts: 3, maxAttempts: 3, finishedAt: '2026-01-01T10:00:00.400Z' };

  it('says that the attempt after the retry failed, when, and which it was', () => {
    expect(retriedNote(dead, mark)).toBe('retried · failed again 400 ms later, attempt 3/3');
    expect(retriedNote({ ...dead, status: 'succeeded', finishedAt: '2026-01-01T10:00:02.500Z' }, mark)).toBe(
      'retried · succeeded 2.5 s later, attempt 3/3',
    );
    expect(retriedNote({ ...dead, status: 'running', finishedAt: null }, mark)).toBe('retried · attempt 3/3 running');
    expect(retriedNote({ ...dead, status: 'pending', maxAttempts: 5, finishedAt: null }, mark)).toBe(
      'retried · attempt 3/5 failed, retrying',
    );
  });

  it('says nothing without a retry, or while the read predates it', () => {
    expect(retriedNote(dead, undefined)).toBeNull();
    expect(retriedNote({ ...dead, attempts: 2 }, mark)).toBeNull();
    expect(retriedNote({ ...dead, status: 'pending', attempts: 2, finishedAt: null }, mark)).toBe('retried · attempt 3 waits for a worker');
  });

  it('never reads a negative delay when the clocks disagree', () => {
    expect(retriedNote({ ...dead, finishedAt: '2026-01-01T09:59:59.900Z' }, mark)).toBe('retried · failed again at once, attempt 3/3');
  });
});
