// A long-running command started through a wrapper — `npm run readpast -- …` here, `npx readpast …` in the
// package test — under a supervisor that signals only the wrapper's pid: npm passes SIGTERM to the shell it
// runs the script in, the shell dies of it without passing it on, and the command is re-parented. It must
// stop all the same, gracefully (cli/lifetime.ts): the worker lets its running task finish, deregisters and
// exits; `batch wait` stops waiting. Nothing of the process group is left.
import { spawn } from 'node:child_process';
import { readdirSync, readlinkSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { groupProcesses, killGroup } from '../../bin/test/processes';
import { openLibrary, ROOT, tempDb, waitFor, withDeadline, type TempDb } from './helpers';

interface Wrapped {
  pgid: number;
  output: () => string;
  /** resolves when every writer of its output is gone (the last process of the group has exited) */
  closed: Promise<void>;
}

/** `npm run readpast -- ARGS` as a supervisor starts it: its own process group, npm at its top. */
function npmRun(args: string[], db: TempDb): Wrapped {
  const child = spawn('npm', ['run', '--silent', 'readpast', '--', ...args], {
    cwd: ROOT,
    env: db.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
  const closed = Promise.all([child.stdout, child.stderr].map((s) => new Promise<void>((r) => s.on('close', () => r())))).then(() => {});
  return { pgid: child.pid!, output: () => output, closed };
}

/** The readpast process of the group (the node process below npm and its shell). */
function readpastPid(w: Wrapped): number | undefined {
  const line = groupProcesses(w.pgid).find((p) => / bin\/readpast\.mjs /.test(`${p} `) && !/\bsh -c\b/.test(p));
  return line === undefined ? undefined : Number(line.split(' ')[0]);
}

/** Whether process `pid` holds `file` open (Linux: /proc/PID/fd): it is past its start-up, at work. */
function holdsOpen(pid: number, file: string): boolean {
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`) === file;
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

/** SIGTERM to the wrapper (npm) alone; resolves once no process of its group is left and its output has ended. */
async function signalWrapper(w: Wrapped, timeoutMs: number): Promise<void> {
  process.kill(w.pgid, 'SIGTERM');
  await waitFor(() => groupProcesses(w.pgid).length === 0, {
    timeoutMs,
    what: `no process left in the group (${groupProcesses(w.pgid).join('; ')})\n${w.output()}`,
  });
  await withDeadline(w.closed, 10_000, 'the end of its output');
}

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

describe('a long-running command whose wrapper (npm run) alone is sent SIGTERM', () => {
  it('readpast worker: the running task finishes, the workers deregister, no process is left', async () => {
    const db = tempDb();
    cleanups.push(db.cleanup);
    const w = npmRun(['worker', '--concurrency', '2'], db);
    cleanups.push(() => killGroup(w.pgid));
    const rp = await openLibrary(db);
    cleanups.push(() => void rp.close());
    const live = await waitFor(
      async () => {
        const ws = (await rp.stats()).workers.filter((x) => x.state !== 'stopped');
        return ws.length === 2 ? ws : undefined;
      },
      { timeoutMs: 60_000, what: `two workers registered\n${w.output()}` },
    );
    const worker = readpastPid(w);
    expect(worker, groupProcesses(w.pgid).join('\n')).toBeDefined();
    // a task running when the stop comes: a graceful stop lets it finish within the grace period (10 s)
    const { token } = await rp.enqueue({ command: 'demo.sleep', payload: { ms: 3000 } });
    await waitFor(async () => (await rp.status(token)).status === 'running', { timeoutMs: 30_000, what: 'the task running' });

    await signalWrapper(w, 40_000);
    expect(w.output()).toContain('the process that started the worker is gone');
    expect(w.output()).toContain('worker stopped');
    expect((await rp.status(token)).status).toBe('succeeded');
    const after = (await rp.stats()).workers.filter((x) => live.some((l) => l.workerId === x.workerId));
    expect(after.map((x) => x.state)).toEqual(['stopped', 'stopped']);
  }, 120_000);

  it('readpast batch wait: stops waiting and exits', async () => {
    const db = tempDb();
    cleanups.push(db.cleanup);
    const rp = await openLibrary(db);
    cleanups.push(() => void rp.close());
    const batch = await rp.createBatch({});
    await rp.enqueue({ command: 'demo.sleep', payload: { ms: 1 }, batchId: batch.id });
    // the batch is never released: the wait would last for ever
    const w = npmRun(['batch', 'wait', String(batch.id)], db);
    cleanups.push(() => killGroup(w.pgid));
    // (its database open: the wait has started)
    await waitFor(
      () => {
        const pid = readpastPid(w);
        return pid !== undefined && holdsOpen(pid, db.url.slice('sqlite:'.length));
      },
      { timeoutMs: 60_000, what: `batch wait started\n${w.output()}` },
    );

    await signalWrapper(w, 30_000);
    expect(w.output()).toContain('readpast batch wait: stopped (its parent process exited)');
  }, 120_000);
});
