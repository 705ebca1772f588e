// The verbs beyond click-and-type, done by the browser surface in real Chromium on a page of our own: set_value
// reaching React-, Vue- and plain-DOM-style controlled inputs, a key pressed in a field (Enter adding an item, Enter
// submitting a form seen as a write), hover revealing a row's hidden action, double-click offered where the page
// listens and renaming in place, right-click opening a menu (or failing by name), and choose in a custom ARIA
// combobox inside a shadow root.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, expect } from '@playwright/test';
import { build } from 'esbuild';
import { buildMenu, renderRow } from '../../shared/menu.ts';
import { BrowserSurface } from '../../runner/browser/surface.ts';
import type { Control, Observation } from '../../shared/schema/observation.ts';
import type { BoundTarget } from '../../shared/surface.ts';
import { serveFixtures, type FixtureServer } from '../fixtures/server.ts';
import { WALKER_GOLDEN_DIR } from '../tools/walker-golden.ts';

/**
 * Fields that hear only keys, as jQuery-era widgets are written (Node-RED's search box filters on `keyup` alone): a
 * filter over three flows, and a date field beside it, whose value is no text to type.
 */
const KEYED = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Keyed</title></head><body>
<label>Search flows <input id="search"></label>
<label>Due <input id="due" type="date"></label>
<ul id="flows"><li>Orders</li><li>Refunds</li><li>Returns</li></ul>
<script>
  window.models = { keyups: 0, due: '' };
  document.getElementById('search').addEventListener('keyup', (e) => {
    window.models.keyups++;
    for (const li of document.querySelectorAll('#flows li')) li.hidden = !li.textContent.includes(e.target.value);
  });
  document.getElementById('due').addEventListener('change', (e) => { window.models.due = e.target.value; });
</script></body></html>`;

/**
 * Fields a framework renders anew as they are used: one replaced by a fresh copy as it takes the focus (the keys then
 * go to the old element, off the page), one that takes the value and then is rendered anew holding it, and one
 * replaced at every focus. `window.models.taken` counts the values the second one took.
 */
const RERENDERED = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Rerendered</title></head><body>
<label>Tag <input id="tag"></label>
<label>Note <input id="note"></label>
<label>Code <input id="code"></label>
<script>
  window.models = { taken: 0 };
  let tagFocused = 0;
  document.addEventListener('focusin', (e) => {
    const el = e.target;
    if ((el.id === 'tag' && tagFocused++ === 0) || el.id === 'code') el.replaceWith(el.cloneNode());
  });
  document.addEventListener('input', (e) => {
    const el = e.target;
    if (el.id !== 'note' || el.dataset.fresh) return;
    window.models.taken++;
    const fresh = el.cloneNode();
    fresh.value = el.value;
    fresh.dataset.fresh = 'yes';
    setTimeout(() => el.replaceWith(fresh), 0);
  });
</script></body></html>`;

let server: FixtureServer;
let surface: BrowserSurface;
test.beforeAll(async () => {
  server = await serveFixtures({ '/search-sent': '<!doctype html><title>Sent</title><p>Searched</p>', '/keyed.html': KEYED, '/rerendered.html': RERENDERED });
});
test.afterAll(async () => {
  await server.close();
});
test.beforeEach(async ({ browser }) => {
  surface = await BrowserSurface.launch({ browser });
  await surface.open(`${server.url}/verbs.html`);
});
test.afterEach(async () => {
  await surface.close();
});

const controls = (o: Observation): Control[] => o.parts.flatMap((p) => p.controls);
function one(o: Observation, pick: (c: Control) => boolean): Control {
  const found = controls(o).filter(pick);
  expect(found, 'exactly one control matches').toHaveLength(1);
  return found[0] as Control;
}
const named = (name: string, row?: string) => (c: Control) => c.name === name && (row === undefined || c.scope.at(-1)?.name === row);
const models = () => surface.page.evaluate(() => (window as unknown as { models: Record<string, string | number> }).models);

function target(c: Control, supports: BoundTarget['supports']): BoundTarget {
  return { id: 't', role: c.role, name: c.name, supports, scope: c.scope, ladder: [{ rung: 'role_name', cost: 100 }], fingerprint: { over: ['role'] } };
}

