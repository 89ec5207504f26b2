// What `npm run stress:mssql` checks after each run, as pure functions of what the database says
// (tasks, ExecutionLog attempts) and what the handlers recorded: unit-tested in checks.test.ts, so
// the script that needs a server only gathers and prints. The same properties the SQLite process
// tests assert (cli/test/multi, kill, limits, stages), whose helpers it reuses.
import { attemptProblems } from '../../cli/test/helpers';
import { intervalOf, maxOverlap } from '../../cli/test/overlap';

export interface TaskLike {
  token: string;
  status: string;
  attempts: number;
}

export interface AttemptLike {
  token: string;
  attempt: number;
  outcome: string;
  workerId: string | null;
  stage?: number | null;
  startedAt: Date | string | null;
  endedAt: Date | string | null;
  errorMessage?: string | null;
  /** the rescue's detail of an abandoned attempt: its worker's last heartbeat and the lease's end */
  errorDetail?: string | null;
  /** lease_lost (its worker was alive) or worker_lost */
  abandonReason?: string | null;
}

/** One run's verdict: what held (printed with ✓) and what did not (✗, exit non-zero). */
export interface Verdict {
  name: string;
  held: string[];
  problems: string[];
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export function groupByToken<T extends { token: string }>(attempts: T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const a of attempts) out.set(a.token, [...(out.get(a.token) ?? []), a]);
  return out;
}

/**
 * Three processes drained the tasks: every task succeeded exactly once; its other attempts (if any)
 * were abandoned (rescued); attempts are numbered 1…n and never overlap; each names a known worker;
 * every process took part. `workers` maps worker id → process number.
 */
export function drainVerdict(
  name: string,
  expected: string[],
  tasks: TaskLike[],
  attempts: AttemptLike[],
  workers: Map<string, number>,
  processes: number,
): Verdict {
  const problems: string[] = [];
  const byToken = groupByToken(attempts);
  const seen = new Set(tasks.map((t) => t.token));
  const missing = expected.filter((t) => !seen.has(t));
  if (missing.length) problems.push(`${plural(missing.length, 'task')} missing, e.g. ${missing[0]}`);
  if (tasks.length !== expected.length) problems.push(`${tasks.length} tasks in the queue for ${expected.length} enqueued`);
  let rescued = 0;
  const perProcess = new Array<number>(processes).fill(0);
  for (const t of tasks) {
    const history = byToken.get(t.token) ?? [];
    const ok = history.filter((a) => a.outcome === 'succeeded');
    if (t.status !== 'succeeded') problems.push(`${t.token}: ${t.status}`);
    if (ok.length !== 1) problems.push(`${t.token}: ${ok.length} succeeded attempts`);
    for (const a of history) {
      if (a.outcome !== 'succeeded' && a.outcome !== 'abandoned') problems.push(`${t.token}: attempt ${a.attempt} ${a.outcome}`);
      const p = workers.get(a.workerId ?? '');
      if (p === undefined) problems.push(`${t.token}: attempt ${a.attempt} by unknown worker ${a.workerId}`);
      else if (a.outcome === 'succeeded') perProcess[p]! += 1;
    }
    if (t.attempts !== history.length) problems.push(`${t.token}: attempts ${t.attempts} but ${history.length} log rows`);
    rescued += history.filter((a) => a.outcome === 'abandoned').length;
    problems.push(...attemptProblems(t.token, history));
  }
  perProcess.forEach((n, i) => {
    if (n === 0) problems.push(`process ${i + 1} ran no task`);
  });
  const held = problems.length
    ? []
    : [
        `${plural(tasks.length, 'task')}, each succeeded exactly once, no two attempts of a task overlapping`,
        `succeeded per process: ${perProcess.join(' / ')}`,
        `${plural(rescued, 'attempt')} rescued after a lost lease`,
      ];
  return { name, held, problems };
}

/**
 * What the handlers recorded (token → "attempt workerId" per execution) agrees with the log: the
 * succeeded attempt ran, on the worker the log names; a task with one attempt ran once; none ran
 * more often than it had attempts.
 */
export function executionProblems(executions: Map<string, string[]>, attempts: AttemptLike[]): string[] {
  const problems: string[] = [];
  for (const [token, history] of groupByToken(attempts)) {
    const ran = executions.get(token) ?? [];
    const ok = history.find((a) => a.outcome === 'succeeded');
    if (ok && !ran.includes(`${ok.attempt} ${ok.workerId}`))
      problems.push(`${token}: no execution of attempt ${ok.attempt} on ${ok.workerId}`);
    if (ran.length > history.length) problems.push(`${token}: ran ${ran.length} times for ${history.length} attempts`);
    if (history.length === 1 && ran.length !== 1) problems.push(`${token}: ran ${ran.length} times`);
  }
  return problems;
}

