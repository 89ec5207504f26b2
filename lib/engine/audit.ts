// The audit trail's values as stored: before/after as JSON text, bounded (a bulk action's selection or an
// edited payload is cut, not refused), read back leniently. Shared by every store.

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
