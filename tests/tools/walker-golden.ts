// The walker's golden observations: what `observePage` makes of every fixture page, PLUMBLINE's screens, CASEDESK's
// screens and the bench's generated page, stored under tests/fixtures/walker-golden/ by `npm run golden:update` and
// compared byte for byte by tests/e2e/walker-same.spec.ts. They pin the walker's output while its internals change
// (docs/design/walker.md, "The walker": a faster walk must produce the same bytes, since fingerprints hash them).
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { DEMO_PASSWORD, startCaseDesk } from '../../demo/casedesk/server.ts';
import { startBank } from '../../demo/plumbline/server.ts';
import { observePage } from '../../runner/browser/observe.ts';
import { generatePage } from '../bench/walker.ts';
import { serveFixtures } from '../fixtures/server.ts';
import { observationText, waitFor } from './golden.ts';

const here = (rel: string): string => fileURLToPath(new URL(rel, import.meta.url));
const FIXTURES = here('../fixtures/');
export const WALKER_GOLDEN_DIR = here('../fixtures/walker-golden/');

/** One golden file: its name under WALKER_GOLDEN_DIR and the observation's text. */
export interface WalkerGolden {
  file: string;
  text: string;
}

/** The size of the bench page kept as a golden (every block kind of tests/bench/walker.ts, small enough to review). */
export const BENCH_GOLDEN_ELEMENTS = 1500;

/** An observation as text, each run-dependent string (a random port's origin, a confirmation) replaced by a fixed one. */
async function observed(page: Page, replace: ReadonlyArray<readonly [string | RegExp, string]>): Promise<string> {
  let text = observationText(await observePage(page));
  for (const [from, to] of replace) text = text.replaceAll(from, to);
  return text;
}

async function fixturePages(page: Page): Promise<WalkerGolden[]> {
  const out: WalkerGolden[] = [];
  const server = await serveFixtures({ '/bench.html': generatePage(BENCH_GOLDEN_ELEMENTS) });
  try {
    const files = readdirSync(FIXTURES).filter((f) => f.endsWith('.html')).sort();
    for (const f of [...files, 'bench.html']) {
      await page.goto(`${server.url}/${f}`);
      await page.waitForLoadState('load');
      out.push({ file: `fixture-${f.replace(/\.html$/, '')}.json`, text: await observed(page, [[server.url, 'http://fixtures.test']]) });
    }
  } finally {
    await server.close();
  }
  return out;
}

async function plumblineScreens(page: Page): Promise<WalkerGolden[]> {
  const out: WalkerGolden[] = [];
  const password = 'golden-walker-pw';
  const bank = await startBank({ port: 0, operatorPassword: password });
  // A posted hold's confirmation is random (HX-nnnnnn).
  const fixed: Array<[string | RegExp, string]> = [[bank.url, 'http://plumbline.test'], [/HX-\d{6}/g, 'HX-000000']];
  const snap = async (name: string) => out.push({ file: `plumbline-${name}.json`, text: await observed(page, fixed) });
  const work = (): NonNullable<ReturnType<Page['frame']>> => {
    const f = page.frame({ name: 'work' });
    if (!f) throw new Error('PLUMBLINE has no work frame');
    return f;
  };
  try {
    await page.goto(`${bank.url}/signon`);
    await snap('signon');
    await page.goto(`${bank.url}/signon?drift=banner`);
    await snap('signon-banner');
    await page.goto(`${bank.url}/signon?drift=none`);
    await page.locator('input[name=opid]').fill('OP1001');
    await page.locator('input[name=pwd]').fill(password);
    await page.getByRole('button', { name: 'F5=Sign On' }).click();
    await page.waitForURL(/\/desk/);
    await waitFor(() => /\/inquiry/.test(page.frame({ name: 'work' })?.url() ?? ''));
    await work().waitForLoadState();
    await page.frame({ name: 'nav' })?.waitForLoadState();
    await snap('inquiry');
    await work().locator('select[name=by]').selectOption({ label: 'Name' });
    await work().locator('input[name=value]').fill('A');
    await work().getByRole('button', { name: 'F5=Search' }).click();
    await work().waitForURL(/\/results/);
    await snap('results');
    await work().goto(`${bank.url}/member?m=400118`);
    await snap('member');
    await work().locator('tr', { hasText: '400118-S0001' }).getByRole('link', { name: 'Hold' }).first().click();
    await work().waitForURL(/\/hold/);
    await snap('hold');
    await work().locator('select[name=reason]').selectOption('FRAUD_REVIEW');
    await work().getByRole('button', { name: 'F8=Review' }).click();
    await work().waitForURL(/\/review/);
    await snap('review');
    await work().getByRole('button', { name: 'F10=Post Hold' }).click();
    await work().waitForURL(/\/post/);
    await work().locator('b').first().waitFor();
    await snap('post');
  } finally {
    await bank.close();
  }
  return out;
}

