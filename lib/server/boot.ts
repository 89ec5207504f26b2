// The dashboard server's start-up in the Node.js runtime (called once from instrumentation.ts):
// refuse an unsafe bind, open (and migrate) the store, start the pool, print one start-up line
// (`readpast dashboard on http://127.0.0.1:3000 · sqlite:data/readpast.db · 4 workers`), and stop it
// on SIGTERM / SIGINT — requests meanwhile are answered 503 with Retry-After (lib/server/http.ts).
import { bindRefusal, serverConfig, type ServerConfig } from './config';
import { startEngine, stopEngine, type ServerEngine } from './engine';
import { serverLogger } from './log';
import { RETRY_AFTER_SECONDS } from './shutdown';
import type { Telemetry } from './telemetry';

/** The address `next start` was told to bind (`-H` / `--hostname`), if given on its command line. */
export function hostnameArg(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '-H' || a === '--hostname') return argv[i + 1];
    if (a.startsWith('--hostname=')) return a.slice('--hostname='.length);
  }
  return undefined;
}

/** The port `next start` was told to listen on (`-p` / `--port`), if given on its command line. */
export function portArg(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '-p' || a === '--port') return argv[i + 1];
    if (a.startsWith('--port=')) return a.slice('--port='.length);
  }
  return undefined;
}

/** The address this dashboard serves on, as a URL: the command line's -H / -p, else READPAST_HOST and PORT. */
export function dashboardUrl(config: Pick<ServerConfig, 'host' | 'port'>, argv: readonly string[]): string {
  const host = hostnameArg(argv) ?? config.host;
  const port = portArg(argv) ?? String(config.port);
  const shown = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `http://${shown}:${port}`;
}

/** The one line printed when the dashboard is up. */
export function startupLine(url: string, engine: Pick<ServerEngine, 'readpast' | 'pool' | 'poolSource' | 'config'>): string {
  const n = engine.pool?.size ?? 0;
  const src = engine.poolSource;
  const why =
    src.from === 'stored' && src.size !== engine.config.workers ? ` (set by ${src.by}; READPAST_WORKERS=${engine.config.workers})` : '';
  return `readpast dashboard on ${url} · ${engine.readpast.description} · ${n} worker${n === 1 ? '' : 's'}${why}`;
}

/** Why this process must not serve, or null: READPAST_HOST, and the address actually given to `next start`. */
export function startupRefusal(config: ServerConfig, argv: readonly string[]): string | null {
  // `next start` without -H listens on every interface
  const bound = hostnameArg(argv) ?? (argv.includes('start') ? '0.0.0.0' : config.host);
  return bindRefusal(config) ?? bindRefusal({ host: bound, auth: config.auth, oidc: config.oidc });
}

/**
 * The pid of the process that started this one and that it must not outlive (READPAST_PARENT_PID, set by
 * `npm start` and `readpast dashboard`), or null.
 */
export function parentPid(env: Record<string, string | undefined> = process.env): number | null {
  const n = Number(env.READPAST_PARENT_PID);
  return Number.isInteger(n) && n > 1 ? n : null;
}

/** Stops this process (as SIGTERM would) once READPAST_PARENT_PID is no longer its parent: a launcher killed hard. */
function watchParent(stop: (signal: NodeJS.Signals) => void): void {
  const parent = parentPid();
  if (parent === null) return;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    serverLogger().warn({ parent }, 'the process that started the dashboard is gone; stopping');
    stop('SIGTERM');
  }, 500);
  timer.unref();
}

/** This process's OpenTelemetry SDK, when the environment asked for one (telemetry.ts). */
let telemetry: Telemetry | null = null;

function installSignalHandlers(): (signal: NodeJS.Signals) => void {
  const logger = serverLogger();
  let shuttingDown = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (shuttingDown) return;
    shuttingDown = true;
    // With NEXT_MANUAL_SIG_HANDLE (set by `npm start`) this process exits once the pool has stopped;
    // otherwise Next.js exits on its own and attempts cut short are rescued when their leases expire.
    const ownsExit = !!process.env.NEXT_MANUAL_SIG_HANDLE;
    const exit = () => process.exit(signal === 'SIGINT' ? 130 : 143);
    if (ownsExit) setTimeout(exit, 30_000).unref();
    logger.info(
      { signal, retryAfter: RETRY_AFTER_SECONDS },
      'stopping: running tasks get 10 s to finish; requests are answered 503 with Retry-After until the process exits',
    );
    stopEngine()
      .then(() => logger.info({}, 'stopped; database closed'))
      .catch((err: unknown) => logger.error({ err }, 'error while stopping the worker pool'))
      // the last spans, exported before the process ends
      .then(() => telemetry?.shutdown())
      .finally(() => {
        if (ownsExit) exit();
      });
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  return shutdown;
}

export async function boot(): Promise<void> {
  const logger = serverLogger();
  let config: ServerConfig;
  try {
    config = serverConfig();
  } catch (err) {
    logger.error({}, `readpast: ${(err as Error).message}`);
    process.exit(1);
  }
  const refusal = startupRefusal(config, process.argv);
  if (refusal) {
    logger.error({}, `readpast: ${refusal}`);
    process.exit(1);
  }
  watchParent(installSignalHandlers());
  // OpenTelemetry, when the OTEL_* variables ask for it (the SDK is loaded only then): Next.js's own request spans
  // then parent the enqueues of its routes and actions
  const { startTelemetry, wantsTelemetry } = await import('./telemetry');
  if (wantsTelemetry().length) telemetry = await startTelemetry('readpast-dashboard', (m) => logger.warn({}, m));
  if (telemetry) logger.info({ exporters: telemetry.exporters }, 'tracing started (OpenTelemetry)');
  try {
    const engine = await startEngine();
    const url = dashboardUrl(config, process.argv);
    logger.info(
      {
        startup: true,
        url,
        database: engine.readpast.description,
        workers: engine.pool?.size ?? 0,
        pool: engine.poolSource,
        pid: process.pid,
      },
      startupLine(url, engine),
    );
  } catch (err) {
    logger.error({ err }, `readpast: cannot start the engine: ${(err as Error).message}`);
    process.exit(1);
  }
}
