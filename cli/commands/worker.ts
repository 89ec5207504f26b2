// readpast worker [--concurrency N] [--lease-seconds S] [--handlers MODULE] [--queues a,b]
// Runs in the foreground. The first SIGTERM/SIGINT stops gracefully (pool.stop), a second exits at once. It
// stops the same way when its parent is gone (npm or npx stopped by a supervisor: cli/lifetime.ts).
// With the OTEL_* variables set, the OpenTelemetry SDK traces every attempt (README "OpenTelemetry").
import { constants } from 'node:os';
import { resolve } from 'node:path';
import { loadDeclaredSchedules } from '../../lib/api/schedules';
import { MAX_POOL_SIZE } from '../../lib/engine/limits';
import { intFlag, parseFlags, positionals, queuesFlag } from '../args';
import { openContext } from '../context';
import { EXIT } from '../errors';
import { describeStop, stopRequests } from '../lifetime';

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

  // from here on a signal, or the parent's exit, asks for a graceful stop (a second signal exits at once)
  let log: ((signal: NodeJS.Signals) => void) | null = null;
  const stop = stopRequests((signal) => {
    log?.(signal);
    process.exit(128 + (constants.signals[signal] ?? 15));
  });
  let ctx: Awaited<ReturnType<typeof openContext>>;
  try {
    ctx = await openContext({ handlers: values.handlers, logLevel: 'info', migrate: true });
  } catch (err) {
    stop.dispose();
    throw err;
  }
  const { readpast, registry, logger } = ctx;
  log = (signal) => logger.warn({ signal }, 'second signal: exiting now; unfinished tasks are rescued when their lease expires');
  // OpenTelemetry, when the OTEL_* variables ask for it (lib/server/telemetry.ts: the SDK is loaded only then)
  const { startTelemetry, wantsTelemetry } = await import('../../lib/server/telemetry');
  const telemetry = wantsTelemetry().length ? await startTelemetry('readpast-worker', (m) => logger.warn({}, m)) : null;
  if (telemetry) logger.info({ exporters: telemetry.exporters }, 'tracing started (OpenTelemetry)');
  // the pool's timers do not hold the process open; this does, until the worker has stopped
  const keepAlive = setInterval(() => {}, 1 << 30);

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
    if (stop.signal.aborted) {
      // asked to stop while opening: nothing claimed yet
      logger.info(describeStop(await stop.requested), 'stopped before starting');
      return EXIT.ok;
    }
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
    const reason = await stop.requested;
    logger.info(
      describeStop(reason),
      'signal' in reason
        ? 'stopping: no new claims, letting running tasks finish (signal again to exit at once)'
        : 'stopping: the process that started the worker is gone; no new claims, letting running tasks finish',
    );
    await pool.stop();
    logger.info({}, 'worker stopped');
    return EXIT.ok;
  } finally {
    stop.dispose();
    clearInterval(keepAlive);
    await readpast.close();
    // the last spans, exported before the process ends
    await telemetry?.shutdown();
  }
}
