// `npm run bench`'s idle section (bin/bench.ts runs this file in a child process, as it is test support): an idle pool
// on each store for IDLE_SECONDS (default 10), its claims per poll interval and its writes per minute other than
// heartbeats (db/contract/idle.ts). Prints one JSON line: { sqlite, mssql }.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { idleMssql, idleSqlite } from './idle';

const seconds = Number(process.env.IDLE_SECONDS ?? 10);
const dir = mkdtempSync(join(tmpdir(), 'readpast-idle-'));
try {
  const sqlite = await idleSqlite(dir, { seconds });
  const mssql = await idleMssql({ seconds });
  console.log(JSON.stringify({ sqlite, mssql }));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
