// KILL of a task's session where the login lacks what it needs, through the real driver against the
// stand-in TDS endpoint (test-support/fake-tds.ts): the permission check, the session lookup in sys.dm_exec_sessions
// that the server refuses, each answered as a 409 naming the permission or view, never a raw error.
import { afterEach, describe, expect, it } from 'vitest';
import { ConflictError } from '../../lib/engine/errors';
import type { FakeReply, FakeRequest, FakeTds } from './test-support/fake-tds';
import { closeFakeStores, openFakeStore } from './test-support/fake-store';
import type { MssqlStore } from './store';

const TOKEN = '00000000-0000-4000-8000-000000000001';
let tds: FakeTds;

afterEach(closeFakeStores);

/** A server that answers the edition, the permission query (as given) and the kill target (or its error). */
async function server(
  perms: { view: number; kill: number },
  target: 'row' | { number: number; message: string },
  seen: number | null = 61,
) {
  const opened = await openFakeStore((req: FakeRequest): FakeReply | undefined => {
    if (req.text.includes("SERVERPROPERTY('EngineEdition')")) return { sets: [{ columns: [['edition', 'int']], rows: [[3]] }] };
    if (req.text.includes('AS can_kill')) {
      return {
        sets: [
          {
            columns: [
              ['view_state', 'int'],
              ['perf_state', 'int'],
              ['can_kill', 'int'],
              ['principal', 'nvarchar'],
            ],
            rows: [[perms.view, null, perms.kill, 'readpast_app']],
          },
        ],
      };
    }
    if (req.text.includes('AS live_session')) {
      if (target !== 'row') return { error: target };
      const cols = [
        ['task_id', 'bigint'],
        ['status', 'nvarchar'],
        ['kind', 'nvarchar'],
        ['attempts', 'int'],
        ['worker_id', 'nvarchar'],
        ['session', 'int'],
        ['login_time', 'datetime'],
        ['live_session', 'int'],
      ] as const;
      return { sets: [{ columns: cols, rows: [[1, 'running', 'sql', 1, 'w1', 61, new Date(0), seen]] }] };
    }
    return undefined;
  });
  tds = opened.tds;
  return opened.store;
}

const kill = (s: MssqlStore) =>
  s.sqlServer.killSession(TOKEN).then(
    () => null,
    (e: unknown) => e as Error,
  );

describe('KILL without what it needs', () => {
  it('without ALTER ANY CONNECTION: 409 naming it, with the GRANT, and nothing settled or killed', async () => {
    const s = await server({ view: 1, kill: 0 }, 'row');
    const e = await kill(s);
    expect(e).toBeInstanceOf(ConflictError);
    expect(e!.message).toMatch(/^this login lacks ALTER ANY CONNECTION: KILL is not available/);
    expect(e!.message).toContain('GRANT ALTER ANY CONNECTION TO [readpast_app]');
    expect(tds.requests().some((r) => /\bKILL \d+/.test(r.text))).toBe(false);
    // the live status says so too, for the Running page
    expect(await s.sqlServer.liveStatus()).toMatchObject({ canKill: false });
  });

  it('without VIEW SERVER STATE: 409 naming the view KILL needs to find the session', async () => {
    // as the server answers such a login: its own session only, so the attempt's is not seen
    for (const seen of [61, null]) {
      const s = await server({ view: 0, kill: 1 }, 'row', seen);
      const e = await kill(s);
      expect(e).toBeInstanceOf(ConflictError);
      expect(e!.message).toMatch(/lacks VIEW SERVER STATE \(to see the task's session in sys\.dm_exec_sessions\)/);
      expect(e!.message).toContain('USE master; GRANT VIEW SERVER STATE TO [readpast_app]');
      await closeFakeStores();
    }
  });

  it('a server that refuses the session view: 409 naming it, not the raw error', async () => {
    const s = await server({ view: 1, kill: 1 }, { number: 300, message: "VIEW SERVER STATE permission was denied on object 'server'." });
    const e = await kill(s);
    expect(e).toBeInstanceOf(ConflictError);
    expect(e!.message).toBe('this login may not read sys.dm_exec_sessions: it lacks VIEW SERVER STATE');
  });

  it('any other failure is passed on as it is', async () => {
    const s = await server({ view: 1, kill: 1 }, { number: 1205, message: 'deadlock victim' });
    const e = await kill(s);
    expect(e).not.toBeInstanceOf(ConflictError);
    expect(e!.message).toMatch(/deadlock victim/);
  });
});
