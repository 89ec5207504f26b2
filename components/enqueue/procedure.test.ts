import { describe, expect, it } from 'vitest';
import { convertParam } from '@/db/mssql/param-values';
import type { ProcedureParameter } from '@/lib/engine/types';
import { PROCEDURE_NAME } from '@/lib/engine/validation';
import { base64Bytes, checkParam, emptyValue, localOffset, paramHint, paramOfField, PROCEDURE_NAME_RE } from './procedure';

const p = (name: string, type: string, extra: Partial<ProcedureParameter> = {}): ProcedureParameter => ({
  name,
  type,
  maxLength: null,
  precision: null,
  scale: null,
  isOutput: false,
  isTable: false,
  ...extra,
});
const text = (t: string, bad = false) => ({ text: t, bad });

const int = p('id', 'int');
const amount = p('amount', 'decimal', { precision: 18, scale: 4 });
const note = p('note', 'nvarchar', { maxLength: 50 });

describe('procedure name', () => {
  it('is the same rule as the server', () => {
    expect(PROCEDURE_NAME_RE.source).toBe(PROCEDURE_NAME.source);
  });
});

describe('checkParam', () => {
  it('leaves empty fields, output and unsupported parameters out of the payload', () => {
    expect(checkParam(int, emptyValue(int))).toEqual({ send: false });
    expect(checkParam(p('flag', 'bit'), emptyValue(p('flag', 'bit')))).toEqual({ send: false });
    expect(checkParam(p('out', 'int', { isOutput: true }), text('5'))).toEqual({ send: false });
    expect(checkParam(p('rows', 'OrderRows', { isTable: true }), text('x'))).toEqual({ send: false });
  });

  it('checks integers against their type range', () => {
    expect(checkParam(int, text('42'))).toEqual({ send: true, value: 42 });
    expect(checkParam(int, text('2147483648')).error).toBe('from -2147483648 to 2147483647');
    expect(checkParam(p('t', 'tinyint'), text('-1')).error).toBe('from 0 to 255');
    expect(checkParam(int, text('1.5')).error).toBe('a whole number');
    expect(checkParam(int, text('', true)).error).toBe('not a number');
    // bigint beyond 2^53 travels as exact digits
    expect(checkParam(p('b', 'bigint'), text('9223372036854775807'))).toEqual({ send: true, value: '9223372036854775807' });
    expect(checkParam(p('b', 'bigint'), text('9223372036854775808')).error).toContain('9223372036854775807');
  });

  it('checks decimals against precision and scale, sending exact digits', () => {
    expect(checkParam(amount, text('12345678901234.5678'))).toEqual({ send: true, value: '12345678901234.5678' });
    expect(checkParam(amount, text('123456789012345')).error).toBe('at most 14 digits before the decimal point');
    // rounding up may overflow the integer digits, as on the server
    expect(checkParam(amount, text('99999999999999.99995')).error).toBe('at most 14 digits before the decimal point');
    const r = checkParam(amount, text('1.23456'));
    expect(r).toMatchObject({ send: true, value: '1.23456' });
    expect(r.note).toContain('rounded to 4 decimal places');
    expect(checkParam(p('m', 'money'), text('1e3'))).toMatchObject({ send: true });
    expect(checkParam(amount, text('abc')).error).toBe('a decimal number');
  });

  it('agrees with the server conversion on what it accepts', () => {
    const cases: [ProcedureParameter, string][] = [
      [int, '42'],
      [int, '99999999999'],
      [amount, '1.5'],
      [amount, '1234567890123456'],
      [p('f', 'float'), '1e308'],
      [note, 'x'.repeat(50)],
      [note, 'x'.repeat(51)],
      [p('g', 'uniqueidentifier'), '{0F8FAD5B-D9CB-469F-A165-70867728950E}'],
      [p('g', 'uniqueidentifier'), 'nope'],
      [p('d', 'date'), '2024-02-29'],
      [p('d', 'datetime'), '1700-01-01T00:00'],
      [p('d', 'datetime2', { scale: 7 }), '2024-05-31T13:45'],
      [p('t', 'time', { scale: 7 }), '13:45'],
      [p('v', 'varbinary', { maxLength: 4 }), 'AAECAw=='],
      [p('v', 'varbinary', { maxLength: 4 }), 'AAECAwQ='],
      [p('v', 'varbinary', { maxLength: -1 }), 'not base64!'],
    ];
    for (const [param, value] of cases) {
      const client = checkParam(param, text(value));
      let server: { ok: boolean; value?: unknown } = { ok: true };
      try {
        convertParam(param, client.send ? client.value : value);
      } catch {
        server = { ok: false };
      }
      expect({ param: param.type, value, ok: !client.error }).toEqual({ param: param.type, value, ok: server.ok });
    }
  });

  it('checks (n)varchar length and sends text as typed', () => {
    expect(checkParam(note, text(' padded '))).toEqual({ send: true, value: ' padded ' });
    expect(checkParam(note, text('é'.repeat(51))).error).toBe('at most 50 characters (51)');
    expect(checkParam(p('v', 'varchar', { maxLength: 5 }), text('a\u0000b')).error).toBe('contains a NUL character');
  });

  it('reads bits from a tri-state checkbox', () => {
    expect(checkParam(p('b', 'bit'), { flag: true })).toEqual({ send: true, value: true });
    expect(checkParam(p('b', 'bit'), { flag: false })).toEqual({ send: true, value: false });
  });

  it('sends dates and times the server parses, with seconds, and an offset only for datetimeoffset', () => {
    expect(checkParam(p('d', 'date'), text('2024-05-31'))).toEqual({ send: true, value: '2024-05-31' });
    expect(checkParam(p('d', 'datetime2', { scale: 7 }), text('2024-05-31T13:45'))).toEqual({ send: true, value: '2024-05-31T13:45:00' });
    expect(checkParam(p('d', 'datetime'), text('1700-01-01T00:00')).error).toBe('year from 1753 to 9999');
    const off = checkParam(p('d', 'datetimeoffset', { scale: 7 }), text('2024-05-31T13:45:10'));
    expect(off.value).toMatch(/^2024-05-31T13:45:10[+-]\d{2}:\d{2}$/);
    expect(checkParam(p('t', 'time', { scale: 7 }), text('07:05'))).toEqual({ send: true, value: '07:05:00' });
    expect(checkParam(p('d', 'date'), text('', true)).error).toBe('not a complete date or time');
  });

  it('normalises uuids and checks base64 size', () => {
    expect(checkParam(p('g', 'uniqueidentifier'), text('{0F8FAD5B-D9CB-469F-A165-70867728950E}')).value).toBe(
      '0f8fad5b-d9cb-469f-a165-70867728950e',
    );
    expect(checkParam(p('g', 'uniqueidentifier'), text('0f8fad5b')).error).toContain('a uuid');
    expect(base64Bytes('AAECAw==')).toBe(4);
    expect(base64Bytes('AAECAwQ=')).toBe(5);
    expect(checkParam(p('v', 'varbinary', { maxLength: 4 }), text('AAECAwQ=')).error).toBe('at most 4 bytes (5)');
    expect(checkParam(p('v', 'varbinary', { maxLength: -1 }), text('AAEC\nAw=='))).toEqual({ send: true, value: 'AAECAw==' });
  });
});

describe('helpers', () => {
  it('formats the local offset as ±hh:mm', () => {
    expect(localOffset('2024-01-15T12:00')).toMatch(/^[+-]\d{2}:\d{2}$/);
  });
  it('hints precision and scale, lengths and output', () => {
    expect(paramHint(amount)).toContain('precision 18, scale 4');
    expect(paramHint(note)).toBe('up to 50 characters');
    expect(paramHint(p('o', 'int', { isOutput: true }))).toContain('output');
  });
  it('maps a server error field to its parameter', () => {
    expect(paramOfField([int, amount], 'payload.Amount')).toBe('amount');
    expect(paramOfField([int, amount], 'payload.@id')).toBe('id');
    expect(paramOfField([int, amount], 'payload.other')).toBeNull();
    expect(paramOfField([int, amount], 'command')).toBeNull();
  });
});
