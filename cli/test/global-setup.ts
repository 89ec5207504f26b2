// Before the process tests (vitest.config.ts, project `process`): the compiled CLI they run — what the
// package ships, `bin/readpast.mjs` → dist/cli.js — built once per run, only when dist/ is missing or older
// than its sources (tsdown, ~17 s on two idle cores). READPAST_CLI=sources runs them through tsx instead.
import { ensureLib, ROOT } from '../../bin/build.mjs';
import { testCli } from './cli-mode';

export default async function setup(): Promise<void> {
  if (testCli() !== 'compiled') return;
  if (!(await ensureLib(ROOT))) throw new Error('the process tests run the compiled CLI, and its build (npm run build:lib) failed');
}
