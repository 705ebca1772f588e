// A PLUMBLINE screen keeps its signature whatever data it shows, different screens never share one, a banner is still the same room and a rewritten page is not.
import { randomBytes } from 'node:crypto';
import { test, expect, type Frame, type Page } from '@playwright/test';
import { observePage } from '../../runner/browser/observe.ts';
import { jaccard, SIMILAR_THRESHOLD } from '../../shared/screens.ts';
import type { Observation } from '../../shared/schema/observation.ts';
import { startBank, type Bank } from '../../demo/plumbline/server.ts';

const work = (page: Page): Frame => {
  const f = page.frame({ name: 'work' });
  if (!f) throw new Error('no work frame');
  return f;
};

async function signOn(page: Page, bank: Bank, password: string, drift?: string): Promise<void> {
  await page.goto(`${bank.url}/signon${drift ? `?drift=${drift}` : ''}`);
  await page.locator('input[name=opid]').fill('OP1001');
  await page.locator('input[name=pwd]').fill(password);
  await page.getByRole('button', { name: 'F5=Sign On' }).click();
  await page.waitForURL(/\/desk/);
  await expect.poll(() => page.frame({ name: 'work' })?.url() ?? '').toMatch(/\/inquiry/);
  await work(page).waitForLoadState();
  await page.frame({ name: 'nav' })?.waitForLoadState();
}

async function search(page: Page, by: 'Member Number' | 'Name', value: string): Promise<void> {
  await work(page).locator('select[name=by]').selectOption({ label: by });
  await work(page).locator('input[name=value]').fill(value);
  await work(page).getByRole('button', { name: 'F5=Search' }).click();
  await work(page).waitForURL(/\/results/);
}

async function openMember(page: Page, number: string): Promise<void> {
  await work(page).goto(`${new URL(work(page).url()).origin}/inquiry`);
  await search(page, 'Member Number', number);
  await work(page).getByRole('link', { name: number, exact: true }).click();
  await work(page).waitForURL(/\/member/);
}

async function holdForm(page: Page, member: string, share: string): Promise<void> {
  await openMember(page, member);
  await work(page).locator('tr', { hasText: share }).getByRole('link', { name: 'Hold' }).click();
  await work(page).waitForURL(/\/hold/);
}

async function review(page: Page, reason: string): Promise<void> {
  await work(page).locator('select[name=reason]').selectOption(reason);
  await work(page).getByRole('button', { name: 'F8=Review' }).click();
  await work(page).waitForURL(/\/review/);
}

async function postHold(page: Page, member: string, share: string): Promise<void> {
  await holdForm(page, member, share);
  await review(page, 'FRAUD_REVIEW');
  await work(page).getByRole('button', { name: 'F10=Post Hold' }).click();
  await work(page).waitForURL(/\/post/);
  await work(page).locator('b').first().waitFor();
}

test('PLUMBLINE signatures: stable over data, distinct over screens, tolerant of a banner, not of a rewrite', async ({ page }) => {
  const password = randomBytes(9).toString('base64url');
  const bank = await startBank({ port: 0, operatorPassword: password });
  const seen: Record<string, Observation> = {};
  const snap = async (label: string) => {
    seen[label] = await observePage(page);
  };
  try {
    await page.goto(`${bank.url}/signon`);
    await snap('signon');
    await page.goto(`${bank.url}/signon?drift=banner`);
    await snap('signon+banner');
    await page.goto(`${bank.url}/signon?drift=none`);
    await snap('signon again');

    await signOn(page, bank, password);
    await snap('inquiry');
    await search(page, 'Member Number', '400118');
    await snap('results (1 row)');
    await work(page).goto(`${bank.url}/inquiry`);
    await search(page, 'Name', 'A');
    await snap('results (many rows)');
    await openMember(page, '400118');
    await snap('member 400118 (2 shares)');
    await openMember(page, '400226');
    await snap('member 400226 (1 share)');
    await holdForm(page, '400118', '400118-S0001');
    await snap('hold form S0001');
    await holdForm(page, '400118', '400118-S0005');
    await snap('hold form S0005');
    await review(page, 'LEGAL');
    await snap('review');
    await postHold(page, '400118', '400118-S0001');
    await snap('result');
    await postHold(page, '400337', '400337-S0001');
    await snap('result, another confirmation');
    await postHold(page, '400226', '400226-S0002');
    await snap('already held');

    await page.context().clearCookies();
    await signOn(page, bank, password, 'rewrite');
    await postHold(page, '400445', '400445-S0001');
    await snap('result, rewritten');
  } finally {
    await bank.close();
  }
  const sig = (k: string) => seen[k]!.signature;
  const paths = (k: string) => seen[k]!.paths;

  // The same screen with other data has the same path set.
  expect(paths('signon again')).toEqual(paths('signon'));
  expect(paths('results (many rows)')).toEqual(paths('results (1 row)'));
  expect(paths('member 400226 (1 share)')).toEqual(paths('member 400118 (2 shares)'));
  expect(paths('hold form S0005')).toEqual(paths('hold form S0001'));
  expect(paths('result, another confirmation')).toEqual(paths('result'));

  // Different screens have different signatures.
  const distinct = ['signon', 'inquiry', 'results (1 row)', 'member 400118 (2 shares)', 'hold form S0001', 'review', 'result', 'already held'];
  expect(new Set(distinct.map(sig)).size).toBe(distinct.length);

  // A banner keeps the room; a rewritten result page is another room.
  const banner = jaccard(paths('signon+banner'), paths('signon'));
  expect(sig('signon+banner')).not.toBe(sig('signon'));
  expect(banner).toBeGreaterThanOrEqual(SIMILAR_THRESHOLD);
  const rewrite = jaccard(paths('result, rewritten'), paths('result'));
  expect(rewrite).toBeLessThan(0.5);
  console.log(`banner jaccard ${banner.toFixed(3)}, rewrite jaccard ${rewrite.toFixed(3)}`);
});
