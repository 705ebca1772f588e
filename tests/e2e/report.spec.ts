// What a reviewer sees when opening `handrail report` of a real PLUMBLINE run in Chromium: the word, every step with
// its screen and rung, the commit marked, each screenshot rendered, the verdict — and the page fetches nothing.
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, test } from '@playwright/test';
import { startBank, type Bank } from '../../demo/plumbline/server.ts';
import { BrowserSurface } from '../../runner/browser/surface.ts';
import { readCard } from '../../runner/cli/replay.ts';
import { renderReport } from '../../runner/report.ts';
import { runCapability } from '../../runner/run.ts';
import { bankScene } from './support/bank.ts';
import { handrail } from './support/cli.ts';

const PASSWORD = `pw-${randomBytes(6).toString('hex')}`;
let bank: Bank;
let scratch: string;

bankScene({ scratch: 'handrail-report-e2e-', operatorPassword: PASSWORD }, (s) => ({ app: bank, scratch } = s));

test('the report of a real run shows the word, the steps, the screenshots and the verdict', async ({ browser }) => {
  const loaded = await readCard('capabilities/plumbline-place-hold.json');
  if (!loaded.ok) throw new Error(loaded.message);
  const evidenceDir = join(scratch, 'ev');
  const result = await runCapability({
    card: loaded.card,
    inputs: { operator_id: 'OP1001', password: PASSWORD, member_number: '400118', share_id: '400118-S0005', reason: 'LEGAL' },
    env: { BASE_URL: bank.url },
    surface: () => BrowserSurface.launch({ browser }),
    evidenceDir,
    settleTimeoutMs: 5_000,
  });
  expect(result.word).toBe('SUCCESS');
  const report = await renderReport(evidenceDir, { head: result.evidence_head ?? '' });
  expect(report.html).not.toContain(PASSWORD);
  const file = join(scratch, 'report.html');
  await writeFile(file, report.html);

  const page = await browser.newPage();
  const fetched: string[] = [];
  page.on('request', (r) => void (r.url().startsWith('file:') || r.url().startsWith('data:') || fetched.push(r.url())));
  await page.goto(pathToFileURL(file).href);
  await expect(page.locator('.word')).toHaveText('SUCCESS');
  await expect(page.locator('.verdict')).toContainText('Evidence chain intact');
  await expect(page.locator('.verdict')).toContainText('anchored by head');
  const steps = page.locator('h2:has-text("Steps") + table tbody tr');
  await expect(steps).toHaveCount(loaded.card.steps.length);
  await expect(page.locator('tr.commit')).toContainText("button 'F10=Post Hold'");
  const images = page.locator('figure img');
  expect(await images.count()).toBeGreaterThan(0);
  for (const img of await images.all()) expect(await img.evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth > 0)).toBe(true);
  expect(fetched).toEqual([]);
  await page.close();
});

test('the index over several real runs: a reviewer sees the counts, every run, and reaches each run\'s page', async ({ browser }) => {
  const loaded = await readCard('capabilities/plumbline-place-hold.json');
  if (!loaded.ok) throw new Error(loaded.message);
  const root = join(scratch, 'runs');
  const words: string[] = [];
  // Two shares held, then the first again: the bank says it is already held (a business outcome, not an error).
  for (const [i, [member, share]] of [['400337', '400337-S0001'], ['400445', '400445-S0001'], ['400337', '400337-S0001']].entries()) {
    const result = await runCapability({
      card: loaded.card,
      inputs: { operator_id: 'OP1001', password: PASSWORD, member_number: member ?? '', share_id: share ?? '', reason: 'LEGAL' },
      env: { BASE_URL: bank.url },
      surface: () => BrowserSurface.launch({ browser }),
      evidenceDir: join(root, `run-${i + 1}`),
      settleTimeoutMs: 5_000,
    });
    words.push(result.word);
  }
  // A fourth run against a bank whose result page was rewritten: the commit lands on a screen nobody declared.
  const drifted = await startBank({ port: 0, operatorPassword: PASSWORD, drift: 'rewrite' });
  try {
    const result = await runCapability({
      card: loaded.card,
      inputs: { operator_id: 'OP1001', password: PASSWORD, member_number: '400118', share_id: '400118-S0005', reason: 'LEGAL' },
      env: { BASE_URL: drifted.url },
      surface: () => BrowserSurface.launch({ browser }),
      evidenceDir: join(root, 'run-4'),
      settleTimeoutMs: 5_000,
      quietMs: 300,
    });
    words.push(result.word);
  } finally {
    await drifted.close();
  }
  expect(words).toEqual(['SUCCESS', 'SUCCESS', 'BUSINESS_OUTCOME', 'UNSAFE_TO_RETRY']);
  const ran = await handrail(['report', root], { ...process.env, HANDRAIL_HOME: join(scratch, 'home'), HANDRAIL_SECRET_PASSWORD: PASSWORD });
  expect(ran.code).toBe(0);
  expect(ran.stdout.trim()).toBe(`${root}.html`);

  const page = await browser.newPage();
  const fetched: string[] = [];
  page.on('request', (r) => void (r.url().startsWith('file:') || r.url().startsWith('data:') || fetched.push(r.url())));
  await page.goto(pathToFileURL(`${root}.html`).href);
  await expect(page.locator('#totals')).toHaveText('4 runs · every evidence log verifies · 1 with drift');
  const counts = page.locator('table.words tbody tr');
  await expect(counts).toHaveText(['SUCCESS2', 'BUSINESS_OUTCOME1', 'UNSAFE_TO_RETRY1']);
  const rows = page.locator('table.runs tbody tr');
  await expect(rows).toHaveCount(4);
  await expect(rows.nth(2)).toContainText('BUSINESS_OUTCOME');
  await expect(page.locator('table.runs tr.drift')).toHaveCount(1);
  await expect(page.locator('table.runs tr.drift')).toContainText('UNSAFE_TO_RETRY');
  await expect(page.locator('table.runs tr.drift td').last()).toContainText('screen not recognised after post_hold');
  for (const row of await rows.all()) await expect(row.locator('td').nth(6)).toHaveText('intact, unanchored');
  expect(await page.content()).not.toContain(PASSWORD);
  // Follow a run's link to its page and back.
  await rows.nth(0).locator('a').click();
  await expect(page.locator('.word')).toHaveText('SUCCESS');
  await expect(page.locator('tr.commit')).toContainText("button 'F10=Post Hold'");
  await page.locator('nav a').click();
  await expect(page.locator('table.runs tbody tr')).toHaveCount(4);
  expect(fetched).toEqual([]);
  await page.close();
});
