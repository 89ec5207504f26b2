// Queue names, dedup keys and handler names compare byte for byte on SQL Server as on SQLite: their
// columns have a binary collation (schema.ts NAME_COLLATION, migration 5). A table variable's column
// takes the database's default collation instead, and comparing two columns of different implicit
// collations fails (error 468) — only on a server, which these machines do not have. So: checked here,
// over every statement of sql/ and every migration, without one.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CODE_OBJECTS } from './code-objects';
import { MIGRATIONS, NAME_COLLATION } from './schema';

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
)
  .flat()
  // and the code objects (the callers' procedures are built from pieces that are not constants of their own)
  .concat(CODE_OBJECTS.map((o) => ({ name: `code object ${o.name}`, text: o.text })));

/** Columns of table variables that hold a queue name, a dedup key or a handler name. */
const NAME_COLUMN = /^(queue|dedup_key|name)$/;

/** `DECLARE @x TABLE (…)`: each table variable's column definitions (top-level commas only). */
function tableVariables(text: string): { variable: string; columns: string[] }[] {
  const out: { variable: string; columns: string[] }[] = [];
  for (const m of text.matchAll(/DECLARE\s+(@\w+)\s+TABLE\s*\(/gi)) {
    let depth = 1;
    let i = m.index! + m[0].length;
    const start = i;
    for (; i < text.length && depth > 0; i++) {
      if (text[i] === '(') depth++;
      if (text[i] === ')') depth--;
    }
    const body = text.slice(start, i - 1);
    const columns: string[] = [];
    let level = 0;
    let from = 0;
    for (let j = 0; j <= body.length; j++) {
      const ch = body[j];
      if (ch === '(') level++;
      if (ch === ')') level--;
      if ((ch === ',' && level === 0) || j === body.length) {
        columns.push(body.slice(from, j).trim());
        from = j + 1;
      }
    }
    out.push({ variable: m[1]!, columns });
  }
  return out;
}

describe('names compare case-sensitively on SQL Server (binary collation)', () => {
  it('every table variable column holding a name declares the binary collation', () => {
    const seen: string[] = [];
    const missing: string[] = [];
    for (const s of STATEMENTS) {
      for (const v of tableVariables(s.text)) {
        for (const c of v.columns) {
          const [column, type] = c.split(/\s+/);
          if (!column || !NAME_COLUMN.test(column) || !/^n?(var)?char/i.test(type ?? '')) continue;
          seen.push(`${s.name} ${v.variable}.${column}`);
          if (!c.includes(`COLLATE ${NAME_COLLATION}`)) missing.push(`${s.name}: ${v.variable} (${c})`);
        }
      }
    }
    expect(seen).toEqual(
      expect.arrayContaining(['claim.CLAIM @cand.queue', 'enqueue.ENQUEUE_WRITE @in.dedup_key', 'workers.REGISTER_HANDLERS @n.name']),
    );
    expect(missing).toEqual([]);
  });

  it('a DISTINCT over names from JSON is taken in the binary collation', () => {
    const loose = STATEMENTS.filter((s) => /SELECT DISTINCT (j\.value|CAST\(j\.value AS n?varchar\(\d+\)\))(?! COLLATE)/.test(s.text));
    expect(loose.map((s) => s.name)).toEqual([]);
  });

  const m5 = MIGRATIONS.find((m) => m.version === 5)!;
  const m5Text = m5.batches.join('\n');

  it('migration 5 gives every name column of every table the binary collation', () => {
    const created = new Set<string>();
    for (const b of MIGRATIONS.flatMap((m) => m.batches)) {
      for (const t of b.matchAll(/CREATE TABLE readpast\.(\w+) \(([\s\S]*?)\n\);/g)) {
        for (const line of t[2]!.split('\n')) {
          const col = /^\s*(queue|dedup_key)\s+nvarchar/.exec(line)?.[1];
          // a table made after migration 5 declares the binary collation itself
          if (col && !line.includes(`COLLATE ${NAME_COLLATION}`)) created.add(`${t[1]}.${col}`);
        }
      }
    }
    const altered = new Set(
      [...m5Text.matchAll(new RegExp(`ALTER TABLE readpast\\.(\\w+) ALTER COLUMN (\\w+) \\S+ COLLATE ${NAME_COLLATION}`, 'g'))].map(
        (m) => `${m[1]}.${m[2]}`,
      ),
    );
    for (const c of created) expect(altered, c).toContain(c);
    for (const c of ['Queues.name', 'Tasks.queue', 'Tasks.dedup_key', 'Handlers.name', 'QueueCounts.queue']) expect(altered).toContain(c);
  });

  it('the indexes it drops are made again exactly as the earlier migrations made them', () => {
    const earlier = MIGRATIONS.filter((m) => m.version < 5)
      .flatMap((m) => m.batches)
      .join('\n');
    const dropped = [...m5Text.matchAll(/DROP INDEX (\w+) ON/g)].map((m) => m[1]!);
    const made = [...m5Text.matchAll(/\n(CREATE (?:UNIQUE )?INDEX (\w+) ON [^;]*);/g)];
    expect(dropped.length).toBeGreaterThan(0);
    expect(made.map((m) => m[2]).sort()).toEqual([...dropped].sort());
    for (const m of made) expect(earlier, m[2]).toContain(m[1]);
  });
});
