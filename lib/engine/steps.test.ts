import { describe, expect, it } from 'vitest';
import { NonRetryableError, ValidationError } from './errors';
import { MAX_EVENT_PAYLOAD_BYTES, MAX_RESULT_BYTES } from './limits';
import { checkEventName, checkEventPayload, checkMatch, checkStepName, durationMs, matches, planStep, stepResult, wakeTime } from './steps';
import type { StepRecord } from './types';

describe('durations and wake times', () => {
  it('reads milliseconds and duration texts', () => {
    expect(durationMs(1500)).toBe(1500);
    expect(durationMs('90s')).toBe(90_000);
    expect(durationMs('3d')).toBe(3 * 86_400_000);
    expect(durationMs('1h30m')).toBe(5_400_000);
    expect(durationMs('1h 30m')).toBe(5_400_000);
    expect(durationMs('250ms')).toBe(250);
    expect(durationMs('1.5s')).toBe(1500);
    for (const bad of ['', 'soon', '3 days', '-1s', '1x']) expect(durationMs(bad), bad).toBeNull();
    expect(durationMs(-1)).toBeNull();
    expect(durationMs(Number.NaN)).toBeNull();
  });

  it('a sleep ends at now + its duration, or at its Date; a bad one or past a year is refused', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(wakeTime('2h', now, 'sleep').toISOString()).toBe('2026-01-01T02:00:00.000Z');
    const at = new Date('2026-01-05T00:00:00Z');
    expect(wakeTime(at, now, 'sleep')).toBe(at);
    expect(() => wakeTime('tomorrow', now, 'sleep "x"')).toThrow(/sleep "x": milliseconds, a duration/);
    expect(() => wakeTime('400d', now, 'sleep')).toThrow(NonRetryableError);
    expect(() => wakeTime(new Date('2028-01-01'), now, 'sleep')).toThrow(/at most a year ahead/);
    expect(() => wakeTime(new Date('nope'), now, 'sleep')).toThrow(/invalid Date/);
  });
});

describe('names, payloads and matches', () => {
  it('step names: 1 to 200 characters without control characters', () => {
    expect(checkStepName('charge card')).toBe('charge card');
    for (const bad of ['', 'a'.repeat(201), 'tab\there', 42]) expect(() => checkStepName(bad)).toThrow(NonRetryableError);
  });

  it('event names and payloads, with the field named', () => {
    expect(checkEventName('order.paid')).toBe('order.paid');
    expect(checkEventName('billing/invoice:v2')).toBe('billing/invoice:v2');
    expect(() => checkEventName('', 'name')).toThrow(new ValidationError('name', 'letters, digits, . _ : / - (max 200)'));
    expect(() => checkEventName('has space')).toThrow(/^event: /);
    expect(checkEventPayload(undefined)).toBeNull();
    expect(() => checkEventPayload('x'.repeat(MAX_EVENT_PAYLOAD_BYTES))).toThrow(/^payload: \d+ bytes, over the 65536 byte limit/);
    expect(() => checkEventPayload(10n)).toThrow(/^payload: must be JSON/);
  });

  it('a match is a flat object of scalars; a payload contains it when each field is there and equal', () => {
    expect(checkMatch(undefined)).toEqual({});
    expect(checkMatch({ orderId: 42, paid: true, note: null, who: 'a' })).toEqual({ orderId: 42, paid: true, note: null, who: 'a' });
    expect(() => checkMatch({ order: { id: 1 } })).toThrow(new ValidationError('match.order', 'a string, number, boolean or null'));
    expect(() => checkMatch([1])).toThrow(/^match: an object/);
    expect(() => checkMatch(Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`f${i}`, i])))).toThrow(/at most 20 fields/);
    expect(matches({ orderId: 42, amount: 3 }, { orderId: 42 })).toBe(true);
    expect(matches({ orderId: 42.0 }, { orderId: 42 })).toBe(true);
    expect(matches({ orderId: '42' }, { orderId: 42 })).toBe(false);
    expect(matches({ note: null }, { note: null })).toBe(true);
    expect(matches({}, { note: null })).toBe(false);
    expect(matches({ a: 1 }, {})).toBe(true);
    expect(matches(null, {})).toBe(true);
    expect(matches(null, { a: 1 })).toBe(false);
    expect(matches([{ a: 1 }], { a: 1 })).toBe(false);
  });
});

describe('step results and recorded steps', () => {
  it('a result is its JSON round trip; too large or not JSON fails, not retried', () => {
    expect(stepResult(undefined, 's')).toBeNull();
    expect(stepResult({ at: new Date(0), n: 1, skip: undefined }, 's')).toEqual({ at: '1970-01-01T00:00:00.000Z', n: 1 });
    expect(() => stepResult('x'.repeat(MAX_RESULT_BYTES), 'big')).toThrow(/step "big": its result is \d+ bytes/);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => stepResult(cyclic, 'loop')).toThrow(NonRetryableError);
  });

  const rec = (over: Partial<StepRecord>): StepRecord => ({
    seq: 1,
    name: 'a',
    kind: 'step',
    status: 'succeeded',
    result: 1,
    error: null,
    attempt: 1,
    tries: 1,
    startedAt: new Date(0),
    endedAt: new Date(0),
    wakeAt: null,
    event: null,
    match: null,
    eventId: null,
    ...over,
  });

  it('replays what succeeded or was waited on, runs what failed or is new, refuses another name or kind', () => {
    expect(planStep(undefined, 1, 'a', 'step')).toEqual({ replay: false, record: null });
    expect(planStep(rec({}), 1, 'a', 'step').replay).toBe(true);
    expect(planStep(rec({ status: 'failed' }), 1, 'a', 'step').replay).toBe(false);
    expect(planStep(rec({ kind: 'sleep', status: 'sleeping' }), 1, 'a', 'sleep').replay).toBe(true);
    expect(() => planStep(rec({}), 1, 'b', 'step')).toThrow(/step 1 was recorded as step "a"; this run calls step "b"/);
    expect(() => planStep(rec({}), 1, 'a', 'transaction')).toThrow(NonRetryableError);
  });
});
