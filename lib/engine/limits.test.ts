import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HANDLER_NAME, MAX_HANDLER_NAME_LENGTH, MAX_QUEUE_NAME_LENGTH, QUEUE_NAME, QUEUE_NAME_RULE } from './limits';

const source = readFileSync(new URL('./limits.ts', import.meta.url), 'utf8');
/** the source without comments, so a doc comment may mention anything */
const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');

describe('limits (bundled into browser code)', () => {
  it('imports nothing but types from ./types', () => {
    const imports = code.split('\n').filter((line) => /^\s*(import|export\s+(\*|\{[^}]*\})\s+from)\b/.test(line));
    for (const line of imports) expect(line).toMatch(/^\s*import\s+type\s+\{[^}]*\}\s+from\s+'\.\/types';\s*$/);
    expect(code).not.toMatch(/\bimport\s*\(|\brequire\s*\(/);
  });

  it('uses nothing of Node and no schema library', () => {
    expect(source).not.toMatch(/Buffer|zod|node:|process\./);
  });
});

describe('name patterns', () => {
  it('allow exactly their stated length', () => {
    expect(QUEUE_NAME.test('q'.repeat(MAX_QUEUE_NAME_LENGTH))).toBe(true);
    expect(QUEUE_NAME.test('q'.repeat(MAX_QUEUE_NAME_LENGTH + 1))).toBe(false);
    expect(HANDLER_NAME.test('h'.repeat(MAX_HANDLER_NAME_LENGTH))).toBe(true);
    expect(HANDLER_NAME.test('h'.repeat(MAX_HANDLER_NAME_LENGTH + 1))).toBe(false);
    expect(QUEUE_NAME_RULE).toBe('letters, digits, . _ : - (max 64)');
  });
});
