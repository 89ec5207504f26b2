// Process-level test helpers: a temporary SQLite database, `node bin/readpast.mjs …` as a child
// process, long-running workers, and polling with deadlines. The CLI they run is the compiled one unless
// READPAST_CLI=sources (cli-mode.ts); another tree's bin (a previous release) is given `sourcesEnv`.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Readpast } from '../../lib/api/readpast';
import type { HandlerRegistry } from '../../lib/engine/handlers';
import type { StatusJson } from '../../lib/api/present';
import { openReadpast } from '../../lib/api/open';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const BIN = join(ROOT, 'bin', 'readpast.mjs');
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** ISO-8601 in UTC with milliseconds, as Date#toISOString writes it */
export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export interface TempDb {
  dir: string;
  url: string;
  env: NodeJS.ProcessEnv;
  cleanup(): void;
}

export function tempDb(name = 'readpast.db'): TempDb {
  const dir = mkdtempSync(join(tmpdir(), 'readpast-cli-'));
  const url = `sqlite:${join(dir, name)}`;
  const env = { ...process.env, READPAST_DATABASE_URL: url, READPAST_LOG_LEVEL: 'info' };
  return { dir, url, env, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env: NodeJS.ProcessEnv;
  cwd?: string;
  timeoutMs?: number;
  /** another readpast's bin/readpast.mjs (a previous release checked out apart); default this one's */
  bin?: string;
}

/**
 * `env` for a `readpast` that must run its TypeScript sources: another tree's bin (a previous release checked
 * out apart, which has no dist/), whatever this run's READPAST_CLI says.
 */
export function sourcesEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { READPAST_CLI: _, ...rest } = env;
  return rest;
}

/** Runs `readpast ARGS` to completion. */
export function cli(args: string[], opts: RunOptions): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [opts.bin ?? BIN, ...args], {
      cwd: opts.cwd ?? ROOT,
      env: opts.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`readpast ${args.join(' ')} did not finish within ${opts.timeoutMs ?? 30_000} ms\n${stderr}`));
    }, opts.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** Runs `readpast ARGS` and expects exit 0; returns stdout. */
export async function cliOk(args: string[], opts: RunOptions): Promise<string> {
  const r = await cli(args, opts);
  if (r.code !== 0) throw new Error(`readpast ${args.join(' ')} exited ${r.code ?? r.signal}: ${r.stderr}`);
  return r.stdout;
}

export async function statusOf(token: string, opts: RunOptions): Promise<StatusJson> {
  return JSON.parse(await cliOk(['status', token, '--json'], opts)) as StatusJson;
}

/** A `readpast worker` running in the background. */
export class WorkerProcess {
  readonly child: ChildProcess;
  stderr = '';
  stdout = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(args: string[], opts: RunOptions) {
    this.child = spawn(process.execPath, [opts.bin ?? BIN, 'worker', ...args], {
      cwd: opts.cwd ?? ROOT,
      env: opts.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout!.setEncoding('utf8').on('data', (d: string) => (this.stdout += d));
    this.child.stderr!.setEncoding('utf8').on('data', (d: string) => (this.stderr += d));
    this.exited = new Promise((resolve) => this.child.on('exit', (code, signal) => resolve({ code, signal })));
  }

  get pid(): number {
    return this.child.pid!;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The pino log lines written so far, parsed. */
  logs(): Record<string, unknown>[] {
    return this.stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  }

  /** The last lines of the worker's log, for failure messages. */
  recentLog(lines = 8): string {
    return this.stderr
      .trimEnd()
      .split('\n')
      .slice(-lines)
      .map((l) => l.slice(0, 600))
      .join('\n');
  }

  /** Resolves with the worker ids once the worker logged `worker started`. */
  async started(timeoutMs = 30_000): Promise<string[]> {
    const line = await waitFor(
      async () => {
        if (!this.running) throw new Error(`worker exited before starting: ${this.stderr}`);
        return this.logs().find((l) => l.msg === 'worker started');
      },
      { timeoutMs, what: 'worker start' },
    );
    return line.workerIds as string[];
  }

  /** Sends `signal` and waits for the exit. */
  async stop(signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 30_000) {
    if (this.running) this.child.kill(signal);
    return withDeadline(this.exited, timeoutMs, `worker ${this.pid} to exit after ${signal}`);
  }

  /** For cleanup after a failed test. */
  kill(): void {
    if (this.running) this.child.kill('SIGKILL');
  }
}

export async function withDeadline<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Starts measuring how long this process is kept from running (its event loop's longest delay, 10 ms
 * resolution); `stop()` returns it in ms. A bound on another process's timing adds it: a machine busy enough to
 * stall this process stalls the workers (children, at its priority) as much.
 */
export function measureStalls(): { stop(): number } {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  return {
    stop: () => {
      h.disable();
      return Math.round(h.max / 1e6);
    },
  };
}

/** Polls `probe` until it returns a value other than undefined/false/null; fails at the deadline. */
export async function waitFor<T>(
  probe: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  opts: { timeoutMs?: number; intervalMs?: number; what: string; workers?: WorkerProcess[] },
): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  let last: unknown;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== null && v !== false) return v;
    last = v;
    if (Date.now() > deadline) {
      const logs = (opts.workers ?? []).map((w) => `\n--- worker ${w.pid} (last log lines):\n${w.recentLog()}`).join('');
      throw new Error(`timed out after ${opts.timeoutMs ?? 30_000} ms waiting for ${opts.what} (last: ${String(last)})${logs}`);
    }
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 100));
  }
}

/** The library over the same database file, for bulk enqueue and reading state in the test process. */
export function openLibrary(db: TempDb, registry?: HandlerRegistry): Promise<Readpast> {
  return openReadpast({ url: db.url, registry });
}

/** Every item of a keyset-paged listing. */
export async function allPages<T>(fetch: (cursor: number | undefined) => Promise<{ items: T[]; nextCursor: number | null }>): Promise<T[]> {
  const out: T[] = [];
  let cursor: number | undefined;
  for (;;) {
    const page = await fetch(cursor);
    out.push(...page.items);
    if (page.nextCursor === null) return out;
    cursor = page.nextCursor;
  }
}

/** Runs `fn` over `items` with at most `n` in flight (child processes are the expensive part). */
export async function limited<T, R>(items: T[], n: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!);
      }
    }),
  );
  return out;
}

interface AttemptLike {
  attempt: number;
  outcome: string;
  startedAt: Date | string | null;
  endedAt: Date | string | null;
}

/** Problems with one task's attempts: numbering, one open attempt at most, no two overlapping in time. */
export function attemptProblems(token: string, history: AttemptLike[]): string[] {
  const problems: string[] = [];
  const sorted = [...history].sort((a, b) => a.attempt - b.attempt);
  sorted.forEach((a, i) => {
    if (a.attempt !== i + 1) problems.push(`${token}: attempt numbers ${sorted.map((x) => x.attempt).join(',')}`);
    if (a.startedAt === null) problems.push(`${token}: attempt ${a.attempt} has no start time`);
    const next = sorted[i + 1];
    if (!next) return;
    if (next.startedAt === null) return;
    if (a.endedAt === null) problems.push(`${token}: attempt ${a.attempt} still open while attempt ${next.attempt} exists`);
    else if (new Date(a.endedAt).getTime() > new Date(next.startedAt).getTime()) {
      problems.push(
        `${token}: attempt ${a.attempt} (ended ${new Date(a.endedAt).toISOString()}) overlaps attempt ${next.attempt} ` +
          `(started ${new Date(next.startedAt).toISOString()})`,
      );
    }
  });
  return problems;
}
