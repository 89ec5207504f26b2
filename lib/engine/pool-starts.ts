// The start of an attempt of a task claimed ahead: a slot starts it, and the store learns it in the pool's next
// flush — with its end when it ends first (one write for the whole attempt), alone (`started`) once it has run
// START_WRITE_MS, or at once when its output waits to be written (the output's write is fenced on a running task).
import type { UnrecordedStart } from './run';
import type { AttemptResult, AttemptStart, ClaimedTask } from './types';

/** A claimed task's attempt still running this long (ms) has its start written, so the console shows it running. */
export const START_WRITE_MS = 20;

export class PendingStart implements UnrecordedStart {
  /** its output waits: write the start in the next flush, whatever its age */
  hurried = false;
  /** sent in a flush not answered yet */
  sending = false;
  /** recorded or refused: never sent again */
  done = false;
  private waiters: (() => void)[] | null = null;

  constructor(
    readonly start: AttemptStart,
    /** performance.now() at the start */
    readonly began: number,
    private readonly onHurry: () => void,
  ) {}

  hurry(): void {
    this.hurried = true;
    this.onHurry();
  }

  /** Until the start is recorded or refused, or `ms` have passed. */
  wait(ms: number): Promise<void> {
    if (this.done) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      (this.waiters ??= []).push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  settle(): void {
    this.done = true;
    this.sending = false;
    if (this.waiters) for (const w of this.waiters.splice(0)) w();
  }
}

/** The start-only result of a claimed task's attempt that still runs (the runner's copy of the task). */
export function stillRunning(task: ClaimedTask, p: PendingStart): AttemptResult {
  return { taskId: task.id, workerId: task.workerId, attempt: task.attempt, settlement: { kind: 'started' }, start: p.start };
}
