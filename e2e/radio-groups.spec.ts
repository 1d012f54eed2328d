import { expect, test, type Page } from '@playwright/test';
import { login } from './helpers/auth.ts';

// A radio group is one Tab stop (the checked radio) and the arrow keys move the choice, as the WAI-ARIA radio group
// pattern has it: the job form's Schedule kind and the top bar's theme switch.

const checkedName = (page: Page, group: string) => page.getByRole('radiogroup', { name: group }).locator('[role="radio"][aria-checked="true"]');

/**
 * Presses an arrow key as a person does, held for a moment: Radix moves the focus on the next task after the keydown
 * and chooses the radio the focus lands on while the key is down, which a keyup sent at once can beat.
 */
async function arrow(page: Page, key: 'ArrowLeft' | 'ArrowRight'): Promise<void> {
  await page.keyboard.down(key);
  await page.waitForTimeout(80);
  await page.keyboard.up(key);
}

const focusedRole = (page: Page) => page.evaluate(() => document.activeElement?.getAttribute('role'));

test.beforeEach(async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await login(page);
});

test('Schedule kind: one Tab stop on the checked kind, arrows move and choose, Tab leaves the group', async ({ page }) => {
  await page.goto('/jobs/new');
  const group = page.getByRole('radiogroup', { name: 'Schedule kind' });
  await expect(checkedName(page, 'Schedule kind')).toHaveText('Cron');
  await group.getByRole('radio', { name: 'Cron' }).click();
  await expect(group.getByRole('radio', { name: 'Cron' })).toBeFocused();
  await arrow(page, 'ArrowRight');
  await expect(group.getByRole('radio', { name: 'Interval' })).toBeFocused();
  await expect(group.getByRole('radio', { name: 'Interval' })).toHaveAttribute('aria-checked', 'true');
  await expect(page.getByLabel('Interval (seconds)')).toBeVisible();
  await arrow(page, 'ArrowLeft');
  await expect(group.getByRole('radio', { name: 'Cron' })).toHaveAttribute('aria-checked', 'true');
  await arrow(page, 'ArrowLeft');
  await expect(group.getByRole('radio', { name: 'Manual' })).toHaveAttribute('aria-checked', 'true');
  await expect(group.getByRole('radio', { name: 'Manual' })).toBeFocused();
  // one Tab stop: the next Tab leaves the group; Shift+Tab comes back to the checked radio
  await page.keyboard.press('Tab');
  expect(await focusedRole(page)).not.toBe('radio');
  await page.keyboard.press('Shift+Tab');
  await expect(group.getByRole('radio', { name: 'Manual' })).toBeFocused();
});

test('Theme: one Tab stop on the checked theme, arrows switch the theme', async ({ page }) => {
  await page.goto('/');
  const group = page.getByRole('radiogroup', { name: 'Theme' });
  const checked = group.locator('[role="radio"][aria-checked="true"]');
  await expect(checked).toHaveCount(1);
  await group.getByRole('radio', { name: 'Light theme' }).click();
  await expect(group.getByRole('radio', { name: 'Light theme' })).toBeFocused();
  await arrow(page, 'ArrowRight');
  await expect(group.getByRole('radio', { name: 'Dark theme' })).toBeFocused();
  await expect(group.getByRole('radio', { name: 'Dark theme' })).toHaveAttribute('aria-checked', 'true');
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await arrow(page, 'ArrowLeft');
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  // one Tab stop: Tab and Shift+Tab leave the group from the checked theme, and Tab comes back to it
  await page.keyboard.press('Shift+Tab');
  expect(await focusedRole(page)).not.toBe('radio');
  await page.keyboard.press('Tab');
  await expect(group.getByRole('radio', { name: 'Light theme' })).toBeFocused();
  await page.keyboard.press('Tab');
  expect(await focusedRole(page)).not.toBe('radio');
});
