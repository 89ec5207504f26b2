// Serving the built dashboard: `next start` on a build (the package's prebuilt `.next`, or the
// repository's) as a child process, supervised. Used by `readpast dashboard` and by `npm start`
// (bin/start.mjs), so both behave the same:
// - Next.js's own start banner is left out; the dashboard prints one start-up line (lib/server/boot.ts);
// - the first SIGINT / SIGTERM is passed on (the child stops its pool gracefully, then exits), a second kills;
// - this process stops the dashboard when its own parent is gone (a supervisor stopped npm / npx: the shell
//   between them and this process does not pass the signal on; cli/lifetime.ts), and the child, told this
//   pid, stops when this process is gone.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { watchParent } from './lifetime';

export { packageRoot } from '../lib/api/package-root';

/** Whether a dashboard build is there to serve. */
export function hasDashboardBuild(root: string): boolean {
  return existsSync(join(root, '.next', 'BUILD_ID'));
}

/** Next.js's start banner (`▲ Next.js 16…`, `- Local: …`, `✓ Starting…`, `✓ Ready in …`) and its blank lines */
const NEXT_BANNER = /^\s*(?:▲ Next\.js|- (?:Local|Network|Environments|Experiments):|✓ (?:Starting|Ready in|Running next\.config)|$)/;

export interface ServeOptions {
  /** the directory holding `.next` (and next.config.js) */
  root: string;
  host: string;
  port: number;
  /** the dashboard's environment (READPAST_*, PORT …) */
  env: NodeJS.ProcessEnv;
}

/**
 * Runs `next start` on `root`'s build until it exits; resolves with the exit code this process should
 * end with. The working directory stays the caller's (a relative SQLite path or handlers module is the
 * caller's), the build is found through the directory argument.
 */
export function serveDashboard(opts: ServeOptions): Promise<number> {
  const nextBin = createRequire(join(opts.root, 'package.json')).resolve('next/dist/bin/next');
  const child = spawn(process.execPath, [nextBin, 'start', opts.root, '-H', opts.host, '-p', String(opts.port)], {
    env: {
      ...opts.env,
      NEXT_TELEMETRY_DISABLED: '1',
      // the dashboard process stops its pool itself, then exits (lib/server/boot.ts) …
      NEXT_MANUAL_SIG_HANDLE: '1',
      // … and does so when this process is gone
      READPAST_PARENT_PID: String(process.pid),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (!NEXT_BANNER.test(line)) process.stdout.write(`${line}\n`);
  });
  let signals = 0;
  const stop = (sig: NodeJS.Signals) => {
    signals++;
    if (child.exitCode === null && child.signalCode === null) child.kill(signals > 1 ? 'SIGKILL' : sig);
  };
  const onSignal = (sig: NodeJS.Signals) => stop(sig);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const unwatch = watchParent(() => stop('SIGTERM'));
  return new Promise((resolve) => {
    // 'close': after the child's output has been passed on
    child.on('close', (code, signal) => {
      unwatch();
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve(code ?? (signal === 'SIGINT' ? 130 : 143));
    });
    child.on('error', (err) => {
      process.stderr.write(`readpast: cannot start the dashboard: ${err.message}\n`);
      resolve(1);
    });
  });
}
