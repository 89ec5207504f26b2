// The kept aggregates on SQL Server are sharded by slot (sql/tally.ts): every writer bumps the rows of
// its own slot, every reader sums over the slots. Checked over every statement of sql/, without a server.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS } from './schema';
import { TALLY } from './sql/tally';

const SQL_DIR = fileURLToPath(new URL('./sql/', import.meta.url));
const STATEMENTS: { name: string; text: string }[] = (
  await Promise.all(
    readdirSync(SQL_DIR)
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
      .map(async (f) => {
        const mod = (await import(SQL_DIR + f)) as Record<string, unknown>;
        return Object.entries(mod)
          .filter(([k, v]) => typeof v === 'string' && /^[A-Z][A-Z0-9_]*$/.test(k))
          .map(([k, v]) => ({ name: `${f.slice(0, -3)}.${k}`, text: v as string }));
      }),
  )
).flat();

const SHARDED = /readpast\.(QueueCounts|Metrics)\b/;

describe('counts and metrics sharded by slot', () => {
  it('a migration puts the slot into both keys', () => {
    const text = MIGRATIONS.flatMap((m) => m.batches).join('\n');
    expect(text).toContain('PRIMARY KEY CLUSTERED (queue, status, slot)');
    expect(text).toContain('PRIMARY KEY CLUSTERED (sec, slot)');
  });

  it("a writer bumps its own slot's rows, found by seeks and held to commit", () => {
    expect(TALLY).toMatch(/DECLARE @slot tinyint = @@SPID % 16;/);
    expect(TALLY).toMatch(/INSERT INTO readpast\.QueueCounts \(queue, status, slot, n\)/);
    expect(TALLY).toMatch(/FROM readpast\.QueueCounts AS c WITH \(UPDLOCK, HOLDLOCK, FORCESEEK\)\s+WHERE[^;]*c\.slot = @slot\)/);
    expect(TALLY).toMatch(/FROM readpast\.QueueCounts AS c WITH \(FORCESEEK\)[^;]*WHERE c\.slot = @slot/);
    expect(TALLY).toMatch(/FROM readpast\.Metrics WITH \(UPDLOCK, HOLDLOCK\) WHERE sec = @sec AND slot = @slot/);
    expect(TALLY).toMatch(/WHERE sec = @sec AND slot = @slot;\s*END;$/);
  });

  it('every update of those tables names a slot', () => {
    const updates = STATEMENTS.flatMap((s) =>
      s.text
        .split(';')
        .filter((piece) => /^\s*(IF[^\n]*\n\s*)?UPDATE\b/.test(piece) && SHARDED.test(piece))
        .map((piece) => ({ name: s.name, piece })),
    );
    expect(updates.length).toBeGreaterThanOrEqual(10);
    const unslotted = updates.filter((u) => !/\bslot = (@slot|0)\b/.test(u.piece)).map((u) => `${u.name}: ${u.piece.trim()}`);
    expect(unslotted).toEqual([]);
  });

  it('every read of those tables sums over the slots (or only checks that a row exists)', () => {
    const reads = STATEMENTS.flatMap((s) =>
      [...s.text.matchAll(/SELECT\s+((?:(?!SELECT)[\s\S])*?)\s+FROM\s+readpast\.(QueueCounts|Metrics)\b/g)].map((m) => ({
        name: s.name,
        list: m[1]!.trim(),
      })),
    );
    expect(reads.map((r) => r.name)).toEqual(
      expect.arrayContaining(['reads.COUNTS_BY_QUEUE', 'reads.METRICS_SINCE', 'queues.LIST_QUEUES', 'maintenance.SAMPLE_DEPTH']),
    );
    // the keys of rows to delete (a chunked DELETE, maintenance.ts PRUNE_REST) are not a read of a count
    const keysOnly = (list: string) => /^(TOP \(\d+\) )?[a-z]\.(sec|queue)$/.test(list);
    const unsummed = reads
      .filter((r) => r.list !== '1' && !keysOnly(r.list) && !/\b(SUM|MAX)\(/.test(r.list))
      .map((r) => `${r.name}: SELECT ${r.list}`);
    expect(unsummed).toEqual([]);
    // and no bare column of a count or a metric next to the sums
    for (const r of reads.filter((x) => x.list !== '1')) {
      const bare = r.list.replace(/\b(SUM|MAX|COALESCE)\([^()]*(\([^()]*\))?[^()]*\)/g, '');
      expect(bare, r.name).not.toMatch(/\b[cm]\.(n|enqueued|started|succeeded|failed|latency_sum|latency_max|depth)\b/);
    }
  });
});
