// Issue 21 item 5: a supervisor (systemd, Docker, Kubernetes) sends SIGTERM to the main process only —
// for `npm start` that is npm itself. The dashboard must stop gracefully all the same: within the grace
// period (10 s) + 5 s the port is free, the running task is given back, and no process is left.
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

test('SIGTERM to npm (the top process of `npm start`) stops the dashboard and its workers; nothing outlives it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'readpast-stop-'));
  dirs.push(dir);
  const url = `sqlite:${join(dir, 'stop.db')}`;
  const port = await freePort();
  // its own process group, as a service manager starts it; only the top pid is signalled below
  const npm = spawn('npm', ['start'], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PORT: String(port), READPAST_DATABASE_URL: url, READPAST_WORKERS: '2' },
  });
  let output = '';
  npm.stdout.on('data', (d) => (output += d));
  npm.stderr.on('data', (d) => (output += d));
  const pgid = npm.pid!;
  try {
    await until(`npm start answering on :${port}\n${output}`, 60_000, async () =>
      (await get(`http://127.0.0.1:${port}/api/stats`))?.status === 200 ? true : undefined,
    );
    const rp = await openReadpast({ url });
    try {
      const { token } = await rp.enqueue({ command: 'demo.sleep', payload: { ms: 120_000 } });
      await until('the task running', 15_000, async () => ((await rp.status(token)).status === 'running' ? true : undefined));
      expect(groupProcesses(pgid).some((p) => p.includes('next'))).toBe(true);

      const signalled = Date.now();
      process.kill(npm.pid!, 'SIGTERM');
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
      console.log(`npm start stopped by SIGTERM to npm only: port free and no process left after ${stoppedMs} ms`);
    } finally {
      await rp.close();
    }
  } finally {
    killGroup(pgid);
  }
}, 120_000);
