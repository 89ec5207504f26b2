// The SQL Server store's tokens: the Node side and the T-SQL callers' procedure (sql/tokens.ts) make the
// same layout. No server runs here: NEW_TOKEN's byte assembly is followed piece by piece in JavaScript (each
// piece checked to be in the text), and the uniqueidentifier the bytes make is read as SQL Server shows it.
import { describe, expect, it } from 'vitest';
import { compareUniqueidentifiers, newToken as mint, tokenTime, uniqueidentifierBytes } from '../../lib/engine/tokens';
import { CODE_OBJECTS } from './code-objects';
import { CALLER_PROCEDURES, createProcedure } from './sql/callers';
import { NEW_TOKEN } from './sql/tokens';
import { newToken, TOKEN_ORDER } from './tokens';

const V8 = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** big-endian bytes of n, `width` of them (CAST(… AS binary(n)) of an int or bigint) */
const be = (n: number, width: number) => Array.from({ length: width }, (_, i) => Math.floor(n / 256 ** (width - 1 - i)) % 256);

/** NEW_TOKEN's binary(16), each piece as the T-SQL writes it and what it gives for a clock and 8 random bytes. */
function serverBytes(ms: number, ticks: number, random: number[]): number[] {
  const pieces: [string, number[]][] = [
    ['SUBSTRING(@token_random, 1, 7)', random.slice(0, 7)],
    ['SUBSTRING(CAST(128 + CAST(SUBSTRING(@token_random, 8, 1) AS int) % 16 AS binary(4)), 4, 1)', be(128 + (random[7]! % 16), 4).slice(3)],
    ['SUBSTRING(CAST(32768 + DATEPART(NANOSECOND, @token_now) % 1000000 / 100 AS binary(4)), 3, 2)', be(32768 + ticks, 4).slice(2)],
    ["SUBSTRING(CAST(DATEDIFF_BIG(MILLISECOND, CAST('1970-01-01' AS datetime2(7)), @token_now) AS binary(8)), 3, 6)", be(ms, 8).slice(2)],
  ];
  let at = 0;
  for (const [text] of pieces) {
    const i = NEW_TOKEN.indexOf(text, at);
    expect(i, text).toBeGreaterThan(at - 1);
    at = i + text.length;
  }
  return pieces.flatMap(([, bytes]) => bytes);
}

/** A uniqueidentifier's text from its stored bytes (CAST(binary(16) AS uniqueidentifier)). */
function fromStored(b: number[]): string {
  const h = (i: number) => b[i]!.toString(16).padStart(2, '0');
  const g = (...i: number[]) => i.map(h).join('');
  return `${g(3, 2, 1, 0)}-${g(5, 4)}-${g(7, 6)}-${g(8, 9)}-${g(10, 11, 12, 13, 14, 15)}`;
}

const someRandom = () => Array.from({ length: 8 }, () => Math.floor(Math.random() * 256));

describe('SQL Server tokens', () => {
  it('the store declares the uniqueidentifier order and makes v8 tokens timed in their last group', () => {
    expect(TOKEN_ORDER).toBe('uniqueidentifier');
    const before = Date.now();
    const t = newToken();
    expect(t).toMatch(V8);
    expect(tokenTime(t)).toBeGreaterThanOrEqual(before);
    expect(tokenTime(t)).toBeLessThanOrEqual(Date.now());
  });

  it('ExecAsync’s token (NEW_TOKEN) is the same layout: v8, the RFC variant, the server’s ms in the last group', () => {
    const ms = Date.UTC(2026, 10, 27, 6, 0, 0, 42);
    for (const ticks of [0, 1, 5000, 9999]) {
      const stored = serverBytes(ms, ticks, someRandom());
      expect(stored).toHaveLength(16);
      const t = fromStored(stored);
      expect(t).toMatch(V8);
      expect(tokenTime(t)).toBe(ms);
      expect(uniqueidentifierBytes(t)).toEqual(stored);
    }
  });

  it('sorts with the store’s tokens by ms, and within a ms by the server’s ticks', () => {
    const ms = Date.UTC(2026, 10, 27, 6, 0, 0, 42);
    const made = [
      fromStored(serverBytes(ms - 1, 9999, someRandom())),
      fromStored(serverBytes(ms, 0, someRandom())),
      fromStored(serverBytes(ms, 1, someRandom())),
      fromStored(serverBytes(ms, 9999, someRandom())),
      fromStored(serverBytes(ms + 1, 0, someRandom())),
    ];
    expect([...made].reverse().sort(compareUniqueidentifiers)).toEqual(made);
    // the Node side's tokens of the ms before and after sort around them
    const [early, late] = [ms - 2, ms + 2].map((now) => mint(TOKEN_ORDER, now));
    expect(compareUniqueidentifiers(early!, made[0]!)).toBeLessThan(0);
    expect(compareUniqueidentifiers(made.at(-1)!, late!)).toBeLessThan(0);
  });

  it('ExecAsync makes its token with it (installed by content), and NEWID() is gone', () => {
    const exec = createProcedure(CALLER_PROCEDURES.find((p) => p.name === 'ExecAsync')!);
    expect(exec).toContain(NEW_TOKEN);
    expect(exec).toContain('@new_token AS token');
    expect(exec).not.toMatch(/NEWID\(\)/i);
    expect(CODE_OBJECTS.find((o) => o.name === 'ExecAsync')?.text).toBe(exec);
  });
});
