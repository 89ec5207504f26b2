#!/usr/bin/env node
// The `readpast` command line: loads TypeScript through tsx, then hands over to cli/main.ts.
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';
import { register as registerCjs } from 'tsx/cjs/api';

const tsconfig = fileURLToPath(new URL('../tsconfig.json', import.meta.url));
register({ tsconfig });
// a --handlers module written in TypeScript outside an ESM package loads as CommonJS
registerCjs({ tsconfig });

const { main } = await import('../cli/main.ts');
const code = await main(process.argv.slice(2));
// Let pending stdout/stderr writes drain before leaving (pipes may be asynchronous).
await new Promise((resolve) => process.stdout.write('', resolve));
await new Promise((resolve) => process.stderr.write('', resolve));
process.exit(code);
