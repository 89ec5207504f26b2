// A released migration never changes (schema.ts): each released one pinned by the hash of its text, and every
// version file literal. A file migrated step by step and a fresh one run the same texts.
//
// Releasing a migration: add its line to RELEASED (`version: 'hash'`, the hash this test prints for it).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkLiteral, checkReleased, frozenHash } from '../contract/frozen';
import { MIGRATIONS } from './schema';

/** sha-256 of the migration's sql, first 16 hex digits. */
const RELEASED: Record<number, string> = {
  1: '876d03dd82858bda',
  2: 'a2d1152391ffa6e1',
  3: '57f98e04585171b1',
  4: 'a8b3f56f65f59d81',
  5: 'ce1c828c5acb32ee',
  6: 'a993fb384a434a40',
  7: 'faa7624db2d2d001',
  8: '63e4dc74077f78a7',
  9: 'dd589d9df9ff2436',
  10: '45f5a2ad734f9340',
  11: 'a81c60472f8886d2',
  12: '684bf9ff6822b70c',
  13: '0f5566868c45f893',
  14: 'd5d3c043d2a6c54e',
  15: '1f66708ebe51e9a5',
  16: '839a6dba2a2c1060',
  17: '29f4fc760dd4cde5',
  18: '77514d7b7c21fd83',
  19: 'e71c34906bfc7986',
  20: 'ea73e2671f6375cf',
};

const textOf = (m: (typeof MIGRATIONS)[number]) => m.sql;

describe('SQLite migrations are frozen once released', () => {
  it('every released migration has the text it was released with', () => {
    for (const m of MIGRATIONS)
      if (!(m.version in RELEASED)) console.log(`migration ${m.version} (not released yet): ${frozenHash(textOf(m))}`);
    checkReleased(MIGRATIONS, RELEASED, textOf);
  });

  it('a changed one fails, saying the fix is a new migration', () => {
    const changed = MIGRATIONS.map((m) =>
      m.version === 15 ? { ...m, sql: m.sql.replace('Tasks(flow_id)', 'Tasks(flow_id, status)') } : m,
    );
    expect(() => checkReleased(changed, RELEASED, textOf)).toThrow(
      /migration 15 \(workflows\) changed after its release.*a new migration/s,
    );
  });

  it('each version file holds literal text: no import of live statements, no interpolation', () => {
    const dir = fileURLToPath(new URL('./versions/', import.meta.url));
    checkLiteral(dir);
    // a file that imports a live statement or interpolates is refused
    const bad = mkdtempSync(join(tmpdir(), 'readpast-frozen-'));
    try {
      writeFileSync(join(bad, 'v99-live.ts'), "import { CLAIM } from '../sql/claim';\nexport const sql = `${CLAIM}`;\n");
      expect(() => checkLiteral(bad)).toThrow(/v99-live\.ts: import \{ CLAIM \}[\s\S]*template literal/);
    } finally {
      rmSync(bad, { recursive: true, force: true });
    }
  });
});
