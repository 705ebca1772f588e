// The menu a model sees for PLUMBLINE's sign-on and member screens, live, matches the reviewed golden files.
// The test only compares: `npm run golden:update` rewrites tests/fixtures/plumbline-*.{menu.txt,observation.json}
// from the live bank and prints the diff.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { test, expect } from '@playwright/test';
import { startBank } from '../../demo/plumbline/server.ts';
import { GOLDEN, menuText, walkPlumbline } from '../tools/golden.ts';

test('sign-on and member menus match their golden files', async ({ page }) => {
  const password = randomBytes(9).toString('base64url');
  const bank = await startBank({ port: 0, operatorPassword: password });
  try {
    const seen: string[] = [];
    await walkPlumbline(page, bank.url, password, async (screen, obs) => {
      seen.push(screen);
      expect(menuText(obs), `${screen} menu (regenerate: npm run golden:update)`).toBe(await readFile(GOLDEN.menu(screen), 'utf8'));
    });
    expect(seen).toEqual(['signon', 'member']);
  } finally {
    await bank.close();
  }
});
