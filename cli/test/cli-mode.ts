// Which `readpast` the process tests run. By default the compiled CLI (what the package ships:
// bin/readpast.mjs → dist/cli.js, built before the run by global-setup.ts): a process starts in a third of
// the time of one that loads the TypeScript sources through tsx. READPAST_CLI=sources runs them through tsx
// (the repository's own `readpast`, always the current code, nothing built); cli/test/sources.test.ts keeps
// that path proved in every run.

export type CliMode = 'compiled' | 'sources';

export function testCli(env: NodeJS.ProcessEnv = process.env): CliMode {
  return env.READPAST_CLI === 'sources' ? 'sources' : 'compiled';
}
