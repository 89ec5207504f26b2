// What can be checked without a server about the attempt writes of running a task: a session replaced
// since the claim is recorded against the attempt, fenced on task, attempt and worker (issue 16 item 7).
import { describe, expect, it } from 'vitest';
import { runSql } from './run';
import { UPDATE_ATTEMPT_SESSION } from './sql/session';
import type { Workers } from './workers';

/** A worker connection whose session is `session` and whose pool records what it is asked to run. */
function fakes(session: number) {
  const writes: { text: string; params: Record<string, unknown> }[] = [];
  const pool = {
    request: () => {
      const params: Record<string, unknown> = {};
      const req = {
        input: (name: string, _type: unknown, value: unknown) => {
          params[name] = value;
          return req;
        },
        query: async (text: string) => {
          writes.push({ text, params });
          return { recordset: [], recordsets: [], rowsAffected: [1], output: {} };
        },
      };
      return req;
    },
  };
  const workers = {
    connection: () => ({
      withTask: async <T>(_tag: Buffer, fn: (pool: unknown, info: { session: number; loginTime: Date }) => Promise<T>) =>
        fn(pool, { session, loginTime: new Date() }),
    }),
  } as unknown as Workers;
  return { workers, writes };
}

const never = new AbortController().signal;

describe('the session of a running attempt', () => {
  it('is fenced on the worker as well as the task and attempt', () => {
    expect(UPDATE_ATTEMPT_SESSION).toMatch(
      /WHERE task_id = @task_id AND attempt = @attempt AND worker_id = @worker_id AND ended_at IS NULL/,
    );
  });

  it('a replaced connection is recorded against the attempt, naming its worker, on the worker session (not the shared pool)', async () => {
    const { workers, writes } = fakes(77);
    // an empty script sends nothing: only the bookkeeping around it runs
    await runSql(workers, { taskId: 5, attempt: 2, workerId: 'w-1', session: 61, parents: [] }, '', never);
    expect(writes).toEqual([{ text: UPDATE_ATTEMPT_SESSION, params: { session: 77, task_id: 5, attempt: 2, worker_id: 'w-1' } }]);
  });

  it('nothing is recorded on the claimed session, or outside a task', async () => {
    const same = fakes(61);
    await runSql(same.workers, { taskId: 5, attempt: 2, workerId: 'w-1', session: 61, parents: [] }, '', never);
    expect(same.writes).toEqual([]);
    const idle = fakes(77);
    await runSql(idle.workers, { taskId: 0, attempt: 0, workerId: 'w-1', session: 61, parents: [] }, '', never);
    expect(idle.writes).toEqual([]);
  });
});
