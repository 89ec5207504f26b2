// `procedure` tasks on SQL Server: what a JSON value may be for each parameter type, checked at enqueue so a
// value that cannot convert is refused there (naming the parameter) and never becomes a poison task. The
// checked values are ready for typed driver inputs (params.ts); the types' description (kinds, bounds,
// labels) is lib/engine/procedures.ts, which the dashboard's form shares.
import { ValidationError } from '../../lib/engine/errors';
import { BASE64 } from '../../lib/engine/limits';
import {
  exactDecimal,
  paramKey,
  paramKind,
  precisionScale,
  roundDigits,
  SQL_DEFAULT_YEAR_RANGE,
  SQL_GUID,
  SQL_INT_RANGE,
  SQL_MONEY,
  SQL_REAL_MAX,
  SQL_YEAR_RANGE,
  typeLabel,
} from '../../lib/engine/procedures';
import type { ProcedureParameter } from '../../lib/engine/types';

/** A value ready for a typed driver input. Exact numbers travel as canonical strings. */
export type ParamValue =
  | { kind: 'null' }
  | { kind: 'integer'; value: number }
  | { kind: 'bigint'; value: string }
  | { kind: 'decimal'; value: string }
  | { kind: 'float'; value: number }
  | { kind: 'boolean'; value: boolean }
  | { kind: 'text'; value: string }
  | { kind: 'binary'; value: Buffer }
  | { kind: 'date' | 'datetime' | 'datetimeoffset' | 'time'; value: Date }
  | { kind: 'uuid'; value: string };

const fail = (p: ProcedureParameter, field: string, msg: string): never => {
  throw new ValidationError(field, `@${p.name} (${typeLabel(p)}): ${msg}`);
};

function integer(p: ProcedureParameter, field: string, v: unknown): bigint {
  const d = exactDecimal(typeof v === 'boolean' ? Number(v) : v);
  if (!d || d.frac !== '') fail(p, field, 'must be a whole number');
  const n = BigInt((d!.negative ? '-' : '') + (d!.int || '0'));
  const range = SQL_INT_RANGE[p.type.toLowerCase()]!;
  if (n < range[0] || n > range[1]) fail(p, field, `must be from ${range[0]} to ${range[1]}`);
  return n;
}

function decimal(p: ProcedureParameter, field: string, v: unknown): string {
  const d = exactDecimal(v);
  if (!d) return fail(p, field, 'must be a decimal number');
  const [precision, scale] = precisionScale(p);
  const r = roundDigits(d.int, d.frac, scale);
  if (r.int.length > precision - scale) fail(p, field, `at most ${precision - scale} digits before the decimal point`);
  const negative = d.negative && (r.int !== '' || r.frac !== '');
  const text = `${negative ? '-' : ''}${r.int || '0'}${r.frac ? '.' + r.frac : ''}`;
  const money = SQL_MONEY[p.type.toLowerCase()];
  if (money) {
    const scaled = BigInt((negative ? '-' : '') + (r.int || '0') + r.frac.padEnd(money.scale, '0'));
    const [lo, hi] = money.scaledRange;
    if (scaled < lo || scaled > hi) fail(p, field, 'out of range');
  }
  return text;
}

function float(p: ProcedureParameter, field: string, v: unknown): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' && exactDecimal(v) ? Number(v.trim()) : NaN;
  if (!Number.isFinite(n)) fail(p, field, 'must be a finite number');
  if (p.type.toLowerCase() === 'real' && Math.abs(n) > SQL_REAL_MAX) fail(p, field, 'out of range for real');
  return n;
}

function boolean(p: ProcedureParameter, field: string, v: unknown): boolean {
  if (typeof v === 'boolean') return v;
  if (v === 0 || v === 1) return v === 1;
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    if (s === 'true' || s === '1') return true;
    if (s === 'false' || s === '0') return false;
  }
  return fail(p, field, 'must be true or false (or 1 / 0)');
}

function text(p: ProcedureParameter, field: string, v: unknown): string {
  const s = typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : fail(p, field, 'must be a string');
  const t = p.type.toLowerCase();
  if (p.maxLength !== null && p.maxLength >= 0) {
    // (n)varchar lengths are checked in characters; a single-byte varchar column may still
    // refuse characters outside its code page (stored as ?), which the catalog cannot tell us.
    const len = t === 'varchar' || t === 'char' ? Buffer.byteLength(s, 'latin1') : s.length;
    if (len > p.maxLength) fail(p, field, `longer than ${p.maxLength} characters`);
  }
  if (s.includes('\u0000') && t !== 'nvarchar' && t !== 'nchar') fail(p, field, 'contains a NUL character');
  return s;
}

function binary(p: ProcedureParameter, field: string, v: unknown): Buffer {
  if (typeof v !== 'string' || !BASE64.test(v.replace(/\s+/g, ''))) return fail(p, field, 'must be base64 text');
  const buf = Buffer.from(v.replace(/\s+/g, ''), 'base64');
  if (p.maxLength !== null && p.maxLength >= 0 && buf.length > p.maxLength) fail(p, field, `longer than ${p.maxLength} bytes`);
  return buf;
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const ISO_TIME = /^(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,7}))?)?$/;
const ISO_DATETIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,7}))?)?(Z|[+-]\d{2}:\d{2})?$/i;

