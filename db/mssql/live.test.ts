// Live state degrades instead of failing: the function that runs the DMV query (LiveState.running)
// with its queries injected — permissions, the live read that fails, the plain read that does not.
import { describe, expect, it } from 'vitest';
import type { RunningView } from '../../lib/engine/types';
import { LIVE_RECHECK_MS, LiveState } from './live';

const row = (n: number, live: RunningView['live'] = null): RunningView => ({
  attemptId: n,
  token: `t${n}`,
  queue: 'default',
  kind: 'sql',
  command: 'SELECT 1',
  attempt: 1,
  maxAttempts: 3,
  workerId: 'w',
  session: 60 + n,
  tokenNo: null,
  batchId: null,
  stage: null,
  startedAt: new Date(0),
  leaseUntil: null,
  cancelRequested: false,
  live,
});

const state = {
  status: 'running',
  command: 'SELECT',
  waitType: null,
  waitTimeMs: 0,
  blockingSession: null,
  cpuMs: 1,
  percentComplete: 0,
  openTransactions: 0,
};

function setup(opts: { perms?: boolean | 'unknown'; live: () => Promise<RunningView[]> }) {
  let now = 1_000_000;
  const calls = { perms: 0, live: 0, plain: 0 };
  const s = new LiveState(
    async () => {
      calls.perms++;
      if (opts.perms === 'unknown') return { liveStatus: false, liveReason: 'could not check permissions: nope', checked: false };
      const ok = opts.perms ?? true;
      return { liveStatus: ok, liveReason: ok ? null : 'this login lacks VIEW SERVER STATE', checked: true };
    },
    {
      live: () => {
        calls.live++;
        return opts.live();
      },
      plain: async () => {
        calls.plain++;
        return [row(1)];
      },
    },
    () => now,
  );
  return { s, calls, tick: (ms: number) => (now += ms) };
}

describe('the running list with live state', () => {
  it('shows the server state where the query runs (the judging run is the answer, not run twice)', async () => {
    const { s, calls } = setup({ live: async () => [row(1, state)] });
    expect((await s.running())[0]!.live).toEqual(state);
    expect(await s.status()).toEqual({ available: true, reason: null });
    expect(calls).toEqual({ perms: 1, live: 1, plain: 0 });
  });

  it('does not run the DMV query where the login lacks the permission, and says so', async () => {
    const { s, calls } = setup({ perms: false, live: async () => [row(1, state)] });
    expect(await s.running()).toEqual([row(1)]);
    expect(await s.status()).toEqual({ available: false, reason: 'this login lacks VIEW SERVER STATE' });
    expect(calls.live).toBe(0);
  });

  it('judges by running the query, not by permissions alone: a DMV that is missing is "not available"', async () => {
    const { s } = setup({ live: () => Promise.reject(new Error("Invalid object name 'sys.dm_exec_requests'.")) });
    expect(await s.running()).toEqual([row(1)]);
    const st = await s.status();
    expect(st.available).toBe(false);
    expect(st.reason).toBe("live request state could not be read: Invalid object name 'sys.dm_exec_requests'.");
  });

  it('a query that fails at run time (revoked, timeout) still lists what runs, says why, and is tried again later', async () => {
    let fail = false;
    const { s, calls, tick } = setup({
      live: () => (fail ? Promise.reject(new Error('Timeout: Request failed to complete in 5000ms')) : Promise.resolve([row(1, state)])),
    });
    expect((await s.running())[0]!.live).toEqual(state);
    fail = true;
    expect(await s.running()).toEqual([row(1)]);
    expect(await s.status()).toEqual({
      available: false,
      reason: 'live request state could not be read: Timeout: Request failed to complete in 5000ms',
    });
    // meanwhile the list is read without it
    await s.running();
    expect(calls.live).toBe(2);
    // after the recheck interval it is judged again (permissions, then the query)
    fail = false;
    tick(LIVE_RECHECK_MS + 1);
    expect((await s.running())[0]!.live).toEqual(state);
    expect((await s.status()).available).toBe(true);
    expect(calls.perms).toBe(2);
  });

  it('where permissions cannot be checked but the query runs, shows it and says what is unknown', async () => {
    const { s } = setup({ perms: 'unknown', live: async () => [row(1, state)] });
    expect((await s.running())[0]!.live).toEqual(state);
    expect(await s.status()).toEqual({ available: true, reason: 'could not check permissions: nope' });
  });
});
