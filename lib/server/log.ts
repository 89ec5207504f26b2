// The server process's logger (pino), shared across bundles through globalThis. Human-readable lines on
// stdout by default (`12:04:31 warn  heartbeat failed  ms=812`); READPAST_LOG_FORMAT=json writes pino's
// JSON lines instead. READPAST_LOG_LEVEL sets the level (info).
import pino from 'pino';
import type { Logger } from '@/lib/engine/logger';

const KEY = Symbol.for('readpast.server.logger');
type Holder = { [KEY]?: Logger };

const LEVELS: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };
/** pino's own fields, not shown as key=value */
const OWN = new Set(['level', 'time', 'pid', 'hostname', 'name', 'msg', 'err', 'startup']);

const pad = (n: number) => String(n).padStart(2, '0');

function value(v: unknown): string {
  if (typeof v === 'string') return /^[^\s"=]+$/.test(v) ? v : JSON.stringify(v);
  if (v instanceof Object) return JSON.stringify(v);
  return String(v);
}

/**
 * One pino JSON record as one human line: time, level, message, then its fields as key=value. A record
 * with `startup: true` (the start-up line) is printed as its message alone. An error shows its message, and
 * its stack at level error and above.
 */
export function humanLine(json: string): string {
  let r: Record<string, unknown>;
  try {
    r = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.endsWith('\n') ? json : `${json}\n`;
  }
  const msg = typeof r.msg === 'string' ? r.msg : '';
  if (r.startup === true) return `${msg}\n`;
  const level = typeof r.level === 'number' ? r.level : 30;
  const t = new Date(typeof r.time === 'number' ? r.time : Date.now());
  const fields = Object.entries(r)
    .filter(([k, v]) => !OWN.has(k) && v !== undefined)
    .map(([k, v]) => `${k}=${value(v)}`);
  const err = r.err as { message?: unknown; stack?: unknown; type?: unknown } | undefined;
  if (err && typeof err === 'object' && typeof err.message === 'string') fields.unshift(`error=${JSON.stringify(err.message)}`);
  const head = `${pad(t.getHours())}:${pad(t.getMinutes())}:${pad(t.getSeconds())} ${(LEVELS[level] ?? 'info').padEnd(5)} ${msg}`;
  let out = fields.length ? `${head}  ${fields.join(' ')}` : head;
  if (level >= 50 && err && typeof err.stack === 'string') out += `\n${err.stack.replace(/^/gm, '    ')}`;
  return `${out}\n`;
}

export function logFormat(env: Record<string, string | undefined> = process.env): 'json' | 'human' {
  return env.READPAST_LOG_FORMAT?.trim().toLowerCase() === 'json' ? 'json' : 'human';
}

export function serverLogger(): Logger {
  const g = globalThis as Holder;
  if (g[KEY]) return g[KEY];
  const options = { name: 'readpast', level: process.env.READPAST_LOG_LEVEL || 'info' };
  g[KEY] = logFormat() === 'json' ? pino(options) : pino(options, { write: (line: string) => void process.stdout.write(humanLine(line)) });
  return g[KEY];
}
