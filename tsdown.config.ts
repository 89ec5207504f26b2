// The package's compiled JavaScript (`npm run build:lib`, run by `prepack`): the library (ESM + one
// bundled .d.ts) and the command line, from the TypeScript sources, with the `@/` path alias resolved.
// One build of both, so the code they share (the stores, the engine) is one set of chunks. Every npm
// dependency stays an import (installed beside the package), never bundled.
// Test support (db/contract/, test-support/ folders) is never reached from these entries: `npm run check:layers`
// refuses a runtime import of it (rule runtime-imports-test-support).
import { readFileSync, writeFileSync } from 'node:fs';
import { defineConfig } from 'tsdown';
import { optionalsTakeUndefined } from './bin/dts-optional.mjs';

/** The declarations a user's project reads: every optional property takes `undefined` (bin/dts-optional.mjs). */
const DECLARATIONS = ['dist/index.d.ts', 'dist/cli.d.ts'];

export default defineConfig({
  // import { openReadpast } from 'readpast'  ·  bin/readpast.mjs → dist/cli.js (commands load on demand)
  entry: { index: 'lib/api/index.ts', cli: 'cli/main.ts' },
  outDir: 'dist',
  clean: ['dist'],
  platform: 'node',
  target: 'node20',
  format: 'esm',
  tsconfig: 'tsconfig.json',
  dts: true,
  fixedExtension: false,
  hash: false,
  sourcemap: false,
  publint: false,
  report: false,
  outputOptions: { chunkFileNames: 'chunks/[name].js' },
  hooks: {
    'build:done': () => {
      for (const file of DECLARATIONS) writeFileSync(file, optionalsTakeUndefined(readFileSync(file, 'utf8'), file).text);
    },
  },
});
