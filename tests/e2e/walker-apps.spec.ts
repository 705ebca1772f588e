// The walker on pages built the way modern apps are: ARIA widgets offered with their state, the aria-labeledby misspelling, shadow DOM slots, SVG titles, <summary>, nothing offered behind a modal or under inert, unnamed icon buttons told apart by their row, and rows of div grids and lists keyed by the column that is unique.
import { test, expect, type Page } from '@playwright/test';
import { findInFrame, notChosen, observePage } from '../../runner/browser/observe.ts';
import { buildMenu, renderMenu } from '../../shared/menu.ts';
import type { Control } from '../../shared/schema/observation.ts';
import { serveFixtures, type FixtureServer } from '../fixtures/server.ts';

let server: FixtureServer;
test.beforeAll(async () => {
  server = await serveFixtures();
});
test.afterAll(async () => {
  await server.close();
});

async function controlsOf(page: Page, file: string): Promise<Control[]> {
  await page.goto(`${server.url}/${file}`);
  await page.waitForLoadState('load');
  const obs = await observePage(page);
  return obs.parts.flatMap((p) => p.controls);
}

function pick(cs: readonly Control[], role: string, name: string): Control {
  const found = cs.filter((c) => c.role === role && c.name === name);
  expect(found.map((c) => `${c.role} '${c.name}'`), `${role} '${name}' once`).toEqual([`${role} '${name}'`]);
  return found[0] as Control;
}

function state(c: Control) {
  return { value: c.value, expanded: c.expanded, selected: c.selected, verbs: c.verbs };
}

test('ARIA widgets are offered with their value, checked, selected and expanded states', async ({ page }) => {
  const cs = await controlsOf(page, 'walker-apps.html');
  expect(state(pick(cs, 'slider', 'Volume'))).toMatchObject({ value: '40 percent', verbs: ['set_value', 'read'] });
  expect(state(pick(cs, 'slider', 'Brightness'))).toMatchObject({ value: '70' });
  expect(state(pick(cs, 'spinbutton', 'Copies'))).toMatchObject({ value: '3' });
  expect(state(pick(cs, 'spinbutton', 'Pages'))).toMatchObject({ value: '12' });
  expect(state(pick(cs, 'switch', 'Wi-Fi'))).toMatchObject({ value: 'checked' });
  expect(state(pick(cs, 'switch', 'Bluetooth'))).toMatchObject({ value: 'unchecked' });
  expect(state(pick(cs, 'tab', 'General'))).toMatchObject({ selected: true });
  expect(state(pick(cs, 'tab', 'Billing'))).toMatchObject({ selected: false });
  expect(state(pick(cs, 'option', 'Apple'))).toMatchObject({ selected: true, verbs: ['invoke'] });
  expect(state(pick(cs, 'option', 'Pear'))).toMatchObject({ selected: false });
  expect(state(pick(cs, 'treeitem', 'Inbox'))).toMatchObject({ expanded: true, selected: true });
  expect(state(pick(cs, 'treeitem', 'Receipts'))).toMatchObject({ selected: false });
  expect(state(pick(cs, 'treeitem', 'Archive'))).toMatchObject({ expanded: false, selected: false });
  expect(state(pick(cs, 'menuitemradio', 'By date'))).toMatchObject({ value: 'checked' });
  expect(state(pick(cs, 'menuitemradio', 'By name'))).toMatchObject({ value: 'unchecked' });
  expect(state(pick(cs, 'button', 'Options'))).toMatchObject({ expanded: false });
  // A native <select>'s options stay the select's, not controls of their own.
  expect(cs.filter((c) => c.role === 'option').map((c) => c.name)).toEqual(['Apple', 'Pear']);
});

test('aria-labeledby names a control as aria-labelledby does, and the right spelling wins over it', async ({ page }) => {
  const cs = await controlsOf(page, 'walker-apps.html');
  pick(cs, 'textbox', 'Date of birth');
  pick(cs, 'textbox', 'Spelled right');
});

