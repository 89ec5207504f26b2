// Client-side checks of procedure parameter fields, mirroring db/mssql/param-values.ts (which the
// server applies at enqueue, with the final word) so most mistakes show while typing. The types'
// description (kinds, bounds, labels) is lib/engine/procedures.ts, shared with the server.
import { BASE64, PROCEDURE_NAME } from '@/lib/engine/limits';
import {
  exactDecimal,
  paramKind,
  precisionScale,
  roundDigits,
  SQL_DEFAULT_YEAR_RANGE,
  SQL_GUID,
  SQL_INT_RANGE,
  SQL_REAL_MAX,
  SQL_YEAR_RANGE,
  typeLabel,
  type ParamKind,
} from '@/lib/engine/procedures';
import type { ProcedureParameter } from '@/lib/engine/types';

export { paramKind, precisionScale, typeLabel, type ParamKind };

/** The server's PROCEDURE_NAME rule (lib/engine/limits.ts). */
export const PROCEDURE_NAME_RE = PROCEDURE_NAME;

/** What a field holds: text (with the browser's "not a number" flag of number inputs), or a bit (null = not sent). */
export type FieldValue = { text: string; bad?: boolean } | { flag: boolean | null };

export interface ParamCheck {
  /** false: left out of the payload (empty, output, unsupported) */
  send: boolean;
  value?: unknown;
  error?: string;
  /** a remark that does not block (rounding) */
  note?: string;
}

const intRange = (t: string) => SQL_INT_RANGE[t] ?? SQL_INT_RANGE.bigint!;

export const GUID_RE = SQL_GUID;
/** for the input's `pattern` attribute (no flags there) */
export const GUID_PATTERN = '\\{?[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\\}?';

/** Bytes a valid base64 text decodes to. */
export function base64Bytes(text: string): number {
  const s = text.replace(/\s+/g, '');
  const pad = s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0;
  return (s.length / 4) * 3 - pad;
}

/** `+02:00` for a local wall time in this browser's time zone (at that date). */
export function localOffset(localValue: string): string {
  const d = new Date(localValue);
  const minutes = Number.isNaN(d.getTime()) ? 0 : -d.getTimezoneOffset();
  const sign = minutes < 0 ? '-' : '+';
  const a = Math.abs(minutes);
  return `${sign}${String(Math.floor(a / 60)).padStart(2, '0')}:${String(a % 60).padStart(2, '0')}`;
}

/** datetime-local gives `YYYY-MM-DDTHH:MM` when the seconds are zero: always send the seconds. */
const withSeconds = (v: string) => (/T\d{2}:\d{2}$/.test(v) ? `${v}:00` : v);
const timeWithSeconds = (v: string) => (/^\d{2}:\d{2}$/.test(v) ? `${v}:00` : v);

/** The empty state of a parameter's field. */
export function emptyValue(p: ProcedureParameter): FieldValue {
  return paramKind(p) === 'boolean' ? { flag: null } : { text: '' };
}

