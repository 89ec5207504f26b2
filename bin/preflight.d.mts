// Types of bin/preflight.mjs (plain JavaScript: it must run before anything is compiled).

/** What the machine has. */
export interface Facts {
  /** process.versions.node, e.g. '20.19.0' */
  node: string;
  /** better-sqlite3: 'ok', 'missing' (not installed) or the first line of its load error */
  sqlite: string;
  /** the browser the tests launch: CHROMIUM_PATH (explicit) or /usr/bin/chromium */
  chromium: { path: string; explicit: boolean; present: boolean };
  /** running as root */
  root: boolean;
  /** Debian or a derivative (Ubuntu) */
  debian: boolean;
  /** apt-get on PATH */
  aptGet: boolean;
}

export type Decision = { action: 'ok' } | { action: 'fail'; line: string } | { action: 'install-chromium'; line: string };

export const MIN_NODE: number;
export const DEFAULT_CHROMIUM: string;
export const CHROMIUM_HINT: string;
export const TOOLCHAIN_HINT: string;
export function decide(facts: Facts): Decision;
