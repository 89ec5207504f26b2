// Schedules in a real browser against `next start` (with its in-process workers): the JSON API with its
// status codes, then the page — create a schedule in the form (expression checked as you type, next
// fire times previewed), see it fire, pause it, run it now, delete it — and the Overview's next fires.
import { expect, test, type Page } from '@playwright/test';
import { unique } from './helpers';

interface FireJson {
  token: string;
  fireAt: string;
  manual: boolean;
  status: string;
}
interface ScheduleJson {
  name: string;
  enabled: boolean;
  nextFireAt: string | null;
  nextFires: string[];
  recent: FireJson[];
}

const row = (page: Page, name: string) => page.locator(`[data-testid="schedule-row"][data-schedule="${name}"]`);

test('the schedules API: 400 naming the field, 201, 404, 409 and the shapes of the issue', async ({ request }) => {
  const name = unique('api-sched');
  const bad = await request.post('/api/schedules', { data: { name, cron: '* * *', command: 'demo.echo' } });
  expect(bad.status()).toBe(400);
  expect(await bad.json()).toMatchObject({ field: 'cron' });
  const badZone = await request.post('/api/schedules', { data: { name, cron: '* * * * *', timezone: 'Mars/Base', command: 'demo.echo' } });
  expect(badZone.status()).toBe(400);
  expect(await badZone.json()).toMatchObject({ field: 'timezone' });

  const created = await request.post('/api/schedules', {
    data: { name, cron: '0 2 * * 1-5', timezone: 'Europe/Berlin', command: 'demo.echo', payload: { a: 1 }, enabled: false },
  });
  expect(created.status(), await created.text()).toBe(201);
  expect(await created.json()).toMatchObject({ name, description: 'At 02:00, Monday through Friday', enabled: false, nextFires: [] });
  expect((await request.post('/api/schedules', { data: { name, cron: '* * * * *', command: 'demo.echo' } })).status()).toBe(409);

  const patched = await request.patch(`/api/schedules/${name}`, { data: { enabled: true, misfire: 'run_once' } });
  expect(patched.status(), await patched.text()).toBe(200);
  const s = (await patched.json()) as ScheduleJson & { misfire: string };
  expect(s).toMatchObject({ enabled: true, misfire: 'run_once' });
  expect(s.nextFires).toHaveLength(5);
  expect(s.nextFireAt).toBe(s.nextFires[0]);
  expect((await request.patch(`/api/schedules/${name}`, { data: { cron: 'nope' } })).status()).toBe(400);

  const ran = await request.post(`/api/schedules/${name}/run`);
  expect(ran.status()).toBe(201);
  const { token } = (await ran.json()) as { token: string };
  const task = await (await request.get(`/api/tasks/${token}`)).json();
  expect(task.schedule).toMatchObject({ name, manual: true });
  const shown = (await (await request.get(`/api/schedules/${name}`)).json()) as ScheduleJson;
  expect(shown.recent[0]).toMatchObject({ token, manual: true });
  expect((await request.get('/api/schedules')).status()).toBe(200);

  expect((await request.delete(`/api/schedules/${name}`)).status()).toBe(200);
  expect((await request.get(`/api/schedules/${name}`)).status()).toBe(404);
  expect((await request.post(`/api/schedules/${name}/run`)).status()).toBe(404);
});