async function caseDeskScreens(page: Page): Promise<WalkerGolden[]> {
  const out: WalkerGolden[] = [];
  const desk = await startCaseDesk({ port: 0, delayMs: [0, 0], seed: 1 });
  // The row actions show on hover; Chromium re-evaluates :hover a moment after a layout change, so unless a screen
  // is about hovering, the mouse is parked on the header first and the screen does not depend on that moment.
  const snap = async (name: string, hovering = false) => {
    if (!hovering) await page.mouse.move(0, 0);
    out.push({ file: `casedesk-${name}.json`, text: await observed(page, [[desk.url, 'http://casedesk.test']]) });
  };
  const idle = () => page.getByRole('progressbar', { name: 'Loading' }).waitFor({ state: 'hidden' });
  try {
    await page.goto(`${desk.url}/`);
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    await idle();
    await snap('signed-out');
    await page.getByRole('button', { name: 'Log in' }).click();
    const dialog = page.getByRole('dialog', { name: 'Log in' });
    await dialog.getByLabel('User name').fill('clerk');
    await snap('login-dialog');
    await dialog.getByLabel('Password').fill(DEMO_PASSWORD);
    await dialog.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('status').filter({ hasText: 'Logged in as clerk' }).waitFor();
    const cases = page.getByRole('region', { name: 'Cases' });
    await cases.getByRole('listitem').nth(3).waitFor();
    await idle();
    await snap('cases');
    const row = cases.getByRole('listitem').filter({ hasText: 'C-1003' });
    await row.hover();
    await snap('row-hover', true);
    await row.getByRole('button', { name: 'Assign case' }).click();
    const panel = page.getByRole('region', { name: /Assign C-1003/ });
    await panel.getByRole('combobox', { name: 'Assignee' }).click();
    await panel.getByRole('option', { name: 'Dana Kowalski' }).waitFor();
    await snap('assign-open');
    await panel.getByRole('option', { name: 'Dana Kowalski' }).click();
    await snap('assign-chosen');
    await panel.getByRole('button', { name: 'Cancel' }).click();
    const row2 = cases.getByRole('listitem').filter({ hasText: 'C-1002' });
    await row2.hover();
    await row2.getByRole('button', { name: 'Close case' }).click();
    await page.getByRole('dialog', { name: 'Close this case?' }).waitFor();
    await snap('close-confirm');
  } finally {
    await desk.close();
  }
  return out;
}

/** Every walker golden, each scene in a fresh context of `browser` (so no cookie or focus carries over). */
export async function walkerGoldens(browser: Browser): Promise<WalkerGolden[]> {
  const out: WalkerGolden[] = [];
  for (const scenes of [fixturePages, plumblineScreens, caseDeskScreens]) {
    const context = await browser.newContext();
    try {
      out.push(...(await scenes(await context.newPage())));
    } finally {
      await context.close();
    }
  }
  return out;
}
