import { describe, expect, it } from 'vitest';
import { relative, untilNext } from './format-schedules';

describe("a schedule's times in the command line", () => {
  const now = Date.parse('2026-11-28T23:32:50.100Z');
  it('a next fire still ahead is "in …"; one already come (read back late on a busy machine) is due now, never "ago"', () => {
    expect(untilNext('2026-11-28T23:33:00.000Z', now)).toBe('in 10 s');
    expect(untilNext('2026-11-28T23:32:50.000Z', now)).toBe('due now');
    expect(untilNext('2026-11-28T23:32:50.100Z', now)).toBe('due now');
    expect(untilNext(null, now)).toBe('');
  });
  it('a time past is "… ago", one ahead "in …"', () => {
    expect(relative('2026-11-28T23:32:45.100Z', now)).toBe('5 s ago');
    expect(relative('2026-11-29T01:32:50.100Z', now)).toBe('in 2 h');
  });
});
