// Attempt output: progress and log lines.

/** `log`: a handler's ctx.log; `print`: SQL Server PRINT / RAISERROR of severity ≤ 10; `error`: an error message (severity ≥ 11). */
export type OutputStream = 'log' | 'error' | 'print';

export interface OutputLine {
  stream: OutputStream;
  line: string;
  at: Date;
}

/** The latest progress an attempt reported: percent 0–100, an optional message, when. */
export interface ProgressReport {
  percent: number;
  message: string | null;
  at: Date;
}

/** One attempt's buffered output, written by the worker that owns the attempt (WorkerPort.appendAttemptOutput). */
export interface AttemptOutputBatch {
  taskId: number;
  attempt: number;
  workerId: string;
  lines: OutputLine[];
  /** lines the worker dropped before this write (its buffer is bounded) */
  dropped: number;
  /** the latest progress, null when unchanged since the last write */
  progress: ProgressReport | null;
}

export interface AttemptLogLine {
  seq: number;
  at: Date;
  stream: OutputStream;
  line: string;
}

/** One attempt's kept output (the last lines within the bound), read after `afterSeq`. */
export interface AttemptOutputView {
  /** the attempt read (0: the task has not started) */
  attempt: number;
  lines: AttemptLogLine[];
  /** lines were dropped (the bound, lib/engine/attempt-output.ts) */
  truncated: boolean;
  dropped: number;
  progress: ProgressReport | null;
  /** pass as `afterSeq` to read only newer lines */
  next: number;
}
