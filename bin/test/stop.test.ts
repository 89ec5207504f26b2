// Issue 21 item 5: a supervisor (systemd, Docker, Kubernetes) sends SIGTERM to the main process only —
// for `npm start` that is npm itself; a Procfile or a unit file may run `node bin/start.mjs` directly. The
// dashboard must stop gracefully all the same: within the grace period (10 s) + 5 s the port is free, the
// running task is given back, and no process is left. And it never outlives its parent: when the launcher
// is killed hard (SIGKILL, no chance to pass anything on), the Next.js server notices its parent is gone
// (READPAST_PARENT_PID, lib/server/boot.ts) and stops the same way.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, test } from 'vitest';
import { openReadpast } from '../../lib/api/open';
import { freePort, get, groupProcesses, killGroup, listening, until } from './processes';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const GRACE_MS = 10_000;
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Starts `cmd args` as a service manager does (its own process group), sends `signal` to its top pid only. */
async function startThenSignal(cmd: string, args: string[], signal: NodeJS.Signals): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'readpast-stop-'));
  dirs.push(dir);
  const url = `sqlite:${join(dir, 'stop.db')}`;
  const port = await freePort();
  // its own process group, as a service manager starts it; only the top pid is signalled below
  const top = spawn(cmd, args, {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PORT: String(port), READPAST_DATABASE_URL: url, READPAST_WORKERS: '2' },
  });
  let output = '';
  top.stdout.on('data', (d) => (output += d));
  top.stderr.on('data', (d) => (output += d));
  const pgid = top.pid!;
  try {
    await until(`${cmd} ${args.join(' ')} answering on :${port}\n${output}`, 60_000, async () =>
      (await get(`http://127.0.0.1:${port}/api/stats`))?.status === 200 ? true : undefined,
    );
    const rp = await openReadpast({ url });
    try {
      const { token } = await rp.enqueue({ command: 'demo.sleep', payload: { ms: 120_000 } });
      await until('the task running', 15_000, async () => ((await rp.status(token)).status === 'running' ? true : undefined));
      expect(groupProcesses(pgid).some((p) => p.includes('next'))).toBe(true);

      const signalled = Date.now();
      process.kill(top.pid!, signal);
      await until(`the port free\n${output}`, GRACE_MS + 5000, async () => ((await listening(port)) ? undefined : true), 200);
      await until(
        `no process left in the group: ${groupProcesses(pgid).join('; ')}\n${output}`,
        GRACE_MS + 5000 - (Date.now() - signalled),
        () => (groupProcesses(pgid).length === 0 ? true : undefined),
      );
      const stoppedMs = Date.now() - signalled;
      expect(stoppedMs).toBeLessThanOrEqual(GRACE_MS + 5000);
      // the task was given back (pending again, its attempt ended), not left running
      const after = await rp.status(token);
      expect(after.status).toBe('pending');
      expect(after.history[0]?.outcome).not.toBe('running');
      return stoppedMs;
    } finally {
      await rp.close();
    }
  } finally {
    killGroup(pgid);
  }
}

test('SIGTERM to npm (the top process of `npm start`) stops the dashboard and its workers; nothing outlives it', async () => {
  const stoppedMs = await startThenSignal('npm', ['start'], 'SIGTERM');
  console.log(`npm start stopped by SIGTERM to npm only: port free and no process left after ${stoppedMs} ms`);
}, 120_000);

test('SIGTERM to `node bin/start.mjs` run directly stops the dashboard and its workers; nothing outlives it', async () => {
  const stoppedMs = await startThenSignal(process.execPath, ['bin/start.mjs'], 'SIGTERM');
  console.log(`node bin/start.mjs stopped by SIGTERM: port free and no process left after ${stoppedMs} ms`);
}, 120_000);

test('the Next.js server stops gracefully when its parent is gone (bin/start.mjs killed with SIGKILL)', async () => {
  const stoppedMs = await startThenSignal(process.execPath, ['bin/start.mjs'], 'SIGKILL');
  console.log(`bin/start.mjs killed hard: the server noticed, gave its task back and stopped after ${stoppedMs} ms`);
}, 120_000);
