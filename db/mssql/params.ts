// Procedure parameters: catalog rows (sys.parameters) → ProcedureParameter, and checked values
// (param-values.ts) → typed mssql inputs. Exact numbers (decimal, numeric, money) travel
// as their decimal text and SQL Server converts them to the parameter's declared type, because
// the driver would otherwise pass them through a JavaScript float.
import { paramKind } from '../../lib/engine/procedures';
import { convertParams, type ParamValue } from './param-values';
import type { ProcedureParameter } from '../../lib/engine/types';
import { sql, type ISqlType } from './connection';

export interface ParameterRow {
  name: string;
  type_name: string;
  base_type: string | null;
  is_table_type: boolean;
  max_length: number;
  precision: number;
  scale: number;
  is_output: boolean;
}

const N_TYPES = new Set(['nvarchar', 'nchar']);
const LENGTH_TYPES = new Set(['varchar', 'char', 'varbinary', 'binary', 'nvarchar', 'nchar']);
const SCALE_TYPES = new Set(['datetime2', 'datetimeoffset', 'time']);
const EXACT_TYPES = new Set(['decimal', 'numeric']);

/** One sys.parameters row → the engine's description (alias types are described by their base type). */
export function parameterFromRow(r: ParameterRow): ProcedureParameter {
  const isTable = Boolean(r.is_table_type);
  const type = isTable ? r.type_name : (r.base_type ?? r.type_name).toLowerCase();
  let maxLength: number | null = null;
  if (!isTable && LENGTH_TYPES.has(type)) {
    maxLength = r.max_length === -1 ? -1 : N_TYPES.has(type) ? Math.floor(r.max_length / 2) : r.max_length;
  }
  return {
    name: r.name.replace(/^@/, ''),
    type,
    maxLength,
    precision: !isTable && EXACT_TYPES.has(type) ? r.precision : null,
    scale: !isTable && (EXACT_TYPES.has(type) || SCALE_TYPES.has(type)) ? r.scale : null,
    isOutput: Boolean(r.is_output),
    isTable,
  };
}

const len = (p: ProcedureParameter) => (p.maxLength === null || p.maxLength < 0 ? sql.MAX : p.maxLength);

/** The declared mssql type of a parameter (used for outputs, and for inputs of every non-exact type). */
export function sqlType(p: ProcedureParameter): ISqlType {
  switch (p.type.toLowerCase()) {
    case 'int':
      return sql.Int();
    case 'bigint':
      return sql.BigInt();
    case 'smallint':
      return sql.SmallInt();
    case 'tinyint':
      return sql.TinyInt();
    case 'bit':
      return sql.Bit();
    case 'decimal':
      return sql.Decimal(p.precision ?? 18, p.scale ?? 0);
    case 'numeric':
      return sql.Numeric(p.precision ?? 18, p.scale ?? 0);
    case 'money':
      return sql.Money();
    case 'smallmoney':
      return sql.SmallMoney();
    case 'float':
      return sql.Float();
    case 'real':
      return sql.Real();
    case 'varchar':
      return sql.VarChar(len(p));
    case 'nvarchar':
      return sql.NVarChar(len(p));
    case 'char':
      return sql.Char(len(p));
    case 'nchar':
      return sql.NChar(len(p));
    case 'varbinary':
    case 'binary':
      return sql.VarBinary(len(p));
    case 'date':
      return sql.Date();
    case 'datetime':
      return sql.DateTime();
    case 'smalldatetime':
      return sql.SmallDateTime();
    case 'datetime2':
      return sql.DateTime2(p.scale ?? 7);
    case 'datetimeoffset':
      return sql.DateTimeOffset(p.scale ?? 7);
    case 'time':
      return sql.Time(p.scale ?? 7);
    case 'uniqueidentifier':
      return sql.UniqueIdentifier();
    case 'xml':
      return sql.NVarChar(sql.MAX);
    default:
      throw new Error(`parameters of type ${p.type} are not supported`);
  }
}

/** What to send for one input value: its type and driver value. */
export function inputFor(p: ProcedureParameter, v: ParamValue): { type: ISqlType; value: unknown } {
  if (v.kind === 'null') return { type: sqlType(p), value: null };
  if (v.kind === 'decimal') return { type: sql.VarChar(64), value: v.value };
  return { type: sqlType(p), value: v.value };
}

export interface ProcedureCall {
  inputs: { name: string; type: ISqlType; value: unknown }[];
  outputs: { name: string; type: ISqlType; value: unknown }[];
}

/**
 * The typed call for a procedure: every given parameter as an input (or output, when the catalog
 * says OUTPUT), every OUTPUT parameter even when not given (so its value comes back).
 * Throws ValidationError naming the parameter for values that cannot convert.
 */
export function buildCall(params: readonly ProcedureParameter[], payload: unknown, prefix = 'payload'): ProcedureCall {
  const given = convertParams(params, payload, prefix);
  const call: ProcedureCall = { inputs: [], outputs: [] };
  for (const p of params) {
    // unsupported types (table types, sql_variant, …) accept only null: leave them to their default
    if (paramKind(p) === 'unsupported') continue;
    const g = given.get(p.name);
    if (p.isOutput) {
      const v = g?.value ?? { kind: 'null' as const };
      const value = v.kind === 'null' ? null : v.kind === 'decimal' ? Number(v.value) : v.value;
      call.outputs.push({ name: p.name, type: sqlType(p), value });
    } else if (g) {
      call.inputs.push({ name: p.name, ...inputFor(p, g.value) });
    }
  }
  return call;
}

/** Output values as JSON: binary as base64, times as ISO-8601. */
export function jsonValue(v: unknown): unknown {
  if (Buffer.isBuffer(v)) return v.toString('base64');
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : v.toISOString();
  if (typeof v === 'bigint') return v.toString();
  return v;
}
