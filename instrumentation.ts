// Runs when a Next.js server process starts. In the Node.js runtime, once per process: refuse an
// unsafe bind, open (and migrate) the store, start this process's worker pool (lib/server/boot.ts).
const STARTED = Symbol.for('readpast.instrumentation.started');

export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  // `next build` may load this file while prerendering: no pool there
  if (process.env.NEXT_PHASE === 'phase-production-build') return;
  const g = globalThis as { [STARTED]?: boolean };
  if (g[STARTED]) return;
  g[STARTED] = true;
  const { boot } = await import('./lib/server/boot');
  await boot();
}
