// Benchmark: one replay of a card through Handrail (walker, screen checks, lease, journal, evidence with screenshots)
// against two floors on both demo apps (issue 14), PLUMBLINE's 11-step place-hold card and CASEDESK's add-case card:
// the bare floor — a hand-written plain Playwright script doing the same clicks and waits with no checks (the issue's
// figure) — and the pictured floor, the same script also taking one screenshot on each screen Handrail pictures (the
// like-for-like baseline: a replay that leaves evidence must take those pictures). Interleaved in one browser, a fresh
// context per run for each side; prints medians and both ratios per app. HANDRAIL_PROFILE=1 also prints where
// Handrail's time went, phase by phase, on stderr (runner/profile.ts).
// Run alone: npx tsx tests/bench/replay.ts [runs] [plumbline|casedesk]… [--without-screenshots] (the last adds a run of
// each app with Handrail's screenshots replaced by a blank: what the per-screen picture costs; a decomposition only).
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startCaseDesk } from '../../demo/casedesk/server.ts';
import { startBank } from '../../demo/plumbline/server.ts';
import { findChromium } from '../../runner/browser/chromium.ts';
import { BrowserSurface } from '../../runner/browser/surface.ts';
import { readCard } from '../../runner/cli/replay.ts';
import { phasesFromEnv, type Phases } from '../../runner/profile.ts';
import { Progress } from '../../runner/progress.ts';
import { runCapability } from '../../runner/run.ts';
import type { Surface } from '../../shared/surface.ts';
import { median } from './stats.ts';

export interface ReplayBench {
  app: AppName;
  name: string;
  ratio: number;
  handrailMedianMs: number;
  handrailMeanMs: number;
  floorMedianMs: number;
  /** Whether Handrail took its screenshots (false only in the `--without-screenshots` decomposition). */
  screenshots: boolean;
  /** The floor that also takes one screenshot per screen Handrail pictures: the like-for-like baseline. */
  picturedFloorMedianMs: number;
  /** Handrail / pictured floor. */
  picturedRatio: number;
  runs: number;
  /** The mean the reference system reported for this task, where it reported one. */
  referenceMeanMs?: number;
  /** Where Handrail's time went (HANDRAIL_PROFILE=1): the table, else undefined. */
  profile?: string;
}

export type AppName = 'plumbline' | 'casedesk';
/** The sides of one interleaved round: Handrail, the bare floor, the pictured floor. */
type Side = 'h' | 'f' | 'p';
export const APPS: readonly AppName[] = ['plumbline', 'casedesk'];

/** One app under the bench: its server, the card, the inputs, the floor script and how to reset between runs. */
export interface AppUnderBench {
  name: string;
  url: string;
  card: string;
  inputs: (i: number) => Record<string, string>;
  /**
   * The hand-written script. `shot` is called once on each screen Handrail's run pictures (its declared screens, in the
   * card's order), after the wait that shows that screen: a no-op for the bare floor, one capture for the pictured one.
   */
  floor: (page: Page, inputs: Record<string, string>, shot: () => Promise<void>) => Promise<void>;
  reset: () => void;
  close: () => Promise<void>;
  referenceMeanMs?: number;
}

const SHARE = '400118-S0005';

async function plumbline(): Promise<AppUnderBench> {
  const password = `bench-${randomBytes(4).toString('hex')}`;
  const bank = await startBank({ port: 0, operatorPassword: password });
  return {
    name: 'replay of the 11-step PLUMBLINE card vs plain Playwright script',
    url: bank.url,
    card: 'capabilities/plumbline-place-hold.json',
    inputs: () => ({ operator_id: 'OP1001', password, member_number: '400118', share_id: SHARE, reason: 'LEGAL' }),
    // Handrail pictures seven screens: signon, inquiry, results, member, hold_form, hold_review, hold_result.
    floor: async (page, inputs, shot) => {
      await page.goto(`${bank.url}/signon`);
      await shot();
      await page.locator('input[name=opid]').fill(inputs['operator_id'] ?? '');
      await page.locator('input[name=pwd]').fill(inputs['password'] ?? '');
      await Promise.all([page.waitForURL(/\/desk$/), page.getByRole('button', { name: 'F5=Sign On' }).click()]);
      const work = page.frameLocator('frame[name=work]');
      await work.locator('input[name=value]').waitFor();
      await shot();
      await work.locator('input[name=value]').fill('400118');
      await work.getByRole('button', { name: 'F5=Search' }).click();
      await work.getByRole('link', { name: '400118', exact: true }).waitFor();
      await shot();
      await work.getByRole('link', { name: '400118', exact: true }).click();
      const hold = work.getByRole('row', { name: new RegExp(SHARE) }).getByRole('link', { name: 'Hold', exact: true });
      await hold.waitFor();
      await shot();
      await hold.click();
      await work.locator('select[name=reason]').waitFor();
      await shot();
      await work.locator('select[name=reason]').selectOption('LEGAL');
      await work.getByRole('button', { name: 'F8=Review' }).click();
      await work.getByRole('button', { name: 'F10=Post Hold' }).waitFor();
      await shot();
      await work.getByRole('button', { name: 'F10=Post Hold' }).click();
      const line = await work.locator('#result').innerText();
      await shot();
      if (!/HX-\d{6}/.test(line)) throw new Error(`floor script: unexpected result ${line}`);
    },
    reset: () => bank.store.reset(),
    close: () => bank.close(),
    referenceMeanMs: 747,
  };
}

