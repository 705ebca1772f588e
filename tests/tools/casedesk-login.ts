// Logging in to CASEDESK as its demo clerk, the way a person does: the header's "Log in", the dialog's two fields, the
// dialog's "Log in", then the status line saying so. Shared by the CASEDESK tests and the walker bench.
import type { Page } from 'playwright-core';
import { DEMO_PASSWORD } from '../../demo/casedesk/server.ts';

export async function logInAsClerk(page: Page, deskUrl: string): Promise<void> {
  await page.goto(`${deskUrl}/`);
  // Two "Log in" buttons once the dialog is open: the header's and the dialog's.
  await page.getByRole('button', { name: 'Log in' }).click();
  const dialog = page.getByRole('dialog', { name: 'Log in' });
  await dialog.getByLabel('User name').fill('clerk');
  await dialog.getByLabel('Password').fill(DEMO_PASSWORD);
  await dialog.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('status').filter({ hasText: 'Logged in as clerk' }).waitFor();
}
