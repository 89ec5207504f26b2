// An attempt's progress and log lines on their way to the store. A handler's ctx.log / ctx.progress (and
// SQL Server's PRINT and error messages, RunningAttempt.output) only append to a bounded in-memory buffer:
// a ring of the last MAX_ATTEMPT_LINES lines / MAX_ATTEMPT_BYTES, older lines dropped and counted. One
// flusher per worker port writes every attempt's pending output in one call (appendAttemptOutput) at
// most every FLUSH_MS, and once more when an attempt ends (before its settlement), so a handler logging
// in a tight loop costs neither a write per line nor unbounded memory.
import type { WorkerPort } from './ports';
import type { AttemptOutputBatch, OutputLine, OutputStream, ProgressReport } from './types';

/** Lines kept per attempt (in the buffer and in the store); older ones are dropped and counted. */
export const MAX_ATTEMPT_LINES = 1000;
/** Bytes (UTF-8) of line text kept per attempt. */
export const MAX_ATTEMPT_BYTES = 256 * 1024;
/** A longer line is cut to this many characters (an ellipsis marks the cut). */
export const MAX_LINE_CHARS = 4000;
/** A progress message is cut to this many characters. */
export const MAX_PROGRESS_MESSAGE_CHARS = 400;
/** How often buffered output is written while attempts run. */
export const FLUSH_MS = 300;

export const lineBytes = (line: string): number => Buffer.byteLength(line, 'utf8');

/** A line as kept: text (non-strings stringified), control characters but tab and newline removed, at most MAX_LINE_CHARS. */
export function cleanLine(value: unknown): string {
  let s: string;
  if (typeof value === 'string') s = value;
  else if (value instanceof Error) s = value.stack ?? value.message;
  else {
    try {
      s = JSON.stringify(value) ?? String(value);
    } catch {
      s = String(value);
    }
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
  s = s.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '');
  return s.length > MAX_LINE_CHARS ? `${s.slice(0, MAX_LINE_CHARS - 1)}…` : s;
}

/** A progress report as kept: percent clamped to 0–100 (one decimal), message trimmed and cut. */
export function cleanProgress(percent: unknown, message: unknown, at: Date): ProgressReport {
  const p = typeof percent === 'number' ? percent : Number(percent);
  if (!Number.isFinite(p)) throw new TypeError('ctx.progress(percent, message?): percent must be a finite number from 0 to 100');
  const text = message === undefined || message === null ? '' : String(message).trim();
  return {
    percent: Math.round(Math.min(100, Math.max(0, p)) * 10) / 10,
    message: text ? text.slice(0, MAX_PROGRESS_MESSAGE_CHARS) : null,
    at,
  };
}

/** One attempt's pending output: a ring of lines bounded by count and bytes, the latest progress, what was dropped. */
export class AttemptOutputBuffer {
  private ring: (OutputLine | undefined)[] = new Array(MAX_ATTEMPT_LINES);
  private head = 0;
  private count = 0;
  private bytes = 0;
  private dropped = 0;
  private progress: ProgressReport | null = null;
  /** the store refused a write: the attempt no longer owns its task, nothing more is kept */
  refused = false;
  closed = false;
  /** not written until this is done: the attempt's start is recorded (a task claimed ahead; the write is fenced on it running) */
  holdUntil: { readonly done: boolean } | null = null;

  get held(): boolean {
    return this.holdUntil !== null && !this.holdUntil.done;
  }

