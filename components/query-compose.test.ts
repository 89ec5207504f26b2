import { describe, expect, it } from 'vitest';
import { composeQuery } from './query-compose';

describe('composeQuery', () => {
  it('with nothing on its way, the caller’s query is the query (empty values dropped)', () => {
    const r = composeQuery([], 'queue=a&status=dead', { queue: 'a', status: '', sub: '', payload: 'x=1' });
    expect(r.search).toBe('queue=a&payload=x%3D1');
    expect(r.chain).toEqual(['queue=a&status=dead', 'queue=a&payload=x%3D1']);
  });

  it('a tab clicked, then a filter applied before the tab rendered: both hold', () => {
    const rendered = 'queue=a&status=dead';
    // the "All" tab: drops status
    const tab = composeQuery([], rendered, { queue: 'a', status: '', payload: '' });
    expect(tab.search).toBe('queue=a');
    // "Apply", built from the page still showing status=dead
    const apply = composeQuery(tab.chain, rendered, { queue: 'a', status: 'dead', payload: '$.name~ST-5' });
    expect(apply.search).toBe('queue=a&payload=%24.name%7EST-5');
    expect(new URLSearchParams(apply.search).get('status')).toBeNull();
    // a third change from the same stale render builds on both
    const third = composeQuery(apply.chain, rendered, { queue: 'b', status: 'dead', payload: '' });
    expect(Object.fromEntries(new URLSearchParams(third.search))).toEqual({ queue: 'b', payload: '$.name~ST-5' });
  });

  it('once the first has rendered, a change builds on the last asked for', () => {
    const first = composeQuery([], '', { status: 'dead' });
    const second = composeQuery(first.chain, '', { q: 'x' });
    expect(second.search).toBe('status=dead&q=x');
    // the first arrived; the page built the next change from it, the second is still on its way
    const third = composeQuery(second.chain, 'status=dead', { status: 'dead', cursor: '7' });
    expect(Object.fromEntries(new URLSearchParams(third.search))).toEqual({ status: 'dead', q: 'x', cursor: '7' });
  });

  it('a query rendered from elsewhere (back, a link) starts again from it', () => {
    const first = composeQuery([], 'a=1', { a: '2' });
    const r = composeQuery(first.chain, 'b=1', { b: '1', c: '3' });
    expect(r.search).toBe('b=1&c=3');
    expect(r.chain).toEqual(['b=1', 'b=1&c=3']);
  });
});
