// `npm run test:package` (the last step of `npm test`): tests of the package and of the processes that
// serve the built dashboard. They need dist/ and .next/ built (bin/build.mjs runs first), so they stay out
// of the unit run (vitest.config.ts excludes bin/test/).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['bin/test/**/*.test.ts'],
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 600_000,
  },
});
