// What can be checked without a server about the attempt writes of running a task: a session replaced
// since the claim is recorded against the attempt, fenced on task, attempt and worker (issue 16 item 7).
import { describe, expect, it } from 'vitest';
import type { Param, Shared } from './connection';
import { runSql } from './run';
import { UPDATE_ATTEMPT_SESSION } from './sql/session';
import type { Workers } from './workers';

/** A worker connection whose session is `session`, and a shared pool that records what it is asked to write. */
function fakes(session: number) {
  const writes: { text: string; params: Record<string, unknown> }[] = [];
  const shared = {
    write: async (text: string, params: readonly Param[] = []) => {
      writes.push({ text, params: Object.fromEntries(params.map(([name, , value]) => [name, value])) });
      return { recordset: [], recordsets: [], rowsAffected: [], output: {} };
    },
  } as unknown as Shared;
  const workers = {
    connection: () => ({
      withTask: async <T>(_tag: Buffer, fn: (pool: unknown, info: { session: number; loginTime: Date }) => Promise<T>) =>
        fn({}, { session, loginTime: new Date() }),
    }),
  } as unknown as Workers;
  return { shared, workers, writes };
}

const never = new AbortController().signal;

describe('the session of a running attempt', () => {
  it('is fenced on the worker as well as the task and attempt', () => {
    expect(UPDATE_ATTEMPT_SESSION).toMatch(
      /WHERE task_id = @task_id AND attempt = @attempt AND worker_id = @worker_id AND ended_at IS NULL/,
    );
  });

  it('a replaced connection is recorded against the attempt, naming its worker', async () => {
    const { shared, workers, writes } = fakes(77);
    // an empty script sends nothing: only the bookkeeping around it runs
    await runSql(shared, workers, { taskId: 5, attempt: 2, workerId: 'w-1', session: 61 }, '', never);
    expect(writes).toEqual([{ text: UPDATE_ATTEMPT_SESSION, params: { session: 77, task_id: 5, attempt: 2, worker_id: 'w-1' } }]);
  });

  it('nothing is recorded on the claimed session, or outside a task', async () => {
    const same = fakes(61);
    await runSql(same.shared, same.workers, { taskId: 5, attempt: 2, workerId: 'w-1', session: 61 }, '', never);
    expect(same.writes).toEqual([]);
    const idle = fakes(77);
    await runSql(idle.shared, idle.workers, { taskId: 0, attempt: 0, workerId: 'w-1', session: 61 }, '', never);
    expect(idle.writes).toEqual([]);
  });
});
