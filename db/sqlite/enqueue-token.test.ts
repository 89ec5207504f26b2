// Task tokens of the SQLite store: RFC 9562 uuid v7 (time first, so new tokens append to the token index),
// lowercase, never repeated.
import { describe, expect, it } from 'vitest';
import { newToken } from './tokens';

describe('newToken', () => {
  it('is a lowercase uuid v7 whose first 48 bits are the time in ms', () => {
    const now = Date.UTC(2026, 10, 24, 9, 30, 15, 123);
    const seen = new Set<string>();
    for (let i = 0; i < 3000; i++) {
      const t = newToken(now);
      expect(t).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(parseInt(t.slice(0, 8) + t.slice(9, 13), 16)).toBe(now);
      seen.add(t);
    }
    expect(seen.size).toBe(3000);
    expect(newToken(now + 1) > newToken(now)).toBe(true);
  });
});
