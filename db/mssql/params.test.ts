import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../lib/engine/errors';
import { exactDecimal, paramKind, roundDigits } from '../../lib/engine/procedures';
import { convertParam, convertParams } from './param-values';
import type { ProcedureParameter } from '../../lib/engine/types';
import { sql } from './connection';
import { buildCall, jsonValue, parameterFromRow, sqlType, type ParameterRow } from './params';

const row = (over: Partial<ParameterRow>): ParameterRow => ({
  name: '@p',
  type_name: 'int',
  base_type: 'int',
  is_table_type: false,
  max_length: 4,
  precision: 10,
  scale: 0,
  is_output: false,
  ...over,
});

const p = (type: string, over: Partial<ProcedureParameter> = {}): ProcedureParameter => ({
  name: 'p',
  type,
  maxLength: null,
  precision: null,
  scale: null,
  isOutput: false,
  isTable: false,
  ...over,
});

/** The ValidationError a conversion throws (it must name the parameter). */
function refused(param: ProcedureParameter, value: unknown): ValidationError {
  try {
    convertParam(param, value, `payload.${param.name}`);
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    const e = err as ValidationError;
    expect(e.field).toBe(`payload.${param.name}`);
    expect(e.message).toContain(`@${param.name}`);
    return e;
  }
  throw new Error(`expected ${JSON.stringify(value)} to be refused for ${param.type}`);
}

describe('sys.parameters rows → ProcedureParameter', () => {
  it('reads lengths in characters for n-types, bytes otherwise, -1 for max', () => {
    expect(parameterFromRow(row({ name: '@name', type_name: 'nvarchar', base_type: 'nvarchar', max_length: 100 }))).toEqual({
      name: 'name',
      type: 'nvarchar',
      maxLength: 50,
      precision: null,
      scale: null,
      isOutput: false,
      isTable: false,
    });
    expect(parameterFromRow(row({ type_name: 'nvarchar', base_type: 'nvarchar', max_length: -1 })).maxLength).toBe(-1);
    expect(parameterFromRow(row({ type_name: 'varchar', base_type: 'varchar', max_length: 30 })).maxLength).toBe(30);
    expect(parameterFromRow(row({ type_name: 'nchar', base_type: 'nchar', max_length: 20 })).maxLength).toBe(10);
    expect(parameterFromRow(row({ type_name: 'varbinary', base_type: 'varbinary', max_length: -1 })).maxLength).toBe(-1);
    expect(parameterFromRow(row({ type_name: 'int', base_type: 'int', max_length: 4 })).maxLength).toBeNull();
    expect(parameterFromRow(row({ type_name: 'xml', base_type: 'xml', max_length: -1 })).maxLength).toBeNull();
  });

  it('keeps precision and scale for decimals, scale for time types, marks outputs', () => {
    expect(
      parameterFromRow(row({ type_name: 'decimal', base_type: 'decimal', precision: 18, scale: 4, max_length: 9, is_output: true })),
    ).toMatchObject({ type: 'decimal', precision: 18, scale: 4, isOutput: true });
    expect(parameterFromRow(row({ type_name: 'datetime2', base_type: 'datetime2', precision: 27, scale: 7 }))).toMatchObject({
      type: 'datetime2',
      precision: null,
      scale: 7,
    });
    expect(parameterFromRow(row({ type_name: 'money', base_type: 'money', precision: 19, scale: 4 }))).toMatchObject({
      type: 'money',
      precision: null,
      scale: null,
    });
  });

  it('describes alias types by their base type and table types by name', () => {
    expect(parameterFromRow(row({ type_name: 'sysname', base_type: 'nvarchar', max_length: 256 }))).toMatchObject({
      type: 'nvarchar',
      maxLength: 128,
    });
    expect(parameterFromRow(row({ type_name: 'IdList', base_type: null, is_table_type: true, max_length: -1 }))).toMatchObject({
      type: 'IdList',
      isTable: true,
      maxLength: null,
    });
  });
});

