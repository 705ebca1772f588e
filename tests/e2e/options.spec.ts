// Which option a pick takes, whether the list shows it afterwards, and where a hover goes are one function each (shared/dom/options.ts): the browser surface asks them of the walker in the page, and a duplicate name, a missing one, a list that does not take the pick and a hover-only action in a shadow root each get the same answer and the same words.
import { test, expect } from '@playwright/test';
import { BrowserSurface } from '../../runner/browser/surface.ts';
import type { InPage } from '../../shared/dom/api.ts';
import type { Control, Observation } from '../../shared/schema/observation.ts';
import { serveFixtures, type FixtureServer } from '../fixtures/server.ts';

const PAGE = `<!doctype html><html lang="en"><title>Options</title>
<style>.row .act { visibility: hidden; } .row:hover .act { visibility: visible; }</style>
<span id="cl">Colour</span>
<div id="colour" role="combobox" aria-labelledby="cl" aria-expanded="true" aria-owns="colours" tabindex="0">Red</div>
<p>Elsewhere on the page, the popup it owns:</p>
<ul id="colours" role="listbox" aria-label="Colours">
  <li role="option" id="lb" aria-label="Light   blue">LB</li>
  <li role="option">Green</li>
  <li role="option"> Green </li>
  <li role="option" data-stuck>Stuck</li>
</ul>
<ul id="size" role="listbox" aria-label="Size">
  <li role="option" aria-selected="true">Small</li>
  <li role="option" aria-selected="false">Large</li>
</ul>
<button id="shape" aria-haspopup="listbox" aria-controls="shapes">Shape</button>
<ul id="shapes" role="listbox" aria-label="Shapes"><li role="option">Round</li><li role="option">Square</li></ul>
<button id="tag" aria-haspopup="listbox" aria-controls="tags">Tags</button>
<ul id="tags" role="listbox" aria-label="Tags" aria-multiselectable="true"><li role="option" aria-selected="true">Urgent</li></ul>
<div aria-hidden="true"><span id="ml">Mood</span> <div role="combobox" aria-labelledby="ml" aria-controls="moods" aria-expanded="true" tabindex="0">Calm</div></div>
<ul id="moods" role="listbox" aria-labelledby="ml"><li role="option">Happy</li></ul>
<div id="host"></div>
<label id="vh-label" style="display: block"><span class="vh"><input type="checkbox" id="vh-box"></span>Urgent</label>
<span class="vh"><button id="vh-button" onclick="this.dataset.pressed = 'yes'">Dismiss</button></span>
<input type="checkbox" id="plain-box" aria-label="Plain">
<label id="mixed-label" style="display: block"><span class="vh"><input type="checkbox" id="mixed-box" aria-label="Notify"></span>Notify by <select id="mixed-sel" aria-label="Channel"><option>mail</option><option>phone</option></select></label>
<span class="vh"><button id="vh-off" disabled onclick="this.dataset.pressed = 'yes'">Close</button></span>
<input type="checkbox" id="bc" aria-label="Bold" style="position: absolute; clip: rect(0,0,0,0); pointer-events: none"><label for="bc" id="bc-label" style="display: inline-block; padding: 6px; border: 1px solid #888">Bold</label>
<div role="combobox" id="pick" aria-label="Pick" tabindex="0">High<span aria-hidden="true"> ▾</span></div>
<nav><button id="about" aria-expanded="false" aria-controls="about-list">About</button>
  <ul id="about-list" hidden><li><a href="#team">Team</a></li><li><a href="#jobs">Jobs</a></li></ul></nav>
<h3><button id="faq" aria-expanded="false">Shipping</button></h3><ul hidden><li><a href="#x">Rates</a></li></ul>
<button id="notes" aria-expanded="false">Notes</button><ul hidden><li>Plain text</li></ul>
<script>
  const about = document.getElementById('about');
  about.addEventListener('click', () => {
    const open = about.getAttribute('aria-expanded') !== 'true';
    about.setAttribute('aria-expanded', String(open));
    document.getElementById('about-list').hidden = !open;
  });
  for (const a of document.querySelectorAll('#about-list a')) a.addEventListener('click', () => about.click());
  // Escape closes it, as in the APG's disclosure navigation example.
  document.getElementById('about').parentElement.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && about.getAttribute('aria-expanded') === 'true') about.click();
  });
</script>
<style>.vh { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); clip-path: inset(50%); }</style>
<script>
  const colour = document.getElementById('colour');
  for (const o of document.querySelectorAll('#colours [role=option]')) {
    o.addEventListener('click', () => { if (!o.hasAttribute('data-stuck')) colour.textContent = o.getAttribute('aria-label') ?? o.textContent; });
  }
  for (const o of document.querySelectorAll('#size [role=option]')) {
    o.addEventListener('click', () => {
      for (const x of document.querySelectorAll('#size [role=option]')) x.setAttribute('aria-selected', String(x === o));
    });
  }
  const root = document.getElementById('host').attachShadow({ mode: 'open' });
  root.innerHTML = '<style>.row .act { visibility: hidden; } .row:hover .act { visibility: visible; }</style>' +
    '<ul><li class="row" id="row">Burst pipe <button class="act" id="del">Delete</button></li></ul>';
</script>`;

