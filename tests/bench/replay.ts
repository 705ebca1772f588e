// Benchmark: one replay of the 11-step PLUMBLINE card through Handrail (walker, screen checks, journal,
// evidence with screenshots) against the floor — a hand-written plain Playwright script doing the same clicks
// and waits with no checks. Interleaved in one browser, a fresh context per run for both; prints medians and
// the ratio (Handrail / floor). Run alone: npx tsx tests/bench/replay.ts [runs]
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { startBank, type Bank } from '../../demo/plumbline/server.ts';
import { findChromium } from '../../runner/browser/chromium.ts';
import { BrowserSurface } from '../../runner/browser/surface.ts';
import { readCard } from '../../runner/cli/replay.ts';
import { runCapability } from '../../runner/run.ts';
import type { Capability } from '../../shared/schema/index.ts';
import { median } from './stats.ts';
import { Progress } from '../../runner/progress.ts';

export interface ReplayBench {
  name: string;
  ratio: number;
  handrailMedianMs: number;
  handrailMeanMs: number;
  floorMedianMs: number;
  runs: number;
  referenceMeanMs: number;
}

const SHARE = '400118-S0005';

async function floor(browser: Browser, bank: Bank, password: string): Promise<void> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  try {
    const page = await context.newPage();
    await page.goto(`${bank.url}/signon`);
    await page.locator('input[name=opid]').fill('OP1001');
    await page.locator('input[name=pwd]').fill(password);
    await Promise.all([page.waitForURL(/\/desk$/), page.getByRole('button', { name: 'F5=Sign On' }).click()]);
    const work = page.frameLocator('frame[name=work]');
    await work.locator('input[name=value]').fill('400118');
    await work.getByRole('button', { name: 'F5=Search' }).click();
    await work.getByRole('link', { name: '400118', exact: true }).click();
    await work.getByRole('row', { name: new RegExp(SHARE) }).getByRole('link', { name: 'Hold', exact: true }).click();
    await work.locator('select[name=reason]').selectOption('LEGAL');
    await work.getByRole('button', { name: 'F8=Review' }).click();
    await work.getByRole('button', { name: 'F10=Post Hold' }).click();
    const line = await work.locator('#result').innerText();
    if (!/HX-\d{6}/.test(line)) throw new Error(`floor script: unexpected result ${line}`);
  } finally {
    await context.close();
  }
}

async function handrail(browser: Browser, bank: Bank, card: Capability, password: string, dir: string): Promise<void> {
  const r = await runCapability({
    card,
    inputs: { operator_id: 'OP1001', password, member_number: '400118', share_id: SHARE, reason: 'LEGAL' },
    env: { BASE_URL: bank.url },
    surface: () => BrowserSurface.launch({ browser }),
    evidenceDir: await mkdtemp(join(dir, 'ev-')),
    journalPath: join(dir, `${randomBytes(4).toString('hex')}.journal`),
  });
  if (r.word !== 'SUCCESS') throw new Error(`handrail replay ended ${r.word} ${r.code}: ${r.message}`);
}


export async function benchReplay(runs = 15): Promise<ReplayBench> {
  const password = `bench-${randomBytes(4).toString('hex')}`;
  const bank = await startBank({ port: 0, operatorPassword: password });
  const browser = await chromium.launch(findChromium().launchOptions);
  const dir = await mkdtemp(join(tmpdir(), 'handrail-bench-'));
  const loaded = await readCard('capabilities/plumbline-place-hold.json');
  if (!loaded.ok) throw new Error(loaded.message);
  try {
    // Warm-up: one of each (walker bundle build, first context).
    bank.store.reset();
    await handrail(browser, bank, loaded.card, password, dir);
    bank.store.reset();
    await floor(browser, bank, password);
    const h: number[] = [];
    const f: number[] = [];
    // Progress on stderr (a bar on a terminal): stdout carries only the result line.
    const bar = new Progress({ total: runs, label: 'interleaved pairs' });
    for (let i = 0; i < runs; i++) {
      // Alternate which goes first so neither always gets the warmer machine.
      const order = i % 2 === 0 ? (['h', 'f'] as const) : (['f', 'h'] as const);
      for (const which of order) {
        bank.store.reset();
        const t = performance.now();
        if (which === 'h') await handrail(browser, bank, loaded.card, password, dir);
        else await floor(browser, bank, password);
        (which === 'h' ? h : f).push(performance.now() - t);
      }
      bar.tick(`handrail ${Math.round(h.at(-1) ?? 0)} ms · floor ${Math.round(f.at(-1) ?? 0)} ms`);
    }
    bar.finish();
    const handrailMedianMs = median(h);
    const floorMedianMs = median(f);
    return {
      name: 'replay of the 11-step PLUMBLINE card vs plain Playwright script',
      ratio: handrailMedianMs / floorMedianMs,
      handrailMedianMs,
      handrailMeanMs: h.reduce((a, b) => a + b, 0) / h.length,
      floorMedianMs,
      runs,
      referenceMeanMs: 747,
    };
  } finally {
    await browser.close();
    await bank.close();
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const runs = Number(process.argv[2] ?? 15);
  const b = await benchReplay(runs);
  console.log(
    `${b.name}: Handrail median ${b.handrailMedianMs.toFixed(0)} ms (mean ${b.handrailMeanMs.toFixed(0)} ms), ` +
      `floor median ${b.floorMedianMs.toFixed(0)} ms, ratio ${b.ratio.toFixed(2)} over ${b.runs} interleaved runs ` +
      `(reference system: mean ${b.referenceMeanMs} ms)`,
  );
}
