// The ceilings of `npm run bench:peers` write the product's rows with the store's own statements: when the
// schema or a statement changes under them, this fails here rather than in a benchmark nobody runs in CI.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../connection';
import { drainLeast, drainPerTask, insertCeiling } from './ceiling';

const dir = mkdtempSync(join(tmpdir(), 'readpast-ceiling-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function counts(file: string): Record<string, number> {
  const db = openDatabase(file);
  try {
    const rows = db.prepare('SELECT status, COUNT(*) AS n FROM Tasks GROUP BY status').all() as { status: string; n: number }[];
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  } finally {
    db.close();
  }
}

describe('bench:peers ceilings against the current schema', () => {
  it('insertCeiling writes every row it times', async () => {
    const file = join(dir, 'insert.db');
    expect(await insertCeiling(file, 2_000)).toBeGreaterThan(0);
    expect(counts(file)).toEqual({ pending: 2_000 });
  });

  it('drainPerTask claims and settles every row with the store statements', async () => {
    const file = join(dir, 'per-task.db');
    expect(await drainPerTask(file, 1_000)).toBeGreaterThan(0);
    expect(counts(file)).toEqual({ succeeded: 1_000 });
  });

  it('drainLeast claims and settles every row', async () => {
    const file = join(dir, 'least.db');
    expect(await drainLeast(file, 1_000)).toBeGreaterThan(0);
    expect(counts(file)).toEqual({ succeeded: 1_000 });
  });
});
