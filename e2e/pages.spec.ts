// Every page renders without script errors at desktop and phone widths; the phone menu navigates;
// an unknown token has its own "no such task" state.
import { expect, test, type Page } from '@playwright/test';

const PAGES = [
  ['/', 'Overview'],
  ['/running', 'Running'],
  ['/log', 'Execution log'],
  ['/failed', 'Failed & poison'],
  ['/workers', 'Workers'],
  ['/schedules', 'Schedules'],
  ['/enqueue', 'Enqueue'],
] as const;

function collectErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  return errors;
}

test('every page renders its heading and no script errors at 1280 px', async ({ page }) => {
  const errors = collectErrors(page);
  for (const [path, title] of PAGES) {
    await page.goto(path);
    await expect(page.getByRole('heading', { level: 1, name: title })).toBeVisible();
    await expect(page.getByTestId('loading')).toHaveCount(0);
    await expect(page.getByTestId('error')).toHaveCount(0);
  }
  expect(errors).toEqual([]);
});

test('at 390 px every page fits the width and the menu navigates', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const errors = collectErrors(page);
  for (const [path, title] of PAGES) {
    await page.goto(path);
    await expect(page.getByRole('heading', { level: 1, name: title })).toBeVisible();
    await expect(page.getByTestId('loading')).toHaveCount(0);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, `${path} scrolls sideways`).toBeLessThanOrEqual(0);
  }
  await page.goto('/');
  await page.getByTestId('nav-menu').click();
  await page.locator('#mobile-nav').getByTestId('nav-workers').click();
  await expect(page).toHaveURL(/\/workers$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Workers' })).toBeVisible();
  await expect(page.locator('#mobile-nav')).toHaveCount(0);
  expect(errors).toEqual([]);
});

test('an unknown token shows "no such task"', async ({ page }) => {
  await page.goto('/tasks/00000000-0000-4000-8000-000000000000');
  await expect(page.getByTestId('task-not-found')).toBeVisible();
  await expect(page.getByTestId('task-not-found')).toContainText('no task with token');
});
