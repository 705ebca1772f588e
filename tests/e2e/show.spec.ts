// What a reviewer sees opening `handrail show --html` of the PLUMBLINE card in Chromium: the approval and its hash,
// the secret input marked, the one commit highlighted among the steps, and the marks of the screens after it.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, test } from '@playwright/test';
import { contentHash } from '../../runner/approval.ts';
import { readCard } from '../../runner/cli/replay.ts';
import { handrail } from './support/cli.ts';

let scratch: string;
test.beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'handrail-show-e2e-'));
});
test.afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

test('the card page shows approval, hash, the secret, the commit and the marks', async ({ browser }) => {
  const loaded = await readCard('capabilities/plumbline-place-hold.json');
  if (!loaded.ok) throw new Error(loaded.message);
  const out = join(scratch, 'card.html');
  const ran = await handrail(['show', 'capabilities/plumbline-place-hold.json', '--html', out], process.env);
  expect(ran.code, ran.stderr).toBe(0);
  const page = await browser.newPage();
  const fetched: string[] = [];
  page.on('request', (r) => void (r.url().startsWith('file:') || fetched.push(r.url())));
  await page.goto(pathToFileURL(out).href);
  await expect(page.locator('h1')).toContainText('plumbline_place_hold');
  await expect(page.locator('.approval')).toContainText('approved by Handrail maintainers for exactly this content');
  await expect(page.locator('.approval')).toContainText(contentHash(loaded.card));
  await expect(page.locator('table.inputs tr.secret')).toHaveCount(1);
  await expect(page.locator('table.inputs tr.secret')).toContainText('password');
  const steps = page.locator('table.steps tbody tr');
  await expect(steps).toHaveCount(loaded.card.steps.length);
  const commit = page.locator('table.steps tr.commit');
  await expect(commit).toHaveCount(1);
  await expect(commit).toContainText("Post the hold: Press button 'F10=Post Hold' in frame 'work'");
  await expect(commit).toContainText('Handrail maintainers (hand-written card)');
  // Highlighted: the commit row's cells are not the plain rows' white.
  const bg = (row: ReturnType<typeof page.locator>): Promise<string> => row.locator('td').first().evaluate((td) => getComputedStyle(td).backgroundColor);
  expect(await bg(commit)).not.toBe(await bg(steps.first()));
  await expect(page.locator('table.screens tr.marked')).toHaveCount(2);
  await expect(page.locator('table.screens tr.marked').first()).toContainText("work>strong 'HOLD POSTED CONFIRMATION HX-#'");
  expect(fetched).toEqual([]);
  await page.close();
});
