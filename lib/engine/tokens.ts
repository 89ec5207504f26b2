// Task tokens: one generator for both stores. A token is a uuid whose most significant field, in the order
// the store's unique index (SQLite Tasks_token, SQL Server UX_Tasks_token) sorts it, is the time in ms: a new
// token lands at the end of the index instead of on a random page (a random v4 key splits a page on almost
// every insert and leaves the index fragmented). Each store declares its token order (db/<dialect>/tokens.ts);
// the fields are the same in both layouts, only where they sit differs.
//
// Fields: 48 bits of Unix time in ms; a 26-bit sequence, seeded at random below 2^25 for each new ms and
// counted up by one for each further token of that ms in this process (so tokens of one process sort in the
// order they were made: RFC 9562 §6.2 method 1); 48 random bits; the version and variant bits.
//
// 'text' (SQLite stores the token as TEXT; string order = byte order): RFC 9562 uuid v7, time first —
//   tttttttt-tttt-7sss-[89ab]sss-rrrrrrrrrrrr.
//
// 'uniqueidentifier' (SQL Server): a uniqueidentifier does not sort as its text or its bytes. Of the 16 bytes
//   of its binary form (0–3, 4–5 and 6–7 hold the first three groups of the text little-endian, 8–15 the last
//   two as written), SQL Server compares bytes 10–15 first, then 8–9, 6–7, 4–5 and 0–3 (SqlGuid's comparison
//   order {10,11,12,13,14,15,8,9,6,7,4,5,0,1,2,3}; "Comparing GUID and uniqueidentifier values", .NET docs:
//   "the last six bytes of a value are most significant"). In terms of the text: the last group first, then
//   the fourth, then the third, second and first groups each read from its last byte to its first. A v7 puts
//   its time where SQL Server looks last and its random bits where it looks first: no better than a v4 there.
//   So this layout is an RFC 9562 uuid v8 (custom: version 8, the RFC variant) with the fields where that
//   order looks — time in the last group, the sequence's high 14 bits in the fourth group, its next 8 bits
//   in the last byte of the third group and its low 4 bits beside the version digit, random bits before —
//   rrrrrrrr-rrrr-8sss-[89ab]sss-tttttttttttt. The T-SQL callers' procedure makes the same layout from the
//   server's clock (db/mssql/sql/tokens.ts).
//
// Tokens are compared for equality only; their order matters to the index alone. Any uuid made before
// (v4 on SQL Server, v7 on SQLite) stays a valid token: no store reads the fields back (tokenTime is for tests).
import { randomFillSync } from 'node:crypto';

/** How the store's token index sorts a token: as text (SQLite) or as a uniqueidentifier (SQL Server). */
export type TokenOrder = 'text' | 'uniqueidentifier';

/** Random bytes drawn in blocks: 6 per token, 4 per seed. */
const RANDOM_BLOCK = 6 * 1024;
const random = Buffer.alloc(RANDOM_BLOCK);
let randomAt = RANDOM_BLOCK;

function take(n: number): number {
  if (randomAt + n > RANDOM_BLOCK) {
    randomFillSync(random);
    randomAt = 0;
  }
  const at = randomAt;
  randomAt += n;
  return at;
}

const SEQUENCE_MAX = 0x3ffffff; // 26 bits
let lastMs = -1;
let sequence = 0;

/** A fresh sequence for a new ms: random below 2^25, so at least 2^25 more tokens fit in that ms. */
function seed(): number {
  return random.readUInt32BE(take(4)) & 0x1ffffff;
}

// The text is written as latin1 bytes into one buffer and read out as one flat string (a string built
// by + is a rope of 30 pieces, flattened later wherever it is hashed or compared: several times slower).
const DIGIT = Buffer.from('0123456789abcdef', 'latin1');
/** Where the two hex digits of byte i (in the text's order) go: the dashes sit at 8, 13, 18 and 23. */
const AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];
const text = Buffer.from('00000000-0000-0000-0000-000000000000', 'latin1');
const octets = new Uint8Array(16);

/**
 * A new task token for a store of the given order, with `now` (ms) as its time. Same ms as the last token
 * of this process: the sequence counts on (past 2^26 it is seeded again, keeping the time); another ms,
 * earlier too (a clock set back, or an older `now`): seeded again, so the time field is always `now`.
 */
export function newToken(order: TokenOrder, now: number = Date.now()): string {
  const ms = Math.trunc(now);
  if (ms === lastMs && sequence < SEQUENCE_MAX) sequence++;
  else {
    lastMs = ms;
    sequence = seed();
  }
  const s = sequence;
  const r = take(6);
  const hi = Math.floor(ms / 0x1000000);
  const lo = ms % 0x1000000;
  // the offset of the time's 6 bytes, and of the 6 random ones
  const t = order === 'text' ? 0 : 10;
  const x = order === 'text' ? 10 : 0;
  const b = octets;
  b[t] = hi >>> 16;
  b[t + 1] = hi >>> 8;
  b[t + 2] = hi;
  b[t + 3] = lo >>> 16;
  b[t + 4] = lo >>> 8;
  b[t + 5] = lo;
  for (let i = 0; i < 6; i++) b[x + i] = random[r + i]!;
  if (order === 'text') {
    b[6] = 0x70 | (s >>> 22);
    b[7] = s >>> 14;
    b[8] = 0x80 | ((s >>> 8) & 0x3f);
    b[9] = s;
  } else {
    b[6] = 0x80 | (s & 0x0f);
    b[7] = s >>> 4;
    b[8] = 0x80 | (s >>> 20);
    b[9] = s >>> 12;
  }
  for (let i = 0; i < 16; i++) {
    text[AT[i]!] = DIGIT[b[i]! >>> 4]!;
    text[AT[i]! + 1] = DIGIT[b[i]! & 0x0f]!;
  }
  return text.toString('latin1');
}

/** The ms a token of either layout was made at; null for a uuid of another version (a v4 of before). */
export function tokenTime(token: string): number | null {
  const version = token[14];
  if (version === '7') return parseInt(token.slice(0, 8) + token.slice(9, 13), 16);
  if (version === '8') return parseInt(token.slice(24), 16);
  return null;
}

/** The bytes of a uuid's binary form as SQL Server stores a uniqueidentifier (first three groups little-endian). */
export function uniqueidentifierBytes(token: string): number[] {
  const h = token.replace(/-/g, '');
  const b = (i: number) => parseInt(h.slice(2 * i, 2 * i + 2), 16);
  return [b(3), b(2), b(1), b(0), b(5), b(4), b(7), b(6), ...Array.from({ length: 8 }, (_, i) => b(8 + i))];
}

/** SQL Server's comparison of two uniqueidentifiers (SqlGuid): these stored bytes, most significant first. */
const UNIQUEIDENTIFIER_ORDER = [10, 11, 12, 13, 14, 15, 8, 9, 6, 7, 4, 5, 0, 1, 2, 3];

/** Sorts uuids as SQL Server sorts uniqueidentifiers (an ORDER BY, an index): negative when a comes first. */
export function compareUniqueidentifiers(a: string, b: string): number {
  const x = uniqueidentifierBytes(a);
  const y = uniqueidentifierBytes(b);
  for (const i of UNIQUEIDENTIFIER_ORDER) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return 0;
}
