// Frozen migrations, for both dialects' tests (db/<dialect>/frozen-migrations.test.ts): a released migration
// never changes. Each dialect's test lists the released ones as `version: hash` (the first 16 hex digits of the
// sha-256 of its text: SQLite's `sql`, SQL Server's batches as a JSON array); this checks the migrations
// against that list and the version files against live imports.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';

export const frozenHash = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16);

/**
 * Every released migration is there with the text it was released with; an unreleased one (not yet pinned) may
 * only follow the last released one. `textOf` is the exact text a migration runs.
 */
export function checkReleased<M extends { version: number; name: string }>(
  migrations: readonly M[],
  released: Readonly<Record<number, string>>,
  textOf: (m: M) => string,
): void {
  const last = Math.max(...Object.keys(released).map(Number));
  const changed: string[] = [];
  for (const [v, hash] of Object.entries(released)) {
    const m = migrations.find((x) => x.version === Number(v));
    if (!m) changed.push(`migration ${v} is released and is gone: put it back as it was`);
    else if (frozenHash(textOf(m)) !== hash)
      changed.push(
        `migration ${v} (${m.name}) changed after its release (${hash} → ${frozenHash(textOf(m))}): a released migration never ` +
          'changes, since databases have run it as it was; put it back, and make the fix a new migration',
      );
  }
  if (changed.length) throw new Error(changed.join('\n'));
  const unpinned = migrations.filter((m) => !(m.version in released)).map((m) => m.version);
  for (const v of unpinned)
    expect(v, `migration ${v} is not released yet, so it must come after the last released (${last})`).toBeGreaterThan(last);
}

/** Each version file imports nothing but the migration type: its text is literal, never today's statements. */
export function checkLiteral(versionsDir: string): void {
  const files = readdirSync(versionsDir).filter((f) => /^v\d+-.*\.ts$/.test(f) && !f.endsWith('.test.ts'));
  expect(files.length).toBeGreaterThan(0);
  const live: string[] = [];
  for (const f of files) {
    const text = readFileSync(join(versionsDir, f), 'utf8');
    for (const m of text.matchAll(/^import\s+(type\s+)?[^;]*?from\s+'([^']+)';/gm))
      if (!(m[1] && m[2] === './migration')) live.push(`${f}: ${m[0]}`);
    if (/\$\{/.test(text.replace(/\\\$\{/g, ''))) live.push(`${f}: a template literal with \${…} (its text must be literal)`);
  }
  if (live.length) throw new Error(`migrations must be literal text:\n${live.join('\n')}`);
}
