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

const build = process.env.E2E_SKIP_BUILD === '1' ? '' : 'npx next build && ';

export default defineConfig({
  testDir: './e2e',
  fullyParallel: false,
  workers: 1,
  retries: process.env.CI ? 1 : 0,
  forbidOnly: !!process.env.CI,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  outputDir: 'test-results',
  reporter: process.env.CI ? [['list'], ['html', { open: 'never', outputFolder: 'playwright-report' }]] : 'list',
  use: {
    baseURL: BASE_URL,
    viewport: { width: 1280, height: 900 },
    trace: 'retain-on-failure',
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
