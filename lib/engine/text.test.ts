// findIllFormed: the first string that is not well-formed Unicode in a request, by path.
import { describe, expect, it } from 'vitest';
import { findIllFormed, wellFormed } from './text';

describe('findIllFormed', () => {
  it('accepts well-formed text, surrogate pairs (emoji) included', () => {
    expect(wellFormed('plain ascii, é, 中文, 😀')).toBe(true);
    expect(findIllFormed({ a: ['x', { b: '😀' }], n: 1, t: true, z: null })).toBeNull();
  });

  it('finds a lone high or low surrogate, anywhere, with its path and position', () => {
    expect(findIllFormed('a\ud800b')).toEqual({ path: [], message: 'not well-formed Unicode: a lone surrogate (\\ud800) at character 2' });
    expect(findIllFormed({ a: [1, { b: 'ok' }, { c: 'xy\udc00' }] })).toEqual({
      path: ['a', 2, 'c'],
      message: 'not well-formed Unicode: a lone surrogate (\\udc00) at character 3',
    });
    // a pair in the wrong order is two lone halves
    expect(findIllFormed('\ude00\ud83d')?.message).toMatch(/\(\\ude00\) at character 1/);
  });

  it('finds an ill-formed object key, shown with U+FFFD', () => {
    expect(findIllFormed({ p: { 'k\ud800': 1 } })).toEqual({
      path: ['p', 'k\ufffd'],
      message: 'its key is not well-formed Unicode: a lone surrogate (\\ud800) at character 2',
    });
  });

  it('reports the first in document order', () => {
    expect(findIllFormed({ a: 'ok', b: ['\ud800'], c: '\ud800' })?.path).toEqual(['b', 0]);
  });

  it('does not enter other objects, and walks 100,000 levels of nesting without exhausting the stack', () => {
    expect(findIllFormed({ d: new Date(0), m: new Map([['\ud800', '\ud800']]) })).toBeNull();
    let deep: unknown = '\ud800';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(findIllFormed(deep)?.path).toHaveLength(100_000);
  });
});
