// What an RPC request carries, decoded for tests (MS-TDS 2.2.6.6): the procedure it calls (sp_executesql for a
// parameterised statement: node-mssql's query()), the statement text, and each parameter by name with its value —
// so a test can see which statement ran and how many rows each JSON list parameter hands it. Only the types the
// store sends are decoded (integers, bit, float, strings, binary, dates, uniqueidentifier, decimal); at the first
// other type the decoding stops and the request says so (`partial`).

export interface RpcCall {
  /** the procedure's name as sent, or a well-known procedure's (ProcID 10: sp_executesql) */
  procedure: string;
  /** sp_executesql's statement (its first parameter) */
  statement: string | null;
  /** parameters by name, lower case, without @ (sp_executesql's own two left out); strings, numbers, booleans, null */
  params: Record<string, unknown>;
  /** a parameter of a type not decoded here: the ones after it are missing */
  partial: boolean;
}

const PROC_IDS: Record<number, string> = { 10: 'sp_executesql', 12: 'sp_prepare', 13: 'sp_execute', 11: 'sp_prepexec' };

class Reader {
  at = 0;
  constructor(readonly b: Buffer) {}
  u8(): number {
    return this.b.readUInt8(this.at++);
  }
  u16(): number {
    const v = this.b.readUInt16LE(this.at);
    this.at += 2;
    return v;
  }
  u32(): number {
    const v = this.b.readUInt32LE(this.at);
    this.at += 4;
    return v;
  }
  bytes(n: number): Buffer {
    const v = this.b.subarray(this.at, this.at + n);
    this.at += n;
    return v;
  }
  ucs2(chars: number): string {
    return this.bytes(chars * 2).toString('utf16le');
  }
}

/** A PLP value (varchar(max) & co): total length, then chunks until a zero-length one. */
function plp(r: Reader): Buffer | null {
  const lo = r.u32();
  const hi = r.u32();
  if (lo === 0xffffffff && hi === 0xffffffff) return null;
  const parts: Buffer[] = [];
  for (let n = r.u32(); n > 0; n = r.u32()) parts.push(r.bytes(n));
  return Buffer.concat(parts);
}

function intLE(b: Buffer): number | string {
  if (b.length === 1) return b.readUInt8(0);
  if (b.length === 2) return b.readInt16LE(0);
  if (b.length === 4) return b.readInt32LE(0);
  const v = b.readBigInt64LE(0);
  return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
}

/** One parameter's TYPE_INFO and value; undefined when the type is not one decoded here. */
function paramValue(r: Reader): { value: unknown } | undefined {
  const type = r.u8();
  switch (type) {
    case 0x26: // INTN
    case 0x68: // BITN
    case 0x6d: // FLTN
    case 0x6f: // DATETIMN
    case 0x6e: // MONEYN
    case 0x24: {
      // GUID
      r.u8();
      const len = r.u8();
      if (len === 0) return { value: null };
      const b = r.bytes(len);
      if (type === 0x26) return { value: intLE(b) };
      if (type === 0x68) return { value: b[0] === 1 };
      if (type === 0x6d) return { value: len === 4 ? b.readFloatLE(0) : b.readDoubleLE(0) };
      return { value: b.toString('hex') };
    }
    case 0x2a: // DATETIME2N
    case 0x29: // TIMEN
    case 0x2b: {
      // DATETIMEOFFSETN
      r.u8();
      const len = r.u8();
      return { value: len === 0 ? null : r.bytes(len).toString('hex') };
    }
    case 0x28: {
      // DATEN
      const len = r.u8();
      return { value: len === 0 ? null : r.bytes(len).toString('hex') };
    }
    case 0x6a: // DECIMALN
    case 0x6c: {
      // NUMERICN
      r.u8();
      r.u8();
      r.u8();
      const len = r.u8();
      return { value: len === 0 ? null : r.bytes(len).toString('hex') };
    }
    case 0xe7: // NVARCHAR
    case 0xa7: // VARCHAR
    case 0xef: // NCHAR
    case 0xaf: // CHAR
    case 0xa5: // VARBINARY
    case 0xad: {
      // BINARY
      const max = r.u16();
      const text = type !== 0xa5 && type !== 0xad;
      if (text) r.bytes(5);
      const raw = max === 0xffff ? plp(r) : ((len: number) => (len === 0xffff ? null : r.bytes(len)))(r.u16());
      if (raw === null) return { value: null };
      if (!text) return { value: raw.toString('hex') };
      return { value: type === 0xe7 || type === 0xef ? raw.toString('utf16le') : raw.toString('latin1') };
    }
    default:
      return undefined;
  }
}

/** Decode an RPC request's payload (after the packet headers). */
export function decodeRpc(payload: Buffer): RpcCall {
  const r = new Reader(payload);
  r.at = payload.length >= 4 ? payload.readUInt32LE(0) : 0;
  const nameLen = r.u16();
  const procedure = nameLen === 0xffff ? (PROC_IDS[r.u16()] ?? 'proc id') : r.ucs2(nameLen);
  r.u16();
  const out: RpcCall = { procedure, statement: null, params: {}, partial: false };
  const positional: unknown[] = [];
  try {
    while (r.at < payload.length) {
      const name = r.ucs2(r.u8());
      r.u8();
      const v = paramValue(r);
      if (!v) {
        out.partial = true;
        break;
      }
      if (name) out.params[name.replace(/^@/, '').toLowerCase()] = v.value;
      else positional.push(v.value);
    }
  } catch {
    out.partial = true;
  }
  if (procedure === 'sp_executesql') {
    out.statement = typeof positional[0] === 'string' ? positional[0] : ((out.params.statement as string | undefined) ?? null);
    delete out.params.statement;
    delete out.params.params;
  }
  return out;
}

/** Rows a call hands over in each JSON-array parameter (a parameter that is not a JSON array is left out). */
export function carriedRows(call: Pick<RpcCall, 'params'>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, v] of Object.entries(call.params)) {
    if (typeof v !== 'string' || !v.startsWith('[')) continue;
    try {
      const j = JSON.parse(v) as unknown;
      if (Array.isArray(j)) out[name] = j.length;
    } catch {
      // not JSON
    }
  }
  return out;
}
