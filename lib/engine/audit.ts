// The audit trail's values as stored: before/after as JSON text, bounded (a bulk action's selection or an
// edited payload is cut, not refused), read back leniently. Shared by every store.
import type { AuditWrite } from './ports';

export const MAX_AUDIT_JSON = 16_384;

export function auditJson(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  const text = JSON.stringify(v) ?? null;
  if (text === null || text.length <= MAX_AUDIT_JSON) return text;
  return JSON.stringify({ truncated: true, prefix: text.slice(0, MAX_AUDIT_JSON) });
}

export function parseAuditJson(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * The audit of a command whose transaction yields another value than the command (a token before its
 * EnqueueResult): `entry` sees the command's outcome, and the row id the store sets is the caller's.
 */
export function auditVia<R, T>(audit: AuditWrite<R> | undefined, outcome: (t: T) => R): AuditWrite<T> | undefined {
  if (!audit) return undefined;
  return {
    entry: (t) => audit.entry(outcome(t)),
    get id() {
      return audit.id;
    },
    set id(v) {
      audit.id = v;
    },
  };
}
