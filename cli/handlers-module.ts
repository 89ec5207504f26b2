// `--handlers MODULE`: a user module (path relative to the current directory) that adds handlers —
// its `register` or default export is `(registry) => void`, or an object name → handler (lib/api/open.ts).
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { HandlerRegistry } from '../lib/engine/handlers';
import { loadHandlers } from '../lib/api/open';
import { UsageError } from './errors';

const FLAG = '--handlers';

/** Loads the module into `registry`; returns the handler names it added or replaced. Failures name the flag. */
export async function loadHandlersModule(spec: string, registry: HandlerRegistry, cwd = process.cwd()): Promise<string[]> {
  if (!spec.trim()) throw new UsageError(FLAG, 'needs a module path');
  const file = resolve(cwd, spec);
  if (!existsSync(file)) throw new UsageError(FLAG, `no such file ${file}`);
  const before = new Map(registry.names().map((n) => [n, registry.get(n)]));
  try {
    await loadHandlers(registry, file);
  } catch (err) {
    throw new UsageError(FLAG, `cannot load ${spec}: ${err instanceof Error ? err.message : String(err)}`);
  }
  return registry.names().filter((n) => before.get(n) !== registry.get(n));
}
