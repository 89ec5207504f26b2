import { describe, expect, it } from 'vitest';
import { relative, untilNext } from './format-schedules';

const now = Date.parse('2026-11-28T23:32:50.100Z');

describe("a schedule's times in the command line", () => {
  // a next fire already come (read back a moment late on a busy machine) is due now, never "0 s ago"
  it.each([
    ['2026-11-28T23:33:00.000Z', 'in 10 s'],
    ['2026-11-28T23:32:50.000Z', 'due now'],
    ['2026-11-28T23:32:50.100Z', 'due now'],
    [null, ''],
  ])('next fire %s: %s', (at, text) => expect(untilNext(at, now)).toBe(text));

  it.each([
    ['2026-11-28T23:32:45.100Z', '5 s ago'],
    ['2026-11-29T01:32:50.100Z', 'in 2 h'],
  ])('a time %s: %s', (at, text) => expect(relative(at, now)).toBe(text));
});
