// The one token generator: valid uuids of the right version and variant, in creation order as each store's
// index sorts them (text for SQLite, SQL Server's uniqueidentifier comparison), never repeated; tokens of
// before (v4, v7) are still tokens.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { compareUniqueidentifiers, newToken, tokenTime, uniqueidentifierBytes, type TokenOrder } from './tokens';
import { token as tokenSchema } from './validation';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const V8 = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ORDERS: [TokenOrder, RegExp, (a: string, b: string) => number][] = [
  ['text', V7, (a, b) => (a < b ? -1 : a > b ? 1 : 0)],
  ['uniqueidentifier', V8, compareUniqueidentifiers],
];

/** Tokens made over at least `ms` milliseconds, several per ms, in creation order. */
/** tokens made one after another until `ms` distinct milliseconds were seen (a busy machine may skip some) */
function sequenceOver(order: TokenOrder, ms: number): string[] {
  const out: string[] = [];
  const seen = new Set<number>();
  while (seen.size < ms) {
    for (let i = 0; i < 50; i++) out.push(newToken(order));
    seen.add(Date.now());
  }
  return out;
}

describe('SQL Server’s uniqueidentifier order (the comparator the tests sort with)', () => {
  it('compares the last group first, then the fourth, then the third, second and first each from its last byte', () => {
    // one byte set at a time, from least to most significant (SqlGuid's order; the documented example)
    const ascending = [
      '01000000-0000-0000-0000-000000000000',
      '00010000-0000-0000-0000-000000000000',
      '00000100-0000-0000-0000-000000000000',
      '00000001-0000-0000-0000-000000000000',
      '00000000-0100-0000-0000-000000000000',
      '00000000-0001-0000-0000-000000000000',
      '00000000-0000-0100-0000-000000000000',
      '00000000-0000-0001-0000-000000000000',
      '00000000-0000-0000-0001-000000000000',
      '00000000-0000-0000-0100-000000000000',
      '00000000-0000-0000-0000-000000000001',
      '00000000-0000-0000-0000-000000000100',
      '00000000-0000-0000-0000-000000010000',
      '00000000-0000-0000-0000-000001000000',
      '00000000-0000-0000-0000-000100000000',
      '00000000-0000-0000-0000-010000000000',
    ];
    expect([...ascending].reverse().sort(compareUniqueidentifiers)).toEqual(ascending);
    expect(compareUniqueidentifiers('55666bee-b3a0-4bf5-81a7-86ff976e763f', '8dd5bca5-6abe-4f73-b4b7-393ae6bbb849')).toBeGreaterThan(0);
    // the binary form CONVERT(binary(16), …) gives (bytes 0–7 little-endian in groups)
    expect(Buffer.from(uniqueidentifierBytes('8a737954-cbec-40ce-a534-2affb5a0e207')).toString('hex')).toBe(
      '5479738aeccbce40a5342affb5a0e207',
    );
  });
});

describe.each(ORDERS)('newToken, %s order', (order, shape, compare) => {
  it('is a lowercase uuid of its version with the RFC variant, timed by its `now`', () => {
    const now = Date.UTC(2026, 10, 24, 9, 30, 15, 123);
    for (let i = 0; i < 1000; i++) {
      const t = newToken(order, now + (i % 3));
      expect(t).toMatch(shape);
      expect(tokenTime(t)).toBe(now + (i % 3));
      expect(tokenSchema.safeParse(t).success).toBe(true);
    }
  });

  it('sorts in creation order as its store’s index sorts it, over several ms', () => {
    const made = sequenceOver(order, 5);
    expect(new Set(made.map(tokenTime)).size).toBeGreaterThan(2);
    const shuffled = [...made].sort(() => Math.random() - 0.5);
    expect(shuffled.sort(compare)).toEqual(made);
    // the other order would not: the layout is the store's
    const [, , otherCompare] = ORDERS.find(([o]) => o !== order)!;
    expect([...made].sort(otherCompare)).not.toEqual(made);
  });

  it('sorts by its time across ms whatever the sequence, and after a clock set back the time is still `now`', () => {
    const now = Date.UTC(2026, 10, 24, 9, 30, 15, 123);
    const later = newToken(order, now + 1);
    const earlier = newToken(order, now);
    expect(compare(earlier, later)).toBeLessThan(0);
    expect(tokenTime(earlier)).toBe(now);
  });

  it('never repeats: 1,000,000 tokens made in a tight loop', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 1_000_000; i++) seen.add(newToken(order));
    expect(seen.size).toBe(1_000_000);
  });
});

describe('tokens of before', () => {
  it('a v4 (SQL Server before) and a v7 (SQLite before) are still tokens; they carry no time of this layout or a v7 one', () => {
    const v4 = randomUUID();
    expect(tokenSchema.safeParse(v4).success).toBe(true);
    expect(tokenTime(v4)).toBeNull();
    const v7 = '019ab5a1-2e3b-7c4d-8e5f-0123456789ab';
    expect(tokenSchema.safeParse(v7).success).toBe(true);
    expect(tokenTime(v7)).toBe(0x019ab5a12e3b);
    expect(tokenSchema.safeParse(v7.toUpperCase()).success).toBe(true);
  });
});
