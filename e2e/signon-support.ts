// The sign-on specs' world: a real OpenID provider (oidc-provider) and another one (a second issuer), and a
// `next start` of the same build configured to sign people in with the first. Ports: E2E_PORT + 8 (the
// dashboard), + 9 (the provider), + 6 (the other provider).
import { expect as baseExpect, type Page } from '@playwright/test';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import {
  API_AUDIENCE,
  DASHBOARD_CLIENT,
  OPERATORS_GROUP,
  startTestProvider,
  type TestProvider,
  VIEWERS_GROUP,
} from '../lib/server/test-support/oidc-provider';

const expect = baseExpect.configure({ timeout: 30_000 });

const E2E_PORT = Number(process.env.E2E_PORT ?? 3210);
export const PORT = E2E_PORT + 8;
export const BASE = `http://127.0.0.1:${PORT}`;
export const SESSION_SECRET = 'e2e-session-secret-0123456789-abcdefghij';

export interface World {
  idp: TestProvider;
  otherIdp: TestProvider;
  stop(): Promise<void>;
  output(): string;
}

export async function startWorld(): Promise<World> {
  const idp = await startTestProvider(E2E_PORT + 9, BASE);
  const otherIdp = await startTestProvider(E2E_PORT + 6, BASE);
  const db = join(process.cwd(), '.tmp', `signon-${Date.now()}-${process.pid}.db`);
  let output = '';
  const server: ChildProcess = spawn('npx', ['next', 'start', '-H', '127.0.0.1', '-p', String(PORT)], {
    env: {
      ...process.env,
      READPAST_DATABASE_URL: `sqlite:${db}`,
      READPAST_WORKERS: '2',
      READPAST_OIDC_ISSUER: idp.issuer,
      READPAST_OIDC_CLIENT_ID: DASHBOARD_CLIENT.id,
      READPAST_OIDC_CLIENT_SECRET: DASHBOARD_CLIENT.secret,
      READPAST_OIDC_SCOPES: 'openid profile email groups',
      READPAST_OIDC_OPERATORS: OPERATORS_GROUP,
      READPAST_OIDC_VIEWERS: VIEWERS_GROUP,
      READPAST_OIDC_AUDIENCE: API_AUDIENCE,
      READPAST_SESSION_SECRET: SESSION_SECRET,
      NEXT_TELEMETRY_DISABLED: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  server.stdout!.on('data', (d) => (output += d));
  server.stderr!.on('data', (d) => (output += d));
  const stop = async () => {
    if (server.pid && server.exitCode === null) {
      const exited = new Promise((r) => server.once('exit', r));
      try {
        process.kill(-server.pid, 'SIGTERM');
      } catch {
        /* gone */
      }
      await exited;
    }
    await idp.stop();
    await otherIdp.stop();
  };
  try {
    // up when the API answers (401: it wants credentials)
    await expect
      .poll(
        async () => {
          try {
            return (await fetch(`${BASE}/api/stats`)).status;
          } catch {
            return 0;
          }
        },
        { timeout: 90_000, intervals: [500] },
      )
      .toBe(401);
  } catch (err) {
    await stop();
    throw new Error(`the dashboard with sign-on did not start: ${(err as Error).message}\n${output}`);
  }
  return { idp, otherIdp, stop, output: () => output };
}

/** The development login form of the provider: any password. Its stylesheet's web font is not fetched (no network here). */
export async function blockFonts(page: Page): Promise<void> {
  await page.route(/fonts\.(googleapis|gstatic)\.com/, (r) => r.abort());
}

/** Fill the provider's login form (the page is on it) as `login`. */
export async function providerLogin(page: Page, login: string, issuer: string): Promise<void> {
  await expect(page).toHaveURL(new RegExp(`^${issuer}/interaction/`));
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('any password');
  await page.locator('button[type="submit"]').click();
}

/** Open `path` on the dashboard, sign in at the provider as `login`, land back on `path`. */
export async function signIn(page: Page, login: string, issuer: string, path = '/'): Promise<void> {
  await blockFonts(page);
  await page.goto(BASE + path);
  await providerLogin(page, login, issuer);
  await expect(page).toHaveURL(BASE + path);
}
