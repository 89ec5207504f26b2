// The checks `npm run stress:mssql` prints, on hand-made logs: each holds on a good run and names
// what went wrong on a bad one (a double success, an overlap, a lost task, a limit exceeded, a stage
// out of order, a kill not rescued).
import { describe, expect, it } from 'vitest';
import {
  drainVerdict,
  executionProblems,
  formatVerdict,
  killVerdict,
  leaseReport,
  limitVerdict,
  parseExecutions,
  stagesVerdict,
  type AttemptLike,
} from './checks';

const T0 = Date.parse('2025-01-01T10:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms);
const attempt = (
  token: string,
  n: number,
  outcome: string,
  workerId: string,
  start: number,
  end: number | null,
  extra: Partial<AttemptLike> = {},
) => ({
  token,
  attempt: n,
  outcome,
  workerId,
  startedAt: at(start),
  endedAt: end === null ? null : at(end),
  ...extra,
});
const task = (token: string, attempts = 1, status = 'succeeded') => ({ token, status, attempts });
const WORKERS = new Map([
  ['p0-w1', 0],
  ['p1-w1', 1],
  ['p2-w1', 2],
]);

describe('three processes drain', () => {
  const good = [
    attempt('a', 1, 'succeeded', 'p0-w1', 0, 10),
    attempt('b', 1, 'abandoned', 'p1-w1', 0, 40, { errorMessage: 'lease expired' }),
    attempt('b', 2, 'succeeded', 'p2-w1', 50, 60),
    attempt('c', 1, 'succeeded', 'p1-w1', 5, 9),
  ];

  it('holds on a good run and says what held', () => {
    const v = drainVerdict('drain', ['a', 'b', 'c'], [task('a'), task('b', 2), task('c')], good, WORKERS, 3);
    expect(v.problems).toEqual([]);
    expect(v.held).toEqual([
      '3 tasks, each succeeded exactly once, no two attempts of a task overlapping',
      'succeeded per process: 1 / 1 / 1',
      '1 attempt rescued after a lost lease',
    ]);
    expect(formatVerdict(v)[0]).toBe('✓ drain: 3 tasks, each succeeded exactly once, no two attempts of a task overlapping');
  });

  it('names a double success, an overlap, a lost task, an unknown worker and an idle process', () => {
    const bad = [
      attempt('a', 1, 'succeeded', 'p0-w1', 0, 10),
      attempt('a', 2, 'succeeded', 'p0-w1', 5, 20),
      attempt('c', 1, 'succeeded', 'zz-w9', 5, 9),
    ];
    const v = drainVerdict('drain', ['a', 'b', 'c'], [task('a', 2), task('c')], bad, WORKERS, 3);
    expect(v.held).toEqual([]);
    expect(v.problems).toEqual(
      expect.arrayContaining([
        '1 task missing, e.g. b',
        '2 tasks in the queue for 3 enqueued',
        'a: 2 succeeded attempts',
        expect.stringMatching(/^a: attempt 1 \(ended .*\) overlaps attempt 2/),
        'c: attempt 1 by unknown worker zz-w9',
        'process 2 ran no task',
        'process 3 ran no task',
      ]),
    );
    const lines = formatVerdict(v, 2);
    expect(lines[0]).toBe(`✗ drain: ${v.problems.length} problems`);
    expect(lines.at(-1)).toBe(`  … and ${v.problems.length - 2} more`);
  });

  it('checks what the handlers recorded against the log', () => {
    const executions = parseExecutions('a 1 p0-w1\nb 1 p1-w1\nb 2 p2-w1\nc 1 p1-w1\n');
    expect(executionProblems(executions, good)).toEqual([]);
    const twice = parseExecutions('a 1 p0-w1\na 1 p0-w1\nb 2 p1-w1\n');
    expect(executionProblems(twice, good)).toEqual([
      'a: ran 2 times for 1 attempts',
      'a: ran 2 times',
      'b: no execution of attempt 2 on p2-w1',
      'c: no execution of attempt 1 on p1-w1',
      'c: ran 0 times',
    ]);
  });
});

describe('a limit across processes', () => {
  // limit 3 until t = 1000, then 5
  const run = (intervals: [number, number][]) => intervals.map(([s, e], i) => attempt(`t${i}`, 1, 'succeeded', 'p0-w1', s, e));

  it('holds when at most 3 overlap before the change and 5 after', () => {
    const v = limitVerdict(
      'limit',
      run([
        [0, 100],
        [0, 100],
        [0, 100],
        [100, 200],
        [1000, 1100],
        [1000, 1100],
        [1000, 1100],
        [1000, 1100],
        [1000, 1100],
      ]),
      3,
      5,
      T0 + 1000,
    );
    expect(v.problems).toEqual([]);
    expect(v.held).toEqual(["at most 3 of the queue's attempts at once under a limit of 3", 'at most 5 at once after raising it to 5']);
  });

  it('names an overlap over the limit, and touching intervals are not an overlap', () => {
    expect(
      limitVerdict(
        'limit',
        run([
          [0, 100],
          [100, 200],
          [100, 200],
          [100, 200],
        ]),
        3,
        5,
        T0 + 1000,
      ).problems,
    ).toEqual([]);
    const v = limitVerdict(
      'limit',
      run([
        [0, 100],
        [50, 150],
        [60, 160],
        [70, 170],
      ]),
      3,
      5,
      T0 + 1000,
    );
    expect(v.problems).toEqual(['4 attempts overlapped under a limit of 3']);
  });

  it('says when the limit was never reached', () => {
    expect(limitVerdict('limit', run([[0, 100]]), 3, 5, T0 + 1000).held[0]).toContain('limit not reached');
  });
});

describe('stages in order', () => {
  const stage = (k: number, start: number, end: number, token = `s${k}-${start}`) =>
    attempt(token, 1, 'succeeded', 'p0-w1', start, end, { stage: k });

  it('holds when each stage starts after the previous one ended and the cap holds', () => {
    const v = stagesVerdict('stages', [stage(0, 0, 100), stage(0, 0, 120), stage(1, 120, 200), stage(2, 200, 250)], [2, 1, 1], 3);
    expect(v.problems).toEqual([]);
    expect(v.held).toEqual(['stages 2, 1, 1 ran in order', "at most 2 of the batch's attempts at once under a cap of 3"]);
  });

  it('names a stage that started early, a missing task and a cap exceeded', () => {
    const v = stagesVerdict('stages', [stage(0, 0, 100), stage(0, 0, 100), stage(0, 0, 100), stage(1, 90, 150)], [3, 2], 2);
    expect(v.problems).toEqual([
      'stage 1: 1 succeeded of 2',
      'stage 1 started 10 ms before stage 0 ended',
      "4 of the batch's attempts overlapped under a cap of 2",
    ]);
  });
});

describe('kill -9 mid-task', () => {
  const first = ['p0-w1'];
  const second = ['p1-w1'];

  it('holds when the killed worker’s tasks were abandoned with a lease message and succeeded on the second', () => {
    const attempts = [
      attempt('k', 1, 'abandoned', 'p0-w1', 0, 6000, { errorMessage: 'lease expired: worker p0-w1 stopped renewing it' }),
      attempt('k', 2, 'succeeded', 'p1-w1', 6100, 10100),
      attempt('q', 1, 'succeeded', 'p1-w1', 6100, 10100),
    ];
    const v = killVerdict('kill', [task('k', 2), task('q')], attempts, new Set(['k']), first, second);
    expect(v.problems).toEqual([]);
    expect(v.held[0]).toBe('1 task running on the killed worker rescued after the lease and succeeded on the second');
  });

  it('a task the killed worker claimed but never started is rescued alike, not a problem', () => {
    const attempts = [
      attempt('k', 1, 'abandoned', 'p0-w1', 0, 6000, { errorMessage: 'lease expired: worker p0-w1 stopped renewing it' }),
      attempt('k', 2, 'succeeded', 'p1-w1', 6100, 10100),
      // claimed by the killed worker as it died: not in the list of its running tasks read after the kill
      attempt('c', 1, 'abandoned', 'p0-w1', 5990, 6000, { errorMessage: 'lease expired: worker p0-w1 stopped renewing it' }),
      attempt('c', 2, 'succeeded', 'p1-w1', 6100, 10100),
    ];
    const v = killVerdict('kill', [task('k', 2), task('c', 2)], attempts, new Set(['k']), first, second);
    expect(v.problems).toEqual([]);
    expect(v.held[0]).toBe(
      '1 task running on the killed worker rescued after the lease and succeeded on the second ' +
        '(and 1 task it had claimed but not started, rescued alike)',
    );
  });

  it('names a killed task never rescued, and one abandoned that never ran there', () => {
    const attempts = [
      attempt('k', 1, 'running', 'p0-w1', 0, null),
      attempt('q', 1, 'abandoned', 'p1-w1', 0, 50, { errorMessage: 'lease expired' }),
      attempt('q', 2, 'succeeded', 'p1-w1', 60, 90),
    ];
    const v = killVerdict('kill', [task('k', 1, 'running'), task('q', 2)], attempts, new Set(['k']), first, second);
    expect(v.problems).toEqual([
      'k: running',
      'k: outcomes running',
      'k: ran on the killed worker but has no abandoned attempt',
      'q: never ran on the killed worker, yet was abandoned',
    ]);
  });
});

describe('heartbeats and lost leases', () => {
  it('prints the slowest heartbeat the workers logged, the causes, and each lease lost while its worker lived', () => {
    const logs = [
      { level: 40, msg: 'slow heartbeat: leases were renewed late', ms: 1800, leaseMs: 5000, serverMs: 1700 },
      { level: 40, msg: 'slow heartbeat: leases were renewed late', ms: 3100, leaseMs: 5000, serverMs: 200 },
      { level: 50, msg: 'heartbeat slower than half the lease (3100 ms of 5000): connection wait: 2900 ms before …', ms: 3100 },
      { level: 30, msg: 'worker started' },
    ];
    const abandoned = [
      attempt('t1', 1, 'abandoned', 'p1-w2', 0, 6000, {
        abandonReason: 'lease_lost',
        errorDetail: 'worker p1-w2: last heartbeat 2025-01-01T10:00:06.100Z; lease ended 2025-01-01T10:00:05.000Z',
      }),
      attempt('t2', 1, 'abandoned', 'p0-w1', 0, 6000, { abandonReason: 'worker_lost' }),
    ];
    expect(leaseReport(logs, abandoned)).toEqual([
      'heartbeats: 2 slow beats, the slowest 3100 ms of a 5000 ms lease, 200 ms of it in the server',
      '  heartbeat slower than half the lease (3100 ms of 5000): connection wait: 2900 ms before …',
      'lost leases: 1 attempt abandoned while its worker was alive',
      '  t1 attempt 1 on p1-w2: worker p1-w2: last heartbeat 2025-01-01T10:00:06.100Z; lease ended 2025-01-01T10:00:05.000Z',
      "abandoned by a stopped worker (the kill phase's own): 1",
    ]);
    expect(leaseReport([], [])).toEqual([
      'heartbeats: none slower than a quarter of the lease',
      'lost leases: none while a worker was alive',
    ]);
  });
});