test('slotted shadow DOM text, an SVG <title> and a <summary> name and offer their controls', async ({ page }) => {
  const cs = await controlsOf(page, 'walker-apps.html');
  // The slotted text names the button in the shadow tree, and the shadow tree's named group scopes it.
  expect(pick(cs, 'button', 'Save draft').scope).toEqual([{ role: 'group', name: 'Card' }]);
  pick(cs, 'button', 'Close panel');
  pick(cs, 'link', 'Home page');
  expect(state(pick(cs, 'button', 'Advanced options'))).toMatchObject({ expanded: false, verbs: ['invoke'] });
  const refs = await findInFrame(page, [], { rung: 'role_name', role: 'button', name: 'Save draft', scope: [] });
  expect(refs).toHaveLength(1);
  // A light-DOM control slotted into a shadow tree takes the shadow tree's scope, and is found in it.
  const publish = pick(cs, 'button', 'Publish');
  expect(publish.scope).toEqual([{ role: 'group', name: 'Panel' }]);
  expect(await findInFrame(page, [], { rung: 'role_name', role: 'button', name: 'Publish', scope: publish.scope })).toHaveLength(1);
});

test('controls under inert are neither offered nor found', async ({ page }) => {
  const cs = await controlsOf(page, 'walker-apps.html');
  expect(cs.map((c) => c.name)).not.toContain('Inert button');
  expect(cs.map((c) => c.name)).not.toContain('Inert link');
  expect(await findInFrame(page, [], { rung: 'role_name', role: 'button', name: 'Inert button', scope: [] })).toEqual([]);
});

test('behind a dialog opened with showModal() nothing is offered, and "Log in" finds only the dialog\'s', async ({ page }) => {
  const cs = await controlsOf(page, 'walker-modal.html');
  expect(cs.map((c) => `${c.role} '${c.name}'`)).toEqual(["textbox 'User'", "button 'Log in'"]);
  expect(pick(cs, 'button', 'Log in').scope).toEqual([{ role: 'dialog', name: 'Sign in' }]);
  expect(await findInFrame(page, [], { rung: 'role_name', role: 'button', name: 'Log in', scope: [] })).toHaveLength(1);
  const obs = await observePage(page);
  expect(obs.paths.some((p) => p.includes('Start'))).toBe(false);
});

test('behind an aria-modal dialog nothing is offered', async ({ page }) => {
  const cs = await controlsOf(page, 'walker-aria-modal.html');
  expect(cs.map((c) => `${c.role} '${c.name}'`)).toEqual(["button 'Yes, close'", "button 'Cancel'"]);
  expect(await findInFrame(page, [], { rung: 'role_name', role: 'button', name: 'Close case', scope: [] })).toEqual([]);
});

test('an unnamed icon button is offered unnamed with its hint apart, and its row makes it unique', async ({ page }) => {
  await page.goto(`${server.url}/walker-apps.html`);
  const obs = await observePage(page);
  const cs = obs.parts.flatMap((p) => p.controls);
  const destroy = cs.filter((c) => c.role === 'button' && c.name === '' && c.scope.at(-1)?.role === 'row');
  expect(destroy.map((c) => [c.hint, c.scope.at(-1)])).toEqual([
    ['Buy milk', { role: 'row', name: 'Buy milk' }],
    ['Walk dog', { role: 'row', name: 'Walk dog' }],
  ]);
  // A title is an accessible name (accname §4.3.2 step 2I), not a hint.
  pick(cs, 'link', 'Search everything');
  const menu = renderMenu(buildMenu(obs));
  expect(menu).toContain("invoke button '' (hint 'Buy milk') in row 'Buy milk'");
  expect(menu).toContain("invoke button '' (hint 'Walk dog') in row 'Walk dog'");
  const inRow = await findInFrame(page, [], { rung: 'label', role: 'button', value: 'Buy milk', scope: [{ role: 'row', name: 'Buy milk' }] });
  expect(inRow).toHaveLength(1);
});

