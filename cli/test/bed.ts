// A process test's bed: a temporary SQLite database, the library over it, and the worker processes the test
// starts — set up before the tests of a describe, all gone after (kept apart from helpers.ts, which scripts
// outside vitest import too).
import { afterAll, beforeAll } from 'vitest';
import type { Readpast } from '../../lib/api/readpast';
import { openLibrary, tempDb, type TempDb, type WorkerProcess } from './helpers';

export interface TestBed {
  db: TempDb;
  lib: Readpast;
  /** worker processes the test starts: killed, if still running, after the tests */
  workers: WorkerProcess[];
}

/** Inside a describe: the bed, ready in the tests. */
export function testBed(): TestBed {
  const bed = { workers: [] as WorkerProcess[] } as TestBed;
  beforeAll(async () => {
    bed.db = tempDb();
    bed.lib = await openLibrary(bed.db);
  });
  afterAll(async () => {
    for (const w of bed.workers) w.kill();
    await Promise.all(bed.workers.map((w) => w.exited));
    await bed.lib?.close();
    bed.db?.cleanup();
  });
  return bed;
}
