// Live state degrades instead of failing: the function that runs the DMV query (LiveState.running)
// with its queries injected — permissions, the live read that fails, the plain read that does not.
import { describe, expect, it } from 'vitest';
import type { RunningView } from '../../lib/engine/types';
import { judgePermissions, killRefusal, LIVE_RECHECK_MS, LiveState } from './live';

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

describe('KILL: what the login lacks, named', () => {
  const perms = (view: number | null, perf: number | null, kill: number | null) => ({ view_state: view, perf_state: perf, can_kill: kill });

  it('needs the KILL permission and the session view both (a login that sees only its own session would kill nothing)', () => {
    expect(judgePermissions(perms(1, null, 1), false, 'ops')).toMatchObject({ kill: true, killReason: null, liveStatus: true });
    // SQL Server 2022: VIEW SERVER PERFORMANCE STATE serves for the view
    expect(judgePermissions(perms(0, 1, 1), false, 'ops').kill).toBe(true);

    const noKill = judgePermissions(perms(1, null, 0), false, 'ops');
    expect(noKill.kill).toBe(false);
    expect(noKill.killReason).toBe(
      'this login lacks ALTER ANY CONNECTION: KILL is not available (cancel still works); to allow it: ' +
        'USE master; GRANT ALTER ANY CONNECTION TO [ops]',
    );
    const noView = judgePermissions(perms(0, 0, 1), false, 'ops');
    expect(noView.kill).toBe(false);
    expect(noView.killReason).toMatch(/^this login lacks VIEW SERVER STATE \(to see the task's session in sys\.dm_exec_sessions\)/);
    expect(noView.killReason).toContain('USE master; GRANT VIEW SERVER STATE TO [ops]');
    const neither = judgePermissions(perms(0, null, 0), false, 'CORP\\svc]x');
    expect(neither.killReason).toMatch(/lacks ALTER ANY CONNECTION and VIEW SERVER STATE/);
    expect(neither.killReason).toContain('[CORP\\svc]]x]');
    // no answer at all: nothing is allowed, and the reason still names both
    expect(judgePermissions(undefined, false).killReason).toMatch(/ALTER ANY CONNECTION and VIEW SERVER STATE/);
  });

  it('on Azure SQL Database names the database permissions, granted to the user', () => {
    expect(judgePermissions(perms(1, null, 1), true, 'app').kill).toBe(true);
    const r = judgePermissions(perms(0, 0, 0), true, 'app');
    expect(r.killReason).toMatch(/^this login lacks KILL DATABASE CONNECTION and VIEW DATABASE STATE/);
    expect(r.killReason).toContain('GRANT KILL DATABASE CONNECTION TO [app]; GRANT VIEW DATABASE STATE TO [app]');
    expect(r.killReason).not.toContain('USE master');
  });

  it('turns the server refusing KILL or the session view into an answer naming what is missing, and leaves other errors alone', () => {
    const err = (number: number, message: string) => Object.assign(new Error(message), { number });
    expect(killRefusal(err(6102, 'User does not have permission to use the KILL statement.'), false)).toBe(
      'the server refused KILL: this login lacks ALTER ANY CONNECTION',
    );
    expect(killRefusal(err(6102, 'User does not have permission to use the KILL statement.'), true)).toBe(
      'the server refused KILL: this login lacks KILL DATABASE CONNECTION',
    );
    expect(killRefusal(err(300, "VIEW SERVER STATE permission was denied on object 'server', database 'master'."), false)).toBe(
      'this login may not read sys.dm_exec_sessions: it lacks VIEW SERVER STATE',
    );
    expect(killRefusal(err(297, 'The user does not have permission to perform this action.'), true)).toBe(
      'this login may not read sys.dm_exec_sessions: it lacks VIEW DATABASE STATE',
    );
    expect(killRefusal(err(208, "Invalid object name 'sys.dm_exec_sessions'."), false)).toMatch(/no sys\.dm_exec_sessions/);
    expect(killRefusal(err(1205, 'deadlock victim'), false)).toBeNull();
    expect(killRefusal(new Error('socket hang up'), false)).toBeNull();
  });

  it('the live status carries whether KILL may be used and why not, also after the live query fails', async () => {
    let fail = false;
    const s = new LiveState(
      async () => ({ liveStatus: true, liveReason: null, kill: false, killReason: 'this login lacks ALTER ANY CONNECTION', checked: true }),
      { live: async () => (fail ? Promise.reject(new Error('Timeout')) : [row(1, state)]), plain: async () => [row(1)] },
    );
    expect(await s.status()).toEqual({
      available: true,
      reason: null,
      canKill: false,
      killRefusal: 'this login lacks ALTER ANY CONNECTION',
    });
    fail = true;
    await s.running();
    expect(await s.status()).toMatchObject({ available: false, canKill: false, killRefusal: 'this login lacks ALTER ANY CONNECTION' });
    const ok = new LiveState(async () => ({ liveStatus: true, liveReason: null, kill: true, killReason: null, checked: true }), {
      live: async () => [],
      plain: async () => [],
    });
    expect(await ok.status()).toEqual({ available: true, reason: null, canKill: true, killRefusal: null });
  });
});
