// choose on a menu button (WAI-ARIA APG "Menu Button Pattern"), done by the browser surface in real Chromium: one step opens the menu, activates the one item with that name and checks it took — a plain item closes its menu, a radio item is checked, a menu rendered only on opening at the end of body is waited for — and two items of one name, a missing name and a pick that did not take each fail by name.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { test, expect } from '@playwright/test';
import { BrowserSurface } from '../../runner/browser/surface.ts';
import { WALKER_VERSION } from '../../shared/dom/version.ts';
import { fingerprint } from '../../shared/fingerprint.ts';
import { buildMenu, renderRow } from '../../shared/menu.ts';
import type { Control, Observation } from '../../shared/schema/observation.ts';
import type { BoundTarget } from '../../shared/surface.ts';
import { serveFixtures, type FixtureServer } from '../fixtures/server.ts';

let server: FixtureServer;
let surface: BrowserSurface;
test.beforeAll(async () => {
  server = await serveFixtures();
});
test.afterAll(async () => {
  await server.close();
});
test.beforeEach(async ({ browser }) => {
  surface = await BrowserSurface.launch({ browser });
  await surface.open(`${server.url}/menus.html`);
});
test.afterEach(async () => {
  await surface.close();
});

function button(o: Observation, name: string): Control {
  const found = o.parts.flatMap((p) => p.controls).filter((c) => c.role === 'button' && c.name === name);
  expect(found, `one button '${name}'`).toHaveLength(1);
  return found[0] as Control;
}
const picks = () => surface.page.evaluate(() => (window as unknown as { picks: string[] }).picks);
const status = () => surface.page.locator('#status').textContent();

test('every menu button is offered choose beside its own press, after the rows the screen always had; its fingerprinted verbs stay invoke', async () => {
  const o = await surface.observe();
  for (const name of ['Actions', 'Sort', 'More', 'Share']) expect(button(o, name)).toMatchObject({ verbs: ['invoke'], offers: ['choose'] });
  const rows = buildMenu(o).map(renderRow);
  expect(rows.filter((r) => / choose button /.test(r))).toEqual(["5: choose button 'Actions'", "6: choose button 'Sort'", "7: choose button 'More'", "8: choose button 'Share'"]);
  expect(rows.slice(0, 4)).toEqual(["1: invoke button 'Actions'", "2: invoke button 'Sort'", "3: invoke button 'More'", "4: invoke button 'Share'"]);
});

test('choose on a plain menu opens it, activates the item and the menu closes; a submenu\'s item of the same name is not a second one', async () => {
  const actions = button(await surface.observe(), 'Actions');
  await surface.act(actions.ref, { verb: 'choose', value: ' Duplicate ' });
  expect(await picks()).toEqual(['actions:Duplicate']);
  // "Archive" is also in the nested "Move to" menu: only the menu's own item counts, so the pick is not ambiguous.
  await surface.act(actions.ref, { verb: 'choose', value: 'Archive' });
  expect(await picks()).toEqual(['actions:Duplicate', 'actions:Archive']);
  expect(await status()).toBe('Actions: Archive');
  await expect(surface.page.locator('#actions-menu')).toBeHidden();
});

test('choose on a menu of radio items checks the one named; an item that does not become checked fails by name', async () => {
  const sort = button(await surface.observe(), 'Sort');
  await surface.act(sort.ref, { verb: 'choose', value: 'By name' });
  await expect(surface.page.getByRole('menuitemradio', { name: 'By name', includeHidden: true })).toHaveAttribute('aria-checked', 'true');
  await expect(surface.page.getByRole('menuitemradio', { name: 'By date', includeHidden: true })).toHaveAttribute('aria-checked', 'false');
  await expect(surface.act(sort.ref, { verb: 'choose', value: 'Unchecked' })).rejects.toMatchObject({
    code: 'ACTION_FAILED',
    message: expect.stringContaining('"Unchecked" is not checked after choosing it') as unknown,
  });
});

test('choose on a checkbox item checks it; choosing it again is refused by name before anything is clicked (a click would uncheck it)', async () => {
  const sort = button(await surface.observe(), 'Sort');
  const box = surface.page.getByRole('menuitemcheckbox', { name: 'Show archived', includeHidden: true });
  await surface.act(sort.ref, { verb: 'choose', value: 'Show archived' });
  await expect(box).toHaveAttribute('aria-checked', 'true');
  await expect(surface.act(sort.ref, { verb: 'choose', value: 'Show archived' })).rejects.toMatchObject({
    code: 'ACTION_FAILED',
    message: expect.stringContaining('"Show archived" is checked already: choosing it would uncheck it') as unknown,
  });
  await expect(box).toHaveAttribute('aria-checked', 'true');
  expect(await picks()).toEqual(['sort:Show archived']);
});

