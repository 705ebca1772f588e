// CASEDESK, driven as a clerk drives it, in real Chromium: the four tasks its capabilities are for — add with Enter,
// rename by double-click, assign through the custom combobox, close through the modal confirm — each confirmed by
// the judge, with the server answering after random delays and a spinner while it does.
import { expect, test } from '@playwright/test';
import type { Desk } from '../../demo/casedesk/server.ts';
import { logInAsClerk } from '../tools/casedesk-login.ts';
import { deskScene, judgeAdded, judgeCase } from './support/desk.ts';

let desk: Desk;
deskScene({}, (s) => ({ app: desk } = s));

const judge = (id: string) => judgeCase(desk, id);

test('a clerk adds, renames, assigns and closes cases; each write reaches the store once', async ({ page }) => {
  await logInAsClerk(page, desk.url);
  await expect(page.getByRole('status')).toHaveText('Logged in as clerk');
  const cases = page.getByRole('region', { name: 'Cases' });
  await expect(cases.getByRole('listitem')).toHaveCount(4);

  // Add with Enter: no button to press.
  await cases.getByLabel('New case').fill('Burst pipe in a top-floor flat');
  await expect(page.getByRole('progressbar', { name: 'Loading' })).toBeHidden();
  await cases.getByLabel('New case').press('Enter');
  await expect(page.getByRole('progressbar', { name: 'Loading' })).toBeVisible();
  await expect(page.getByRole('status')).toHaveText('Added case C-1005: Burst pipe in a top-floor flat');
  expect((await judgeAdded(desk, 'Burst pipe in a top-floor flat')).presses).toBe(1);
  // The desk says "Added" and then reloads its list after its delay: a person waits for the list, or the reload
  // wipes the editor a double-click opened.
  await expect(cases.getByRole('listitem')).toHaveCount(5);
  await expect(page.getByRole('progressbar', { name: 'Loading' })).toBeHidden();

  // Rename by double-click on the title, Enter to save.
  const row = cases.getByRole('listitem').filter({ hasText: 'C-1001' });
  await row.getByText('Water damage, 14 Elm Street').dblclick();
  await row.getByRole('textbox', { name: 'Case title' }).fill('Water damage, 16 Elm Street');
  await row.getByRole('textbox', { name: 'Case title' }).press('Enter');
  await expect(page.getByRole('status')).toHaveText('Renamed C-1001 to Water damage, 16 Elm Street');
  expect((await judge('C-1001')).case.title).toBe('Water damage, 16 Elm Street');

  // The row's actions are icon-only and appear on hover.
  const assignIcon = cases.getByRole('listitem').filter({ hasText: 'C-1003' }).getByRole('button', { name: 'Assign case' });
  await expect(assignIcon).toBeHidden();
  await cases.getByRole('listitem').filter({ hasText: 'C-1003' }).hover();
  await assignIcon.click();
  const panel = page.getByRole('region', { name: /Assign C-1003/ });
  await panel.getByRole('combobox', { name: 'Assignee' }).click();
  await panel.getByRole('option', { name: 'Dana Kowalski' }).click();
  await expect(panel.getByRole('combobox', { name: 'Assignee' })).toHaveValue('Dana Kowalski');
  await panel.getByRole('button', { name: 'Assign' }).click();
  await expect(page.getByRole('status')).toHaveText('Assigned C-1003 to Dana Kowalski');
  expect(await judge('C-1003')).toMatchObject({ case: { assignee: 'Dana Kowalski' }, writes: { assigns: 1 } });
  // The list reloads after an assign too: a person waits for it, or the row hovered below is replaced under the mouse.
  await expect(page.getByRole('progressbar', { name: 'Loading' })).toBeHidden();

  // Close through the modal: the page behind it is inert while it is open.
  const row2 = cases.getByRole('listitem').filter({ hasText: 'C-1002' });
  await row2.hover();
  await row2.getByRole('button', { name: 'Close case' }).click();
  const confirm = page.getByRole('dialog', { name: 'Close this case?' });
  await expect(confirm).toBeVisible();
  await expect(page.getByRole('button', { name: 'Close case' })).toHaveCount(1); // only the dialog's: the rows are inert
  await confirm.getByRole('button', { name: 'Close case' }).click();
  await expect(page.getByRole('status')).toHaveText('Closed C-1002');
  expect(await judge('C-1002')).toMatchObject({ case: { status: 'closed' }, writes: { closes: 1 } });
  // A closed case offers no actions.
  await cases.getByRole('listitem').filter({ hasText: 'C-1002' }).hover();
  await expect(cases.getByRole('listitem').filter({ hasText: 'C-1002' }).getByRole('button')).toHaveCount(0);
});