test('set_value reaches a React-style, a Vue-style and a plain-DOM controlled input: typed, then the field is left', async () => {
  const o = await surface.observe();
  for (const [name, value] of [['React name', 'Ada Lovelace'], ['Vue name', 'Grace Hopper'], ['Plain name', 'Joan Clarke']] as const) {
    await surface.act(one(o, named(name)).ref, { verb: 'set_value', value });
  }
  expect(await models()).toMatchObject({ react: 'Ada Lovelace', vue: 'Grace Hopper', plain: 'Joan Clarke' });
  // The React imitation is faithful: a value assigned by script, even with an input event, is swallowed.
  await surface.page.evaluate(() => {
    const el = document.getElementById('react') as HTMLInputElement;
    el.value = 'by script';
    el.dispatchEvent(new Event('input', { bubbles: true }));
  });
  expect((await models())['react']).toBe('Ada Lovelace');
});

test('set_value reaches a field that hears only keys (a keyup filter): the value is typed as a person types it', async () => {
  await surface.open(`${server.url}/keyed.html`);
  const o = await surface.observe();
  await surface.act(one(o, named('Search flows')).ref, { verb: 'set_value', value: 'Re' });
  expect(await surface.page.locator('#flows li:visible').allTextContents()).toEqual(['Refunds', 'Returns']);
  expect(await surface.page.inputValue('#search')).toBe('Re');
  // A value that is no text (a date) is filled, not typed: typing part of it would be a malformed date.
  await surface.act(one(o, named('Due')).ref, { verb: 'set_value', value: '2026-12-07' });
  expect((await models())['due']).toBe('2026-12-07');
});

test('set_value on a field the page renders anew as it is typed into: typed into the field that replaced it, once; a field replaced every time fails by name', async () => {
  await surface.open(`${server.url}/rerendered.html`);
  const o = await surface.observe();
  await surface.act(one(o, named('Tag')).ref, { verb: 'set_value', value: 'errands' });
  expect(await surface.page.inputValue('#tag')).toBe('errands');
  await surface.act(one(o, named('Note')).ref, { verb: 'set_value', value: 'Milk and bread' });
  expect(await surface.page.inputValue('#note')).toBe('Milk and bread');
  expect((await models())['taken']).toBe(1);
  const code = surface.act(one(o, named('Code')).ref, { verb: 'set_value', value: 'OP1001' });
  await expect(code).rejects.toMatchObject({ code: 'ACTION_FAILED', message: expect.stringContaining('replaced the field as it was typed into, twice') });
  expect(await surface.page.inputValue('#code')).toBe('');
});

test('press: Enter in a field adds an item; Enter that submits a form is a write the surface sees', async () => {
  let o = await surface.observe();
  const field = one(o, named('New item'));
  await surface.act(field.ref, { verb: 'set_value', value: 'Pay the rent' });
  await surface.act(field.ref, { verb: 'press', value: 'Enter' });
  o = await surface.observe();
  expect(controls(o).filter((c) => c.name === 'Delete item').map((c) => c.scope.at(-1)?.name)).toEqual(['Buy milk', 'Walk the dog', 'Pay the rent']);

  await surface.watchWrites({ origins: [server.url], ignore: [] });
  const query = one(o, named('Query'));
  await surface.act(query.ref, { verb: 'set_value', value: 'milk' });
  await surface.act(query.ref, { verb: 'press', value: 'Enter' });
  await expect.poll(() => surface.page.url(), { timeout: 5000 }).toContain('/search-sent');
  expect(await surface.takeWrites()).toEqual([{ method: 'POST', url: `${server.url}/search-sent`, via: 'form', fate: 'unasked' }]);
});

