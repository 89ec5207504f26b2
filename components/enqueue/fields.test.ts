import { describe, expect, it } from 'vitest';
import { parseTokens } from './fields';

const A = '0193abcd-0000-7000-8000-000000000001';
const B = '0193abcd-0000-7000-8000-000000000002';

describe('run after (dependsOn) tokens', () => {
  it('splits on commas, spaces and new lines, lower-cased and distinct', () => {
    expect(parseTokens('', 10)).toEqual({ tokens: [] });
    expect(parseTokens(` ${A},\n${B.toUpperCase()} ; ${A}\n`, 10)).toEqual({ tokens: [A, B] });
  });

  it('names what is not a token, and refuses more than the limit', () => {
    expect(parseTokens(`${A}, load-a`, 10).error).toBe('load-a is not a task token');
    expect(parseTokens(`${A} ${B}`, 1).error).toBe('at most 1 parents');
  });
});
