// Browser tests against a real `next start` on a fresh SQLite file, in Debian's Chromium.
import { defineConfig } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

const PORT = Number(process.env.E2E_PORT ?? 3210);
const BASE_URL = `http://127.0.0.1:${PORT}`;

// One database per run. The runner computes it once; its worker processes inherit the variable.
if (!process.env.READPAST_E2E_DB) {
  const dir = join(process.cwd(), '.tmp');
  mkdirSync(dir, { recursive: true });
  process.env.READPAST_E2E_DB = join(dir, `e2e-${Date.now()}-${process.pid}.db`);
}

// bin/build.mjs builds the dashboard (and the library) only when a source is newer than its build, so a
// run after `npm run build:package` or another run starts the server at once
const build = process.env.E2E_SKIP_BUILD === '1' ? '' : 'node bin/build.mjs && ';

// E2E_WORKERS > 1 (unset in `npm run test:e2e`: on two cores it saves little): the specs that work in queues,
// batches and servers of their own run that many at a time; then those that read or change what the whole
// server shares (the pool's size, every task's total, a pool kept busy, every page seeded with long tasks) run
// alone, one after another. Unset, every spec runs one at a time, in one project.
const WORKERS = Number(process.env.E2E_WORKERS ?? 1);
const SHARED = ['api', 'claimed', 'enqueue', 'layout', 'why', 'workers'].map((name) => `${name}.spec.ts`);
const projects =
  WORKERS > 1
    ? [
        { name: 'own', testIgnore: SHARED, workers: WORKERS },
        // run after `own`, and skipped when a test of it failed: `--project shared --no-deps` runs them alone
        { name: 'shared', testMatch: SHARED, dependencies: ['own'], workers: 1 },
      ]
    : undefined;

export default defineConfig({
  testDir: './e2e',
  fullyParallel: false,
  workers: WORKERS,
  ...(projects ? { projects } : {}),
  retries: process.env.CI ? 1 : 0,
  forbidOnly: !!process.env.CI,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  outputDir: 'test-results',
  reporter: process.env.CI ? [['list'], ['html', { open: 'never', outputFolder: 'playwright-report' }]] : 'list',
  use: {
    baseURL: BASE_URL,
    viewport: { width: 1280, height: 900 },
    // A failed test's retry (CI retries once) records a trace. Recorded for every test, a trace cost a third of the
    // browser's and the runner's CPU (its screencast and snapshots): measured on four specs, 111 CPU-s against 75, and the
    // suite runs bound by the CPU. `npx playwright test --trace retain-on-failure` records one for every failure.
    trace: 'on-first-retry',
    // The dashboard honours the OS's "reduce motion" (app/globals.css); asked for here, its pages stand still between
    // polls. A pulsing dot on every page cost the browser a core while a trace's screencast was recording it.
    reducedMotion: 'reduce',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
  },
  webServer: {
    command: `${build}npx next start -H 127.0.0.1 -p ${PORT}`,
    url: `${BASE_URL}/api/stats`,
    timeout: 300_000,
    reuseExistingServer: process.env.E2E_REUSE === '1',
    stdout: 'pipe',
    stderr: 'pipe',
    env: {
      READPAST_DATABASE_URL: `sqlite:${process.env.READPAST_E2E_DB}`,
      READPAST_WORKERS: '4',
      // the alerts spec serves its webhook on loopback: allowed on purpose (internal addresses are refused otherwise)
      READPAST_WEBHOOK_ALLOW: '127.0.0.1/32',
      NEXT_TELEMETRY_DISABLED: '1',
      // the task page links trace ids here; the dashboard's own OpenTelemetry SDK exports to the receiver the trace
      // spec starts on the next port (while none listens, its exports are dropped)
      READPAST_TRACE_URL: 'https://tempo.example/trace/{traceId}',
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${PORT + 1}`,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'readpast-e2e',
      OTEL_BSP_SCHEDULE_DELAY: '300',
    },
  },
});
