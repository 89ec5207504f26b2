// Types of bin/run-tests.mjs (plain JavaScript: `npm test` runs it before anything is compiled).

export interface Step {
  name: string;
  /** the program and its arguments */
  cmd: string[];
  env?: Record<string, string>;
  /** the steps that must have passed before this one starts */
  after: string[];
  /** runs at lower priority (beside the browser tests) */
  nice?: boolean;
}

export type StepState = 'passed' | 'failed' | 'skipped';

/** `npm test`'s steps after the preflight, in the order a serial run takes them. */
export const STEPS: Step[];

/** Runs `steps` side by side as their `after` allows (one at a time when `serial`); see bin/run-tests.mjs. */
export function runSteps(
  steps: Step[],
  opts: { cwd: string; logs: string; serial?: boolean; niceness?: number; say?: (line: string) => void },
): { finished: Promise<Map<string, { state: StepState; secs: number }>>; stop(): void };

/** The niceness of the steps run beside the browser tests (READPAST_TEST_NICE, else by the machine's load). */
export function besideNiceness(env: Record<string, string | undefined>, load1: number, cores: number): number;
/** READPAST_TEST_WORKERS for Vitest: as set, null for its default (cores to spare), '2' on a busy machine */
export function unitWorkers(env: Record<string, string | undefined>, load1: number, cores: number): string | null;
