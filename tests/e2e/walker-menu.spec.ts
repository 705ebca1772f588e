// The menu a model sees for PLUMBLINE's sign-on and member screens, live, matches the reviewed golden files.
// UPDATE_GOLDEN=1 rewrites tests/fixtures/plumbline-*.{menu.txt,observation.json} from the live bank.
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { test, expect, type Page } from '@playwright/test';
import { observePage } from '../../runner/browser/observe.ts';
import { buildMenu, renderMenu } from '../../shared/menu.ts';
import type { Observation } from '../../shared/schema/observation.ts';
import { startBank } from '../../demo/plumbline/server.ts';

const FIXTURES = new URL('../fixtures/', import.meta.url);
const UPDATE = process.env['UPDATE_GOLDEN'] === '1';

/** Ports change every run: golden observations name the bank by a fixed origin. */
function portable(obs: Observation, origin: string): Observation {
  return JSON.parse(JSON.stringify(obs).replaceAll(origin, 'http://plumbline.test')) as Observation;
}

async function golden(page: Page, name: string, origin: string): Promise<void> {
  const obs = portable(await observePage(page), origin);
  const menu = `${renderMenu(buildMenu(obs))}\n`;
  if (UPDATE) {
    await writeFile(new URL(`plumbline-${name}.menu.txt`, FIXTURES), menu);
    await writeFile(new URL(`plumbline-${name}.observation.json`, FIXTURES), `${JSON.stringify(obs, null, 2)}\n`);
  }
  expect(menu).toBe(await readFile(new URL(`plumbline-${name}.menu.txt`, FIXTURES), 'utf8'));
}

test('sign-on and member menus match their golden files', async ({ page }) => {
  const password = randomBytes(9).toString('base64url');
  const bank = await startBank({ port: 0, operatorPassword: password });
  try {
    await page.goto(`${bank.url}/signon`);
    await golden(page, 'signon', bank.url);
    await page.locator('input[name=opid]').fill('OP1001');
    await page.locator('input[name=pwd]').fill(password);
    await page.getByRole('button', { name: 'F5=Sign On' }).click();
    await page.waitForURL(/\/desk/);
    await expect.poll(() => page.frame({ name: 'work' })?.url() ?? '').toMatch(/\/inquiry/);
    const work = page.frame({ name: 'work' })!;
    await work.goto(`${bank.url}/member?m=400118`);
    await page.frame({ name: 'nav' })!.waitForLoadState();
    await golden(page, 'member', bank.url);
  } finally {
    await bank.close();
  }
});
