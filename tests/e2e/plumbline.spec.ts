// A clerk in a real Chromium signs on to PLUMBLINE, finds a member and places a hold; the bank's judge (never the screen) confirms it, and each drift switch changes only what it should.
import { test, expect, type Frame, type Page } from '@playwright/test';
import { startBank, type Bank, type Drift } from '../../demo/plumbline/server.ts';
import { bankScene } from './support/bank.ts';

const PASSWORD = 'e2e-only-pw';
const CONFIRMATION = /HX-\d{6}/;

let bank: Bank;

bankScene({ operatorPassword: PASSWORD }, (s) => ({ app: bank } = s));
test.beforeEach(async () => {
  const r = await fetch(`${bank.url}/_judge/reset`, { method: 'POST' });
  expect(await r.json()).toEqual({ ok: true });
});

async function judge(share: string, base = bank.url): Promise<unknown> {
  return (await fetch(`${base}/_judge/holds/${share}`)).json();
}

async function signOn(page: Page, base: string, drift?: Drift): Promise<Frame> {
  await page.goto(drift ? `${base}/signon?drift=${drift}` : `${base}/signon`);
  await page.locator('input[name=opid]').fill('OP1001');
  await page.locator('input[name=pwd]').fill(PASSWORD);
  await page.locator('select[name=branch]').selectOption('02');
  await page.getByRole('button', { name: 'F5=Sign On' }).click();
  await page.waitForURL('**/desk');
  const work = page.frame({ name: 'work' });
  if (!work) throw new Error('the desk has no work frame');
  await expect(work.getByText('MEMBER INQUIRY').first()).toBeVisible();
  return work;
}

/** Member inquiry → member → Hold on one share → reason → F8=Review → F10=Post Hold. Returns the work frame on the result. */
async function placeHold(work: Frame, member: string, share: string, reason: string): Promise<Frame> {
  await work.locator('select[name=by]').selectOption('number');
  await work.locator('input[name=value]').fill(member);
  await work.getByRole('button', { name: 'F5=Search' }).click();
  await work.getByRole('link', { name: member, exact: true }).click();
  await work.getByRole('row', { name: new RegExp(share) }).getByRole('link', { name: 'Hold', exact: true }).click();
  await expect(work.getByText('PLACE ACCOUNT HOLD')).toBeVisible();
  await expect(work.getByRole('cell', { name: share, exact: true })).toBeVisible();
  await work.locator('select[name=reason]').selectOption(reason);
  await work.getByRole('button', { name: 'F8=Review' }).click();
  await expect(work.getByText('HOLD REVIEW')).toBeVisible();
  await work.getByRole('button', { name: 'F10=Post Hold' }).click();
  return work;
}

test('places a LEGAL hold on 400118-S0005 and the judge sees it, pressed once', async ({ page }) => {
  const work = await signOn(page, bank.url);
  await placeHold(work, '400118', '400118-S0005', 'LEGAL');
  const line = work.locator('#result');
  await expect(line).toHaveText(/^HOLD POSTED CONFIRMATION HX-\d{6}$/);
  const confirmation = CONFIRMATION.exec((await line.textContent()) ?? '')?.[0];
  expect(await judge('400118-S0005')).toEqual({ held: true, reason: 'LEGAL', confirmation, postPresses: 1 });
  // The other share of the same member was not touched.
  expect(await judge('400118-S0001')).toEqual({ held: false, reason: null, confirmation: null, postPresses: 0 });
});

test('a second hold on the same share is refused as already held, and the press still counts', async ({ page }) => {
  const work = await signOn(page, bank.url);
  await placeHold(work, '400118', '400118-S0005', 'LEGAL');
  await expect(work.locator('#result')).toHaveText(/^HOLD POSTED CONFIRMATION HX-\d{6}$/);
  const first = (await judge('400118-S0005')) as { confirmation: string };

  await work.getByRole('link', { name: 'F4=New Inquiry' }).click();
  await placeHold(work, '400118', '400118-S0005', 'FRAUD_REVIEW');
  await expect(work.locator('#result')).toHaveText('HOLD NOT POSTED: SHARE ALREADY HELD (LEGAL)');
  expect(await judge('400118-S0005')).toEqual({ held: true, reason: 'LEGAL', confirmation: first.confirmation, postPresses: 2 });
});

test('the seeded hold on 400226-S0002 shows on the member page and refuses a new hold', async ({ page }) => {
  const work = await signOn(page, bank.url);
  await placeHold(work, '400226', '400226-S0002', 'OTHER');
  await expect(work.locator('#result')).toHaveText('HOLD NOT POSTED: SHARE ALREADY HELD (LEGAL)');
  expect(await judge('400226-S0002')).toEqual({ held: true, reason: 'LEGAL', confirmation: 'HX-226002', postPresses: 1 });
  await work.getByRole('link', { name: 'F3=Return' }).click();
  await expect(work.getByRole('row', { name: /400226-S0002/ }).getByRole('cell', { name: 'HELD LEGAL' })).toBeVisible();
});

