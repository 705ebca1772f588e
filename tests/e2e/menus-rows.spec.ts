// choose on menu buttons as real apps build row menus: one menu shared by every row's "…" button, an item that
// removes its own row, an item that is a link to another page. The pick is recorded on the button the person opened,
// and a pick whose effect took the button or the page away is a pick that took, not a failure.
import { build } from 'esbuild';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test, expect } from '@playwright/test';
import { BrowserSurface } from '../../runner/browser/surface.ts';
import type { Control } from '../../shared/schema/observation.ts';
import { ScriptedModel } from '../../shared/author/scripted.ts';
import { serveFixtures, type FixtureServer } from '../fixtures/server.ts';
import { eveningInBrowser } from './support/evening.ts';

const ROWS = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Cases</title></head><body>
<h1>Cases</h1>
<table aria-label="Cases"><tbody>
  <tr id="r1"><td>C-1</td><td><button id="b1" aria-haspopup="menu" aria-controls="m" aria-expanded="false">Row actions</button></td></tr>
  <tr id="r2"><td>C-2</td><td><button id="b2" aria-haspopup="menu" aria-controls="m" aria-expanded="false">Row actions</button></td></tr>
</tbody></table>
<ul role="menu" id="m" aria-label="Row actions" hidden>
  <li role="menuitem" id="archive">Archive</li>
  <li role="menuitem" id="delete">Delete</li>
  <li role="none"><a role="menuitem" id="home" href="/start">Go home</a></li>
</ul>
<p id="status"></p>
<script>
  const menu = document.getElementById('m');
  let row = null;
  const close = () => { menu.hidden = true; for (const b of document.querySelectorAll('[aria-haspopup]')) b.setAttribute('aria-expanded', 'false'); };
  for (const b of document.querySelectorAll('[aria-haspopup]')) {
    b.addEventListener('click', () => { const open = b.getAttribute('aria-expanded') !== 'true'; close(); if (open) { row = b.closest('tr'); b.setAttribute('aria-expanded', 'true'); menu.hidden = false; } });
  }
  document.getElementById('archive').addEventListener('click', () => { document.getElementById('status').textContent = 'Archived ' + row.id; close(); });
  document.getElementById('delete').addEventListener('click', () => { const r = row; close(); r.remove(); document.getElementById('status').textContent = 'Deleted ' + r.id; });
</script>
</body></html>`;

let server: FixtureServer;
let surface: BrowserSurface;
test.beforeAll(async () => {
  server = await serveFixtures({ '/rows-menu': ROWS, '/start': '<!doctype html><html lang="en"><title>Start</title><h1>Start</h1></html>' });
});
test.afterAll(async () => {
  await server.close();
});
test.beforeEach(async ({ browser }) => {
  surface = await BrowserSurface.launch({ browser });
  await surface.open(`${server.url}/rows-menu`);
});
test.afterEach(async () => {
  await surface.close();
});

async function rowButton(rowKey: string): Promise<Control> {
  const o = await surface.observe();
  const found = o.parts.flatMap((p) => p.controls).filter((c) => c.name === 'Row actions' && c.scope.some((l) => l.role === 'row' && l.name === rowKey));
  expect(found).toHaveLength(1);
  return found[0] as Control;
}

test('an item that removes its own row is a pick that took, not a failure', async () => {
  await surface.act((await rowButton('C-2')).ref, { verb: 'choose', value: 'Delete' });
  await expect(surface.page.locator('#status')).toHaveText('Deleted r2');
  await expect(surface.page.locator('#r2')).toHaveCount(0);
});

test('an item that is a link to another page is a pick that took: the page it leads to is the next screen', async () => {
  await surface.act((await rowButton('C-1')).ref, { verb: 'choose', value: 'Go home' });
  await expect(surface.page).toHaveURL(/\/start$/);
});

test('a pick in a menu several rows share is the pick of the row whose button opened it', async () => {
  const options = fileURLToPath(new URL('../../shared/dom/options.ts', import.meta.url));
  const code = (await build({ entryPoints: [options], bundle: true, write: false, format: 'iife', globalName: 'opts', platform: 'browser' })).outputFiles[0]?.text ?? '';
  await surface.page.addScriptTag({ content: code });
  await surface.page.locator('#b2').click();
  const owner = await surface.page.evaluate(() => (globalThis as unknown as { opts: { menuButtonOf(e: Element): Element | null } }).opts.menuButtonOf(document.getElementById('archive') as Element)?.id ?? null);
  expect(owner).toBe('b2');
  // With the menu closed, nothing says whose it is: no button, never the first in the page.
  await surface.page.keyboard.press('Escape');
  await surface.page.evaluate(() => document.getElementById('b2')?.setAttribute('aria-expanded', 'false'));
  const none = await surface.page.evaluate(() => (globalThis as unknown as { opts: { menuButtonOf(e: Element): Element | null } }).opts.menuButtonOf(document.getElementById('archive') as Element)?.id ?? null);
  expect(none).toBeNull();
});

test('a model that presses the second row\'s menu button, then an item of the menu the rows share: one choose on that row\'s button', async () => {
  test.setTimeout(120_000);
  const dir = await mkdtemp(join(tmpdir(), 'handrail-menus-rows-'));
  try {
    const { evening, lines } = await eveningInBrowser(join(dir, 'rows.jsonl'), {
      model: new ScriptedModel({
        turns: [
          [
            { tool: 'assert_screen', label: 'cases', title: 'Cases' },
            { tool: 'act', match: "button 'Row actions' in row 'C-2'", verb: 'invoke' },
          ],
          [{ tool: 'act', match: "menuitem 'Archive'", verb: 'invoke' }],
          [{ tool: 'finish', label: 'cases' }],
        ],
      }),
      owner: { ask: () => Promise.reject(new Error('nothing here writes: no owner is asked')) },
      goal: 'Archive case C-2',
      entry: `${server.url}/rows-menu`,
      inputs: [],
    });
    expect(evening, JSON.stringify(evening)).toMatchObject({ ok: true });
    const picks = lines.flatMap((l) => (l.kind === 'act' ? [{ verb: l.verb, value: l.value, button: l.control.name, row: l.control.scope.find((s) => s.role === 'row')?.name }] : []));
    expect(picks).toEqual([{ verb: 'choose', value: 'Archive', button: 'Row actions', row: 'C-2' }]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
