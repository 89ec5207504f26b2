// SQLite: an attempt's output rows go with their task — deleteTask, deleteFailed and prune leave no
// AttemptLogs / AttemptOutput rows behind (looked at in the file itself).
import Database from 'better-sqlite3';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ClaimedTask } from '../../lib/engine/types';
import { openSqliteStore, type SqliteStore } from './store';

let dir: string;
let store: SqliteStore;
let peek: Database.Database;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'readpast-attempt-logs-'));
  store = await openSqliteStore(join(dir, 'db.sqlite'));
  peek = new Database(join(dir, 'db.sqlite'), { readonly: true });
});

afterEach(async () => {
  peek.close();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const rows = (taskId: number) => ({
  lines: (peek.prepare('SELECT COUNT(*) AS n FROM AttemptLogs WHERE task_id = ?').get(taskId) as { n: number }).n,
  heads: (peek.prepare('SELECT COUNT(*) AS n FROM AttemptOutput WHERE task_id = ?').get(taskId) as { n: number }).n,
});

async function loggedDeadTask(message: string): Promise<ClaimedTask> {
  await store.worker.registerWorker({ workerId: 'w', host: 'h', pid: 1, role: 'test' });
  await store.commands.enqueue({ kind: 'handler', command: 'demo.echo', payload: null, maxAttempts: 1 });
  const [c] = await store.worker.claim([{ workerId: 'w', session: 1 }], { leaseMs: 60_000 });
  const at = new Date();
  const ok = await store.worker.appendAttemptOutput([
    {
      taskId: c!.id,
      attempt: c!.attempt,
      workerId: 'w',
      lines: [1, 2, 3].map((i) => ({ stream: 'log' as const, line: `l${i}`, at })),
      dropped: 0,
      progress: { percent: 50, message: 'half', at },
    },
  ]);
  expect(ok).toEqual([true]);
  await store.worker.finish([
    {
      taskId: c!.id,
      workerId: 'w',
      attempt: c!.attempt,
      settlement: { kind: 'dead', outcome: 'failed', error: { number: null, message, detail: null } },
    },
  ]);
  expect(rows(c!.id)).toEqual({ lines: 3, heads: 1 });
  return c!;
}

describe('sqlite attempt output rows go with their task', () => {
  it('deleteTask', async () => {
    const c = await loggedDeadTask('x');
    expect(await store.commands.deleteTask(c.token)).toBe('deleted');
    expect(rows(c.id)).toEqual({ lines: 0, heads: 0 });
  });

  it('deleteFailed', async () => {
    const c = await loggedDeadTask('bulk');
    expect(await store.commands.deleteFailed({ message: 'bulk' })).toBe(1);
    expect(rows(c.id)).toEqual({ lines: 0, heads: 0 });
  });

  it('prune', async () => {
    const c = await loggedDeadTask('old');
    await store.maintenance.prune(new Date(Date.now() + 60_000));
    expect(rows(c.id)).toEqual({ lines: 0, heads: 0 });
  });
});