function utc(y: number, mo: number, d: number, h = 0, mi = 0, s = 0, ms = 0): Date | null {
  const date = new Date(Date.UTC(2000, mo - 1, d, h, mi, s, ms));
  date.setUTCFullYear(y);
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) return null;
  if (h > 23 || mi > 59 || s > 59) return null;
  return date;
}

const msOf = (frac: string | undefined) => (frac ? Number(frac.padEnd(3, '0').slice(0, 3)) : 0);

function temporal(p: ProcedureParameter, field: string, v: unknown, kind: 'date' | 'datetime' | 'datetimeoffset' | 'time'): Date {
  if (typeof v !== 'string') return fail(p, field, 'must be an ISO-8601 string');
  const s = v.trim();
  const t = p.type.toLowerCase();
  if (kind === 'time') {
    const m = ISO_TIME.exec(s);
    const out = m ? utc(1970, 1, 1, Number(m[1]), Number(m[2]), Number(m[3] ?? 0), msOf(m[4])) : null;
    return out ?? fail(p, field, 'must be a time like 13:45:00');
  }
  let out: Date | null = null;
  const dm = ISO_DATE.exec(s);
  if (kind === 'date') {
    out = dm ? utc(Number(dm[1]), Number(dm[2]), Number(dm[3])) : null;
    if (!out) return fail(p, field, 'must be a date like 2024-05-31');
  } else {
    const m = ISO_DATETIME.exec(s);
    if (dm && kind === 'datetime') out = utc(Number(dm[1]), Number(dm[2]), Number(dm[3]));
    else if (m) {
      if (kind === 'datetimeoffset' && !m[8]) fail(p, field, 'needs a time zone offset (Z or ±hh:mm)');
      out = utc(Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6] ?? 0), msOf(m[7]));
      if (out && m[8] && m[8].toUpperCase() !== 'Z') {
        const sign = m[8][0] === '-' ? -1 : 1;
        const minutes = Number(m[8].slice(1, 3)) * 60 + Number(m[8].slice(4, 6));
        out = minutes > 14 * 60 ? null : new Date(out.getTime() - sign * minutes * 60_000);
      }
    }
    if (!out) return fail(p, field, 'must be an ISO-8601 date and time like 2024-05-31T13:45:00Z');
  }
  const y = out.getUTCFullYear();
  const [lo, hi] = SQL_YEAR_RANGE[t] ?? SQL_DEFAULT_YEAR_RANGE;
  if (y < lo || y > hi) fail(p, field, `year must be from ${lo} to ${hi}`);
  if (t === 'smalldatetime' && out.getTime() > Date.UTC(2079, 5, 6, 23, 59)) fail(p, field, 'after 2079-06-06 23:59');
  return out;
}

/** One parameter's JSON value → a normalised value, or ValidationError naming `field`. */
export function convertParam(p: ProcedureParameter, value: unknown, field = `payload.${p.name}`): ParamValue {
  if (value === null || value === undefined) return { kind: 'null' };
  const kind = paramKind(p);
  switch (kind) {
    case 'integer':
      return { kind, value: Number(integer(p, field, value)) };
    case 'bigint':
      return { kind, value: integer(p, field, value).toString() };
    case 'decimal':
      return { kind, value: decimal(p, field, value) };
    case 'float':
      return { kind, value: float(p, field, value) };
    case 'boolean':
      return { kind, value: boolean(p, field, value) };
    case 'text':
      return { kind, value: text(p, field, value) };
    case 'xml':
      return { kind: 'text', value: text(p, field, value) };
    case 'binary':
      return { kind, value: binary(p, field, value) };
    case 'date':
    case 'datetime':
    case 'datetimeoffset':
    case 'time':
      return { kind, value: temporal(p, field, value, kind) };
    case 'uuid': {
      const m = typeof value === 'string' ? SQL_GUID.exec(value.trim()) : null;
      if (!m) fail(p, field, 'must be a uuid like 0f8fad5b-d9cb-469f-a165-70867728950e');
      return { kind, value: m![1]!.toLowerCase() };
    }
    case 'unsupported':
      return fail(p, field, `parameters of type ${p.type} are not supported; leave it out or pass null`);
  }
}

/**
 * Check a whole parameter object against a procedure's parameters. Unknown names and
 * unconvertible values are refused with a ValidationError naming the parameter.
 * Returns the values to send, by the catalog's parameter name.
 */
export function convertParams(
  params: readonly ProcedureParameter[],
  payload: unknown,
  prefix = 'payload',
): Map<string, { param: ProcedureParameter; value: ParamValue }> {
  if (payload !== null && payload !== undefined && (typeof payload !== 'object' || Array.isArray(payload))) {
    throw new ValidationError(prefix, 'procedure parameters must be a JSON object of name → value');
  }
  const byKey = new Map(params.map((p) => [paramKey(p.name), p]));
  const out = new Map<string, { param: ProcedureParameter; value: ParamValue }>();
  for (const [name, value] of Object.entries((payload ?? {}) as Record<string, unknown>)) {
    const field = `${prefix}.${name}`;
    const p = byKey.get(paramKey(name));
    if (!p) throw new ValidationError(field, 'the procedure has no such parameter');
    if (out.has(p.name)) throw new ValidationError(field, `@${p.name} is given twice`);
    out.set(p.name, { param: p, value: convertParam(p, value, field) });
  }
  return out;
}
