// Client-side checks of the enqueue form, mirroring the server's rules so mistakes show while typing.
import { QUEUE_NAME } from '@/lib/engine/limits';

export type JsonCheck = { ok: true; value: unknown } | { ok: false; error: string };

/** Empty text means "no payload". */
export function checkJson(text: string): JsonCheck {
  if (text.trim() === '') return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : 'not valid JSON' };
  }
}

/** An optional integer field: '' → undefined; otherwise an integer within [min, max] or an error message. */
export function checkInt(text: string, min: number, max: number): { value?: number; error?: string } {
  if (text.trim() === '') return {};
  const n = Number(text);
  if (!Number.isInteger(n)) return { error: 'a whole number' };
  if (n < min || n > max) return { error: `from ${min} to ${max}` };
  return { value: n };
}

/** a command as the success notice shows it: at most 40 characters */
export function shortened(command: string): string {
  return command.length > 40 ? `${command.slice(0, 40)}…` : command;
}

/** The server's QUEUE_NAME rule (lib/engine/limits.ts). */
export const QUEUE_RE = QUEUE_NAME;

export const EXAMPLES: Record<string, unknown> = {
  'demo.sleep': { ms: 3000 },
  'demo.fail': { message: 'simulated failure', number: 50001 },
  'demo.flaky': { failTimes: 2 },
  'demo.echo': { hello: 'world' },
};

const TOKEN_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * "Run after": task tokens separated by commas, spaces or new lines → distinct tokens (lower case), or the
 * first problem (a token that is not one, more than `max`). Empty text: no dependency.
 */
export function parseTokens(text: string, max: number): { tokens: string[]; error?: string } {
  const tokens: string[] = [];
  for (const part of text.split(/[\s,;]+/)) {
    if (!part) continue;
    if (!TOKEN_RE.test(part)) return { tokens, error: `${part.length > 40 ? `${part.slice(0, 40)}…` : part} is not a task token` };
    const t = part.toLowerCase();
    if (!tokens.includes(t)) tokens.push(t);
  }
  if (tokens.length > max) return { tokens, error: `at most ${max} parents` };
  return { tokens };
}