test('rows of div grids, role=list items and treegrids are keyed by the column that is unique', async ({ page }) => {
  const cs = await controlsOf(page, 'walker-apps.html');
  const rowsOf = (name: string) => cs.filter((c) => c.role === 'button' && c.name === name).map((c) => c.scope.at(-1));
  expect(rowsOf('Assign')).toEqual([{ role: 'row', name: 'CL-7' }, { role: 'row', name: 'CL-9' }, { role: 'row', name: 'CL-11' }]);
  expect(rowsOf('Open')).toEqual([{ role: 'row', name: 'Case A-1' }, { role: 'row', name: 'Case A-2' }]);
  expect(rowsOf('Done')).toEqual([{ role: 'row', name: 'Review' }, { role: 'row', name: 'Approve' }]);
  const assign = await findInFrame(page, [], { rung: 'role_name', role: 'button', name: 'Assign', scope: [{ role: 'row', name: 'CL-9' }] });
  expect(assign).toHaveLength(1);
  // A list item holding only a link names no row: the link is not scoped by its own name.
  expect(pick(cs, 'link', 'Back to list').scope).toEqual([]);
});

test('two "Log in" buttons in a header and a dialog are told apart by landmark and dialog, named or not', async ({ page }) => {
  const cs = await controlsOf(page, 'walker-twins.html');
  const logins = cs.filter((c) => c.role === 'button' && c.name === 'Log in').map((c) => c.scope);
  expect(logins).toEqual([
    [{ role: 'landmark', name: 'banner' }],
    [{ role: 'landmark', name: 'Account' }],
    [{ role: 'dialog', name: '' }],
  ]);
  for (const scope of logins) {
    expect(await findInFrame(page, [], { rung: 'role_name', role: 'button', name: 'Log in', scope }), JSON.stringify(scope)).toHaveLength(1);
  }
  const obs = await observePage(page);
  expect(renderMenu(buildMenu(obs))).toContain("invoke button 'Log in' in dialog ''");
});

test('a combobox that is not a field says what it holds: its text, the value of a field it wraps, its text without a list inside it; a pick is checked by the same rule', async ({ page }) => {
  await page.setContent(`<!doctype html><main>
    <div role="combobox" aria-label="Priority" aria-expanded="false" tabindex="0">High</div>
    <div role="combobox" id="city" aria-label="City" aria-expanded="true"><input aria-label="City field" value="Lyon"><ul role="listbox"><li role="option">Lyon</li><li role="option">Paris</li></ul></div>
    <div role="combobox" aria-label="Tag" aria-expanded="true" tabindex="0">Red<ul role="listbox"><li role="option">Red</li><li role="option">Blue</li></ul></div>
    <div role="combobox" aria-label="Country" aria-expanded="false" tabindex="0">Canada<input type="hidden" name="country" value="CA"></div>
    <div role="combobox" aria-label="Size" aria-expanded="true" tabindex="0">Small<ul role="listbox"><li role="option"><input type="checkbox" aria-label="Large too">Large</li></ul></div>
  </main>`);
  const cs = (await observePage(page)).parts.flatMap((p) => p.controls);
  expect(pick(cs, 'combobox', 'Priority').value).toBe('High');
  expect(pick(cs, 'combobox', 'City').value).toBe('Lyon');
  // The text it shows, not every option's: the list inside it is left out.
  expect(pick(cs, 'combobox', 'Tag').value).toBe('Red');
  // A hidden form field holds an id for the server ("CA"), not what the person sees.
  expect(pick(cs, 'combobox', 'Country').value).toBe('Canada');
  // A field inside its list is an option's, not the combobox's.
  expect(pick(cs, 'combobox', 'Size').value).toBe('Small');
  // The check after a pick reads what the walker reads: the wrapped field's value, not the combobox's whole text.
  const city = await page.$('#city');
  await page.fill('#city input', 'Paris');
  expect(await notChosen(city!, 'Paris')).toBeNull();
  expect(await notChosen(city!, 'Lyon')).toBe('the combobox shows "Paris" after choosing "Lyon"');
});