let server: FixtureServer;
let surface: BrowserSurface;
test.beforeAll(async () => {
  server = await serveFixtures({ '/options': PAGE });
});
test.afterAll(async () => {
  await server.close();
});
test.beforeEach(async ({ browser }) => {
  surface = await BrowserSurface.launch({ browser });
  await surface.open(`${server.url}/options`);
});
test.afterEach(async () => {
  await surface.close();
});

function named(o: Observation, role: string, name: string): Control {
  const found = o.parts.flatMap((p) => p.controls).filter((c) => c.role === role && c.name === name);
  expect(found, `one ${role} '${name}'`).toHaveLength(1);
  return found[0] as Control;
}

/**
 * Asks the walker the surface installed in the page (shared/dom/api.ts InPage) about the element found by CSS, in
 * the document or the shadow root: an element answer comes back as `#id`, words as they are.
 */
function ask(css: string, method: 'optionToPick' | 'notChosen' | 'revealer' | 'clickTarget', arg = ''): Promise<string | null> {
  return surface.page.evaluate(
    ([sel, m, a]) => {
      const api = (globalThis as unknown as { __handrail: InPage }).__handrail;
      const el = document.querySelector(sel) ?? document.getElementById('host')?.shadowRoot?.querySelector(sel);
      if (!el) throw new Error(`no ${sel} on the page`);
      const told =
        m === 'revealer' ? api.revealer(el) : m === 'clickTarget' ? api.clickTarget(el) : m === 'notChosen' ? api.notChosen(el, a) : api.optionToPick(el, a);
      return told instanceof Element ? `#${told.id}` : told;
    },
    [css, method, arg] as const,
  );
}

test('choose picks the one option with that name in the popup the combobox owns, and fails by name on none or two', async () => {
  const o = await surface.observe();
  const box = named(o, 'combobox', 'Colour');
  // aria-owns names a popup elsewhere on the page; its aria-label names the option, whitespace folded.
  await surface.act(box.ref, { verb: 'choose', value: 'Light blue' });
  await expect(surface.page.locator('#colour')).toHaveText('Light blue');
  // The walker's own answers, asked in the page: the option, or the words a failure gives.
  expect(await ask('#colour', 'optionToPick', ' Light  blue ')).toBe('#lb');
  expect(await ask('#colour', 'optionToPick', 'Green')).toBe('2 options are named "Green"');
  expect(await ask('#colour', 'notChosen', 'Light blue')).toBeNull();

  await expect(surface.act(box.ref, { verb: 'choose', value: 'Green' })).rejects.toMatchObject({ code: 'ACTION_FAILED', message: expect.stringContaining('2 options are named "Green"') as unknown });
  await expect(surface.act(box.ref, { verb: 'choose', value: 'Purple' })).rejects.toMatchObject({
    code: 'ACTION_FAILED',
    message: expect.stringContaining('no option named "Purple" in the list it opens') as unknown,
  });
  // An option that is clicked but not taken: the check after the pick says what the combobox shows instead.
  await expect(surface.act(box.ref, { verb: 'choose', value: 'Stuck' })).rejects.toMatchObject({
    code: 'ACTION_FAILED',
    message: expect.stringContaining('the combobox shows "Light blue" after choosing "Stuck"') as unknown,
  });
});

test('choose in a listbox picks among its own options and checks the one selected', async () => {
  const size = named(await surface.observe(), 'listbox', 'Size');
  expect(await ask('#size', 'notChosen', 'Large')).toBe('the combobox shows "Small" after choosing "Large"');
  await surface.act(size.ref, { verb: 'choose', value: 'Large' });
  await expect(surface.page.locator('#size [aria-selected=true]')).toHaveText('Large');
  expect(await ask('#size', 'notChosen', 'Large')).toBeNull();
});

test('hover goes to the nearest shown ancestor across a shadow root: the row, which then shows its action', async () => {
  const hidden = named(await surface.observe(), 'button', 'Delete');
  expect(await ask('#del', 'revealer')).toBe('#row');
  // A shown element is its own revealer.
  expect(await ask('#colour', 'revealer')).toBe('#colour');
  expect(hidden.verbs).toEqual(['hover']);
  await surface.act(hidden.ref, { verb: 'hover' });
  expect(named(await surface.observe(), 'button', 'Delete').verbs).toEqual(['invoke']);
});

