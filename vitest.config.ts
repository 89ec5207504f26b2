import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/** The repository root, with a trailing slash. */
const root = fileURLToPath(new URL('./', import.meta.url));

export default defineConfig({
  resolve: {
    // `@/lib/engine/store` → <root>/lib/engine/store (same mapping as tsconfig `paths`)
    alias: [{ find: /^@\//, replacement: root }],
  },
  test: {
    include: ['**/*.test.ts'],
    // bin/test/: the package and the served dashboard, run after the builds (npm run test:package)
    exclude: ['**/node_modules/**', '**/.next/**', '**/.tmp/**', 'e2e/**', 'bin/test/**'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