/**
 * CASEDESK with a fixed 100 ms on every API answer (not its demo's random 0.3–3 s): both sides meet the same server
 * time, so the ratio measures what each adds, not the dice.
 */
async function casedesk(): Promise<AppUnderBench> {
  const password = `bench-${randomBytes(4).toString('hex')}`;
  const desk = await startCaseDesk({ delayMs: [100, 100], password });
  return {
    name: 'replay of the 6-step CASEDESK add-case card vs plain Playwright script',
    url: desk.url,
    card: 'capabilities/casedesk-add-case.json',
    // A title of its own per run: the judge counts presses by title.
    inputs: (i) => ({ user: 'clerk', password, title: `Bench claim ${i} ${randomBytes(3).toString('hex')}` }),
    // Handrail pictures three screens: welcome, login_dialog, cases (the added case stays on cases).
    floor: async (page, inputs, shot) => {
      await page.goto(`${desk.url}/`);
      const logIn = page.getByRole('button', { name: 'Log in' });
      await logIn.waitFor();
      await shot();
      await logIn.click();
      const dialog = page.getByRole('dialog', { name: 'Log in' });
      await dialog.getByRole('textbox', { name: 'User name' }).waitFor();
      await shot();
      await dialog.getByRole('textbox', { name: 'User name' }).fill(inputs['user'] ?? '');
      await dialog.getByLabel('Password').fill(inputs['password'] ?? '');
      await dialog.getByRole('button', { name: 'Log in' }).click();
      const field = page.getByRole('textbox', { name: 'New case' });
      await field.waitFor();
      await shot();
      await field.fill(inputs['title'] ?? '');
      await field.press('Enter');
      await page.getByRole('status').getByText(`Added case`).waitFor();
      const said = await page.getByRole('status').innerText();
      if (!said.includes(inputs['title'] ?? '')) throw new Error(`floor script: unexpected status ${said}`);
    },
    reset: () => desk.store.reset(),
    close: () => desk.close(),
  };
}

/** Starts the app's server for the bench (the caller closes it). */
export function appUnderBench(which: AppName): Promise<AppUnderBench> {
  return which === 'plumbline' ? plumbline() : casedesk();
}

/**
 * The floor: the app's script in a fresh context. Pictured, it takes one screenshot per screen Handrail pictures, by
 * the same means Handrail's browser surface uses (one CDP session, Page.captureScreenshot with the fast encoder), so
 * the pictured floor is the like-for-like baseline: the same clicks, waits and evidence pictures, no checks.
 */
async function floor(browser: Browser, app: AppUnderBench, inputs: Record<string, string>, pictured = false): Promise<void> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  try {
    const page = await context.newPage();
    const cdp = pictured ? await context.newCDPSession(page) : null;
    const shot = cdp
      ? async () => {
          const { data } = await cdp.send('Page.captureScreenshot', { format: 'png', optimizeForSpeed: true });
          if (data.length === 0) throw new Error('floor script: an empty screenshot');
        }
      : () => Promise.resolve();
    await app.floor(page, inputs, shot);
  } finally {
    await context.close();
  }
}

/** A 1×1 PNG: what the decomposition's surface hands back instead of capturing the screen. */
const BLANK_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg==', 'base64');

/**
 * The browser surface, or (for the decomposition only, `--without-screenshots`) the same surface answering every
 * screenshot with a blank picture at once: what Handrail costs when the per-screen picture is taken away, all else
 * (walker, screen checks, journal, evidence lines) unchanged. It is a measurement, never a way to run a card.
 */
