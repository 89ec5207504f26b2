// rp.serveDashboard(): the prebuilt dashboard served from a team's own process, as a managed child
// process running `readpast dashboard` — not Next.js inside the caller's process. A child keeps the
// dashboard's React/Next runtime, its signal handling and its start-up checks (environment, bind refusal,
// auth) exactly those of `npm start`, and a crash of one cannot take the other down. The child is told
// this process's pid and stops when it is gone; close() stops it gracefully.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ValidationError } from '../engine/errors';
import { MAX_DASHBOARD_WORKERS } from '../engine/limits';
import type { Logger } from '../engine/logger';
import { packageRoot } from './package-root';

export interface DashboardOptions {
  /** port (default PORT, else 3000); 0 is not allowed: the URL must be known */
  port?: number;
  /** address to bind (default READPAST_HOST, else 127.0.0.1); anything but loopback needs READPAST_AUTH or sign-on (READPAST_OIDC_*) */
  host?: string;
  /**
   * Workers in the dashboard's own process (default 0: this process runs its pool with its own handler
   * functions, which a child cannot call). Give `handlers` to let the dashboard's workers run them too.
   */
  workers?: number;
  /** a handlers module (path) the dashboard's workers load, as `readpast dashboard --handlers` */
  handlers?: string;
  /** more environment for the dashboard (READPAST_AUTH, READPAST_VIEWERS, READPAST_OIDC_*, READPAST_ALLOW_SQL …) */
  env?: Record<string, string>;
  /** how long to wait for it to answer (default 30 s) */
  startTimeoutMs?: number;
}

export interface DashboardHandle {
  /** where it serves, e.g. http://127.0.0.1:3000 */
  url: string;
  pid: number;
  /** stop it gracefully (running tasks of its workers get 10 s); resolves when it has exited */
  stop(): Promise<void>;
  /** resolves with its exit code when it has exited, for whatever reason */
  exited: Promise<number | null>;
}

const STARTED = /^readpast dashboard on (\S+)/;

function flags(opts: DashboardOptions): string[] {
  const out: string[] = [];
  if (opts.port !== undefined) {
    if (!Number.isInteger(opts.port) || opts.port < 1 || opts.port > 65535) throw new ValidationError('port', 'an integer from 1 to 65535');
    out.push('--port', String(opts.port));
  }
  if (opts.host !== undefined) out.push('--host', opts.host);
  const workers = opts.workers ?? 0;
  if (!Number.isInteger(workers) || workers < 0 || workers > MAX_DASHBOARD_WORKERS) {
    throw new ValidationError('workers', `an integer from 0 to ${MAX_DASHBOARD_WORKERS}`);
  }
  out.push('--workers', String(workers));
  if (opts.handlers !== undefined) out.push('--handlers', opts.handlers);
  return out;
}

/** Starts `readpast dashboard` on `databaseUrl`; resolves once it has printed its start-up line. */
export function startDashboard(databaseUrl: string, opts: DashboardOptions, logger: Logger): Promise<DashboardHandle> {
  const args = [join(packageRoot(), 'bin', 'readpast.mjs'), 'dashboard', ...flags(opts)];
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...opts.env, READPAST_DATABASE_URL: databaseUrl },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(killer);
  };
  let stderr = '';
  createInterface({ input: child.stderr }).on('line', (line) => {
    stderr = `${stderr}${line}\n`.slice(-4000);
    logger.warn({ dashboard: child.pid }, line);
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`the dashboard did not start within ${opts.startTimeoutMs ?? 30_000} ms\n${stderr}`));
    }, opts.startTimeoutMs ?? 30_000);
    createInterface({ input: child.stdout }).on('line', (line) => {
      const m = STARTED.exec(line);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1]!, pid: child.pid!, stop, exited });
      }
      logger.info({ dashboard: child.pid }, line);
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the dashboard exited (${code}) before it served: ${stderr.trim() || 'no message'}`));
    });
  });
}
