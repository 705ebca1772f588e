// Benchmark: observing a 5,000-element page with the walker versus Chrome's own CDP Accessibility.getFullAXTree,
// median of interleaved runs in the same browser. Prints both medians and the ratio (walker / CDP; < 1 is faster).
// Run alone: npx tsx tests/bench/walker.ts [runs]
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { findChromium } from '../../runner/browser/chromium.ts';
import { ensureWalker, observePage } from '../../runner/browser/observe.ts';
import { median } from './stats.ts';

export interface WalkerBench {
  name: string;
  /** walker median / CDP median */
  ratio: number;
  walkerMedianMs: number;
  cdpMedianMs: number;
  elements: number;
  controls: number;
  runs: number;
}

/** A legacy-style page: layout tables of labelled fields, data tables with links per row, nav lists, paragraphs. */
export function generatePage(targetElements = 5000): string {
  const parts: string[] = ['<!DOCTYPE html><html><head><title>Bench 5000</title></head><body>'];
  let n = 0;
  let block = 0;
  while (n < targetElements) {
    block++;
    parts.push(`<h2>Section ${block}</h2><form><table>`);
    for (let i = 0; i < 5; i++) {
      parts.push(`<tr><td>Field ${block}.${i}</td><td><input name="f${block}_${i}"></td></tr>`);
    }
    parts.push('<tr><td>Kind</td><td><select><option>A</option><option>B</option></select></td></tr>');
    parts.push(`<tr><td colspan="2"><input type="submit" value="F5=Go ${block}"> <label><input type="checkbox"> Keep</label></td></tr>`);
    parts.push('</table></form><table border="1"><tr><th>Id</th><th>Name</th><th>Amount</th><th>Action</th></tr>');
    for (let r = 0; r < 10; r++) {
      parts.push(`<tr><td>${block}-${r}</td><td><span>Name <b>${r}</b></span></td><td align="right">${r * 17}.00</td><td><a href="#h${block}_${r}">Hold</a> <a href="#v${block}_${r}">View</a></td></tr>`);
    }
    parts.push('</table><ul>');
    for (let l = 0; l < 4; l++) parts.push(`<li><a href="#n${block}_${l}">Menu item ${l}</a></li>`);
    parts.push(`</ul><p>Paragraph <em>with</em> some <strong>inline</strong> text ${block}.</p><div><div><span>nested</span></div></div>`);
    n += 150;
  }
  parts.push('</body></html>');
  return parts.join('\n');
}


export async function benchWalker(runs = 15): Promise<WalkerBench> {
  const browser = await chromium.launch(findChromium().launchOptions);
  try {
    const page = await browser.newPage();
    await page.setContent(generatePage(5000));
    const elements = await page.evaluate(() => document.getElementsByTagName('*').length);
    const cdp = await page.context().newCDPSession(page);
    // Warm both paths once: the walker install and the CDP accessibility domain are one-off costs.
    await ensureWalker(page.mainFrame());
    const first = await observePage(page);
    await cdp.send('Accessibility.getFullAXTree');
    const walkerMs: number[] = [];
    const cdpMs: number[] = [];
    for (let i = 0; i < runs; i++) {
      let t = performance.now();
      await observePage(page);
      walkerMs.push(performance.now() - t);
      t = performance.now();
      await cdp.send('Accessibility.getFullAXTree');
      cdpMs.push(performance.now() - t);
    }
    const walkerMedianMs = median(walkerMs);
    const cdpMedianMs = median(cdpMs);
    return {
      name: 'walker observe vs CDP getFullAXTree (5,000 elements)',
      ratio: walkerMedianMs / cdpMedianMs,
      walkerMedianMs,
      cdpMedianMs,
      elements,
      controls: first.parts.reduce((k, f) => k + f.controls.length, 0),
      runs,
    };
  } finally {
    await browser.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const runs = Number(process.argv[2] ?? 15);
  const r = await benchWalker(runs);
  process.stdout.write(
    `${r.name}: ${r.elements} elements, ${r.controls} controls, ${r.runs} interleaved runs\n` +
      `  walker observePage median ${r.walkerMedianMs.toFixed(1)} ms\n` +
      `  CDP getFullAXTree median  ${r.cdpMedianMs.toFixed(1)} ms\n` +
      `  ratio walker/CDP          ${r.ratio.toFixed(3)}\n`,
  );
}
