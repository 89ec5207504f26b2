// A rolling upgrade on one SQLite file, with real processes: a worker of the previous release (its code checked
// out of git apart, run as a child process) works on a file its own `readpast migrate` made; a worker of this
// release starts on the same file — migrating it to this schema and installing its code objects — and both keep
// working side by side, each finishing the tasks of its queue; a process of the previous release started after
// the upgrade refuses cleanly, naming both versions, when the schema went past what it knows.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, cliOk, openLibrary, ROOT, sourcesEnv, tempDb, waitFor, WorkerProcess, type TempDb } from './helpers';

/** The previous release (main when this upgrade path was written): its schema is SQLite 15. */
const PREVIOUS = '486a42a';
const PREVIOUS_VERSION = 15;

function hasCommit(commit: string): boolean {
  try {
    execFileSync('git', ['cat-file', '-e', `${commit}^{commit}`], { cwd: ROOT, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const available = hasCommit(PREVIOUS);
if (!available) console.warn(`SKIPPED (loudly): the previous release ${PREVIOUS} is not in this checkout (git fetch --unshallow)`);

describe.skipIf(!available)(`a worker of the previous release (${PREVIOUS}) and one of this release on one file`, () => {
  let tree: string;
  let oldBin: string;
  let db: TempDb;
  const workers: WorkerProcess[] = [];

  beforeAll(() => {
    tree = mkdtempSync(join(tmpdir(), 'readpast-previous-'));
    const archive = execFileSync('git', ['archive', '--format=tar', PREVIOUS, 'bin', 'cli', 'lib', 'db', 'package.json', 'tsconfig.json'], {
      cwd: ROOT,
      maxBuffer: 256 << 20,
    });
    execFileSync('tar', ['-x', '-C', tree], { input: archive });
    // the same dependencies (the previous release's lockfile differs in nothing the CLI loads)
    symlinkSync(join(ROOT, 'node_modules'), join(tree, 'node_modules'), 'dir');
    oldBin = join(tree, 'bin', 'readpast.mjs');
    db = tempDb();
  });

  afterAll(async () => {
    for (const w of workers) w.kill();
    db?.cleanup();
    if (tree) rmSync(tree, { recursive: true, force: true });
  });

  it('both keep working during the upgrade; a later start of the previous release refuses naming the versions', async () => {
    // the previous release's sources (its tree has no dist/)
    const old = { env: sourcesEnv(db.env), bin: oldBin, cwd: tree, timeoutMs: 60_000 };
    expect(await cliOk(['migrate'], old)).toMatch(/^migrated /);

    const previous = new WorkerProcess(['--queues', 'old', '--concurrency', '2'], old);
    workers.push(previous);
    const previousIds = await previous.started(60_000);
    const before = (await cliOk(['enqueue', '--handler', 'demo.echo', '--queue', 'old', '--payload', '{"n":0}'], old)).trim();

    // this release starts on the same file: it migrates it and installs its code objects
    const current = new WorkerProcess(['--queues', 'new', '--concurrency', '2'], { env: db.env, timeoutMs: 60_000 });
    workers.push(current);
    const currentIds = await current.started(60_000);

    const rp = await openLibrary(db);
    // the schema this release migrated the file to, as its doctor reports it
    const schema = (await rp.doctor()).checks.find((c) => c.id === 'schema')?.detail ?? '';
    const CODE_VERSION = Number(/migrated to version (\d+) \(current\)/.exec(schema)?.[1]);
    try {
      const tokens = { old: [before], new: [] as string[] };
      for (let i = 1; i <= 5; i++) {
        for (const queue of ['old', 'new'] as const) {
          const r = await rp.enqueue({ kind: 'handler', command: 'demo.echo', payload: { n: i }, queue });
          tokens[queue].push(r.token);
        }
      }
      for (const [queue, list] of Object.entries(tokens)) {
        await waitFor(
          async () => {
            const all = await Promise.all(list.map((t) => rp.status(t)));
            return all.every((s) => s?.status === 'succeeded') ? all : false;
          },
          { timeoutMs: 60_000, what: `the ${queue} queue's tasks to succeed`, workers: [previous, current] },
        );
        // each queue's tasks ran on the worker of its release
        const ran = await Promise.all(list.map((t) => rp.status(t)));
        const ids = queue === 'old' ? previousIds : currentIds;
        for (const s of ran) expect(ids, `${queue}: ${s?.token}`).toContain(s?.workerId);
      }
      expect(previous.running).toBe(true);
      expect(current.running).toBe(true);
    } finally {
      await rp.close();
    }

    // a process of the previous release started now: refused before it touches anything, both versions named
    // (with no schema change in between it would start and work as the first one does)
    expect(CODE_VERSION).toBeGreaterThan(PREVIOUS_VERSION);
    const late = await cli(['worker', '--queues', 'old'], old);
    expect(late.code).not.toBe(0);
    expect(late.stderr).toContain(`schema is at version ${CODE_VERSION}, newer than this readpast knows (version ${PREVIOUS_VERSION})`);

    await previous.stop();
    await current.stop();
  });
});
