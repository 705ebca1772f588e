// What a walker observe cannot go below in JavaScript: the browser's own answers the observation is made of, each
// timed alone on the bench's generated page, beside the walker's observe and CDP's Accessibility.getFullAXTree of the
// same page, interleaved round by round in one browser (so other tenants' load falls on all alike).
// Run alone: npx tsx tests/bench/walker-floor.ts [elements] [rounds]
// (docs/design/walker.md, "The walker", "Where a 5k observe's time goes now")
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { findChromium } from '../../runner/browser/chromium.ts';
import { ensureWalker, observePage } from '../../runner/browser/observe.ts';
import { median } from './stats.ts';
import { generatePage } from './walker.ts';

/** One part of an observe, timed in the page (ms per observe, median over the rounds). */
export interface FloorPart {
  part: string;
  ms: number;
}

export interface WalkerFloor {
  elements: number;
  controls: number;
  /** The floor's parts, then `floor` (their sum, measured as one pass), the walk in the page, and the round trips. */
  parts: FloorPart[];
  /** Sum of the browser's own answers, measured as one pass: what any walker of this output pays in the page. */
  floorMs: number;
  /** `observeWire()` in the page: the walk, its wire form and the JSON. */
  walkMs: number;
  /** An evaluate that does nothing: the one round trip every observe takes. */
  roundTripMs: number;
  /** `observePage`, as `tests/bench/walker.ts` times it. */
  observePageMs: number;
  cdpMs: number;
}

/**
 * The parts, as a script for the page (a string: tsx would wrap a named function in a helper the page lacks). Each
 * reads only what the observation cannot be made without, for the elements the walker reads it of:
 * - `pass`: a flat-tree pass reading of every element what `visit` must (tag, aria-hidden, role, inert, aria-disabled,
 *   shadow root, the two gesture handlers; shared/dom/walk.ts);
 * - `visibility`: `checkVisibility({visibilityProperty: true})` of each control (shared/dom/style.ts isHiddenForAria);
 * - `style`: each control's computed style and the two properties every control's record reads (`content` for accname's
 *   alt text, `-webkit-text-security` for a secret field);
 * - `text`: `body.innerText`.
 * `floor` is the four in one pass, as a walker that asked nothing else would ask them.
 */
const PARTS = `(() => {
  const api = globalThis.__handrail;
  const n = api.observe().controls.length;
  const controls = [];
  for (let i = 0; i < n; i++) { const el = api.element('c' + i); if (el) controls.push(el); }
  const SHOWN = { visibilityProperty: true, checkVisibilityCSS: true };
  let sink = 0;
  const pass = () => {
    const stack = [document.documentElement];
    while (stack.length) {
      const el = stack.pop();
      sink += el.tagName.length;
      el.getAttribute('aria-hidden'); el.getAttribute('role'); el.hasAttribute('inert'); el.getAttribute('aria-disabled');
      if (el.ondblclick != null || el.oncontextmenu != null) sink++;
      const root = el.shadowRoot || el;
      for (let ch = root.lastElementChild; ch; ch = ch.previousElementSibling) stack.push(ch);
    }
  };
  const visibility = () => { for (const el of controls) if (el.checkVisibility(SHOWN)) sink++; };
  const style = () => { for (const el of controls) { const s = getComputedStyle(el); sink += s.content.length + String(s.webkitTextSecurity).length; } };
  const text = () => { sink += document.body.innerText.length; };
  const floor = () => { pass(); visibility(); style(); text(); };
  const walk = () => { sink += api.observeWire().length; };
  return { controls: controls.length, run: { pass, visibility, style, text, floor, walk }, sink: () => sink };
})()`;

export async function walkerFloor(elements = 5000, rounds = 15): Promise<WalkerFloor> {
  const browser = await chromium.launch(findChromium().launchOptions);
  try {
    const page = await browser.newPage();
    await page.setContent(generatePage(elements));
    await ensureWalker(page.mainFrame());
    await observePage(page);
    const controls = await page.evaluate(`(globalThis.__floor = ${PARTS}).controls`) as number;
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Accessibility.getFullAXTree');
    const names = ['pass', 'visibility', 'style', 'text', 'floor', 'walk'] as const;
    const times: Record<string, number[]> = { roundTrip: [], observePage: [], cdp: [] };
    for (const k of names) times[k] = [];
    for (let r = 0; r < rounds; r++) {
      const inPage = (await page.evaluate(`(() => { const f = globalThis.__floor, out = {};
        for (const k of ${JSON.stringify(names)}) { const t = performance.now(); f.run[k](); out[k] = performance.now() - t; }
        return out; })()`)) as Record<string, number>;
      for (const k of names) times[k]!.push(inPage[k]!);
      let t = performance.now();
      await page.evaluate('0');
      times['roundTrip']!.push(performance.now() - t);
      t = performance.now();
      await observePage(page);
      times['observePage']!.push(performance.now() - t);
      t = performance.now();
      await cdp.send('Accessibility.getFullAXTree');
      times['cdp']!.push(performance.now() - t);
    }
    const m = (k: string): number => median(times[k]!);
    return {
      elements,
      controls,
      parts: names.map((part) => ({ part, ms: m(part) })),
      floorMs: m('floor'),
      walkMs: m('walk'),
      roundTripMs: m('roundTrip'),
      observePageMs: m('observePage'),
      cdpMs: m('cdp'),
    };
  } finally {
    await browser.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const elements = Number(process.argv[2] ?? 5000);
  const rounds = Number(process.argv[3] ?? 15);
  const f = await walkerFloor(elements, rounds);
  const out = process.stdout;
  out.write(`walker floor on the ${elements}-element page (${f.controls} controls), median of ${rounds} interleaved rounds:\n`);
  for (const p of f.parts) out.write(`  ${p.part.padEnd(10)} ${p.ms.toFixed(2).padStart(7)} ms\n`);
  out.write(`  round trip ${f.roundTripMs.toFixed(2).padStart(7)} ms (an empty evaluate)\n`);
  out.write(`  observePage ${f.observePageMs.toFixed(1)} ms, CDP getFullAXTree ${f.cdpMs.toFixed(1)} ms\n`);
  out.write(`  walker/CDP ${(f.observePageMs / f.cdpMs).toFixed(3)}; floor + round trip / CDP ${((f.floorMs + f.roundTripMs) / f.cdpMs).toFixed(3)}; ` +
    `the walk's own JavaScript ≈ ${(f.walkMs - f.floorMs).toFixed(1)} ms of ${f.walkMs.toFixed(1)} ms in the page\n`);
}