test('hover: a row action shown only on hover is offered to be hovered, then revealed for the next step, in that row only', async () => {
  let o = await surface.observe();
  const hidden = one(o, named('Delete item', 'Walk the dog'));
  expect(hidden.verbs).toEqual(['hover']);
  // Hidden controls add no furniture: the screen's signature is what it was without them.
  expect(o.paths.some((p) => p.includes('Delete item'))).toBe(false);
  // Before the hover, a target that presses it finds nothing; a hover target finds exactly it.
  expect(await surface.resolve(target(hidden, ['invoke']))).toMatchObject({ ok: false, code: 'TARGET_NOT_FOUND' });
  const found = await surface.resolve(target(hidden, ['hover']));
  expect(found).toMatchObject({ ok: true, ref: hidden.ref });

  const away = o.signature;
  await surface.act(hidden.ref, { verb: 'hover' });
  o = await surface.observe();
  const shown = one(o, named('Delete item', 'Walk the dog'));
  expect(shown.verbs).toEqual(['invoke']);
  expect(one(o, named('Delete item', 'Buy milk')).verbs).toEqual(['hover']);
  // Shown by the pointer, it is still no furniture: the screen is the same wherever the pointer rests (a clerk's
  // pointer resting on a row while the recorder looks is not a change of screen).
  expect(o.paths.some((p) => p.includes('Delete item'))).toBe(false);
  expect(o.signature).toBe(away);
  const press = await surface.resolve(target(shown, ['invoke']));
  if (!press.ok) throw new Error(press.detail);
  await surface.act(press.ref, { verb: 'invoke' });
  await expect(surface.page.getByRole('status')).toHaveText('Deleted Walk the dog');
});

test('a row action shown by the focus in its row is no furniture either; a button always shown in a hovered row is furniture, hovered or not', async () => {
  const away = (await surface.observe()).signature;
  // Focus in a row (:focus-within shows its actions, as a rename field in the row does): the same screen.
  await surface.page.evaluate(() => {
    const row = document.querySelectorAll('#items li')[1] as HTMLLIElement;
    row.tabIndex = -1;
    row.focus();
  });
  let o = await surface.observe();
  expect(one(o, named('Delete item', 'Walk the dog')).verbs).toEqual(['invoke']);
  expect(o.signature).toBe(away);
  // A button that shows in the row whether hovered or not is the screen's furniture, hovered or not.
  await surface.page.evaluate(() => {
    (document.activeElement as HTMLElement | null)?.blur();
    const row = document.querySelectorAll('#items li')[1] as HTMLLIElement;
    row.insertAdjacentHTML('beforeend', '<button type="button">Pin item</button>');
  });
  const pinned = (await surface.observe()).paths.filter((p) => p.includes('Pin item'));
  expect(pinned).toHaveLength(1);
  await surface.page.locator('#items li').nth(1).hover();
  o = await surface.observe();
  expect(one(o, named('Delete item', 'Walk the dog')).verbs).toEqual(['invoke']);
  expect(o.paths.filter((p) => p.includes('Pin item'))).toEqual(pinned);
  expect(o.paths.some((p) => p.includes('Delete item'))).toBe(false);
});

/** Rows whose actions show on hover in the ways real pages write it, each with one row action always shown too. */
const REVEALS = `<!doctype html><title>Reveals</title>
<style>
  .hidden-act { visibility: hidden; }
  /* Tailwind 4's group-hover:visible: a nested rule, its declarations inside a nested @media. */
  .gh-visible { &:is(:where(.group):hover *) { @media (min-width: 1px) { visibility: visible; } } }
  /* A pinned action shows in every state, named by a rule under :hover as well. */
  ul.plain li:hover .acts, ul.plain .acts .pinned { visibility: visible; }
  ul.plain .acts { visibility: hidden; }
  /* A document rule reveals a host whose button is in its shadow tree. */
  ul.hosts li:hover x-acts { visibility: visible; }
  x-acts { visibility: hidden; }
</style>
<ul class="tw" aria-label="Tailwind"><li class="group"><span>Alpha</span> <button class="hidden-act gh-visible" aria-label="Archive">A</button></li></ul>
<ul class="plain" aria-label="Plain"><li><span>Beta</span> <span class="acts"><button aria-label="Remove">R</button><button class="pinned" aria-label="Pinned">P</button></span></li></ul>
<ul class="hosts" aria-label="Hosts"><li><span>Gamma</span> <x-acts></x-acts></li></ul>
<script>
  customElements.define('x-acts', class extends HTMLElement {
    connectedCallback() { this.attachShadow({ mode: 'open' }).innerHTML = '<button aria-label="Flag">F</button>'; }
  });
</script>`;

