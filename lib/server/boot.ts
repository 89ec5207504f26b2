// The dashboard server's start-up in the Node.js runtime (called once from instrumentation.ts):
// refuse an unsafe bind, open (and migrate) the store, start the pool, stop it on SIGTERM / SIGINT.
import { bindRefusal, serverConfig, type ServerConfig } from './config';
import { startEngine, stopEngine } from './engine';
import { serverLogger } from './log';

/** The address `next start` was told to bind (`-H` / `--hostname`), if given on its command line. */
export function hostnameArg(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '-H' || a === '--hostname') return argv[i + 1];
    if (a.startsWith('--hostname=')) return a.slice('--hostname='.length);
  }
  return undefined;
}

/** Why this process must not serve, or null: READPAST_HOST, and the address actually given to `next start`. */
export function startupRefusal(config: ServerConfig, argv: readonly string[]): string | null {
  // `next start` without -H listens on every interface
  const bound = hostnameArg(argv) ?? (argv.includes('start') ? '0.0.0.0' : config.host);
  return bindRefusal(config) ?? bindRefusal({ host: bound, auth: config.auth });
}

function installSignalHandlers(): void {
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
    logger.info({ signal }, 'stopping the worker pool');
    stopEngine()
      .then(() => logger.info({}, 'worker pool stopped; database closed'))
      .catch((err: unknown) => logger.error({ err }, 'error while stopping the worker pool'))
      .finally(() => {
        if (ownsExit) exit();
      });
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
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
  installSignalHandlers();
  try {
    await startEngine();
  } catch (err) {
    logger.error({ err }, `readpast: cannot start the engine: ${(err as Error).message}`);
    process.exit(1);
  }
}
