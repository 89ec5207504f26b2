import { describe, expect, it } from 'vitest';
import { formatAbsolute, inputToIso, isoToInput, offsetLabel, zoneLabel } from './time';

describe('Execution log times', () => {
  it('formats an absolute time in UTC to the millisecond', () => {
    expect(formatAbsolute('2026-11-24T09:02:07.045Z', 'utc')).toBe('2026-11-24 09:02:07.045');
    expect(formatAbsolute(null, 'utc')).toBe('—');
  });

  it('reads a picker value as UTC wall time, and back', () => {
    expect(inputToIso('2026-11-24T09:02:07', 'utc')).toBe('2026-11-24T09:02:07.000Z');
    expect(inputToIso('2026-11-24T09:02', 'utc')).toBe('2026-11-24T09:02:00.000Z');
    expect(isoToInput('2026-11-24T09:02:07.000Z', 'utc')).toBe('2026-11-24T09:02:07');
    expect(inputToIso('', 'utc')).toBeUndefined();
  });

  it('local round trip keeps the instant', () => {
    const iso = '2026-06-01T12:34:56.000Z';
    expect(inputToIso(isoToInput(iso, 'local'), 'local')).toBe(iso);
  });

  it('labels offsets and zones', () => {
    expect(offsetLabel(60)).toBe('UTC+01:00');
    expect(offsetLabel(-330)).toBe('UTC-05:30');
    expect(offsetLabel(0)).toBe('UTC');
    expect(zoneLabel('utc')).toBe('UTC');
  });
});
