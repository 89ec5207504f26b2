// `procedure` tasks: a description of the parameter types a procedure may declare (the names its catalog
// reports), shared by the server's check at enqueue (db/mssql/param-values.ts) and the dashboard's form
// (components/enqueue/procedure.ts), which runs in the browser: what kind of value each type takes, its
// bounds and label, and the exact-decimal arithmetic both sides round with. Data and pure functions only —
// no driver, no Buffer; turning a value into a driver input is the store's (db/mssql).
import type { ProcedureParameter } from './types';

const INT32: readonly [bigint, bigint] = [-2147483648n, 2147483647n];
const INT64: readonly [bigint, bigint] = [-9223372036854775808n, 9223372036854775807n];

/** The range of each SQL Server integer type, by lower-case type name. */
export const SQL_INT_RANGE: Readonly<Record<string, readonly [bigint, bigint]>> = {
  tinyint: [0n, 255n],
  smallint: [-32768n, 32767n],
  int: INT32,
  bigint: INT64,
};

/** decimal / numeric without a declared precision and scale: decimal(18,0). */
export const DEFAULT_DECIMAL_PRECISION = 18;
export const DEFAULT_DECIMAL_SCALE = 0;

/**
 * money and smallmoney, by lower-case type name: the decimal(precision, scale) each behaves as,
 * and the range of its value × 10⁴ (stored as an int64 / int32).
 */
export const SQL_MONEY: Readonly<Record<string, { precision: number; scale: number; scaledRange: readonly [bigint, bigint] }>> = {
  money: { precision: 19, scale: 4, scaledRange: INT64 },
  smallmoney: { precision: 10, scale: 4, scaledRange: INT32 },
};

/** The largest magnitude a `real` (single-precision float) holds. */
export const SQL_REAL_MAX = 3.40282347e38;

/** The years each date/time type holds, by lower-case type name; the others hold SQL_DEFAULT_YEAR_RANGE. */
export const SQL_YEAR_RANGE: Readonly<Record<string, readonly [number, number]>> = {
  datetime: [1753, 9999],
  smalldatetime: [1900, 2079],
};
export const SQL_DEFAULT_YEAR_RANGE: readonly [number, number] = [1, 9999];

/** A uniqueidentifier as text, braces optional; group 1 is the bare uuid. */
export const SQL_GUID = /^\{?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\}?$/i;

/** How a form should render a parameter, and how its JSON value is read. */
export type ParamKind =
  | 'integer'
  | 'bigint'
  | 'decimal'
  | 'float'
  | 'boolean'
  | 'text'
  | 'binary'
  | 'date'
  | 'datetime'
  | 'datetimeoffset'
  | 'time'
  | 'uuid'
  | 'xml'
  | 'unsupported';

const KINDS: Record<string, ParamKind> = {
  int: 'integer',
  smallint: 'integer',
  tinyint: 'integer',
  bigint: 'bigint',
  bit: 'boolean',
  decimal: 'decimal',
  numeric: 'decimal',
  money: 'decimal',
  smallmoney: 'decimal',
  float: 'float',
  real: 'float',
  varchar: 'text',
  nvarchar: 'text',
  char: 'text',
  nchar: 'text',
  varbinary: 'binary',
  binary: 'binary',
  date: 'date',
  datetime: 'datetime',
  datetime2: 'datetime',
  smalldatetime: 'datetime',
  datetimeoffset: 'datetimeoffset',
  time: 'time',
  uniqueidentifier: 'uuid',
  xml: 'xml',
};

export function paramKind(p: Pick<ProcedureParameter, 'type' | 'isTable'>): ParamKind {
  if (p.isTable) return 'unsupported';
  return KINDS[p.type.toLowerCase()] ?? 'unsupported';
}

/** `decimal(18,4)`, `nvarchar(max)`, `int` … */
export function typeLabel(p: ProcedureParameter): string {
  const t = p.type.toLowerCase();
  if ((t === 'decimal' || t === 'numeric') && p.precision !== null) return `${t}(${p.precision},${p.scale ?? 0})`;
  if (['varchar', 'nvarchar', 'char', 'nchar', 'varbinary', 'binary'].includes(t) && p.maxLength !== null) {
    return `${t}(${p.maxLength === -1 ? 'max' : p.maxLength})`;
  }
  if (['datetime2', 'datetimeoffset', 'time'].includes(t) && p.scale !== null) return `${t}(${p.scale})`;
  return p.type;
}

/** A number or numeric string → its exact decimal digits, or null when it is not a plain decimal. */
export function exactDecimal(v: unknown): { negative: boolean; int: string; frac: string } | null {
  let s: string;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return null;
    s = String(v);
  } else if (typeof v === 'string') {
    s = v.trim();
  } else {
    return null;
  }
  const m = /^([+-])?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d{1,4}))?$/.exec(s);
  if (!m || (!m[2] && !m[3])) return null;
  let int = m[2] ?? '';
  let frac = m[3] ?? '';
  const exp = Number(m[4] ?? '0');
  if (exp > 0) {
    const pad = frac.padEnd(exp, '0');
    int += pad.slice(0, exp);
    frac = pad.slice(exp);
  } else if (exp < 0) {
    const pad = int.padStart(-exp, '0');
    frac = pad.slice(pad.length + exp) + frac;
    int = pad.slice(0, pad.length + exp);
  }
  int = int.replace(/^0+/, '');
  frac = frac.replace(/0+$/, '');
  const negative = m[1] === '-' && (int !== '' || frac !== '');
  return { negative, int, frac };
}

/** Round decimal digits half away from zero to `scale` fraction digits (SQL Server rounds the same way). */
export function roundDigits(int: string, frac: string, scale: number): { int: string; frac: string } {
  if (frac.length <= scale) return { int, frac };
  const up = frac.charCodeAt(scale) - 48 >= 5;
  let digits = (int + frac.slice(0, scale)).split('').map(Number);
  if (up) {
    let i = digits.length - 1;
    for (; i >= 0; i--) {
      if (digits[i]! < 9) {
        digits[i]! += 1;
        break;
      }
      digits[i] = 0;
    }
    if (i < 0) digits = [1, ...digits];
  }
  const all = digits.join('');
  const cut = all.length - scale;
  return { int: all.slice(0, cut).replace(/^0+/, ''), frac: all.slice(cut).replace(/0+$/, '') };
}

/** A decimal parameter's precision and scale; money and smallmoney behave as decimal(19,4) and decimal(10,4). */
export function precisionScale(p: Pick<ProcedureParameter, 'type' | 'precision' | 'scale'>): [number, number] {
  const money = SQL_MONEY[p.type.toLowerCase()];
  if (money) return [money.precision, money.scale];
  return [p.precision ?? DEFAULT_DECIMAL_PRECISION, p.scale ?? DEFAULT_DECIMAL_SCALE];
}

/** Strip an optional leading @ and compare case-insensitively, as SQL Server does with default collations. */
export const paramKey = (name: string) => name.replace(/^@/, '').toLowerCase();