describe('mssql types', () => {
  const typeOf = (x: ProcedureParameter) => sqlType(x) as unknown as { type: unknown; length?: number; precision?: number; scale?: number };

  it('maps every listed type', () => {
    expect(typeOf(p('int')).type).toBe(sql.Int);
    expect(typeOf(p('bigint')).type).toBe(sql.BigInt);
    expect(typeOf(p('smallint')).type).toBe(sql.SmallInt);
    expect(typeOf(p('tinyint')).type).toBe(sql.TinyInt);
    expect(typeOf(p('bit')).type).toBe(sql.Bit);
    expect(typeOf(p('decimal', { precision: 12, scale: 3 }))).toMatchObject({ type: sql.Decimal, precision: 12, scale: 3 });
    expect(typeOf(p('numeric', { precision: 5, scale: 0 }))).toMatchObject({ type: sql.Numeric, precision: 5, scale: 0 });
    expect(typeOf(p('money')).type).toBe(sql.Money);
    expect(typeOf(p('float')).type).toBe(sql.Float);
    expect(typeOf(p('real')).type).toBe(sql.Real);
    expect(typeOf(p('varchar', { maxLength: 40 }))).toMatchObject({ type: sql.VarChar, length: 40 });
    expect(typeOf(p('nvarchar', { maxLength: -1 }))).toMatchObject({ type: sql.NVarChar, length: sql.MAX });
    expect(typeOf(p('char', { maxLength: 3 }))).toMatchObject({ type: sql.Char, length: 3 });
    expect(typeOf(p('nchar', { maxLength: 2 }))).toMatchObject({ type: sql.NChar, length: 2 });
    expect(typeOf(p('varbinary', { maxLength: 16 }))).toMatchObject({ type: sql.VarBinary, length: 16 });
    expect(typeOf(p('date')).type).toBe(sql.Date);
    expect(typeOf(p('datetime')).type).toBe(sql.DateTime);
    expect(typeOf(p('datetime2', { scale: 3 }))).toMatchObject({ type: sql.DateTime2, scale: 3 });
    expect(typeOf(p('datetimeoffset', { scale: 7 }))).toMatchObject({ type: sql.DateTimeOffset, scale: 7 });
    expect(typeOf(p('time', { scale: 0 }))).toMatchObject({ type: sql.Time, scale: 0 });
    expect(typeOf(p('uniqueidentifier')).type).toBe(sql.UniqueIdentifier);
    expect(typeOf(p('xml'))).toMatchObject({ type: sql.NVarChar, length: sql.MAX });
    expect(() => sqlType(p('sql_variant'))).toThrow(/not supported/);
    expect(paramKind(p('geography'))).toBe('unsupported');
    expect(paramKind(p('IdList', { isTable: true }))).toBe('unsupported');
  });
});