test('cards that press the menu button and then the item (two invokes) still replay: the button keeps its verbs and fingerprint', async () => {
  let o = await surface.observe();
  const actions = button(o, 'Actions');
  // The fingerprint an old card holds: taken over the button's verbs before menus were offered (invoke alone).
  const over = ['role', 'name', 'supports', 'ancestor_roles'] as const;
  const value = fingerprint({ role: 'button', name: 'Actions', verbs: ['invoke'], ancestors: actions.ancestors }, over, WALKER_VERSION);
  const target: BoundTarget = { id: 't', role: 'button', name: 'Actions', supports: ['invoke'], scope: [], ladder: [{ rung: 'role_name', cost: 100 }], fingerprint: { over: [...over], value } };
  const found = await surface.resolve(target);
  expect(found).toMatchObject({ ok: true, ref: actions.ref });
  await surface.act(actions.ref, { verb: 'invoke' });
  o = await surface.observe();
  const archive = o.parts.flatMap((p) => p.controls).filter((c) => c.role === 'menuitem' && c.name === 'Archive');
  expect(archive).toHaveLength(1);
  await surface.act(archive[0]?.ref ?? '', { verb: 'invoke' });
  expect(await picks()).toEqual(['actions:Archive']);
});

test('choose on a menu rendered only when opened, at the end of body, with no aria-controls while closed', async () => {
  const o = await surface.observe();
  // Closed, the menu is nowhere on the page.
  expect(o.parts.flatMap((p) => p.controls).some((c) => c.name === 'Export')).toBe(false);
  await surface.act(button(o, 'More').ref, { verb: 'choose', value: 'Export' });
  expect(await picks()).toEqual(['more:Export']);
  await expect(surface.page.locator('#portal-menu')).toHaveCount(0);
});

test('two items of one name, no item of that name and an item that leaves its menu open each fail by name', async () => {
  const o = await surface.observe();
  await expect(surface.act(button(o, 'Share').ref, { verb: 'choose', value: 'Copy link' })).rejects.toMatchObject({
    code: 'ACTION_FAILED',
    message: expect.stringContaining('2 items are named "Copy link" in its menu') as unknown,
  });
  const actions = button(await surface.observe(), 'Actions');
  // A submenu's items are not the menu's: "Trash" is only in the nested "Move to" menu, and is not guessed at.
  await expect(surface.act(actions.ref, { verb: 'choose', value: 'Trash' })).rejects.toMatchObject({
    code: 'ACTION_FAILED',
    message: expect.stringContaining('no item named "Trash" in the menu it opens') as unknown,
  });
  await expect(surface.act(actions.ref, { verb: 'choose', value: 'Purge' })).rejects.toMatchObject({
    code: 'ACTION_FAILED',
    message: expect.stringContaining('no item named "Purge" in the menu it opens') as unknown,
  });
  // The menu the failed pick opened is still open: choose does not click it shut, it picks in it.
  await expect(surface.act(actions.ref, { verb: 'choose', value: 'Stuck' })).rejects.toMatchObject({
    code: 'ACTION_FAILED',
    message: expect.stringContaining('the menu is still open after choosing "Stuck"') as unknown,
  });
  expect(await picks()).toEqual(['actions:Stuck']);
});

test('a button that opens no menu fails by name, and nothing is clicked in any other menu', async () => {
  await surface.page.evaluate(() => {
    const b = document.createElement('button');
    b.setAttribute('aria-haspopup', 'menu');
    b.textContent = 'Empty';
    document.body.prepend(b);
  });
  await expect(surface.act(button(await surface.observe(), 'Empty').ref, { verb: 'choose', value: 'Archive' })).rejects.toMatchObject({
    code: 'ACTION_FAILED',
    message: expect.stringContaining('it opened no menu') as unknown,
  });
  expect(await picks()).toEqual([]);
});

