// `npm run check:layers` can fail: a small copy of the layout (the real .dependency-cruiser.cjs and tsconfig.json,
// stub modules) passes; with one wrong import per case added to it, dependency-cruiser names each as an error of
// its own rule from its own file (all cases in one run).
// The copy lives in a temporary directory, so no probe file ever appears in the working tree (where a
// concurrent `npm test` or `next build` would see it). Whether the real tree passes is
// `npm run check:layers`' own business.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DEPCRUISE = join(ROOT, 'node_modules', '.bin', 'depcruise');

/** A layout that keeps every rule: the arrows the architecture allows. */
const CLEAN: Record<string, string> = {
  'lib/engine/types.ts': 'export type Task = { id: number };\n',
  'lib/engine/pool.ts': "import type { Task } from './types';\nexport const size = (t: Task[]) => t.length;\n",
  'db/sqlite/store.ts':
    "import Database from 'better-sqlite3';\nimport type { Task } from '../../lib/engine/types';\n" +
    'export const openSqliteStore = (path: string): Task[] => (new Database(path), []);\n',
  'db/sqlite/store.test.ts': "import { openSqliteStore } from './store';\nexport const probe = openSqliteStore;\n",
  'lib/api/present.ts':
    "import type { Task } from '@/lib/engine/types';\nexport type TaskJson = Task;\nexport const present = (t: Task) => t;\n",
  'lib/api/open.ts': "import { openSqliteStore } from '../../db/sqlite/store';\nexport const openReadpast = openSqliteStore;\n",
  'lib/server/engine.ts': "import { openReadpast } from '@/lib/api/open';\nexport const getEngine = () => openReadpast(':memory:');\n",
  'app/page.tsx': "import { getEngine } from '@/lib/server/engine';\nexport default function Page() { return getEngine().length; }\n",
  'components/Tasks.tsx':
    "import type { TaskJson } from '@/lib/api/present';\nexport const Tasks = (p: { tasks: TaskJson[] }) => p.tasks.length;\n",
  'cli/main.ts': "import { openReadpast } from '../lib/api/open';\nexport const main = () => openReadpast('x.db');\n",
  'db/contract/suite.ts': "import { openSqliteStore } from '../sqlite/store';\nexport const suite = () => openSqliteStore(':memory:');\n",
};

/** One wrong import per case: the rule that must name it, the file it goes in (new, or replacing a clean one), its text. */
const PROBES: { rule: string; file: string; text: string }[] = [
  { rule: 'driver-outside-db', file: 'components/probe.ts', text: "import Database from 'better-sqlite3';" },
  { rule: 'driver-outside-db', file: 'lib/api/probe.ts', text: "import type { ConnectionPool } from 'mssql';" },
  { rule: 'store-outside-engine-and-api', file: 'cli/probe.ts', text: "import { openSqliteStore } from '../db/sqlite/store';" },
  { rule: 'store-outside-engine-and-api', file: 'app/probe.ts', text: "import { openSqliteStore } from '@/db/sqlite/store';" },
  { rule: 'components-import-server-code', file: 'components/probe.ts', text: "import { getEngine } from '@/lib/server/engine';" },
  { rule: 'components-import-api-at-run-time', file: 'components/probe.ts', text: "import { present } from '@/lib/api/present';" },
  { rule: 'engine-imports-upper-layer', file: 'lib/engine/probe.ts', text: "import { present } from '../api/present';" },
  { rule: 'db-imports-upper-layer', file: 'db/sqlite/probe.ts', text: "import { openReadpast } from '../../lib/api/open';" },
  { rule: 'db-shared-dialect-free', file: 'db/shared/probe.ts', text: "import Database from 'better-sqlite3';" },
  { rule: 'db-shared-dialect-free', file: 'db/shared/probe.ts', text: "import { openSqliteStore } from '../sqlite/store';" },
  { rule: 'engine-cycle', file: 'lib/engine/types.ts', text: "import { size } from './pool';\nexport type Task = { id: number };" },
  {
    rule: 'db-cycle',
    file: 'db/sqlite/store.ts',
    text: "import { probe } from './store.test';\nexport const openSqliteStore = (path: string) => [path, probe];",
  },
  { rule: 'lib-outside-layers', file: 'lib/probe.ts', text: "import type { Task } from './engine/types';" },
  { rule: 'runtime-imports-test-support', file: 'db/sqlite/probe.ts', text: "import { suite } from '../contract/suite';" },
  { rule: 'test-framework-in-runtime-code', file: 'db/sqlite/probe.ts', text: "import { describe } from 'vitest';" },
];

let dir = '';

function write(file: string, text: string) {
  mkdirSync(dirname(join(dir, file)), { recursive: true });
  writeFileSync(join(dir, file), text);
}

function cruise() {
  const run = spawnSync(process.execPath, [DEPCRUISE, '--config', '.dependency-cruiser.cjs', 'app', 'components', 'cli', 'lib', 'db'], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'readpast-layers-'));
  copyFileSync(join(ROOT, '.dependency-cruiser.cjs'), join(dir, '.dependency-cruiser.cjs'));
  copyFileSync(join(ROOT, 'tsconfig.json'), join(dir, 'tsconfig.json'));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  for (const [file, text] of Object.entries(CLEAN)) write(file, text);
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Each probe in a file of its own (probe-<n>.ts in its folder), or the clean file it replaces. */
const probeFile = (file: string, i: number) => (file.endsWith('/probe.ts') ? file.replace(/probe\.ts$/, `probe-${i}.ts`) : file);

describe('check:layers', () => {
  it('passes on a layout that keeps every rule', () => {
    const { status, output } = cruise();
    expect(output).toMatch(/no dependency violations found/);
    expect(status).toBe(0);
  });

  // Every probe at once, in one run of dependency-cruiser (one run each took ~1.7 s of CPU): each is named as an
  // error of its own rule, from its own file, so that each alone fails the check.
  describe('one wrong import each', () => {
    let run = { status: null as number | null, output: '' };
    beforeAll(() => {
      PROBES.forEach(({ file, text }, i) => write(probeFile(file, i), `${text}\n`));
      run = cruise();
    });

    it('fails', () => {
      expect(run.status).not.toBe(0);
    });

    it.each(PROBES.map((p, i) => ({ ...p, file: probeFile(p.file, i) })))('fails with $rule on $file', ({ rule, file }) => {
      // `error <rule>: <from> → <to>`; a cycle lists its modules one per line, the probe among them
      expect(run.output).toMatch(new RegExp(`error ${rule}: (\\S+ →\\s+)*${file.replaceAll('.', '[.]')}`));
    });
  });
});
