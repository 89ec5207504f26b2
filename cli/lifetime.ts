// How a long-running command (worker, dashboard, batch wait) learns it must stop:
// - the first SIGTERM / SIGINT (a second one is the caller's to handle: exit at once);
// - its parent gone. `npm run readpast -- worker` and `npx readpast worker` run the command through a
//   shell (npm → sh -c → node): a supervisor that signals only npm's pid ends npm and the shell (npm passes
//   the signal to the shell, which dies of it without passing it on), and the command is re-parented to
//   pid 1 or to a subreaper. It then stops as on SIGTERM, so nothing keeps claiming tasks unsupervised.
//   The parent is the one at start: a change of `process.ppid` (to 1 or to a subreaper) means it exited.

/** How often a process looks whether its parent is still there. */
export const PARENT_POLL_MS = 500;

/**
 * This process's parent when it started: noted by bin/readpast.mjs before anything loads (a command may take
 * seconds to open its database, and its parent may be gone by then), else when this module loads.
 */
const PARENT_AT_START: number =
  ((globalThis as Record<symbol, unknown>)[Symbol.for('readpast.parent')] as number | undefined) ?? process.ppid;

/**
 * Calls `onGone` once when this process's parent has exited (its parent pid changes: it was reparented).
 * Returns a function that stops watching. A process started by init itself (ppid 1), or the first process
 * of a container (ppid 0), has no parent to lose.
 */
export function watchParent(onGone: (parent: number) => void, pollMs = PARENT_POLL_MS): () => void {
  const parent = PARENT_AT_START;
  if (parent <= 1) return () => {};
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onGone(parent);
  }, pollMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** Why a command was asked to stop. */
export type StopReason = { signal: NodeJS.Signals } | { parentGone: number };

export interface StopRequests {
  /** resolves with the first reason to stop */
  readonly requested: Promise<StopReason>;
  /** aborted with the first reason (for waits that take an AbortSignal) */
  readonly signal: AbortSignal;
  /** stop listening (signals and the parent) */
  dispose(): void;
}

/** The exit code of a process stopped for `reason`: 128 + the signal's number (a lost parent counts as SIGTERM). */
export function stopExitCode(reason: StopReason): number {
  return 'signal' in reason && reason.signal === 'SIGINT' ? 130 : 143;
}

/** Describes a reason in a log line's words. */
export function describeStop(reason: StopReason): Record<string, unknown> {
  return 'signal' in reason ? { signal: reason.signal } : { parentGone: reason.parentGone };
}

/**
 * Listens for the first reason to stop: SIGTERM / SIGINT or the parent gone. A signal after that calls
 * `onSecond` (a command exits at once there); without it, later signals are ignored.
 */
export function stopRequests(onSecond?: (signal: NodeJS.Signals) => void): StopRequests {
  const controller = new AbortController();
  let resolveRequested!: (r: StopReason) => void;
  const requested = new Promise<StopReason>((resolve) => (resolveRequested = resolve));
  const request = (reason: StopReason) => {
    if (controller.signal.aborted) return;
    controller.abort(reason);
    resolveRequested(reason);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) onSecond?.(signal);
    else request({ signal });
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  const unwatch = watchParent((parentGone) => request({ parentGone }));
  return {
    requested,
    signal: controller.signal,
    dispose() {
      unwatch();
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
    },
  };
}