// Submenus (APG "Navigation Menubar" style, Radix/MUI style): `choose` takes a path of item names, "Export › PDF"
// (shared/menu-path.ts), and opens each submenu on the way as the page opens it — a click, a hover, or ArrowRight.
test.describe('submenus, by a path', () => {
  test.beforeEach(async () => {
    await surface.open(`${server.url}/menus-sub.html`);
  });

  test('a path picks in a submenu that opens on a click, and the menus close', async () => {
    const file = button(await surface.observe(), 'File');
    await surface.act(file.ref, { verb: 'choose', value: 'Export › PDF' });
    expect(await picks()).toEqual(['File/Export/PDF']);
    expect(await status()).toBe('Picked File / Export / PDF');
    await expect(surface.page.locator('#file-menu')).toBeHidden();
  });

  test('two levels down to a radio item: it ends checked', async () => {
    const file = button(await surface.observe(), 'File');
    await surface.act(file.ref, { verb: 'choose', value: 'Export › Image › JPEG' });
    expect(await picks()).toEqual(['File/Export/Image/JPEG']);
    await expect(surface.page.getByRole('menuitemradio', { name: 'JPEG', includeHidden: true })).toHaveAttribute('aria-checked', 'true');
  });

  test('a submenu that opens only on a hover, made at the end of body a moment later', async () => {
    const file = button(await surface.observe(), 'File');
    await surface.act(file.ref, { verb: 'choose', value: 'Share › Link' });
    expect(await picks()).toEqual(['File/Share/Link']);
    await expect(surface.page.locator('#share-sub')).toHaveCount(0);
  });

  test('a submenu that opens only from the keyboard (ArrowRight on its item)', async () => {
    await surface.page.evaluate(() => ((window as unknown as { keysOnly: boolean }).keysOnly = true));
    const file = button(await surface.observe(), 'File');
    await surface.act(file.ref, { verb: 'choose', value: 'Export › CSV' });
    expect(await picks()).toEqual(['File/Export/CSV']);
  });

  test('a submenu that opens on no gesture fails naming its item, nothing picked, and the menus opened on the way are closed again', async () => {
    // `stuck=Image`: Image's submenu never opens; the page's Escape closes one level at a time (APG).
    await surface.open(`${server.url}/menus-sub.html?stuck=Image`);
    const file = button(await surface.observe(), 'File');
    await expect(surface.act(file.ref, { verb: 'choose', value: 'Export › Image › PNG' })).rejects.toMatchObject({
      code: 'ACTION_FAILED',
      message: expect.stringContaining('the submenu of "Image" did not open (hovered, clicked, ArrowRight)') as unknown,
    });
    expect(await picks()).toEqual([]);
    await expect(surface.page.locator('#file-menu')).toBeHidden();
    await expect(surface.page.locator('#file-menu [role=menu]').first()).toBeHidden();
  });

  test('the same inside a modal dialog, where the menu button ignores Escape itself (APG): the menus close and the dialog stays open, its unsaved input kept', async () => {
    // menus-sub.html as APG's menu button behaves (Escape is the menu items' key, not the button's), inside a modal
    // <dialog> with a form: an Escape sent to the button would reach the dialog and close it.
    let html = await readFile(fileURLToPath(new URL('../fixtures/menus-sub.html', import.meta.url)), 'utf8');
    const apg = html.replace(
      "const open = buttons.find((b) => b.getAttribute('aria-expanded') === 'true');\n    if (!open) return;",
      "const open = buttons.find((b) => b.getAttribute('aria-expanded') === 'true');\n    if (!open || !menu) return;",
    );
    expect(apg, 'the fixture still has the Escape handler this test changes').not.toBe(html);
    html = apg
      .replace('<body>', '<body><dialog id="dlg"><form><input aria-label="Note" value="typed, unsaved"></form>')
      .replace('</body>', `</dialog><script>document.getElementById('dlg').showModal();
        document.addEventListener('keydown', (e) => { if (e.key === 'Escape' && e.target.closest('[role=menu]')) e.preventDefault(); }, true);</script></body>`);
    const own = await serveFixtures({ '/in-dialog.html': html });
    try {
      await surface.open(`${own.url}/in-dialog.html?stuck=Image`);
      const file = button(await surface.observe(), 'File');
      await expect(surface.act(file.ref, { verb: 'choose', value: 'Export › Image › PNG' })).rejects.toMatchObject({ code: 'ACTION_FAILED' });
      expect(await picks()).toEqual([]);
      expect(await surface.page.evaluate(() => (document.getElementById('dlg') as HTMLDialogElement).open)).toBe(true);
      await expect(surface.page.getByRole('textbox', { name: 'Note' })).toHaveValue('typed, unsaved');
      await expect(surface.page.locator('#file-menu')).toBeHidden();
    } finally {
      await own.close();
    }
  });

  test('a name that holds the separator is the item it names when no submenu reads it as a path', async () => {
    const file = button(await surface.observe(), 'File');
    await surface.act(file.ref, { verb: 'choose', value: 'Go › Home' });
    expect(await picks()).toEqual(['File/Go › Home']);
  });

  test('a value that reads both as a name and as a path, a missing level and a level with no submenu each fail by name, nothing picked', async () => {
    const odd = button(await surface.observe(), 'Odd');
    await expect(surface.act(odd.ref, { verb: 'choose', value: 'Export › PDF' })).rejects.toMatchObject({
      code: 'ACTION_FAILED',
      message: expect.stringContaining('"Export › PDF" names an item of the menu and is also a path through the submenu "Export"') as unknown,
    });
    const file = button(await surface.observe(), 'File');
    await expect(surface.act(file.ref, { verb: 'choose', value: 'Export › DOCX' })).rejects.toMatchObject({
      code: 'ACTION_FAILED',
      message: expect.stringContaining(`no item named "DOCX" in the submenu of "Export"`) as unknown,
    });
    await expect(surface.act(file.ref, { verb: 'choose', value: 'New › PDF' })).rejects.toMatchObject({
      code: 'ACTION_FAILED',
      message: expect.stringContaining('"New" in the menu it opens opens no submenu') as unknown,
    });
    expect(await picks()).toEqual([]);
  });
});
