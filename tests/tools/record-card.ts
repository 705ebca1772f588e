// Records the furniture of the hand-written PLUMBLINE card: the screens' signatures and paths and each
// target's fingerprint, taken from a live PLUMBLINE through the same walker replay uses. The steps, targets
// and outcomes stay hand-written; rerun this when the walker's path rules change, then verify and approve the
// card again (any change to it voids its approval, and `npm run demo` replays only an approved card):
//   npx tsx tests/tools/record-card.ts            (rewrites capabilities/plumbline-place-hold.json)
import { readFile, writeFile } from 'node:fs/promises';
import { proposeMarks } from '../../shared/marks.ts';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { startBank } from '../../demo/plumbline/server.ts';
import { findChromium } from '../../runner/browser/chromium.ts';
import { observePage } from '../../runner/browser/observe.ts';
import { BrowserSurface } from '../../runner/browser/surface.ts';
import { runCapability } from '../../runner/run.ts';
import { fingerprint } from '../../shared/fingerprint.ts';
import { WALKER_VERSION } from '../../shared/dom/version.ts';
import { loadCapability, type Capability } from '../../shared/schema/index.ts';
import type { Resolution, Surface } from '../../shared/surface.ts';

const CARD = fileURLToPath(new URL('../../capabilities/plumbline-place-hold.json', import.meta.url));
const TITLES: Record<string, string> = {
  signon: 'Operator Sign On',
  inquiry: 'Member Inquiry',
  results: 'Member Inquiry Results',
  member: 'Member Record',
  hold_form: 'Place Account Hold',
  hold_review: 'Hold Review',
  hold_result: 'Hold Result',
  hold_refused: 'Hold Not Posted',
};

async function settled(page: Page): Promise<void> {
  for (const f of page.frames()) await f.waitForLoadState('load');
}

async function screensOf(url: string, share: string, member: string): Promise<Record<string, { signature: string; paths: string[] }>> {
  const browser = await chromium.launch(findChromium().launchOptions);
  const page = await browser.newPage();
  const out: Record<string, { signature: string; paths: string[] }> = {};
  const take = async (label: string): Promise<void> => {
    await settled(page);
    const obs = await observePage(page);
    out[label] = { signature: obs.signature, paths: obs.paths };
  };
  try {
    await page.goto(`${url}/signon`);
    await take('signon');
    await page.locator('input[name=opid]').fill('OP1001');
    await page.locator('input[name=pwd]').fill('plumb-2026');
    await Promise.all([page.waitForURL(/\/desk/), page.getByRole('button', { name: 'F5=Sign On' }).click()]);
    const work = page.frame({ name: 'work' });
    if (!work) throw new Error('no work frame');
    await take('inquiry');
    await work.locator('input[name=value]').fill(member);
    await Promise.all([work.waitForURL(/results/), work.getByRole('button', { name: 'F5=Search' }).click()]);
    await take('results');
    await Promise.all([work.waitForURL(/member/), work.getByRole('link', { name: member, exact: true }).click()]);
    await take('member');
    const row = work.getByRole('row', { name: new RegExp(share) });
    await Promise.all([work.waitForURL(/hold/), row.getByRole('link', { name: 'Hold', exact: true }).click()]);
    await take('hold_form');
    await work.locator('select[name=reason]').selectOption('LEGAL');
    await Promise.all([work.waitForURL(/review/), work.getByRole('button', { name: 'F8=Review' }).click()]);
    await take('hold_review');
    await Promise.all([work.waitForURL(/post/), work.getByRole('button', { name: 'F10=Post Hold' }).click()]);
    await take('hold_result');
    return out;
  } finally {
    await browser.close();
  }
}

async function main(): Promise<void> {
  const raw = JSON.parse(await readFile(CARD, 'utf8')) as Capability;
  const bank = await startBank({ port: 0 });
  try {
    const fresh = await screensOf(bank.url, '400118-S0005', '400118');
    const refused = await screensOf(bank.url, '400226-S0002', '400226');
    const shots: Record<string, { signature: string; paths: string[] }> = { ...fresh, hold_refused: refused['hold_result']! };
    raw.screens = Object.fromEntries(
      Object.entries(TITLES).map(([label, title]) => [label, { title, ...shots[label]! }]),
    );
    // The screens that can follow the commit carry the marks that tell them apart (shared/marks.ts).
    for (const [label, marks] of Object.entries(proposeMarks(raw))) {
      const screen = raw.screens[label];
      if (screen) screen.marks = marks;
    }
    for (const t of Object.values(raw.targets)) delete t.fingerprint.value;
    const loaded = loadCapability(raw);
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues, null, 2));
    // Replay once through the real engine, noting the control each target resolved to.
    const seen = new Map<string, Resolution>();
    const result = await runCapability({
      card: loaded.value,
      inputs: { operator_id: 'OP1001', password: 'plumb-2026', member_number: '400337', share_id: '400337-S0001', reason: 'LEGAL' },
      env: { BASE_URL: bank.url },
      allowUnapproved: true,
      evidenceDir: `runs/record-card-${Date.now()}`,
      surface: async (): Promise<Surface> => {
        const s = await BrowserSurface.launch();
        const resolve = s.resolve.bind(s);
        s.resolve = async (t) => {
          const r = await resolve(t);
          seen.set(t.id, r);
          return r;
        };
        return s;
      },
    });
    if (result.word !== 'SUCCESS') throw new Error(`recording replay ended ${result.word} ${result.code}: ${result.message}`);
    for (const [id, t] of Object.entries(raw.targets)) {
      const r = seen.get(id);
      if (r?.ok && r.control) t.fingerprint.value = fingerprint(r.control, t.fingerprint.over, WALKER_VERSION);
    }
    await writeFile(CARD, `${JSON.stringify(raw, null, 2)}\n`);
    process.stderr.write(`recorded ${Object.keys(raw.screens).length} screens and ${seen.size} targets into ${CARD}\n`);
  } finally {
    await bank.close();
  }
}

await main();
