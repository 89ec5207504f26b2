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

/** Builds the registry first (so a bad --handlers module fails before the database is touched), then opens. */
export async function openContext(opts: { handlers?: string; logLevel?: 'info' | 'warn' } = {}): Promise<CliContext> {
  const registry = defaultRegistry();
  if (opts.handlers !== undefined) await loadHandlersModule(opts.handlers, registry);
  const logger = cliLogger(opts.logLevel ?? 'warn');
  const readpast = await openReadpast({ registry, logger });
  return { readpast, registry, logger };
}

/** Runs `fn` with an open context and always closes it. */
export async function withContext<T>(
  opts: { handlers?: string; logLevel?: 'info' | 'warn' },
  fn: (ctx: CliContext) => Promise<T>,
): Promise<T> {
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
