import { describe, expect, it } from 'vitest';
import {
  countIsExact,
  FILTER_KEYS,
  joinPayload,
  payloadPreview,
  splitPayload,
  TABS,
  tabOf,
  tabParams,
  taskState,
  type Filters,
} from './tabs';

const none = Object.fromEntries(FILTER_KEYS.map((k) => [k, ''])) as Filters;

describe('tabs', () => {
  it('maps each tab to its URL parameters and back', () => {
    for (const t of TABS) {
      const p = tabParams(t);
      expect(tabOf(p.status || null, p.sub || null)).toBe(t);
    }
    expect(tabParams('retrying')).toEqual({ status: 'pending', sub: 'retrying' });
    expect(tabOf('pending', null)).toBeNull();
    expect(tabOf('exploded', null)).toBeNull();
    expect(tabParams('waiting')).toEqual({ status: 'waiting', sub: '' });
    expect(TABS[1]).toBe('waiting');
    // a durable handler's suspended tasks are kinds of waiting, as ready and the others are of pending
    expect(tabParams('sleeping')).toEqual({ status: 'waiting', sub: 'sleeping' });
    expect(tabOf('waiting', 'event')).toBe('event');
    expect(tabOf(null, 'event')).toBe('event');
  });

  it('tells ready, scheduled and retrying apart as the store does', () => {
    const now = Date.parse('2026-01-01T10:00:00Z');
    expect(taskState({ status: 'pending', runAfter: '2026-01-01T09:59:59Z', attempts: 2 }, now)).toBe('ready');
    expect(taskState({ status: 'pending', runAfter: '2026-01-01T10:00:00Z', attempts: 0 }, now)).toBe('ready');
    expect(taskState({ status: 'pending', runAfter: '2026-01-01T10:00:01Z', attempts: 0 }, now)).toBe('scheduled');
    expect(taskState({ status: 'pending', runAfter: '2026-01-01T10:00:01Z', attempts: 1 }, now)).toBe('retrying');
    expect(taskState({ status: 'dead', runAfter: '2026-01-01T10:00:01Z', attempts: 1 }, now)).toBe('dead');
    expect(taskState({ status: 'waiting', runAfter: '2026-01-01T10:00:01Z', attempts: 1, suspended: 'sleep' }, now)).toBe('sleeping');
    expect(taskState({ status: 'waiting', runAfter: null, attempts: 1, suspended: 'event' }, now)).toBe('waiting for event');
    expect(taskState({ status: 'waiting', runAfter: null, attempts: 0, suspended: null }, now)).toBe('waiting');
  });

  it('splits and joins payload filters', () => {
    expect(splitPayload('customer.id=42')).toEqual({ path: 'customer.id', op: 'eq', value: '42' });
    expect(splitPayload('$.name~ac=me')).toEqual({ path: '$.name', op: 'contains', value: 'ac=me' });
    expect(joinPayload(' customer.id ', 'contains', 'x')).toBe('customer.id~x');
    expect(joinPayload('', 'eq', 'x')).toBe('');
  });

  it('says when a tab count is exactly what the filter matches', () => {
    expect(countIsExact(none)).toBe(true);
    expect(countIsExact({ ...none, queue: 'mail' })).toBe(true);
    expect(countIsExact({ ...none, payload: 'a=1' })).toBe(false);
    expect(countIsExact({ ...none, flow: '7' })).toBe(false);
  });

  it('previews payloads on one line', () => {
    expect(payloadPreview(null)).toBe('');
    expect(payloadPreview({ a: 1 })).toBe('{"a":1}');
    expect(payloadPreview({ long: 'x'.repeat(100) }, 20)).toHaveLength(20);
  });
});