test('create a schedule in the UI, see it fire, pause it, run it now, delete it', async ({ page, request }) => {
  const name = unique('ui-sched');
  await page.goto('/schedules');
  await expect(page.getByRole('heading', { name: 'Schedules', level: 1 })).toBeVisible();
  await page.getByTestId('schedule-new').click();
  const form = page.getByTestId('schedule-form');
  await form.getByTestId('schedule-name').fill(name);

  // the expression is checked as you type, and the preview follows it
  await form.getByTestId('schedule-cron').fill('* * *');
  await expect(form.getByTestId('schedule-cron-error')).toContainText('has 3 fields');
  await expect(form.getByTestId('schedule-save')).toBeDisabled();
  await form.getByTestId('schedule-tz').fill('Mars/Base');
  await expect(form.getByTestId('schedule-tz-error')).toContainText('not an IANA time zone');
  await form.getByTestId('schedule-tz').fill('Europe/Berlin');
  await form.getByTestId('schedule-cron').fill('0 2 * * 1-5');
  await expect(form.getByTestId('schedule-words')).toHaveText('At 02:00, Monday through Friday');
  await expect(form.getByTestId('schedule-next-fires').locator('li')).toHaveCount(5);
  await expect(form.getByTestId('schedule-next-fires').locator('li').first()).toContainText('02:00:00');
  await form.getByTestId('schedule-cron').fill('*/2 * * * * *');
  await expect(form.getByTestId('schedule-words')).toHaveText('Every 2 seconds');
  await expect(form.getByTestId('schedule-cron-error')).toHaveCount(0);
  await form.getByTestId('schedule-command').selectOption('demo.echo');
  await form.getByTestId('schedule-payload').fill('{"from": "the browser"}');
  await form.getByTestId('schedule-save').click();
  await expect(form).toHaveCount(0);

  // it fires: a succeeded fire shows in its outcome strip
  const r = row(page, name);
  await expect(r).toHaveAttribute('data-enabled', 'true');
  await expect(r.getByTestId('schedule-description')).toHaveText('Every 2 seconds');
  await expect(r.getByTestId('schedule-countdown')).toContainText(/in \d s|due now/);
  await expect(r.locator('[data-testid="outcome"][data-status="succeeded"]').first()).toBeVisible({ timeout: 20_000 });

  // pause: no more fires
  await r.getByTestId('schedule-switch').click();
  await expect(r).toHaveAttribute('data-enabled', 'false');
  await expect(r.getByTestId('schedule-next')).toHaveCount(0);
  const fires = async () => ((await (await request.get(`/api/schedules/${name}`)).json()) as ScheduleJson).recent;
  const atPause = (await fires()).length;
  await page.waitForTimeout(3_000);
  expect((await fires()).length).toBe(atPause);

  // run now: exactly one more fire, marked manual, while paused
  await r.getByTestId('schedule-run').click();
  await expect(r.getByTestId('schedule-last')).toContainText('manual');
  await expect.poll(async () => (await fires()).length).toBe(atPause + 1);
  const manual = (await fires())[0]!;
  expect(manual.manual).toBe(true);
  await expect.poll(async () => (await (await request.get(`/api/tasks/${manual.token}`)).json()).status).toBe('succeeded');

  // history: the tasks it fired, linked
  await r.getByTestId('schedule-history').click();
  const history = page.getByTestId('schedule-history-card');
  await expect(history).toContainText(`History of ${name}`);
  await expect(history.getByTestId('history-token').first()).toHaveAttribute('href', `/tasks/${manual.token}`);

  // delete, with a confirmation
  await r.getByTestId('schedule-delete').click();
  await page.getByTestId('confirm-ok').click();
  await expect(row(page, name)).toHaveCount(0);
  expect((await request.get(`/api/schedules/${name}`)).status()).toBe(404);
});

test('the page at 1280 and 390 px, and the Overview’s next fires', async ({ page, request }, info) => {
  const names = [unique('nightly-rollup'), unique('flaky-import'), unique('heartbeat')];
  const bodies = [
    { name: names[0], cron: '0 2 * * 1-5', timezone: 'Europe/Berlin', command: 'demo.echo', queue: 'etl' },
    { name: names[1], cron: '*/3 * * * * *', command: 'demo.fail', payload: { message: 'upstream timed out' }, maxAttempts: 1 },
    { name: names[2], cron: '* * * * * *', command: 'demo.echo', overlap: 'skip_if_running' },
  ];
  for (const data of bodies) expect((await request.post('/api/schedules', { data })).status()).toBe(201);
  await page.goto('/schedules');
  for (const n of names) await expect(row(page, n)).toBeVisible();
  await expect(row(page, names[2]!).locator('[data-testid="outcome"][data-status="succeeded"]').nth(3)).toBeVisible({ timeout: 20_000 });
  await expect(row(page, names[1]!).locator('[data-testid="outcome"][data-status="dead"]').first()).toBeVisible({ timeout: 20_000 });
  await row(page, names[1]!).getByTestId('schedule-switch').click();
  await expect(row(page, names[1]!)).toHaveAttribute('data-enabled', 'false');
  await page.screenshot({ path: info.outputPath('schedules-1280.png'), fullPage: true });

  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto('/schedules');
  await expect(row(page, names[0]!)).toBeVisible();
  await page.screenshot({ path: info.outputPath('schedules-390.png'), fullPage: true });

  await page.setViewportSize({ width: 1280, height: 900 });
  await page.getByTestId('schedule-new').click();
  await page.getByTestId('schedule-cron').fill('30 2 * * *');
  await page.getByTestId('schedule-tz').fill('America/New_York');
  await expect(page.getByTestId('schedule-words')).toHaveText('At 02:30');
  await page.getByTestId('schedule-form').screenshot({ path: info.outputPath('schedule-form-1280.png') });

  await page.goto('/');
  const next = page.getByTestId('next-fires');
  await expect(next).toBeVisible();
  await expect(next.getByTestId('next-fire').first()).toContainText(names[2]!);
  await next.screenshot({ path: info.outputPath('overview-next-fires.png') });

  for (const n of names) await request.delete(`/api/schedules/${n}`);
});
