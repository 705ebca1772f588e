// The golden files a person reviews, and how each is made: the tests compare against them and only
// `npm run golden:update` (tests/tools/golden-update.ts) writes them. One spelling of each recipe, shared by
// the test that compares and the tool that regenerates, so the two cannot drift apart.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { schemaText } from '../../runner/cli/schema.ts';
import { observePage } from '../../runner/browser/observe.ts';
import { cardBytes, compile } from '../../shared/compile/compile.ts';
import { buildMenu, renderMenu } from '../../shared/menu.ts';
import type { Observation } from '../../shared/schema/observation.ts';
import { TraceLine } from '../../shared/schema/trace.ts';

const here = (rel: string): string => fileURLToPath(new URL(rel, import.meta.url));

export const GOLDEN = {
  authoredCard: here('../../capabilities/plumbline-place-hold.authored.json'),
  authoredBook: here('../fixtures/author/plumbline.trace.jsonl'),
  schema: here('../../capabilities/capability.schema.json'),
  configSchema: here('../../handrail.config.schema.json'),
  menu: (screen: PlumblineScreen): string => here(`../fixtures/plumbline-${screen}.menu.txt`),
  observation: (screen: PlumblineScreen): string => here(`../fixtures/plumbline-${screen}.observation.json`),
  /** The README's picture of the side panel asking the owner (`golden:update --docs`: not compared by any test). */
  docShot: here('../../docs/extension-sidepanel.png'),
} as const;

/** tests/e2e/extension.spec.ts saves the side panel asking about F10=Post Hold as `sidepanel-<this>.png` in its output. */
export const DOC_SHOT_NAME = '3-owner-question';

export const PLUMBLINE_SCREENS = ['signon', 'member'] as const;
export type PlumblineScreen = (typeof PLUMBLINE_SCREENS)[number];

/** The golden card: the PLUMBLINE book through the compiler, as bytes. */
export function authoredCardText(lines: readonly TraceLine[]): string {
  const r = compile(lines, { id: 'plumbline_place_hold' });
  if (!r.ok) throw new Error(`the PLUMBLINE book does not compile: ${JSON.stringify(r.holes)}`);
  return cardBytes(r.card);
}

export function readAuthoredBook(): TraceLine[] {
  return readFileSync(GOLDEN.authoredBook, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => TraceLine.parse(JSON.parse(l)));
}

export { schemaText };

/** The observation of a live screen, the bank's port-dependent origin replaced by a fixed one. */
export async function goldenObservation(page: Page, origin: string): Promise<Observation> {
  const obs = await observePage(page);
  return JSON.parse(JSON.stringify(obs).replaceAll(origin, 'http://plumbline.test')) as Observation;
}

export const observationText = (obs: Observation): string => `${JSON.stringify(obs, null, 2)}\n`;
export const menuText = (obs: Observation): string => `${renderMenu(buildMenu(obs))}\n`;

/**
 * Walks a live PLUMBLINE (started with `password`) to each golden screen, handing each one's observation to `seen`:
 * the sign-on page, then (signed on) member 400118's record in the `work` frame.
 */
export async function walkPlumbline(
  page: Page,
  bankUrl: string,
  password: string,
  seen: (screen: PlumblineScreen, obs: Observation) => Promise<void>,
): Promise<void> {
  await page.goto(`${bankUrl}/signon`);
  await seen('signon', await goldenObservation(page, bankUrl));
  await page.locator('input[name=opid]').fill('OP1001');
  await page.locator('input[name=pwd]').fill(password);
  await page.getByRole('button', { name: 'F5=Sign On' }).click();
  await page.waitForURL(/\/desk/);
  await waitFor(() => /\/inquiry/.test(page.frame({ name: 'work' })?.url() ?? ''));
  const work = page.frame({ name: 'work' });
  if (!work) throw new Error('PLUMBLINE has no work frame after sign-on');
  await work.goto(`${bankUrl}/member?m=400118`);
  await page.frame({ name: 'nav' })?.waitForLoadState();
  await seen('member', await goldenObservation(page, bankUrl));
}

/** Polls `ok` every 50 ms until it holds; throws after `ms` (the message names the PLUMBLINE screen it waits for). */
export async function waitFor(ok: () => boolean, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > until) throw new Error('PLUMBLINE did not reach the inquiry screen after sign-on');
    await new Promise((r) => setTimeout(r, 50));
  }
}
