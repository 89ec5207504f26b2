// readpast worker [--concurrency N] [--lease-seconds S] [--handlers MODULE] [--queues a,b]
// Runs in the foreground. The first SIGTERM/SIGINT stops gracefully (pool.stop), a second exits at once.
// With the OTEL_* variables set, the OpenTelemetry SDK traces every attempt (README "OpenTelemetry").
import { constants } from 'node:os';
import { resolve } from 'node:path';
import { loadDeclaredSchedules } from '../../lib/api/schedules';
import { MAX_POOL_SIZE } from '../../lib/engine/limits';
import { intFlag, parseFlags, positionals, queuesFlag } from '../args';
import { openContext } from '../context';
import { EXIT } from '../errors';

/** Resolves on the first SIGTERM/SIGINT; a second one ends the process at once. */
function firstSignal(onSecond: (signal: NodeJS.Signals) => void): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    let received = false;
    const handler = (signal: NodeJS.Signals) => {
      if (received) return onSecond(signal);
      received = true;
      resolve(signal);
    };
    process.on('SIGTERM', handler);
    process.on('SIGINT', handler);
  });
}

export async function run(argv: string[]): Promise<number> {
  const { values, positionals: rest } = parseFlags({
    args: argv,
    options: {
      concurrency: { type: 'string' },
      'lease-seconds': { type: 'string' },
      handlers: { type: 'string' },
      queues: { type: 'string' },
    },
    strict: true,
    allowPositionals: true,
  });
  positionals(rest, []);
  const concurrency = intFlag('--concurrency', values.concurrency, 1, MAX_POOL_SIZE) ?? 4;
  const leaseMs = (intFlag('--lease-seconds', values['lease-seconds'], 1, 24 * 3600) ?? 30) * 1000;
  const queues = queuesFlag('--queues', values.queues);

  const { readpast, registry, logger } = await openContext({ handlers: values.handlers, logLevel: 'info', migrate: true });
  // OpenTelemetry, when the OTEL_* variables ask for it (lib/server/telemetry.ts: the SDK is loaded only then)
  const { startTelemetry, wantsTelemetry } = await import('../../lib/server/telemetry');
  const telemetry = wantsTelemetry().length ? await startTelemetry('readpast-worker', (m) => logger.warn({}, m)) : null;
  if (telemetry) logger.info({ exporters: telemetry.exporters }, 'tracing started (OpenTelemetry)');
  // the pool's timers do not hold the process open; this does, until the worker has stopped
  const keepAlive = setInterval(() => {}, 1 << 30);
  const signalled = firstSignal((signal) => {
    logger.warn({ signal }, 'second signal: exiting now; unfinished tasks are rescued when their lease expires');
    process.exit(128 + (constants.signals[signal] ?? 15));
  });

  try {
    // the module's `schedules` export, when it has one: created or brought up to date (source code);
    // code schedules it no longer declares are disabled
    const declared = values.handlers === undefined ? null : await loadDeclaredSchedules(resolve(values.handlers));
    if (declared) logger.info(await readpast.declareSchedules(declared), 'schedules declared in code');
    // (pool.start also records the handler names, so enqueue elsewhere accepts them)
    const pool = readpast.createPool({
      concurrency,
      leaseMs,
      // renew well within the lease, whatever its length
      heartbeatMs: Math.max(100, Math.min(1000, Math.floor(leaseMs / 3))),
      role: 'cli',
      ...(queues ? { queues } : {}),
    });
    await pool.start();
    logger.info(
      {
        database: readpast.description,
        concurrency,
        leaseMs,
        queues: queues ?? 'all',
        handlers: registry.names(),
        workerIds: pool.workerIds(),
      },
      'worker started',
    );
    const signal = await signalled;
    logger.info({ signal }, 'stopping: no new claims, letting running tasks finish (signal again to exit at once)');
    await pool.stop();
    logger.info({}, 'worker stopped');
    return EXIT.ok;
  } finally {
    clearInterval(keepAlive);
    await readpast.close();
    // the last spans, exported before the process ends
    await telemetry?.shutdown();
  }
}
