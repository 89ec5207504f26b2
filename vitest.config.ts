import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/** The repository root, with a trailing slash. */
const root = fileURLToPath(new URL('./', import.meta.url));

/**
 * The process tests: each runs `readpast` as child processes (cli/test/helpers.ts), through the compiled CLI
 * that cli/test/global-setup.ts builds before them when its sources changed (see cli/test/cli-mode.ts). A test
 * elsewhere that spawns bin/readpast.mjs is listed here too, so that it runs the same CLI.
 */
const PROCESS_TESTS = ['cli/test/**/*.test.ts', 'lib/api/one-shot.test.ts', 'db/sqlite/schema-version.test.ts'];

// bin/test/: the package and the served dashboard, run after the builds (npm run test:package)
const EXCLUDE = ['**/node_modules/**', '**/.next/**', '**/.tmp/**', 'e2e/**', 'bin/test/**'];

export default defineConfig({
  resolve: {
    // `@/lib/engine/store` → <root>/lib/engine/store (same mapping as tsconfig `paths`)
    alias: [{ find: /^@\//, replacement: root }],
  },
  test: {
    pool: 'forks',
    // Test files at a time: READPAST_TEST_WORKERS, else as many as the cores but at least three. Many files wait
    // more than they compute (leases, timeouts, child processes): on two cores, two files at a time left the CPU
    // idle a fifth of the time; three took `npm test`'s unit step from 876 s to 697 s. (`npm test` sets 2 on a machine
    // already busy when it starts: bin/run-tests.mjs unitWorkers.)
    maxWorkers: Number(process.env.READPAST_TEST_WORKERS ?? Math.max(3, availableParallelism())),
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'unit', include: ['**/*.test.ts'], exclude: [...EXCLUDE, ...PROCESS_TESTS] } },
      {
        extends: true,
        test: {
          name: 'process',
          include: PROCESS_TESTS,
          exclude: EXCLUDE,
          globalSetup: ['./cli/test/global-setup.ts'],
          // the CLI they run (cli/test/cli-mode.ts): compiled unless READPAST_CLI=sources
          env: { READPAST_CLI: process.env.READPAST_CLI === 'sources' ? 'sources' : 'compiled' },
        },
      },
    ],
  },
});