test('a pick shown beside an aria-hidden arrow is what the combobox shows: the arrow is decoration', async () => {
  expect(await ask('#pick', 'notChosen', 'High')).toBeNull();
  expect(await ask('#pick', 'notChosen', 'Low')).toBe('the combobox shows "High" after choosing "Low"');
});

test('a visually hidden checkbox is toggled through its label, a visually hidden button is activated, a drawn one is clicked', async () => {
  expect(await ask('#vh-box', 'clickTarget')).toBe('#vh-label');
  expect(await ask('#vh-button', 'clickTarget')).toBeNull();
  expect(await ask('#plain-box', 'clickTarget')).toBe('#plain-box');
  const o = await surface.observe();
  await surface.act(named(o, 'checkbox', 'Urgent').ref, { verb: 'toggle' });
  await surface.act(named(o, 'checkbox', 'Plain').ref, { verb: 'toggle' });
  expect(await surface.page.evaluate(() => ['#vh-box', '#plain-box'].map((s) => (document.querySelector(s) as HTMLInputElement).checked))).toEqual([true, true]);
  await surface.act(named(o, 'button', 'Dismiss').ref, { verb: 'invoke' });
  await expect(surface.page.locator('#vh-button')).toHaveAttribute('data-pressed', 'yes');
});

test('a hidden control is never clicked through a label that holds another control, a disabled one fails by name, and one no pointer reaches (Bootstrap\'s btn-check) is clicked through its label', async () => {
  // The label also holds a select: a click in its middle can land there, so it is no target; the box is activated.
  expect(await ask('#mixed-box', 'clickTarget')).toBeNull();
  // pointer-events: none and clipped to nothing: a person clicks its label.
  expect(await ask('#bc', 'clickTarget')).toBe('#bc-label');
  const o = await surface.observe();
  await surface.act(named(o, 'checkbox', 'Notify').ref, { verb: 'toggle' });
  await surface.act(named(o, 'checkbox', 'Bold').ref, { verb: 'toggle' });
  expect(await surface.page.evaluate(() => ['#mixed-box', '#bc'].map((s) => (document.querySelector(s) as HTMLInputElement).checked))).toEqual([true, true]);
  expect(await surface.page.locator('#mixed-sel').inputValue()).toBe('mail');
  await expect(surface.act(named(o, 'button', 'Close').ref, { verb: 'invoke' })).rejects.toThrow(/disabled/);
  await expect(surface.page.locator('#vh-off')).not.toHaveAttribute('data-pressed', 'yes');
});

test('an option is reached from the control that opened its list (menuPick): a list button, a combobox — one a modal list hid is named by the label it shares with its listbox — and never from a listbox on the page or one that takes several', async () => {
  const o = await surface.observe();
  const pick = (name: string) => surface.menuPick(named(o, 'option', name).ref);
  expect(await pick('Light blue')).toEqual({ button: named(o, 'combobox', 'Colour').ref, name: 'Colour', value: 'Light blue', opens: false });
  expect(await pick('Square')).toEqual({ button: named(o, 'button', 'Shape').ref, name: 'Shape', value: 'Square', opens: false });
  // The combobox is hidden (aria-hidden, as MUI's modal list hides the page): its own name is none, its text what it holds.
  expect(await pick('Happy')).toMatchObject({ name: 'Mood', value: 'Happy', opens: false });
  // A listbox on the page opened from nothing, and a list that takes several (a press there unchooses a chosen option).
  expect(await pick('Small')).toBeNull();
  expect(await pick('Urgent')).toBeNull();
});

test('a disclosure menu button (aria-expanded beside or controlling a list of links) is offered choose; an accordion or a list of prose is not', async () => {
  const offered = (name: string): boolean => (named(o, 'button', name).offers ?? []).includes('choose');
  const o = await surface.observe();
  expect([offered('About'), offered('Shipping'), offered('Notes')]).toEqual([true, false, false]);
  await expect(surface.act(named(o, 'button', 'About').ref, { verb: 'choose', value: 'Press' })).rejects.toThrow('no link or button named "Press" in the list it shows');
  await expect(surface.page.locator('#about')).toHaveAttribute('aria-expanded', 'false');
  await surface.act(named(o, 'button', 'About').ref, { verb: 'choose', value: 'Jobs' });
  await expect(surface.page).toHaveURL(/#jobs$/);
  await expect(surface.page.locator('#about')).toHaveAttribute('aria-expanded', 'false');
});
