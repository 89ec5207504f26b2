// The server process's logger (pino, JSON lines on stdout), shared across bundles through globalThis.
import pino from 'pino';
import type { Logger } from '@/lib/engine/logger';

const KEY = Symbol.for('readpast.server.logger');
type Holder = { [KEY]?: Logger };

export function serverLogger(): Logger {
  const g = globalThis as Holder;
  return (g[KEY] ??= pino({
    name: 'readpast',
    level: process.env.READPAST_LOG_LEVEL || 'info',
  }));
}