/** Parse the recorder's file: one "token attempt workerId" line per execution. */
export function parseExecutions(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of text.split('\n').filter(Boolean)) {
    const [token, attempt, workerId] = line.split(' ');
    out.set(token!, [...(out.get(token!) ?? []), `${attempt} ${workerId}`]);
  }
  return out;
}

/**
 * A queue's limit across processes, from ExecutionLog: before `changedAt` at most `before` attempts
 * overlapped, after it (once the attempts started before it ended) at most `after`, and the limits
 * were reached (else the run proves little: too few tasks or workers).
 */
export function limitVerdict(name: string, attempts: AttemptLike[], before: number, after: number, changedAt: number): Verdict {
  const problems: string[] = [];
  const all = attempts.map(intervalOf);
  const early = maxOverlap(all, -Infinity, changedAt);
  const late = maxOverlap(all, changedAt);
  const open = attempts.filter((a) => a.endedAt === null);
  if (open.length) problems.push(`${plural(open.length, 'attempt')} still open`);
  if (early > before) problems.push(`${early} attempts overlapped under a limit of ${before}`);
  if (late > Math.max(before, after)) problems.push(`${late} attempts overlapped under a limit of ${after}`);
  const notAbandoned = attempts.filter((a) => a.outcome !== 'succeeded');
  if (notAbandoned.length) problems.push(`${plural(notAbandoned.length, 'attempt')} did not succeed (${notAbandoned[0]!.outcome})`);
  const held = problems.length
    ? []
    : [
        `at most ${early} of the queue's attempts at once under a limit of ${before}` +
          (early < before ? ' (limit not reached: more tasks?)' : ''),
        `at most ${late} at once after raising it to ${after}${late < after ? ' (limit not reached)' : ''}`,
      ];
  return { name, held, problems };
}

/**
 * A batch's stages ran in order (no attempt of stage k started before the last attempt of stage
 * k − 1 ended), each stage had its tasks, and the batch's cap held.
 */
export function stagesVerdict(name: string, attempts: AttemptLike[], sizes: number[], cap: number): Verdict {
  const problems: string[] = [];
  const ms = (v: Date | string | null) => (v === null ? Number.POSITIVE_INFINITY : new Date(v).getTime());
  sizes.forEach((n, k) => {
    const got = attempts.filter((a) => a.stage === k && a.outcome === 'succeeded').length;
    if (got !== n) problems.push(`stage ${k}: ${got} succeeded of ${n}`);
  });
  for (let k = 1; k < sizes.length; k++) {
    const lastEnd = Math.max(...attempts.filter((a) => a.stage === k - 1).map((a) => ms(a.endedAt)));
    const firstStart = Math.min(...attempts.filter((a) => a.stage === k).map((a) => ms(a.startedAt)));
    if (firstStart < lastEnd) {
      problems.push(`stage ${k} started ${lastEnd - firstStart} ms before stage ${k - 1} ended`);
    }
  }
  const peak = maxOverlap(attempts.map(intervalOf));
  if (peak > cap) problems.push(`${peak} of the batch's attempts overlapped under a cap of ${cap}`);
  const held = problems.length
    ? []
    : [`stages ${sizes.join(', ')} ran in order`, `at most ${peak} of the batch's attempts at once under a cap of ${cap}`];
  return { name, held, problems };
}

/**
 * After a SIGKILL: every task succeeded; the ones the killed worker ran have an abandoned attempt by
 * it (ended, "lease" in its message) and succeeded on the second worker; the others were never
 * abandoned; every attempt but the last was abandoned.
 */