describe('value conversion', () => {
  it('checks integer ranges exactly, bigint beyond 2^53 as text', () => {
    expect(convertParam(p('int'), 2147483647)).toEqual({ kind: 'integer', value: 2147483647 });
    expect(convertParam(p('int'), '-42')).toEqual({ kind: 'integer', value: -42 });
    expect(convertParam(p('tinyint'), 255)).toEqual({ kind: 'integer', value: 255 });
    expect(convertParam(p('bigint'), '9223372036854775807')).toEqual({ kind: 'bigint', value: '9223372036854775807' });
    expect(refused(p('int'), 2147483648).message).toMatch(/from -2147483648 to 2147483647/);
    refused(p('tinyint'), -1);
    refused(p('smallint'), 32768);
    refused(p('bigint'), '9223372036854775808');
    expect(refused(p('int'), 1.5).message).toMatch(/whole number/);
    refused(p('int'), 'twelve');
    refused(p('int'), { n: 1 });
  });

  it('keeps decimals exact, rounds extra fraction digits and refuses overflow', () => {
    expect(convertParam(p('decimal', { precision: 18, scale: 4 }), '12345678901234.5678')).toEqual({
      kind: 'decimal',
      value: '12345678901234.5678',
    });
    expect(convertParam(p('decimal', { precision: 5, scale: 2 }), 1.235)).toEqual({ kind: 'decimal', value: '1.24' });
    expect(convertParam(p('decimal', { precision: 5, scale: 2 }), '-0.004')).toEqual({ kind: 'decimal', value: '0' });
    expect(convertParam(p('numeric', { precision: 10, scale: 0 }), 1e9)).toEqual({ kind: 'decimal', value: '1000000000' });
    expect(convertParam(p('decimal', { precision: 6, scale: 3 }), '2.5e-2')).toEqual({ kind: 'decimal', value: '0.025' });
    expect(refused(p('decimal', { precision: 5, scale: 2 }), 1000).message).toMatch(/at most 3 digits before/);
    expect(refused(p('decimal', { precision: 3, scale: 2 }), 9.999).message).toMatch(/at most 1 digits before/);
    refused(p('decimal', { precision: 5, scale: 2 }), 'NaN');
    refused(p('decimal', { precision: 5, scale: 2 }), '1,5');
    expect(convertParam(p('money'), '922337203685477.5807')).toEqual({ kind: 'decimal', value: '922337203685477.5807' });
    refused(p('money'), '922337203685477.5808');
    refused(p('smallmoney'), 214749);
  });

  it('reads floats, bits, text with lengths, base64 binary, uuids and xml', () => {
    expect(convertParam(p('float'), '3.5')).toEqual({ kind: 'float', value: 3.5 });
    refused(p('real'), 1e39);
    refused(p('float'), 'Infinity');
    expect(convertParam(p('bit'), 'true')).toEqual({ kind: 'boolean', value: true });
    expect(convertParam(p('bit'), 0)).toEqual({ kind: 'boolean', value: false });
    refused(p('bit'), 'yes please');
    expect(convertParam(p('nvarchar', { maxLength: 5 }), 'héllo')).toEqual({ kind: 'text', value: 'héllo' });
    expect(refused(p('nvarchar', { maxLength: 4 }), 'héllo').message).toMatch(/longer than 4 characters/);
    expect(convertParam(p('varchar', { maxLength: -1 }), 'x'.repeat(10000))).toMatchObject({ kind: 'text' });
    expect(convertParam(p('varchar', { maxLength: 3 }), 12)).toEqual({ kind: 'text', value: '12' });
    refused(p('varchar', { maxLength: 10 }), ['a']);
    const bin = convertParam(p('varbinary', { maxLength: 4 }), Buffer.from([0xba, 0xad, 0xf0, 0x0d]).toString('base64'));
    expect(bin.kind === 'binary' && [...bin.value]).toEqual([0xba, 0xad, 0xf0, 0x0d]);
    expect(refused(p('varbinary', { maxLength: 2 }), 'AAAA').message).toMatch(/longer than 2 bytes/);
    expect(refused(p('varbinary', { maxLength: -1 }), 'not base64!').message).toMatch(/base64/);
    expect(convertParam(p('uniqueidentifier'), '{0F8FAD5B-D9CB-469F-A165-70867728950E}')).toEqual({
      kind: 'uuid',
      value: '0f8fad5b-d9cb-469f-a165-70867728950e',
    });
    refused(p('uniqueidentifier'), '0f8fad5b');
    expect(convertParam(p('xml'), '<a/>')).toEqual({ kind: 'text', value: '<a/>' });
  });

  it("reads ISO dates, times and offsets as UTC instants within each type's range", () => {
    const d = (x: ProcedureParameter, v: unknown) => {
      const r = convertParam(x, v);
      if (r.kind !== 'date' && r.kind !== 'datetime' && r.kind !== 'datetimeoffset' && r.kind !== 'time') throw new Error(r.kind);
      return r.value.toISOString();
    };
    expect(d(p('date'), '2024-02-29')).toBe('2024-02-29T00:00:00.000Z');
    expect(d(p('date'), '0001-01-01')).toBe('0001-01-01T00:00:00.000Z');
    refused(p('date'), '2023-02-29');
    refused(p('date'), '2024-05-31T10:00:00Z');
    expect(d(p('datetime2', { scale: 7 }), '2024-05-31T13:45:00.1234567Z')).toBe('2024-05-31T13:45:00.123Z');
    expect(d(p('datetime2', { scale: 3 }), '2024-05-31 13:45')).toBe('2024-05-31T13:45:00.000Z');
    expect(d(p('datetime'), '2024-05-31')).toBe('2024-05-31T00:00:00.000Z');
    expect(refused(p('datetime'), '1600-01-01T00:00:00Z').message).toMatch(/year must be from 1753/);
    expect(d(p('datetimeoffset', { scale: 7 }), '2024-05-31T13:45:00+02:00')).toBe('2024-05-31T11:45:00.000Z');
    expect(refused(p('datetimeoffset', { scale: 7 }), '2024-05-31T13:45:00').message).toMatch(/offset/);
    expect(d(p('time', { scale: 7 }), '23:59:59.999')).toBe('1970-01-01T23:59:59.999Z');
    refused(p('time', { scale: 7 }), '24:00:00');
    refused(p('smalldatetime'), '2080-01-01T00:00:00Z');
    refused(p('datetime2', { scale: 7 }), 1717150000000);
  });

  it('passes null for any type and refuses values for unsupported ones', () => {
    expect(convertParam(p('int'), null)).toEqual({ kind: 'null' });
    expect(convertParam(p('sql_variant'), null)).toEqual({ kind: 'null' });
    expect(refused(p('sql_variant'), 1).message).toMatch(/not supported/);
    refused(p('IdList', { isTable: true }), [1, 2]);
  });

  it('helpers: exact decimal digits and rounding', () => {
    expect(exactDecimal(1e21)).toEqual({ negative: false, int: '1000000000000000000000', frac: '' });
    expect(exactDecimal('-000.0100')).toEqual({ negative: true, int: '', frac: '01' });
    expect(exactDecimal('.')).toBeNull();
    expect(exactDecimal(Number.NaN)).toBeNull();
    expect(roundDigits('9', '995', 2)).toEqual({ int: '10', frac: '' });
    expect(roundDigits('1', '2349', 2)).toEqual({ int: '1', frac: '23' });
  });
});

