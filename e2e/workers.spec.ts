// Resizing this process's pool on the Workers page changes the workers it shows.
import { expect, test } from '@playwright/test';

test.afterEach(async ({ request }) => {
  await request.patch('/api/pool', { data: { workers: 4 } });
});

test('changing the pool size changes the number of workers shown', async ({ page }) => {
  await page.goto('/workers');
  const self = page.getByTestId('process-self');
  await expect(self).toBeVisible();
  const running = self.locator('[data-testid="worker-row"][data-state="running"]');
  await expect(running).toHaveCount(4);
  await expect(self.getByTestId('worker-session').first()).toHaveText(/^\d+/);
  await expect(self.getByTestId('pool-size-input')).toHaveValue('4');

  await self.getByTestId('pool-size-input').fill('2');
  await self.getByTestId('pool-size-apply').click();
  // a shrink is confirmed with how many workers leave
  await expect(page.getByTestId('confirm-dialog')).toContainText('2 workers of 4 leave');
  await page.getByTestId('confirm-ok').click();
  await expect(page.getByTestId('toast-success')).toContainText('Pool resized to 2 workers');
  await expect(running).toHaveCount(2);
  await expect(self.getByTestId('process-summary')).toContainText('2 running workers');

  await self.getByTestId('pool-size-input').fill('6');
  await self.getByTestId('pool-size-apply').click();
  await expect(running).toHaveCount(6);
  await expect(page.getByTestId('nav-workers')).toContainText('6');
});
