// Opening the database for a command: the registry (built-ins plus --handlers), a logger, the facade.
import { defaultRegistry, type HandlerRegistry } from '../lib/engine/handlers';
import type { Logger } from '../lib/engine/logger';
import type { Readpast } from '../lib/api/readpast';
import { openReadpast } from '../lib/api/open';
import { loadHandlersModule } from './handlers-module';
import { cliLogger } from './logger';

export interface CliContext {
  readpast: Readpast;
  registry: HandlerRegistry;
  logger: Logger;
}

export interface ContextOptions {
  handlers?: string;
  logLevel?: 'info' | 'warn';
  /**
   * Create or upgrade the schema on open: the worker does (and `migrate`, explicitly). Short commands
   * do not: against SQL Server that check alone costs more than the command (OpenOptions.migrate).
   */
  migrate?: boolean;
}

/** Builds the registry first (so a bad --handlers module fails before the database is touched), then opens. */
export async function openContext(opts: ContextOptions = {}): Promise<CliContext> {
  const registry = defaultRegistry();
  if (opts.handlers !== undefined) await loadHandlersModule(opts.handlers, registry);
  const logger = cliLogger(opts.logLevel ?? 'warn');
  const readpast = await openReadpast({ registry, logger, migrate: opts.migrate ?? false });
  return { readpast, registry, logger };
}

/** Runs `fn` with an open context and always closes it. */
export async function withContext<T>(opts: ContextOptions, fn: (ctx: CliContext) => Promise<T>): Promise<T> {
  const ctx = await openContext(opts);
  try {
    return await fn(ctx);
  } finally {
    await ctx.readpast.close();
  }
}

export function print(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : text + '\n');
}

/**
 * The W3C trace context the environment carries (TRACEPARENT, TRACESTATE: OpenTelemetry's variables for a process
 * started inside a trace): an enqueue from the command line continues that trace (an invalid one is ignored).
 */
export function envTrace(env: NodeJS.ProcessEnv = process.env): { traceparent?: string; tracestate?: string } {
  return { ...(env.TRACEPARENT && { traceparent: env.TRACEPARENT }), ...(env.TRACESTATE && { tracestate: env.TRACESTATE }) };
}