describe('a whole parameter object', () => {
  const params: ProcedureParameter[] = [
    p('int', { name: 'Id' }),
    p('nvarchar', { name: 'Name', maxLength: 50 }),
    p('decimal', { name: 'Amount', precision: 18, scale: 2 }),
    p('varbinary', { name: 'Blob', maxLength: -1 }),
    p('int', { name: 'NewId', isOutput: true }),
    p('decimal', { name: 'Total', precision: 10, scale: 2, isOutput: true }),
    p('sql_variant', { name: 'Extra' }),
  ];

  it('matches names case-insensitively, with or without @, and names the bad one', () => {
    const m = convertParams(params, { '@id': 1, NAME: 'x' });
    expect([...m.keys()]).toEqual(['Id', 'Name']);
    expect(() => convertParams(params, { nope: 1 })).toThrow(ValidationError);
    const err = (() => {
      try {
        convertParams(params, { id: 1, amount: 'lots' }, 'tasks.3.payload');
      } catch (e) {
        return e as ValidationError;
      }
      return null;
    })();
    expect(err).toBeInstanceOf(ValidationError);
    expect(err!.field).toBe('tasks.3.payload.amount');
    expect(err!.message).toMatch(/@Amount \(decimal\(18,2\)\)/);
    expect(() => convertParams(params, { id: 1, ID: 2 })).toThrow(/given twice/);
    expect(() => convertParams(params, [1, 2])).toThrow(/JSON object/);
  });

  it('builds typed inputs (exact numbers as text) and every output', () => {
    const call = buildCall(params, { id: 7, amount: '10.5', blob: 'AQID', total: 3 });
    const inputs = Object.fromEntries(call.inputs.map((i) => [i.name, i]));
    expect(Object.keys(inputs)).toEqual(['Id', 'Amount', 'Blob']);
    expect(inputs.Id!.value).toBe(7);
    expect((inputs.Amount!.type as unknown as { type: unknown }).type).toBe(sql.VarChar);
    expect(inputs.Amount!.value).toBe('10.5');
    expect([...(inputs.Blob!.value as Buffer)]).toEqual([1, 2, 3]);
    expect(call.outputs.map((o) => [o.name, o.value])).toEqual([
      ['NewId', null],
      ['Total', 3],
    ]);
    expect((call.outputs[1]!.type as unknown as { type: unknown; precision: number }).precision).toBe(10);
  });

  it('output values come back as JSON', () => {
    expect(jsonValue(Buffer.from([1, 2]))).toBe('AQI=');
    expect(jsonValue(new Date('2024-01-02T03:04:05.006Z'))).toBe('2024-01-02T03:04:05.006Z');
    expect(jsonValue('9223372036854775807')).toBe('9223372036854775807');
    expect(jsonValue(null)).toBeNull();
  });
});