  constructor(
    readonly taskId: number,
    readonly attempt: number,
    readonly workerId: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  get dirty(): boolean {
    return this.count > 0 || this.dropped > 0 || this.progress !== null;
  }

  /** Lines currently buffered (for tests and the bound). */
  get size(): number {
    return this.count;
  }

  log(stream: OutputStream, value: unknown): void {
    if (this.closed || this.refused) return;
    this.push({ stream, line: cleanLine(value), at: this.now() });
  }

  report(percent: unknown, message?: unknown): void {
    const p = cleanProgress(percent, message, this.now());
    if (this.closed || this.refused) return;
    this.progress = p;
  }

  private push(l: OutputLine): void {
    const b = lineBytes(l.line);
    while (this.count > 0 && (this.count >= MAX_ATTEMPT_LINES || this.bytes + b > MAX_ATTEMPT_BYTES)) this.evict();
    const tail = (this.head + this.count) % MAX_ATTEMPT_LINES;
    this.ring[tail] = l;
    this.count++;
    this.bytes += b;
  }

  private evict(): void {
    const old = this.ring[this.head]!;
    this.ring[this.head] = undefined;
    this.head = (this.head + 1) % MAX_ATTEMPT_LINES;
    this.count--;
    this.bytes -= lineBytes(old.line);
    this.dropped++;
  }

  /** Everything pending, as one write; the buffer is left empty. */
  take(): AttemptOutputBatch {
    const lines: OutputLine[] = [];
    for (let i = 0; i < this.count; i++) lines.push(this.ring[(this.head + i) % MAX_ATTEMPT_LINES]!);
    const batch: AttemptOutputBatch = {
      taskId: this.taskId,
      attempt: this.attempt,
      workerId: this.workerId,
      lines,
      dropped: this.dropped,
      progress: this.progress,
    };
    this.ring = new Array(MAX_ATTEMPT_LINES);
    this.head = this.count = this.bytes = this.dropped = 0;
    this.progress = null;
    return batch;
  }

  /** A write failed: its output goes back in front of what came since (still within the bound). */
  restore(batch: AttemptOutputBatch): void {
    const since = this.take();
    this.dropped = batch.dropped + since.dropped;
    for (const l of batch.lines) this.push(l);
    for (const l of since.lines) this.push(l);
    this.progress = since.progress ?? batch.progress;
  }
}

/**
 * Writes the pending output of every running attempt of one worker port, at most every `intervalMs`,
 * one write in flight at a time. The timer runs only while an attempt is open.
 */
export class OutputFlusher {
  private readonly open = new Set<AttemptOutputBuffer>();
  private timer: NodeJS.Timeout | null = null;
  private inFlight: Promise<void> | null = null;
  private again = false;
  /** writes made (for tests) */
  writes = 0;

  constructor(
    private readonly worker: Pick<WorkerPort, 'appendAttemptOutput'>,
    private readonly intervalMs = FLUSH_MS,
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  openAttempt(taskId: number, attempt: number, workerId: string): AttemptOutputBuffer {
    const b = new AttemptOutputBuffer(taskId, attempt, workerId);
    this.open.add(b);
    if (!this.timer) {
      this.timer = setInterval(() => void this.flush(), this.intervalMs);
      this.timer.unref?.();
    }
    return b;
  }

  /** The attempt ended: write what it left (before its settlement is recorded), then forget it. */
  async close(b: AttemptOutputBuffer): Promise<void> {
    b.closed = true;
    try {
      if (b.dirty && !b.refused && !b.held) await this.flush();
    } finally {
      this.open.delete(b);
      if (this.open.size === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = null;
      }
    }
  }

  /** Write every dirty buffer now (joins a write in flight, then writes what came meanwhile). */
  flush(): Promise<void> {
    if (this.inFlight) {
      this.again = true;
      return this.inFlight;
    }
    this.inFlight = (async () => {
      try {
        do {
          this.again = false;
          await this.writeOnce();
        } while (this.again);
      } finally {
        this.inFlight = null;
      }
    })();
    return this.inFlight;
  }

  private async writeOnce(): Promise<void> {
    const buffers = [...this.open].filter((b) => b.dirty && !b.refused && !b.held);
    if (buffers.length === 0) return;
    const batches = buffers.map((b) => b.take());
    this.writes++;
    try {
      const ok = await this.worker.appendAttemptOutput(batches);
      ok.forEach((accepted, i) => {
        if (!accepted) buffers[i]!.refused = true;
      });
    } catch (err) {
      buffers.forEach((b, i) => b.restore(batches[i]!));
      this.onError(err);
    }
  }
}

const flushers = new WeakMap<object, OutputFlusher>();

/** The flusher of a worker port (one per port, so one write carries every attempt of a pool). */
export function flusherFor(worker: WorkerPort): OutputFlusher | null {
  if (typeof worker.appendAttemptOutput !== 'function') return null;
  let f = flushers.get(worker);
  if (!f) {
    f = new OutputFlusher(worker);
    flushers.set(worker, f);
  }
  return f;
}
