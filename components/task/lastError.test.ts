import { describe, expect, it } from 'vitest';
import { lastErrorContext } from './lastError';

const attempt = (n: number, outcome: string, errorMessage: string | null = null) =>
  ({ attempt: n, outcome, errorMessage }) as unknown as Parameters<typeof lastErrorContext>[0]['history'][number];
const error = (message: string) => ({ number: 50000, message, detail: null });

describe("the task page's last error: which attempt, and whether it is current", () => {
  it('a task that succeeded after failing: the error is history, labelled with its attempt and the success', () => {
    const c = lastErrorContext({
      status: 'succeeded',
      maxAttempts: 5,
      lastError: error('boom 2'),
      history: [attempt(3, 'succeeded'), attempt(1, 'failed', 'boom 1'), attempt(2, 'failed', 'boom 2')],
    });
    expect(c).toEqual({
      attempt: 2,
      outcome: 'failed',
      succeededAttempt: 3,
      current: false,
      label: 'Attempt 2 of 5 failed; attempt 3 succeeded',
    });
  });

  it('a dead task: the last attempt’s error is current', () => {
    const c = lastErrorContext({
      status: 'dead',
      maxAttempts: 2,
      lastError: error('boom'),
      history: [attempt(1, 'failed', 'boom'), attempt(2, 'timed_out', 'boom')],
    });
    expect(c).toMatchObject({ attempt: 2, current: true, label: 'Attempt 2 of 2 timed out' });
  });

  it('a task waiting to retry, and one rescued after a lost lease', () => {
    expect(
      lastErrorContext({ status: 'pending', maxAttempts: 3, lastError: error('x'), history: [attempt(1, 'failed', 'x')] })!.label,
    ).toBe('Attempt 1 of 3 failed; the next attempt is due');
    expect(
      lastErrorContext({
        status: 'succeeded',
        maxAttempts: 3,
        lastError: error('lease expired'),
        history: [attempt(1, 'abandoned', 'lease expired'), attempt(2, 'succeeded')],
      })!.label,
    ).toBe('Attempt 1 of 3 was abandoned (its lease expired); attempt 2 succeeded');
  });

  it('an abandoned attempt says why: lease lost while its worker was alive, or its worker stopped', () => {
    const abandoned = (reason: string) =>
      ({ attempt: 1, outcome: 'abandoned', errorMessage: 'lease', abandonReason: reason }) as unknown as Parameters<
        typeof lastErrorContext
      >[0]['history'][number];
    const label = (reason: string) =>
      lastErrorContext({ status: 'pending', maxAttempts: 3, lastError: error('lease'), history: [abandoned(reason)] })!.label;
    expect(label('lease_lost')).toBe('Attempt 1 of 3 was abandoned (lease lost while its worker was alive); the next attempt is due');
    expect(label('worker_lost')).toBe(
      'Attempt 1 of 3 was abandoned (its worker stopped: crashed, killed or cut off); the next attempt is due',
    );
  });

  it('no error: nothing to show; an error whose attempt was pruned from the log still shows, unlabelled', () => {
    expect(lastErrorContext({ status: 'succeeded', maxAttempts: 1, lastError: null, history: [attempt(1, 'succeeded')] })).toBeNull();
    expect(lastErrorContext({ status: 'dead', maxAttempts: 1, lastError: error('x'), history: [] })).toMatchObject({
      attempt: null,
      current: true,
      label: 'Error',
    });
  });
});