/** Check one field against its parameter's type; what to send under the parameter's name. */
export function checkParam(p: ProcedureParameter, v: FieldValue): ParamCheck {
  const kind = paramKind(p);
  if (p.isOutput || kind === 'unsupported') return { send: false };
  if ('flag' in v) return v.flag === null ? { send: false } : { send: true, value: v.flag };
  if (v.bad)
    return {
      send: false,
      error:
        kind === 'date' || kind === 'datetime' || kind === 'datetimeoffset' || kind === 'time'
          ? 'not a complete date or time'
          : 'not a number',
    };
  const raw = v.text;
  const s = raw.trim();
  if (s === '' && kind !== 'text' && kind !== 'xml') return { send: false };
  if (raw === '') return { send: false };
  const t = p.type.toLowerCase();
  switch (kind) {
    case 'integer':
    case 'bigint': {
      const d = exactDecimal(s);
      if (!d || d.frac !== '') return { send: false, error: 'a whole number' };
      const n = BigInt((d.negative ? '-' : '') + (d.int || '0'));
      const [lo, hi] = intRange(t);
      if (n < lo || n > hi) return { send: false, error: `from ${lo} to ${hi}` };
      // beyond 2^53 a JSON number would lose digits: the server reads exact digits from a string
      return { send: true, value: Number.isSafeInteger(Number(n)) ? Number(n) : n.toString() };
    }
    case 'decimal': {
      const d = exactDecimal(s);
      if (!d) return { send: false, error: 'a decimal number' };
      const [precision, scale] = precisionScale(p);
      const r = roundDigits(d.int, d.frac, scale);
      if (r.int.length > precision - scale) return { send: false, error: `at most ${precision - scale} digits before the decimal point` };
      const note = d.frac.length > scale ? `rounded to ${scale} decimal place${scale === 1 ? '' : 's'} by the server` : undefined;
      // exact digits travel as a string (a JSON number could lose them)
      return { send: true, value: s, ...(note ? { note } : {}) };
    }
    case 'float': {
      const n = exactDecimal(s) ? Number(s) : NaN;
      if (!Number.isFinite(n)) return { send: false, error: 'a finite number' };
      if (t === 'real' && Math.abs(n) > SQL_REAL_MAX) return { send: false, error: 'out of range for real' };
      return { send: true, value: n };
    }
    case 'text': {
      if (p.maxLength !== null && p.maxLength >= 0 && raw.length > p.maxLength)
        return { send: false, error: `at most ${p.maxLength} characters (${raw.length})` };
      if (raw.includes('\u0000') && t !== 'nvarchar' && t !== 'nchar') return { send: false, error: 'contains a NUL character' };
      return { send: true, value: raw };
    }
    case 'xml':
      return { send: true, value: raw };
    case 'binary': {
      const b = s.replace(/\s+/g, '');
      if (!BASE64.test(b)) return { send: false, error: 'base64 text (A–Z a–z 0–9 + /, padded with =)' };
      const bytes = base64Bytes(b);
      if (p.maxLength !== null && p.maxLength >= 0 && bytes > p.maxLength)
        return { send: false, error: `at most ${p.maxLength} bytes (${bytes})` };
      return { send: true, value: b };
    }
    case 'uuid':
      return GUID_RE.test(s)
        ? { send: true, value: s.replace(/[{}]/g, '').toLowerCase() }
        : { send: false, error: 'a uuid like 0f8fad5b-d9cb-469f-a165-70867728950e' };
    case 'time':
      return /^\d{2}:\d{2}(:\d{2}(\.\d{1,7})?)?$/.test(s)
        ? { send: true, value: timeWithSeconds(s) }
        : { send: false, error: 'a time like 13:45:00' };
    case 'date':
    case 'datetime':
    case 'datetimeoffset': {
      const m = kind === 'date' ? /^(\d{4})-\d{2}-\d{2}$/.exec(s) : /^(\d{4})-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/.exec(s);
      if (!m) return { send: false, error: kind === 'date' ? 'a date like 2024-05-31' : 'a date and time' };
      const [lo, hi] = SQL_YEAR_RANGE[t] ?? SQL_DEFAULT_YEAR_RANGE;
      const year = Number(m[1]);
      if (year < lo || year > hi) return { send: false, error: `year from ${lo} to ${hi}` };
      if (kind === 'date') return { send: true, value: s };
      const local = withSeconds(s);
      // datetime/datetime2 hold no time zone: the wall time goes as typed; datetimeoffset gets this browser's offset
      return { send: true, value: kind === 'datetimeoffset' ? `${local}${localOffset(s)}` : local };
    }
  }
  return { send: false };
}

/** A short description of what a parameter accepts, shown under its field. */
export function paramHint(p: ProcedureParameter): string {
  const kind = paramKind(p);
  const t = p.type.toLowerCase();
  if (p.isOutput) return "output: its value is returned in the task's result";
  switch (kind) {
    case 'integer':
    case 'bigint': {
      const [lo, hi] = intRange(t);
      return `whole number from ${lo} to ${hi}`;
    }
    case 'decimal': {
      const [precision, scale] = precisionScale(p);
      return `precision ${precision}, scale ${scale}: up to ${precision - scale} digits before and ${scale} after the point`;
    }
    case 'float':
      return t === 'real' ? 'single-precision floating-point number' : 'floating-point number';
    case 'boolean':
      return 'bit: checked = 1, unchecked = 0';
    case 'text':
      return p.maxLength === null || p.maxLength < 0 ? 'text of any length' : `up to ${p.maxLength} characters`;
    case 'xml':
      return 'an XML document or fragment';
    case 'binary':
      return `base64${p.maxLength !== null && p.maxLength >= 0 ? `, up to ${p.maxLength} bytes` : ', any length'}`;
    case 'date':
      return 'date';
    case 'datetime':
      return 'date and time, sent as typed (no time zone)';
    case 'datetimeoffset':
      return "date and time in this browser's time zone, sent with its offset";
    case 'time':
      return 'time of day';
    case 'uuid':
      return 'uniqueidentifier, e.g. 0f8fad5b-d9cb-469f-a165-70867728950e';
    case 'unsupported':
      return p.isTable ? 'table-valued parameters cannot be sent from this form' : `type ${p.type} is not supported here`;
  }
}

/** `payload.Amount` → the parameter it names (case-insensitive, @ optional), or null. */
export function paramOfField(params: readonly ProcedureParameter[], field: string | undefined): string | null {
  if (!field?.startsWith('payload.')) return null;
  const key = field.slice('payload.'.length).replace(/^@/, '').toLowerCase();
  return params.find((p) => p.name.replace(/^@/, '').toLowerCase() === key)?.name ?? null;
}
