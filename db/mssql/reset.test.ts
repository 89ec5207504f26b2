// The contract suite's reset on SQL Server (test-support/empty-tables.ts) empties every table of the readpast schema, read
// from the catalog. Without a server, this checks what the catalog will hold: every table the migrations
// create is in that schema and in the reset, in an order the foreign keys allow, and the rows migrations
// seed come back after it.
import { describe, expect, it } from 'vitest';
import { MIGRATIONS } from './schema';
import { MIGRATE_ENSURE_VERSIONS, RESET_SEEDS, resetTablesSql } from './sql/migrations';
import { type ForeignKey, resetOrder, type ResetTable } from './test-support/empty-tables';

const BATCHES = [MIGRATE_ENSURE_VERSIONS, ...MIGRATIONS.flatMap((m) => m.batches)];

/** Every CREATE TABLE of the migrations as [schema, table]. */
function createdTables(): [string, string][] {
  const out: [string, string][] = [];
  for (const b of BATCHES) {
    for (const m of b.matchAll(/CREATE\s+TABLE\s+([^\s(]+)/gi)) {
      const parts = m[1]!.replace(/[[\]]/g, '').split('.');
      out.push(parts.length === 2 ? [parts[0]!, parts[1]!] : ['', parts[0]!]);
    }
  }
  return out;
}

/** Every foreign key the migrations declare: in a CREATE TABLE body or an ALTER TABLE. */
function declaredForeignKeys(): ForeignKey[] {
  const out: ForeignKey[] = [];
  for (const b of BATCHES) {
    for (const m of b.matchAll(/(?:CREATE|ALTER)\s+TABLE\s+readpast\.(\w+)([\s\S]*?)(?=(?:CREATE|ALTER)\s+TABLE|$)/gi)) {
      for (const r of m[2]!.matchAll(/REFERENCES\s+readpast\.\[?(\w+)\]?/gi)) out.push({ child: m[1]!, parent: r[1]! });
    }
  }
  return out;
}

const asCatalog = (names: string[]): ResetTable[] => names.map((name) => ({ name, quoted: `[${name}]` }));

describe('SQL Server: the suite reset covers every table the migrations create', () => {
  it('every table is created in the readpast schema (the catalog query reads that schema)', () => {
    const tables = createdTables();
    expect(tables.length).toBeGreaterThan(20);
    expect(tables.filter(([schema]) => schema.toLowerCase() !== 'readpast')).toEqual([]);
  });

  it('empties each table the migrations create but SchemaVersion, once, referencing tables first', () => {
    const names = [...new Set(createdTables().map(([, t]) => t))].filter((t) => t !== 'SchemaVersion');
    const fks = declaredForeignKeys();
    const order = resetOrder(asCatalog(names), fks).map((t) => t.name);
    expect([...order].sort()).toEqual([...names].sort());
    for (const fk of fks) expect(order.indexOf(fk.child), `${fk.child} → ${fk.parent}`).toBeLessThan(order.indexOf(fk.parent));
    const batch = resetTablesSql(order.map((n) => `[${n}]`));
    for (const n of names) expect(batch).toContain(`DELETE FROM readpast.[${n}];`);
    expect(batch).not.toContain('SchemaVersion');
    // among them the tables the hand-written list missed
    for (const n of ['AuditLog', 'AlertRules', 'AlertFirings', 'HistoryMinutes', 'HistoryTotals', 'PoolSettings', 'Settings']) {
      expect(order).toContain(n);
    }
  });

  it('orders by foreign keys: a chain is emptied child first; a cycle is refused by name', () => {
    const tables = asCatalog(['A', 'B', 'C', 'D']);
    const chain = [
      { child: 'C', parent: 'B' },
      { child: 'B', parent: 'A' },
      { child: 'D', parent: 'D' },
    ];
    expect(resetOrder(tables, chain).map((t) => t.name)).toEqual(['C', 'D', 'B', 'A']);
    expect(() =>
      resetOrder(tables, [
        { child: 'A', parent: 'B' },
        { child: 'B', parent: 'A' },
      ]),
    ).toThrow(/cycle between A, B/);
  });

  it('seeds again every row a migration seeds (each seed batch of a migration is one of the reset seeds)', () => {
    const seeding = BATCHES.filter((b) => /INSERT\s+INTO\s+readpast\./i.test(b) && !/^\s*CREATE\s+OR\s+ALTER\s+(PROCEDURE|VIEW)/i.test(b));
    // a copy of existing rows (migration 7: QueueChanges into AuditLog) is no seed: its source is emptied too
    const seeds = seeding.filter((b) => !/INSERT\s+INTO[\s\S]*\bSELECT\b[\s\S]*\bFROM\s+readpast\./i.test(b));
    expect(seeds.length).toBeGreaterThan(0);
    for (const s of seeds) expect(RESET_SEEDS).toContain(s);
  });

  it('refuses a table name that is not quoted as QUOTENAME returns it', () => {
    expect(() => resetTablesSql(['Tasks; DROP TABLE x'])).toThrow(/not a quoted table name/);
    expect(resetTablesSql(['[a]]b]'])).toContain('DELETE FROM readpast.[a]]b];');
  });
});