async function surfaceFor(browser: Browser, screenshots: boolean): Promise<Surface> {
  const real = await BrowserSurface.launch({ browser });
  if (screenshots) return real;
  return new Proxy(real, {
    get(target, prop) {
      if (prop === 'evidence') {
        return (kind: 'screenshot' | 'text') => (kind === 'screenshot' ? Promise.resolve(new Uint8Array(BLANK_PNG)) : target.evidence(kind));
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  }) as Surface;
}

async function handrail(
  browser: Browser,
  app: AppUnderBench,
  card: Parameters<typeof runCapability>[0]['card'],
  inputs: Record<string, string>,
  dir: string,
  profile?: Phases,
  screenshots = true,
): Promise<void> {
  const r = await runCapability({
    card,
    inputs,
    env: { BASE_URL: app.url },
    surface: () => surfaceFor(browser, screenshots),
    evidenceDir: await mkdtemp(join(dir, 'ev-')),
    journalPath: join(dir, `${randomBytes(4).toString('hex')}.journal`),
    ...(profile ? { profile } : {}),
  });
  if (r.word !== 'SUCCESS') throw new Error(`handrail replay of ${card.id} ended ${r.word} ${r.code}: ${r.message}`);
}

export async function benchReplay(runs = 15, which: AppName = 'plumbline', opts: { screenshots?: boolean } = {}): Promise<ReplayBench> {
  const screenshots = opts.screenshots ?? true;
  const app = await appUnderBench(which);
  const browser = await chromium.launch(findChromium().launchOptions);
  const dir = await mkdtemp(join(tmpdir(), 'handrail-bench-'));
  const loaded = await readCard(app.card);
  if (!loaded.ok) throw new Error(loaded.message);
  // Profiled only when asked: the warm-up is not counted.
  const profile = phasesFromEnv(process.env);
  try {
    // Warm-up: one of each (walker bundle build, first context).
    let n = 0;
    app.reset();
    await handrail(browser, app, loaded.card, app.inputs(n++), dir, undefined, screenshots);
    app.reset();
    await floor(browser, app, app.inputs(n++));
    app.reset();
    await floor(browser, app, app.inputs(n++), true);
    const times: Record<Side, number[]> = { h: [], f: [], p: [] };
    // Progress on stderr (a bar on a terminal): stdout carries only the result line.
    const bar = new Progress({ total: runs, label: `${which} interleaved rounds` });
    const sides: readonly Side[] = ['h', 'f', 'p'];
    for (let i = 0; i < runs; i++) {
      // Rotate which goes first so none always gets the warmer machine.
      const order = sides.map((_, k) => sides[(i + k) % sides.length] as Side);
      for (const side of order) {
        app.reset();
        const inputs = app.inputs(n++);
        const t = performance.now();
        if (side === 'h') await handrail(browser, app, loaded.card, inputs, dir, profile, screenshots);
        else await floor(browser, app, inputs, side === 'p');
        times[side].push(performance.now() - t);
      }
      const last = (side: Side) => Math.round(times[side].at(-1) ?? 0);
      bar.tick(`handrail ${last('h')} ms · floor ${last('f')} ms · pictured floor ${last('p')} ms`);
    }
    bar.finish();
    const h = times.h;
    const handrailMedianMs = median(h);
    const floorMedianMs = median(times.f);
    const picturedFloorMedianMs = median(times.p);
    return {
      app: which,
      name: screenshots ? app.name : `${app.name}, Handrail's screenshots replaced by a blank (decomposition only)`,
      ratio: handrailMedianMs / floorMedianMs,
      screenshots,
      handrailMedianMs,
      handrailMeanMs: h.reduce((a, b) => a + b, 0) / h.length,
      floorMedianMs,
      picturedFloorMedianMs,
      picturedRatio: handrailMedianMs / picturedFloorMedianMs,
      runs,
      ...(app.referenceMeanMs ? { referenceMeanMs: app.referenceMeanMs } : {}),
      ...(profile ? { profile: profile.table() } : {}),
    };
  } finally {
    await browser.close();
    await app.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export function describeReplay(b: ReplayBench): string {
  return (
    `replay (${b.app}): ${b.name}: Handrail median ${b.handrailMedianMs.toFixed(0)} ms (mean ${b.handrailMeanMs.toFixed(0)} ms), ` +
    `floor median ${b.floorMedianMs.toFixed(0)} ms → ratio ${b.ratio.toFixed(2)} (target ≤ 1.15); ` +
    // Handrail without its pictures against a floor with them compares nothing: the decomposition prints the bare ratio.
    (b.screenshots ? `floor with the same screenshots median ${b.picturedFloorMedianMs.toFixed(0)} ms → ratio ${b.picturedRatio.toFixed(2)}; ` : '') +
    `over ${b.runs} interleaved rounds` +
    `${b.referenceMeanMs ? ` (reference system: mean ${b.referenceMeanMs} ms)` : ''}\n`
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const runs = Number(process.argv[2] ?? 15);
  const flags = process.argv.slice(3).filter((a) => a.startsWith('--'));
  const badFlag = flags.find((f) => f !== '--without-screenshots');
  if (badFlag) throw new Error(`unknown flag ${badFlag}: the replay bench knows --without-screenshots`);
  const asked = process.argv.slice(3).filter((a) => !a.startsWith('--'));
  const unknown = asked.filter((a) => !(APPS as readonly string[]).includes(a));
  if (unknown.length) throw new Error(`unknown app ${unknown.join(', ')}: the replay bench knows ${APPS.join(', ')}`);
  for (const which of asked.length ? (asked as AppName[]) : APPS) {
    const b = await benchReplay(runs, which);
    process.stdout.write(describeReplay(b));
    // What the per-screen screenshot costs: the same card, each picture replaced by a blank (a measurement only).
    if (flags.includes('--without-screenshots')) process.stdout.write(describeReplay(await benchReplay(runs, which, { screenshots: false })));
    if (b.profile) process.stderr.write(`${b.profile}\n`);
  }
}
