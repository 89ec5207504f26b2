// Durable handlers with real processes: a `readpast worker` on a queue limited to one runs another task of that
// queue while a task sleeps 3 s, then the sleeper resumes and finishes; `readpast event send` resumes a task waiting
// for its event, `readpast wake` a sleeping one, `readpast event list|show` list them; bad input exits 2, an
// unknown event 3, a task that is not suspended 4.
import { describe, expect, it } from 'vitest';
import { testBed } from './bed';
import { cli, cliOk, statusOf, waitFor, WorkerProcess } from './helpers';

describe('durable handlers across processes', () => {
  const bed = testBed();
  /** one `readpast worker` for both tests (either may run alone) */
  const worker = async (): Promise<WorkerProcess> => {
    if (bed.workers.length === 0) {
      const w = new WorkerProcess(['--concurrency', '2', '--queues', 'one,events'], bed.db);
      bed.workers.push(w);
      await w.started();
    }
    return bed.workers[0]!;
  };

  it('a sleep of 3 s frees the queue limit of 1: another task runs meanwhile; the sleeper resumes and finishes', async () => {
    const { lib } = bed;
    await lib.setQueue('one', { concurrencyLimit: 1 }, 'test');
    const w = await worker();
    const sleeper = await lib.enqueue({ command: 'demo.durable', queue: 'one', payload: { steps: 2, ms: 50, sleepMs: 3000 } });
    await waitFor(async () => (await lib.status(sleeper.token)).suspended === 'sleep', { what: 'the task to sleep', workers: [w] });
    const sleptAt = Date.now();
    const other = await lib.enqueue({ command: 'demo.echo', queue: 'one', payload: 'during the sleep' });
    const o = await waitFor(
      async () => {
        const s = await lib.status(other.token);
        return s.status === 'succeeded' && s;
      },
      { what: 'the other task to run during the sleep', workers: [w] },
    );
    const s0 = await lib.status(sleeper.token);
    expect(s0.status, 'still asleep when the other finished').toBe('waiting');
    expect(new Date(o.finishedAt!).getTime()).toBeLessThan(sleptAt + 3000);
    const done = await waitFor(
      async () => {
        const s = await lib.status(sleeper.token);
        return s.status === 'succeeded' && s;
      },
      { timeoutMs: 30_000, what: 'the sleeper to resume and finish', workers: [w] },
    );
    expect(done.result).toEqual({ steps: 2, event: null });
    expect(done.history.map((a) => a.outcome)).toEqual(['suspended', 'succeeded']);
    expect(done).toMatchObject({ attempts: 2, suspensions: 1 });
    const steps = await lib.steps(sleeper.token);
    expect(steps.map((s) => [s.name, s.attempt, s.replays])).toEqual([
      ['step 1', 1, 1],
      ['step 2', 1, 1],
      ['cool-down', 1, 1],
      ['finish', 2, 0],
    ]);
    const cool = steps[2]!;
    expect(Date.parse(cool.endedAt!) - Date.parse(cool.startedAt!)).toBeGreaterThanOrEqual(3000);
    // never claimed before its time: its second attempt began after the wake time
    expect(Date.parse(done.history[1]!.startedAt!)).toBeGreaterThanOrEqual(Date.parse(cool.wakeAt!));
  }, 90_000);

  it('readpast event send resumes a waiting task; wake resumes a sleeping one; event list and show', async () => {
    const { db, lib } = bed;
    const w = await worker();
    const waiting = await lib.enqueue({
      command: 'demo.durable',
      queue: 'events',
      payload: { steps: 1, ms: 1, sleepMs: 0, event: 'invoice.approved', match: { invoice: 'A-7' } },
    });
    const sleeping = await lib.enqueue({ command: 'demo.durable', queue: 'events', payload: { steps: 0, sleepMs: 3_600_000 } });
    await waitFor(async () => (await lib.status(waiting.token)).suspended === 'event', { what: 'the wait', workers: [w] });
    await waitFor(async () => (await lib.status(sleeping.token)).suspended === 'sleep', { what: 'the sleep', workers: [w] });
    expect(await cliOk(['status', waiting.token], db)).toMatch(/status:\s+waiting \(waiting for an event; readpast event send\)/);

    const sent = await cliOk(['event', 'send', 'invoice.approved', '--payload', '{"invoice":"A-7","by":"ops"}'], db);
    expect(sent).toMatch(new RegExp(`^sent event \\d+ invoice.approved: resumed 1 task\\n  ${waiting.token}`));
    const id = /sent event (\d+)/.exec(sent)![1]!;
    const json = JSON.parse(await cliOk(['event', 'send', 'invoice.approved', '--payload', '{"invoice":"B"}', '--json'], db));
    expect(json).toMatchObject({ resumed: 0, tokens: [] });
    await waitFor(async () => (await statusOf(waiting.token, db)).status === 'succeeded', { what: 'the resumed task', workers: [w] });
    expect((await lib.status(waiting.token)).result).toEqual({ steps: 1, event: { invoice: 'A-7', by: 'ops' } });

    expect(await cliOk(['wake', sleeping.token], db)).toMatch(/^woke /);
    await waitFor(async () => (await lib.status(sleeping.token)).status === 'succeeded', { what: 'the woken task', workers: [w] });

    expect(await cliOk(['event', 'list', '--name', 'invoice.approved'], db)).toMatch(
      /invoice.approved\s+resumed 1\s+\{"invoice":"A-7","by":"ops"\}/,
    );
    expect(await cliOk(['event', 'show', id], db)).toContain(`${waiting.token}  succeeded  events  demo.durable  (step approval)`);
    const audit = await lib.audit.list({ limit: 10, action: 'event.send' });
    expect(audit.items.map((a) => a.source)).toEqual(['cli', 'cli']);

    // one after the other: each is a process of its own, slow to start on a busy machine
    const bad = [];
    for (const args of [
      ['event', 'send', 'has space'],
      ['event', 'send', 'x', '--payload', '{nope'],
      ['event', 'show', '424242'],
      ['event', 'show', 'abc'],
      ['wake', sleeping.token],
      ['event', 'list', '--limit', '0'],
    ]) {
      bad.push(await cli(args, { ...db, timeoutMs: 120_000 }));
    }
    expect(bad.map((r) => r.code)).toEqual([2, 2, 3, 2, 4, 2]);
    expect(bad[0]!.stderr).toMatch(/name/);
    expect(bad[4]!.stderr).toMatch(/only a sleeping task/);
  }, 240_000);
});
