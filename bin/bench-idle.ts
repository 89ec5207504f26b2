// The idle section of `npm run bench`: what a pool with no task ready costs each store — claims per poll interval and
// writes per minute other than heartbeats (SQLite: statements and write transactions counted as they run; SQL Server:
// requests counted on the stand-in TDS endpoint). The measurement is test support (db/contract/idle.ts), so it runs
// in a child process (db/contract/idle-bench.ts) rather than being imported here. IDLE_SECONDS: how long (default 10).
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

interface StoreIdle {
  claimsPerPoll: number;
  writesPerMinute: number;
  writeTransactionsPerMinute: number | null;
  heartbeatsPerMinute: number;
  readsPerMinute: number;
  writers: Record<string, number>;
}

export async function benchIdle(_dir: string, log: (...a: unknown[]) => void): Promise<{ sqlite: StoreIdle; mssql: StoreIdle }> {
  const script = fileURLToPath(new URL('../db/contract/idle-bench.ts', import.meta.url));
  const out = execFileSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  const figures = JSON.parse(out.trim().split('\n').at(-1)!) as { sqlite: StoreIdle; mssql: StoreIdle };
  for (const [store, f] of Object.entries(figures)) {
    const tx = f.writeTransactionsPerMinute === null ? '' : `, ${f.writeTransactionsPerMinute} write transactions/min`;
    log(
      `idle pool, ${store}: ${f.claimsPerPoll} claims per poll interval; ${f.writesPerMinute} writes/min other than heartbeats${tx}` +
        ` (heartbeats ${f.heartbeatsPerMinute}/min, reads ${f.readsPerMinute}/min)`,
    );
  }
  return figures;
}
