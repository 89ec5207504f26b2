// Helpers for tests that start servers as a supervisor would and stop them: free ports, HTTP polling,
// and the processes of a process group (`ps`), to prove that nothing outlives a stop.
import { execFileSync } from 'node:child_process';
import { createServer, connect } from 'node:net';

/** A TCP port that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** Whether something accepts connections on 127.0.0.1:port. */
export function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/** Polls `fn` until it returns a value (not undefined) or `ms` pass; throws with `what` then. */
export async function until<T>(what: string, ms: number, fn: () => Promise<T | undefined> | T | undefined, everyMs = 100): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms${last ? ` (${String(last)})` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** GET url → status and body, or undefined when nothing answers. */
export async function get(url: string): Promise<{ status: number; body: string } | undefined> {
  try {
    const r = await fetch(url, { signal: AbortSignal.timeout(5000) });
    return { status: r.status, body: await r.text() };
  } catch {
    return undefined;
  }
}

/** The processes of process group `pgid` still alive: "pid command" lines. */
export function groupProcesses(pgid: number): string[] {
  const out = execFileSync('ps', ['-eo', 'pid=,pgid=,stat=,args='], { encoding: 'utf8' });
  return out
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => f.length >= 4 && Number(f[1]) === pgid && !f[2]!.startsWith('Z'))
    .map((f) => `${f[0]} ${f.slice(3).join(' ')}`);
}

/** Kills what is left of a process group (cleanup after a failed test). */
export function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // already gone
  }
}
