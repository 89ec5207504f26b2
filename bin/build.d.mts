// Types of bin/build.mjs (plain JavaScript: `npm start` and `prepack` run it before anything is compiled).

/** The repository root (or the package's, installed). */
export const ROOT: string;
/** Newest modification time of the files under `paths` (node_modules, dot-folders and tests left out). */
export function newestSource(root: string, paths: string[]): number;
export function dashboardState(root?: string): 'missing' | 'stale' | 'current';
export function libState(root?: string): 'missing' | 'stale' | 'current';
/** Runs `fn` holding the checkout's lock `name` (`.tmp/<name>.lock`); a lock whose holder died is taken over. */
export function withBuildLock<T>(root: string, name: string, fn: () => Promise<T> | T): Promise<T>;
/** dist/ built when missing or older than its sources, under the build lock; true when current. */
export function ensureLib(root?: string): Promise<boolean>;
export function buildLib(root?: string): Promise<boolean>;
export function buildDashboard(root?: string, why?: string): Promise<boolean>;
