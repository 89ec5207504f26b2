import { describe, expect, it } from 'vitest';
import { ValidationError } from './errors';
import { keyFromProblem, keyOf, parseRate, rateText, taskKey } from './keys';
import { queuePatch } from './validation';

describe('keyFrom paths', () => {
  it('accepts $.name and [n] steps, refuses the rest', () => {
    for (const ok of ['$.customerId', '$.order.tenant', '$.items[0].id', '$[2]', '$._x9']) expect(keyFromProblem(ok), ok).toBeNull();
    for (const bad of ['', '$', 'customerId', '$.', '$..a', '$.a b', "$.a'; DROP TABLE Tasks--", '$["a"]', '$.1a', '$.a[*]', '$.a[-1]'])
      expect(keyFromProblem(bad), bad).not.toBeNull();
    expect(keyFromProblem('$.' + 'a'.repeat(300))).toMatch(/at most 200/);
  });

  it('derives a key from strings, numbers and booleans; none from objects, lists, null or nothing', () => {
    const p = { customerId: 'acme', n: 42, f: 1.5, yes: true, obj: { a: 1 }, list: [{ id: 'x' }], nul: null, empty: '' };
    expect(keyOf(p, '$.customerId')).toBe('acme');
    expect(keyOf(p, '$.n')).toBe('42');
    expect(keyOf(p, '$.f')).toBe('1.5');
    expect(keyOf(p, '$.yes')).toBe('true');
    expect(keyOf(p, '$.list[0].id')).toBe('x');
    for (const none of ['$.obj', '$.list', '$.nul', '$.missing', '$.customerId.x', '$.list[5].id', '$.empty'])
      expect(keyOf(p, none), none).toBeNull();
    expect(keyOf(null, '$.a')).toBeNull();
    expect(keyOf('text', '$.a')).toBeNull();
    // no prototype walking
    expect(keyOf({}, '$.constructor')).toBeNull();
  });

  it('refuses a derived key past 200 characters rather than cutting it', () => {
    expect(() => keyOf({ k: 'x'.repeat(201) }, '$.k')).toThrow(ValidationError);
    expect(keyOf({ k: 'x'.repeat(200) }, '$.k')).toHaveLength(200);
  });

  it('a given key wins over the queue’s keyFrom', () => {
    expect(taskKey('given', { c: 'derived' }, '$.c')).toBe('given');
    expect(taskKey(undefined, { c: 'derived' }, '$.c')).toBe('derived');
    expect(taskKey(null, { c: 'derived' }, null)).toBeNull();
  });
});

describe('rates', () => {
  it('parses LIMIT/PERIOD with units, per key, and none', () => {
    expect(parseRate('60/1m')).toEqual({ limit: 60, periodSeconds: 60, perKey: false });
    expect(parseRate('20/2s')).toEqual({ limit: 20, periodSeconds: 2, perKey: false });
    expect(parseRate('100/30')).toEqual({ limit: 100, periodSeconds: 30, perKey: false });
    expect(parseRate('5/1d per key')).toEqual({ limit: 5, periodSeconds: 86_400, perKey: true });
    expect(parseRate('1000/1h/key')).toEqual({ limit: 1000, periodSeconds: 3600, perKey: true });
    expect(parseRate('none')).toBeNull();
    for (const bad of ['60', '60/', '0/1m', '60/0s', '60/2d', '2000000/1s', 'x/1m', '60/1y'])
      expect(() => parseRate(bad, 'rate'), bad).toThrow(/rate:/);
  });

  it('writes a rate back the way it parses', () => {
    for (const r of ['60/1m', '20/2s', '90s', '7/2h per key']) {
      if (r === '90s') continue;
      expect(rateText(parseRate(r))).toBe(r);
    }
    expect(rateText({ limit: 3, periodSeconds: 90, perKey: false })).toBe('3/90s');
    expect(rateText(null)).toBe('none');
  });
});

describe('queue patch', () => {
  it('takes the throttle fields and names a bad one', () => {
    expect(queuePatch.parse({ perKeyLimit: 1, keyFrom: '$.customerId', rateLimit: { limit: 60, periodSeconds: 60 } })).toEqual({
      perKeyLimit: 1,
      keyFrom: '$.customerId',
      rateLimit: { limit: 60, periodSeconds: 60, perKey: false },
    });
    expect(queuePatch.parse({ perKeyLimit: null, keyFrom: null, rateLimit: null })).toEqual({
      perKeyLimit: null,
      keyFrom: null,
      rateLimit: null,
    });
    const bad = (p: unknown) => queuePatch.safeParse(p).error?.issues[0]?.path.join('.');
    expect(bad({ perKeyLimit: 0 })).toBe('perKeyLimit');
    expect(bad({ perKeyLimit: 10_001 })).toBe('perKeyLimit');
    expect(bad({ keyFrom: 'customerId' })).toBe('keyFrom');
    expect(bad({ rateLimit: { limit: 0, periodSeconds: 60 } })).toBe('rateLimit.limit');
    expect(bad({ rateLimit: { limit: 1, periodSeconds: 86_401 } })).toBe('rateLimit.periodSeconds');
    expect(bad({ rateLimit: { limit: 1, periodSeconds: 1, extra: 1 } })).toBe('rateLimit');
    expect(queuePatch.safeParse({}).success).toBe(false);
  });
});
