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

/** The server's QUEUE_NAME rule (lib/engine/limits.ts). */
export const QUEUE_RE = QUEUE_NAME;

export const EXAMPLES: Record<string, unknown> = {
  'demo.sleep': { ms: 3000 },
  'demo.fail': { message: 'simulated failure', number: 50001 },
  'demo.flaky': { failTimes: 2 },
  'demo.echo': { hello: 'world' },
};