export function killVerdict(
  name: string,
  tasks: TaskLike[],
  attempts: AttemptLike[],
  killed: Set<string>,
  firstWorkers: string[],
  secondWorkers: string[],
): Verdict {
  const problems: string[] = [];
  const byToken = groupByToken(attempts);
  let claimedUnseen = 0;
  for (const t of tasks) {
    const history = [...(byToken.get(t.token) ?? [])].sort((a, b) => a.attempt - b.attempt);
    if (t.status !== 'succeeded') problems.push(`${t.token}: ${t.status}`);
    problems.push(...attemptProblems(t.token, history));
    const outcomes = history.map((h) => h.outcome);
    if (outcomes.at(-1) !== 'succeeded' || !outcomes.slice(0, -1).every((o) => o === 'abandoned')) {
      problems.push(`${t.token}: outcomes ${outcomes.join(',')}`);
    }
    const abandoned = history.filter((h) => h.outcome === 'abandoned');
    // a task the killed worker claimed but had not started when it died (its claim committed on the server
    // after the list of running tasks was read) is abandoned too, rightly: its only abandoned attempt is the
    // killed worker's
    const claimedByKilled =
      !killed.has(t.token) && abandoned.length === 1 && abandoned[0]!.attempt === 1 && firstWorkers.includes(abandoned[0]!.workerId ?? '');
    if (claimedByKilled) claimedUnseen++;
    if (killed.has(t.token) || claimedByKilled) {
      const first = abandoned[0];
      if (!first) problems.push(`${t.token}: ran on the killed worker but has no abandoned attempt`);
      else {
        if (!firstWorkers.includes(first.workerId ?? ''))
          problems.push(`${t.token}: abandoned by ${first.workerId}, not the killed worker`);
        if (first.endedAt === null) problems.push(`${t.token}: abandoned attempt never ended`);
        if (!/lease/i.test(first.errorMessage ?? ''))
          problems.push(`${t.token}: abandoned attempt says ${JSON.stringify(first.errorMessage)}`);
      }
      const ok = history.find((h) => h.outcome === 'succeeded');
      if (ok && !secondWorkers.includes(ok.workerId ?? '')) problems.push(`${t.token}: succeeded on ${ok.workerId}, not the second worker`);
    } else if (abandoned.length) problems.push(`${t.token}: never ran on the killed worker, yet was abandoned`);
  }
  const held = problems.length
    ? []
    : [
        `${plural(killed.size, 'task')} running on the killed worker rescued after the lease and succeeded on the second` +
          (claimedUnseen ? ` (and ${plural(claimedUnseen, 'task')} it had claimed but not started, rescued alike)` : ''),
        `${plural(tasks.length, 'task')} succeeded, nothing lost, no attempts overlapping`,
      ];
  return { name, held, problems };
}

/** The lines the script prints for a verdict (problems capped at `max`). */
export function formatVerdict(v: Verdict, max = 10): string[] {
  if (!v.problems.length) return v.held.map((h, i) => (i === 0 ? `✓ ${v.name}: ${h}` : `    ${h}`));
  const more = v.problems.length > max ? [`  … and ${v.problems.length - max} more`] : [];
  return [`✗ ${v.name}: ${plural(v.problems.length, 'problem')}`, ...v.problems.slice(0, max).map((p) => `  - ${p}`), ...more];
}

/** A worker's pino log record (as WorkerProcess.logs() parses them). */
export type LogRecord = Record<string, unknown>;

/**
 * What the workers' logs and ExecutionLog say about heartbeats and lost leases: the slowest heartbeat any
 * worker logged (the pool logs beats slower than a quarter of the lease, and the first beat slower than half
 * of it with its cause), how many were slow, and each attempt the rescue abandoned while its worker was
 * alive (lease_lost), with its worker's last heartbeat. Lines to print.
 */
export function leaseReport(logs: LogRecord[], abandoned: AttemptLike[]): string[] {
  const slow = logs.filter((r) => typeof r.msg === 'string' && r.msg.startsWith('slow heartbeat') && typeof r.ms === 'number');
  const causes = logs.filter((r) => typeof r.msg === 'string' && r.msg.startsWith('heartbeat slower than half the lease'));
  const out: string[] = [];
  if (!slow.length) out.push('heartbeats: none slower than a quarter of the lease');
  else {
    const max = slow.reduce((a, b) => ((b.ms as number) > (a.ms as number) ? b : a));
    const server = typeof max.serverMs === 'number' ? `, ${max.serverMs} ms of it in the server` : '';
    out.push(`heartbeats: ${plural(slow.length, 'slow beat')}, the slowest ${max.ms} ms of a ${max.leaseMs} ms lease${server}`);
  }
  for (const c of causes) out.push(`  ${String(c.msg)}`);
  const lost = abandoned.filter((a) => a.abandonReason === 'lease_lost');
  const stopped = abandoned.filter((a) => a.abandonReason !== 'lease_lost');
  out.push(
    lost.length
      ? `lost leases: ${plural(lost.length, 'attempt')} abandoned while its worker was alive`
      : 'lost leases: none while a worker was alive',
  );
  for (const a of lost) out.push(`  ${a.token} attempt ${a.attempt} on ${a.workerId ?? '?'}: ${a.errorDetail ?? '(no detail)'}`);
  if (stopped.length) out.push(`abandoned by a stopped worker (the kill phase's own): ${stopped.length}`);
  return out;
}
