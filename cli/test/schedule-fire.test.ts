// Exactly one fire per tick across processes: three `readpast worker` processes check the due
// schedules about once a second each, against one database. A schedule firing every second runs for
// about 10 s while all three are up; then every tick from its first to its last must have exactly one
// task — none fired twice, none skipped — and each task ran once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readModelOf, type Readpast } from '../../lib/api/readpast';
import type { ScheduleDetailJson } from '../../lib/api/present';
import type { TaskView } from '../../lib/engine/types';
import { allPages, cliOk, openLibrary, tempDb, waitFor, WorkerProcess, type TempDb } from './helpers';

const NAME = 'every-second';
const QUEUE = 'ticks';
const RUN_MS = 10_000;

describe('a schedule across three worker processes', () => {
  let db: TempDb;
  let lib: Readpast;
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    db = tempDb();
    lib = await openLibrary(db);
  });
  afterAll(async () => {
    for (const w of workers) w.kill();
    await Promise.all(workers.map((w) => w.exited));
    await lib?.close();
    db?.cleanup();
  });

  it('fires every tick exactly once while they run', async () => {
    for (let i = 0; i < 3; i++) workers.push(new WorkerProcess(['--concurrency', '2'], { env: db.env }));
    await Promise.all(workers.map((w) => w.started()));

    const added = JSON.parse(
      await cliOk(['schedule', 'add', NAME, '--cron', '* * * * * *', '--handler', 'demo.echo', '--queue', QUEUE, '--json'], db),
    ) as ScheduleDetailJson;
    const first = Date.parse(added.nextFireAt!);
    await new Promise((r) => setTimeout(r, Math.max(0, first + RUN_MS - Date.now())));
    await cliOk(['schedule', 'pause', NAME], db);
    const paused = Date.now();
    for (const w of workers) expect(w.running, `worker ${w.pid} still running`).toBe(true);

    const fired = async () =>
      (await allPages((cursor) => readModelOf(lib).listTasks({ queue: QUEUE, cursor, limit: 500 }))).filter(
        (t): t is TaskView & { schedule: { name: string; fireAt: Date } } => t.schedule?.name === NAME && t.schedule.fireAt !== null,
      );
    await waitFor(async () => (await fired()).every((t) => t.status === 'succeeded'), { timeoutMs: 20_000, what: 'fired tasks', workers });
    const tasks = await fired();
    const ticks = tasks.map((t) => t.schedule.fireAt.getTime()).sort((a, b) => a - b);
    const distinct = [...new Set(ticks)];
    const last = distinct[distinct.length - 1]!;
    const expected = Array.from({ length: (last - first) / 1000 + 1 }, (_, i) => first + i * 1000);
    const skipped = expected.filter((t) => !distinct.includes(t));
    const duplicates = ticks.length - distinct.length;
    // which processes fired: the log line of each fire names its schedule
    const byWorker = workers.map((w) => w.logs().filter((l) => l.msg === 'schedule fired' && l.schedule === NAME).length);
    console.log(
      `schedule across 3 processes: ticks=${expected.length} tasks=${tasks.length} duplicates=${duplicates} skipped=${skipped.length} ` +
        `(fires logged per process: ${byWorker.join(', ')}; first tick ${new Date(first).toISOString()}, ` +
        `last ${new Date(last).toISOString()})`,
    );

    expect(duplicates).toBe(0);
    expect(skipped).toEqual([]);
    expect(distinct).toEqual(expected);
    // about ten seconds of ticks: the last one fired was at most ~2 s before the pause
    expect(expected.length).toBeGreaterThanOrEqual(RUN_MS / 1000 - 1);
    expect(last).toBeGreaterThanOrEqual(paused - 2_500);
    for (const t of tasks) expect([t.status, t.attempts]).toEqual(['succeeded', 1]);
    // every fire happened in one of the three processes, and no tick is logged twice
    expect(byWorker.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(1);
    const loggedTicks = workers.flatMap((w) =>
      w
        .logs()
        .filter((l) => l.msg === 'schedule fired' && l.schedule === NAME)
        .flatMap((l) => (l.fired as { fireAt: string }[]).map((f) => f.fireAt)),
    );
    expect(loggedTicks.length).toBe(new Set(loggedTicks).size);

    await Promise.all(workers.map((w) => w.stop()));
  }, 90_000);
});
