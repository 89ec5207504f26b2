// A released migration never changes (schema.ts): each released one pinned by the hash of its batches, and
// every version file literal. A database migrated step by step and a fresh one run the same texts.
//
// Releasing a migration: add its line to RELEASED (`version: 'hash'`, the hash this test prints for it).
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkLiteral, checkReleased, frozenHash } from '../contract/frozen';
import { MIGRATIONS } from './schema';

/** sha-256 of JSON.stringify(batches), first 16 hex digits. */
const RELEASED: Record<number, string> = {
  1: '9e3d10b783b8f292',
  2: '18c2b97b1e1188d9',
  3: '14cd5c8982ee5d45',
  4: 'c8d8255a84b65132',
  5: '6c590d60e5ddb655',
  6: 'a67ad86b909fadb6',
  7: 'b980333bd8598e94',
  8: '21bf401eded889f5',
  9: '51aede60d71926bd',
  10: '37f817623cf4721a',
  11: 'faec424a2c3d73d7',
  12: '20c956e8f7f7d98c',
  13: '90be3d66bcef4520',
  14: '79c1285004bb287e',
  15: '2d9afd0bceb9b1d5',
  16: '4f53cda18c2baa0c',
  17: '4f53cda18c2baa0c',
  18: '4f53cda18c2baa0c',
  19: 'c9938bfc0bb9ca9b',
  20: '8339ede4197a552b',
  21: 'fba864713e728b7d',
  22: '6e05ddb269e252a8',
  23: 'c5f6e7bf5591125c',
};

const textOf = (m: (typeof MIGRATIONS)[number]) => JSON.stringify(m.batches);

describe('SQL Server migrations are frozen once released', () => {
  it('every released migration has the text it was released with', () => {
    for (const m of MIGRATIONS)
      if (!(m.version in RELEASED)) console.log(`migration ${m.version} (not released yet): ${frozenHash(textOf(m))}`);
    checkReleased(MIGRATIONS, RELEASED, textOf);
  });

  it('a changed one fails, saying the fix is a new migration', () => {
    const changed = MIGRATIONS.map((m) => (m.version === 8 ? { ...m, batches: [...m.batches, 'SELECT 1;'] } : m));
    expect(() => checkReleased(changed, RELEASED, textOf)).toThrow(
      /migration 8 \(per-minute history\) changed after its release.*a new migration/s,
    );
    expect(() => checkReleased(MIGRATIONS.slice(1), RELEASED, textOf)).toThrow(/migration 1 is released and is gone/);
  });

  it('each version file holds literal text: no import of live statements, no interpolation', () => {
    checkLiteral(fileURLToPath(new URL('./versions/', import.meta.url)));
    // and the migrations hold no code object: procedures, views and grants are installed by content
    for (const m of MIGRATIONS.filter((x) => x.version > 1))
      expect(m.batches.join('\n'), `migration ${m.version}`).not.toMatch(/CREATE OR ALTER (PROCEDURE|VIEW)|\bGRANT\b/);
  });
});
