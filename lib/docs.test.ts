// The architecture pages name files; a file that moved or went away must not stay named. Every
// backticked repository path in ARCHITECTURE.md and db/contract/README.md exists: a path with a folder
// exactly as written (`db/<dialect>/x.ts` when x.ts is in at least one dialect folder), a bare file name
// somewhere among the tracked files. Built output (dist/, .next/) and globs are not files of the tree.
// ARCHITECTURE.md's table of the ports lists each port's methods as lib/engine/ports/ declares them.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { readmeCode, type CodeBlock } from '../bin/test/readme';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DOCS = ['ARCHITECTURE.md', 'db/contract/README.md'];
const DIALECTS = ['sqlite', 'mssql'];
const FILE = /\.(ts|tsx|mjs|cjs|js|json|md|css|sql)$/;
const BUILT = /^(dist|\.next)\//;

const tracked = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
const names = new Set(tracked.map((f) => basename(f)));

/** The backticked words of a page that name a file or folder of the repository. */
export function namedPaths(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(/`([^`\s]+)`/g)) {
    // `sql/claim.ts: CLAIM_RULE_SQL` style is written `path: symbol`; a word is its path part
    const word = m[1]!.replace(/[:,;.)]+$/, '');
    if (/^[a-z]+:/.test(word) || word.includes('*') || word.startsWith('-') || word.startsWith('@')) continue;
    if (!FILE.test(word) && !(word.includes('/') && word.endsWith('/'))) continue;
    // an extension alone (`.d.ts`), or a pattern (`db/<dialect>/<concern>.ts`) rather than a file
    if (word.startsWith('.') || /<(?!dialect>)[^>]+>/.test(word)) continue;
    if (BUILT.test(word) || /^[A-Za-z]+\.[a-z]+\(/.test(word)) continue;
    out.add(word);
  }
  return [...out];
}

function exists(path: string): boolean {
  if (path.includes('<dialect>')) return DIALECTS.some((d) => exists(path.replace('<dialect>', d)));
  if (existsSync(join(ROOT, path))) return true;
  // a bare name (`pool.ts`) or a path relative to a dialect folder (`sql/claim.ts`) named in a table row
  if (!path.includes('/')) return names.has(path);
  if (path.endsWith('/')) return tracked.some((f) => f.startsWith(path) || f.includes(`/${path}`));
  return tracked.some((f) => f.endsWith(`/${path}`));
}

describe('the architecture pages name files that exist', () => {
  for (const doc of DOCS) {
    it(`${doc}: every path it names is in the tree`, () => {
      const text = readFileSync(join(ROOT, doc), 'utf8');
      const named = namedPaths(text);
      expect(named.length).toBeGreaterThan(doc === 'ARCHITECTURE.md' ? 40 : 2);
      expect(named.filter((p) => !exists(p))).toEqual([]);
    });
  }

  it('stands alone: no page outside the repository is cited', () => {
    for (const doc of [...DOCS, '.dependency-cruiser.cjs']) expect(readFileSync(join(ROOT, doc), 'utf8')).not.toMatch(/DESIGN\.md/);
  });

  it('the check can fail: a moved file is found missing', () => {
    expect(namedPaths('see `lib/engine/no-such-file.ts` and `gone.ts`').filter((p) => !exists(p))).toEqual([
      'lib/engine/no-such-file.ts',
      'gone.ts',
    ]);
  });
});

/** The methods each port interface of lib/engine/ports/ declares, by interface name. */
function portMethods(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const dir = join(ROOT, 'lib/engine/ports');
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
    const source = ts.createSourceFile(file, readFileSync(join(dir, file), 'utf8'), ts.ScriptTarget.Latest, true);
    source.forEachChild((node) => {
      if (!ts.isInterfaceDeclaration(node)) return;
      const methods = node.members.filter(ts.isMethodSignature).map((m) => m.name.getText(source));
      out.set(node.name.text, methods);
    });
  }
  return out;
}

describe("ARCHITECTURE.md's table of the ports", () => {
  it('gives each port its count of methods and names them all, as declared', () => {
    const declared = portMethods();
    const rows = [...readFileSync(join(ROOT, 'ARCHITECTURE.md'), 'utf8').matchAll(/^\| `(\w+)` \| (\d+): (.*?) \| .* \|$/gm)];
    expect(rows.map((r) => r[1])).toEqual(['WorkerPort', 'MaintenancePort', 'CommandPort', 'ReadModel', 'SqlServerExtras']);
    for (const [, port, count, list] of rows) {
      // the names, without the words in parentheses after some of them and the remark after a semicolon
      const names = list!
        .replace(/\([^)]*\)/g, '')
        .split(';')[0]!
        .split(',')
        .map((n) => n.trim().split(/\s/)[0]);
      const methods = declared.get(port!) ?? [];
      expect({ port, count: Number(count), names: [...names].sort() }).toEqual({ port, count: methods.length, names: [...methods].sort() });
    }
  });
});

/** The imports of `blocks` that a package user could not write: anything but 'readpast', Node's, and their own driver. */
function foreignImports(blocks: CodeBlock[]): string[] {
  const imports = blocks.flatMap(({ line, code }) =>
    [...code.matchAll(/\bfrom\s+'([^']+)'|\bimport\(\s*'([^']+)'\s*\)/g)].map((m) => `${line}: ${m[1] ?? m[2]}`),
  );
  // readpast itself, Node's modules, and the user's own driver or credentials in the SQL Server examples
  return imports.filter((i) => !/: (readpast|node:\w+|mssql|@azure\/identity|@opentelemetry\/[\w-]+)$/.test(i));
}

describe("README's code is a package user's", () => {
  it("imports readpast as 'readpast', never a path into this repository", () => {
    const blocks = readmeCode();
    expect(blocks.length).toBeGreaterThan(5);
    expect(blocks.some((b) => b.code.includes("from 'readpast'"))).toBe(true);
    expect(foreignImports(blocks)).toEqual([]);
  });

  it('the check can fail: an import of the sources is found', () => {
    const readme = "text\n```ts\nimport type { HandlerRegistry } from './lib/engine/handlers';\n```\n";
    expect(foreignImports(readmeCode(readme))).toEqual(['3: ./lib/engine/handlers']);
  });
});
