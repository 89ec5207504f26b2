#!/usr/bin/env node
// The `readpast` command line. Runs the compiled JavaScript (dist/cli.js) in the package; in the
// repository, where the TypeScript sources sit beside this file, it runs them through tsx so the
// command is always the current code (READPAST_CLI=compiled runs a `npm run build:lib` build instead).
// tsx is loaded only for that, or later for a user's handlers module written in TypeScript.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// the parent this process started under: a long-running command stops when it is gone (cli/lifetime.ts)
globalThis[Symbol.for('readpast.parent')] = process.ppid;

const sources = fileURLToPath(new URL('../cli/main.ts', import.meta.url));
let main;
if (process.env.READPAST_CLI !== 'compiled' && existsSync(sources)) {
  const { register } = await import('tsx/esm/api');
  const { register: registerCjs } = await import('tsx/cjs/api');
  const tsconfig = fileURLToPath(new URL('../tsconfig.json', import.meta.url));
  register({ tsconfig });
  // a --handlers module written in TypeScript outside an ESM package loads as CommonJS
  registerCjs({ tsconfig });
  globalThis[Symbol.for('readpast.tsx')] = true;
  ({ main } = await import('../cli/main.ts'));
} else {
  if (!existsSync(new URL('../dist/cli.js', import.meta.url))) {
    console.error('readpast: no compiled CLI in dist/; run `npm run build:lib` first');
    process.exit(1);
  }
  // built by `npm run build:lib` (dist/ is not in the repository)
  ({ main } = await import(new URL('../dist/cli.js', import.meta.url).href));
}
const code = await main(process.argv.slice(2));
// Let pending stdout/stderr writes drain before leaving (pipes may be asynchronous).
await new Promise((resolve) => process.stdout.write('', resolve));
await new Promise((resolve) => process.stderr.write('', resolve));
process.exit(code);