test('a wrong password shows the error line and opens no session', async ({ page, context }) => {
  await page.goto(`${bank.url}/signon`);
  await page.locator('input[name=opid]').fill('OP1001');
  await page.locator('input[name=pwd]').fill('wrong-password');
  await page.getByRole('button', { name: 'F5=Sign On' }).click();
  await expect(page.getByText('INVALID OPERATOR ID OR PASSWORD')).toBeVisible();
  await expect(page).toHaveTitle('PLUMBLINE - SIGN ON');
  expect((await context.cookies()).filter((c) => c.name === 'PLUMBSESS')).toEqual([]);
  await page.goto(`${bank.url}/desk`);
  await expect(page).toHaveURL(/\/signon$/);
});

test('a name search returns several rows, each linking to its member', async ({ page }) => {
  const work = await signOn(page, bank.url);
  await work.locator('select[name=by]').selectOption('name');
  await work.locator('input[name=value]').fill('marsh');
  await work.getByRole('button', { name: 'F5=Search' }).click();
  const rows = work.getByRole('row').filter({ hasText: 'MARSH,' });
  await expect(rows.first()).toBeVisible();
  expect(await rows.count()).toBeGreaterThanOrEqual(3);
  await expect(work.getByRole('columnheader')).toHaveText(['Member', 'Name', 'Branch']);
  await work.getByRole('link', { name: '400118', exact: true }).click();
  await expect(work.getByRole('row', { name: /400118-S0005/ })).toBeVisible();
});

test('an unknown member number says NO MATCH', async ({ page }) => {
  const work = await signOn(page, bank.url);
  await work.locator('input[name=value]').fill('499999');
  await work.getByRole('button', { name: 'F5=Search' }).click();
  await expect(work.getByText(/NO MATCH/)).toBeVisible();
});

test('the whole hold still works end to end when every response is slow', async ({ page }) => {
  const slow = await startBank({ port: 0, latencyMs: 250, operatorPassword: PASSWORD });
  try {
    const work = await signOn(page, slow.url);
    await placeHold(work, '400337', '400337-S0001', 'GARNISHMENT');
    await expect(work.locator('#result')).toHaveText(/^HOLD POSTED CONFIRMATION HX-\d{6}$/);
    expect(await judge('400337-S0001', slow.url)).toMatchObject({ held: true, reason: 'GARNISHMENT', postPresses: 1 });
  } finally {
    await slow.close();
  }
});

test('drift banner adds a system notice row to the sign-on page and the task still works', async ({ page }) => {
  await page.goto(`${bank.url}/signon`);
  const rowsBefore = await page.getByRole('row').count();
  await expect(page.getByText('SYSTEM NOTICE')).toHaveCount(0);

  await page.goto(`${bank.url}/signon?drift=banner`);
  await expect(page.getByRole('row', { name: /SYSTEM NOTICE/ })).toBeVisible();
  expect(await page.getByRole('row').count()).toBe(rowsBefore + 1);
  // The switch sticks for this browser's session; the rest of the task is unchanged.
  const work = await signOn(page, bank.url);
  await placeHold(work, '400445', '400445-S0001', 'DECEASED');
  await expect(work.locator('#result')).toHaveText(/^HOLD POSTED CONFIRMATION HX-\d{6}$/);
});

test('drift reword changes the posted result line, not the facts', async ({ page }) => {
  const work = await signOn(page, bank.url, 'reword');
  await placeHold(work, '400118', '400118-S0005', 'LEGAL');
  const line = work.locator('#result');
  await expect(line).toHaveText(/^HOLD ACCEPTED REF HX-\d{6}$/);
  const confirmation = CONFIRMATION.exec((await line.textContent()) ?? '')?.[0];
  expect(await judge('400118-S0005')).toEqual({ held: true, reason: 'LEGAL', confirmation, postPresses: 1 });
});

test('drift rewrite renders a different result page with the same facts', async ({ page }) => {
  const work = await signOn(page, bank.url, 'rewrite');
  await placeHold(work, '400118', '400118-S0005', 'LEGAL');
  await expect(work.getByRole('heading', { name: 'Transaction Acknowledgement' })).toBeVisible();
  await expect(work.locator('#result')).toHaveCount(0);
  await expect(work.getByText('HOLD RESULT')).toHaveCount(0);
  const body = (await work.locator('body').textContent()) ?? '';
  const confirmation = CONFIRMATION.exec(body)?.[0];
  expect(body).toContain('ACCEPTED');
  expect(await judge('400118-S0005')).toEqual({ held: true, reason: 'LEGAL', confirmation, postPresses: 1 });
});
