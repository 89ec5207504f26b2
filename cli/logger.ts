// pino to stderr (synchronous, so nothing is lost when the process exits); READPAST_LOG_LEVEL overrides.
import { pino } from 'pino';
import type { Logger } from '../lib/engine/logger';

const LEVELS = new Set(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']);

export function cliLogger(defaultLevel: 'info' | 'warn', env: NodeJS.ProcessEnv = process.env): Logger & { level: string } {
  const wanted = env.READPAST_LOG_LEVEL?.trim().toLowerCase();
  const level = wanted && LEVELS.has(wanted) ? wanted : defaultLevel;
  return pino({ name: 'readpast', level }, pino.destination({ dest: 2, sync: true }));
}
