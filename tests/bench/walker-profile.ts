// Profile of one walker observe on the bench's generated page: CDP Profiler around observePage, self time summed
// by function, top rows printed. Run alone: npx tsx tests/bench/walker-profile.ts [elements] [observes] [rows] [--in-page]
// [--casedesk] (--casedesk: CASEDESK's list with [elements] cases instead of the generated page)
// (--in-page: the observes run in one evaluate, so only the walk and its JSON are sampled, not the round trips)
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { findChromium } from '../../runner/browser/chromium.ts';
import { ensureWalker, observePage } from '../../runner/browser/observe.ts';
import { generatePage, openCaseDeskList } from './walker.ts';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTime {
  fn: string;
  ms: number;
  share: number;
}

/** Self time per function (name and line), summed over every node of that function, largest first. */
export function selfTimes(profile: Profile): SelfTime[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const ms = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    const dt = (profile.timeDeltas[i] ?? 0) / 1000;
    if (!node) return;
    const f = node.callFrame;
    const fn = `${f.functionName || '(anonymous)'}${f.url || f.lineNumber >= 0 ? `:${f.lineNumber + 1}` : ''}`;
    ms.set(fn, (ms.get(fn) ?? 0) + dt);
    total += dt;
  });
  return [...ms].map(([fn, t]) => ({ fn, ms: t, share: total ? t / total : 0 })).sort((a, b) => b.ms - a.ms);
}

export async function profileWalker(
  elements: number,
  observes: number,
  inPage = false,
  caseDesk = false,
): Promise<{ rows: SelfTime[]; inPageMs: number }> {
  const browser = await chromium.launch(findChromium().launchOptions);
  let closeDesk: (() => Promise<void>) | undefined;
  try {
    let page;
    if (caseDesk) {
      const desk = await openCaseDeskList(browser, elements);
      closeDesk = desk.close;
      page = desk.page;
    } else {
      page = await browser.newPage();
      await page.setContent(generatePage(elements));
    }
    await ensureWalker(page.mainFrame());
    await observePage(page);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 50 });
    await cdp.send('Profiler.start');
    if (inPage) {
      await page.evaluate((n) => {
        const api = (globalThis as unknown as { __handrail: { observe(): unknown } }).__handrail;
        for (let i = 0; i < n; i++) JSON.stringify(api.observe());
      }, observes);
    } else for (let i = 0; i < observes; i++) await observePage(page);
    const { profile } = (await cdp.send('Profiler.stop')) as unknown as { profile: Profile };
    // The walk alone, in the page, without the round trip or the JSON crossing.
    const inPageMs = await page.evaluate(() => {
      const api = (globalThis as unknown as { __handrail: { observe(): unknown } }).__handrail;
      const t: number[] = [];
      for (let i = 0; i < 5; i++) {
        const s = performance.now();
        api.observe();
        t.push(performance.now() - s);
      }
      return t.sort((a, b) => a - b)[2]!;
    });
    return { rows: selfTimes(profile).map((r) => ({ ...r, ms: r.ms / observes })), inPageMs };
  } finally {
    await closeDesk?.();
    await browser.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const elements = Number(process.argv[2] ?? 5000);
  const observes = Number(process.argv[3] ?? 5);
  const top = Number(process.argv[4] ?? 10);
  const inPage = process.argv.includes('--in-page');
  const { rows, inPageMs } = await profileWalker(elements, observes, inPage, process.argv.includes('--casedesk'));
  process.stdout.write(`walker in-page observe median ${inPageMs.toFixed(1)} ms; self time per observe (${observes} observes):\n`);
  for (const r of rows.slice(0, top)) process.stdout.write(`  ${r.ms.toFixed(2).padStart(7)} ms  ${(r.share * 100).toFixed(1).padStart(5)}%  ${r.fn}\n`);
}