test('the pointer resting on a row changes no signature, however the page reveals its actions: a nested Tailwind rule, a rule that also names an always-shown action, a document rule over a shadow host', async () => {
  await surface.page.setContent(REVEALS);
  const away = await surface.observe();
  for (const [row, action] of [['Alpha', 'Archive'], ['Beta', 'Remove'], ['Gamma', 'Flag']] as const) {
    expect(one(away, named(action, row)).verbs, action).toEqual(['hover']);
    await surface.page.locator('li').filter({ hasText: row }).hover();
    const hovered = await surface.observe();
    expect(one(hovered, named(action, row)).verbs, action).toEqual(['invoke']);
    expect(hovered.signature, `hovering ${row}`).toBe(away.signature);
    expect(hovered.paths).toEqual(away.paths);
    await surface.page.mouse.move(0, 0);
  }
});

test('double_click is offered beside the vocabulary of a control that listens for it; nothing else in the observation moves', async () => {
  const o = await surface.observe();
  const record = one(o, named('Open record'));
  expect(record).toMatchObject({ verbs: ['invoke'], offers: ['double_click'] });
  // The walker's golden for this page was made without the listener probe: with it, the only difference is `offers`.
  const golden = JSON.parse(readFileSync(join(WALKER_GOLDEN_DIR, 'fixture-verbs.json'), 'utf8')) as Observation;
  const without = o.parts.map((p) => p.controls.map(({ offers: _o, ...c }) => c));
  expect(without).toEqual(golden.parts.map((p) => p.controls));
  expect(o.signature).toBe(golden.signature);
  // The double-click lands (real input: two clicks, then dblclick), but this page shows nothing for it: named failure.
  await expect(surface.act(record.ref, { verb: 'double_click' })).rejects.toMatchObject({ code: 'ACTION_FAILED', message: expect.stringContaining('nothing on the screen changed') as unknown });
  expect(await models()).toMatchObject({ dblclicks: 1, clicks: 2 });
});

test('double_click and context_menu: offered where the page listens (its own listener, ondblclick, React\'s props), not for a listener on a list or the document', async () => {
  await surface.open(`${server.url}/gestures.html`);
  const o = await surface.observe();
  const offered = controls(o).filter((c) => c.offers?.length).map((c) => [c.role, c.name, c.offers?.join()]);
  expect(offered).toEqual([
    ['button', 'Count quietly', 'double_click'],
    ['text', 'Call the plumber', 'double_click'],
    ['text', 'Renew the lease', 'double_click'],
    ['text', 'Quarterly report', 'double_click'],
    ['text', 'Draft the budget', 'double_click'],
    ['text', 'report.pdf', 'context_menu'],
    ['text', 'notes.txt', 'context_menu'],
    ['text', 'Right-click does nothing visible here', 'context_menu'],
  ]);
  // A text item is scoped by its row as a control there is; the gestures are the menu's last rows.
  expect(one(o, named('Call the plumber')).scope.at(-1)).toEqual({ role: 'row', name: 'Call the plumber' });
  const menu = buildMenu(o);
  const first = menu.findIndex((r) => r.verb === 'double_click' || r.verb === 'context_menu');
  expect(menu.slice(first).every((r) => r.verb === 'double_click' || r.verb === 'context_menu')).toBe(true);
  expect(menu.slice(first).map((r) => renderRow(r).replace(/^\d+: /, ''))[0]).toBe("double_click button 'Count quietly'");
});

test('double_click renames in place: the editor appears and Enter saves; a double-click that changes nothing fails by name', async () => {
  await surface.open(`${server.url}/gestures.html`);
  let o = await surface.observe();
  const title = one(o, named('Renew the lease'));
  // Replay finds the text item again by its name in its row.
  const again = await surface.resolve({ ...target(title, ['read', 'double_click']), scope: title.scope });
  expect(again).toMatchObject({ ok: true, ref: title.ref });
  await surface.act(title.ref, { verb: 'double_click' });
  o = await surface.observe();
  const editor = one(o, named('Note title'));
  await surface.act(editor.ref, { verb: 'set_value', value: 'Renew the lease by June' });
  await surface.act(editor.ref, { verb: 'press', value: 'Enter' });
  await expect(surface.page.getByRole('status')).toHaveText('Renamed to Renew the lease by June');

  // React delegates at its root; the element's props say it reacts.
  await surface.act(one(await surface.observe(), named('Draft the budget')).ref, { verb: 'double_click' });
  await expect(surface.page.getByRole('status')).toHaveText('Editing Draft the budget');

  const quiet = one(await surface.observe(), named('Count quietly'));
  await expect(surface.act(quiet.ref, { verb: 'double_click' })).rejects.toMatchObject({
    code: 'ACTION_FAILED',
    message: expect.stringContaining('nothing on the screen changed') as unknown,
  });
  expect(await models()).toMatchObject({ quiet: 1, renamed: ['Renew the lease by June'], board: ['a'] });
});

