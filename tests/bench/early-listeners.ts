// Benchmark: reading the listeners a document added before the extension's double-click probe came
// (extension/lib/early-listeners.ts; docs/design/extension.md, "The extension's trusted input"), on a generated list of
// N rows (8 elements each) whose titles each listen for a double-click, the probe injected after the page's
// scripts ran. Through Playwright's own CDP session on the page (the extension sends the same commands through
// chrome.debugger, which adds its IPC). Prints the elements, the listeners taught and the median of 7 reads.
// Run alone, after `npm run build:ext`: npx tsx tests/bench/early-listeners.ts [rows]   (default 1000)
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { learnEarlyListeners } from '../../extension/lib/early-listeners.ts';
import type { Cdp } from '../../extension/lib/trusted-input.ts';
import { findChromium, QUIET_FLAGS } from '../../runner/browser/chromium.ts';
import { serveFixtures } from '../fixtures/server.ts';
import { median } from './stats.ts';

const PROBE = '.output/chrome-mv3/content-scripts/probe.js';
const rows = Number(process.argv[2] ?? 1000);
if (!existsSync(PROBE)) throw new Error(`no built probe at ${PROBE}: run \`npm run build:ext\` first`);
const list = Array.from({ length: rows }, (_, i) => `<li><span class=t>Row ${i}</span> <b>a</b><i>b</i><em>c</em><small>d</small><u>e</u><s>f</s></li>`).join('');
const server = await serveFixtures({
  '/rows': `<!doctype html><title>Rows</title><ul>${list}</ul><script>for (const t of document.querySelectorAll('.t')) t.addEventListener('dblclick', () => {});</script>`,
});
const browser = await chromium.launch({ executablePath: findChromium().executablePath, args: [...QUIET_FLAGS] });
try {
  const page = await browser.newPage();
  await page.goto(`${server.url}/rows`);
  await page.addScriptTag({ path: PROBE });
  const elements = await page.evaluate(() => document.querySelectorAll('*').length);
  const times: number[] = [];
  let taught = 0;
  for (let i = 0; i < 7; i++) {
    const session = await page.context().newCDPSession(page);
    const cdp: Cdp = {
      send: (method, params) => session.send(method as never, params as never),
      events(listen) {
        const on = (p: unknown): void => listen('Runtime.executionContextCreated', p);
        session.on('Runtime.executionContextCreated', on);
        return () => session.off('Runtime.executionContextCreated', on);
      },
    };
    const t0 = performance.now();
    taught = await learnEarlyListeners(cdp);
    times.push(performance.now() - t0);
    await session.detach();
  }
  console.log(`early listeners: ${elements} elements, ${taught} listeners taught, median ${median(times).toFixed(0)} ms of ${times.length} (${times.map((t) => t.toFixed(0)).join(' ')})`);
} finally {
  await browser.close();
  await server.close();
}