test('context_menu: a right-click that opens a menu makes its items the next screen\'s controls; where no menu appears it fails by name and nothing is pressed', async () => {
  await surface.open(`${server.url}/gestures.html`);
  let o = await surface.observe();
  expect(controls(o).some((c) => c.name === 'Nobody listens here')).toBe(false);
  expect(controls(o).some((c) => c.role === 'menuitem')).toBe(false);

  await expect(surface.act(one(o, named('Right-click does nothing visible here')).ref, { verb: 'context_menu' })).rejects.toMatchObject({
    code: 'ACTION_FAILED',
    message: expect.stringContaining('no menu appeared') as unknown,
  });
  o = await surface.observe();
  expect(controls(o).some((c) => c.role === 'menuitem')).toBe(false);
  expect(await models()).toMatchObject({ silent: 1, opened: [] });

  await surface.act(one(o, named('report.pdf')).ref, { verb: 'context_menu' });
  o = await surface.observe();
  expect(controls(o).filter((c) => c.role === 'menuitem').map((c) => c.name)).toEqual(['Open', 'Delete']);
  expect(buildMenu(o).map(renderRow)).toContain("2: invoke menuitem 'Open'");
  await surface.act(one(o, named('Delete')).ref, { verb: 'invoke' });
  expect(await models()).toMatchObject({ opened: ['Delete report.pdf'] });
});

test('double_click on a real Preact list: the title whose component has onDblClick is offered, renamed in place, and the other is not', async () => {
  // Preact (installed here) adds each handler on its element itself, so the listener probe sees it; bundled as an app is.
  const built = await build({
    stdin: {
      contents: `import { h, render } from 'preact';
        import { useState } from 'preact/hooks';
        function Item({ title, editable }) {
          const [editing, setEditing] = useState(false);
          const [value, setValue] = useState(title);
          if (editing) return h('li', null, h('input', { 'aria-label': 'Item title', value, onInput: (e) => setValue(e.target.value) }));
          return h('li', null, h('span', editable ? { onDblClick: () => setEditing(true) } : {}, value), ' ', h('small', null, 'open'));
        }
        render(h('ul', null, h(Item, { title: 'Fix the gate', editable: true }), h(Item, { title: 'Paint the fence', editable: false })), document.getElementById('app'));`,
      resolveDir: process.cwd(),
      loader: 'js',
    },
    bundle: true,
    write: false,
    format: 'iife',
  });
  const app = await serveFixtures({ '/preact.html': `<!doctype html><title>Preact list</title><div id="app"></div><script>${built.outputFiles[0]?.text ?? ''}</script>` });
  try {
    await surface.open(`${app.url}/preact.html`);
    let o = await surface.observe();
    expect(controls(o).filter((c) => c.offers?.includes('double_click')).map((c) => [c.role, c.name, c.scope.at(-1)?.name])).toEqual([['text', 'Fix the gate', 'Fix the gate']]);
    await surface.act(one(o, named('Fix the gate')).ref, { verb: 'double_click' });
    o = await surface.observe();
    expect(one(o, named('Item title'))).toMatchObject({ role: 'textbox', value: 'Fix the gate' });
  } finally {
    await app.close();
  }
});

test('choose: a custom combobox is chosen in by option name and its value checked; an option not in its list fails by name', async () => {
  const o = await surface.observe();
  const box = one(o, named('Assignee'));
  expect(box.verbs).toEqual(['choose', 'read']);
  await surface.act(box.ref, { verb: 'choose', value: 'Sam Okafor' });
  expect((await surface.act(box.ref, { verb: 'read' })).read).toBe('Sam Okafor');
  const again = one(await surface.observe(), named('Assignee'));
  await expect(surface.act(again.ref, { verb: 'choose', value: 'Nobody Here' })).rejects.toMatchObject({
    code: 'ACTION_FAILED',
    message: expect.stringContaining('no option named "Nobody Here"') as unknown,
  });
});
