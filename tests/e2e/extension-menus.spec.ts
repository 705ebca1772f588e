// The extension right-clicks and picks in menus as the runner does, with trusted input: a clerk's right-click that opens a menu is one context_menu step (one that opens none records nothing), a clerk's click on a menu button then on an item is one choose on the button, a model's choose opens a menu rendered only on opening and picks in it, a model's right-click is a trusted one that counts only if a menu appears; each book is the runner's and the runner replays it. A clerk's clicks through a submenu are one choose with the path; a model's choose by a path opens each submenu as the page opens it (a trusted hover, click or ArrowRight), and one whose level is missing or does not open is refused by name with every menu closed again; a model's press on a menu button and then an item is one choose, the owner asked before each press and the step carrying the item's answer; so is a press on a list button and then an option of its listbox. A clerk's pick in a list that is not modal inside a dialog that made the page inert leaves the dialog open; one in the menu of a button without aria-expanded is done once; a second quick pick in a modal list reopened while the first is closing stays open and both are recorded. A failed pick by a path inside a modal dialog closes the menus and not the dialog; a clerk's pick two submenus down in a modal menu that closes one level per Escape is recorded, and one whose menu never closes is told to the clerk, not dropped.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { test, expect, type Page } from '@playwright/test';
import { parseScript } from '../../shared/author/scripted.ts';
import { startFakeAnthropic } from '../fixtures/fake-anthropic.ts';
import { serveFixtures, type FixtureServer } from '../fixtures/server.ts';
import { actsOf, answer, book, exportBook, exportCompileReplay, labelScreen, launchWithExtension, menuRows, openPanel, parseBook, startModelSession, startSession, type Loaded, finishSession } from '../fixtures/extension/harness.ts';

const API_KEY = `sk-fake-${Math.random().toString(36).slice(2, 10)}`;

/**
 * A dialog that makes the rest of the page inert (as Headless UI's, Ariakit's and hand-rolled dialogs do), opened by the
 * app after the session started, around a combobox whose list is NOT modal; an unrelated drawer is inert too. Escape
 * anywhere closes the dialog (its own handler), so a recorder's Escape would close it under the clerk.
 */
const DIALOG_COMBO = `<!doctype html><html lang="en"><title>Issues</title>
<nav id="drawer" inert><a href="#">Settings</a></nav>
<main id="main"><h1>Issues</h1><p>Three open.</p></main>
<div role="dialog" aria-modal="true" aria-labelledby="dh" id="dlg" hidden>
  <h2 id="dh">New issue</h2>
  <label for="cb">Assignee</label>
  <input id="cb" role="combobox" aria-controls="lb" aria-expanded="false" aria-autocomplete="list" autocomplete="off">
  <ul role="listbox" id="lb" aria-label="People" hidden><li role="option">Ann</li><li role="option">Bob</li></ul>
  <p id="state">dialog: closed</p>
</div>
<script>
  const show = (open) => { lb.hidden = !open; cb.setAttribute('aria-expanded', String(open)); };
  const tell = () => { state.textContent = 'dialog: ' + (dlg.hidden ? 'closed' : 'open') + '; assignee: ' + (cb.value || 'none'); };
  window.openDialog = () => { dlg.hidden = false; main.inert = true; tell(); };
  cb.addEventListener('click', () => show(true));
  for (const o of lb.children) o.addEventListener('click', () => { cb.value = o.textContent; show(false); tell(); });
  document.addEventListener('keydown', (e) => { if (e.key === 'Escape' && !dlg.hidden) { dlg.hidden = true; main.inert = false; tell(); } });
</script></html>`;

/** A menu button that never says whether its menu is open (no aria-expanded; the APG leaves it optional), its menu not modal. */
const BARE_MENU = `<!doctype html><html lang="en"><title>Case</title><main><h1>Case</h1>
<button id="b" aria-haspopup="menu" aria-controls="m">Actions</button>
<ul role="menu" id="m" aria-label="Actions" hidden><li role="menuitem" tabindex="-1">Archive</li><li role="menuitem" tabindex="-1">Print</li></ul></main>
<script>
  window.picks = [];
  b.addEventListener('click', () => { m.hidden = !m.hidden; });
  for (const i of m.children) i.addEventListener('click', () => { window.picks.push(i.textContent); m.hidden = true; });
</script></html>`;

/**
 * A modal list as MUI's Select makes it: while open, the rest of the page is aria-hidden (its button is not offered);
 * closed by Escape, the page stays aria-hidden for its exit transition (1.5 s here: long enough that a clerk's click
 * lands inside it even on a loaded machine; MUI's is about 300 ms), yet a click lands on the button and opens the list
 * again.
 */
const MODAL_LIST = `<!doctype html><html lang="en"><title>Queue</title><main id="app"><h1>Queue</h1>
<span id="ql">Queue</span> <button id="q" aria-haspopup="listbox" aria-expanded="false" aria-controls="ql-list" aria-labelledby="ql">Claims</button></main>
<ul role="listbox" id="ql-list" aria-labelledby="ql" hidden><li role="option">Appeals</li><li role="option">Fraud</li></ul>
<script>
  window.picks = [];
  window.shown = [];
  const list = document.getElementById('ql-list');
  let exit = null;
  const open = () => { clearTimeout(exit); window.shown.push('open'); list.hidden = false; q.setAttribute('aria-expanded', 'true'); app.setAttribute('aria-hidden', 'true'); };
  const close = (ms) => {
    window.shown.push('closed');
    list.hidden = true;
    q.setAttribute('aria-expanded', 'false');
    exit = setTimeout(() => app.removeAttribute('aria-hidden'), ms);
  };
  q.addEventListener('click', () => (list.hidden ? open() : close(0)));
  for (const o of list.children) o.addEventListener('click', () => { window.picks.push(o.textContent); q.textContent = o.textContent; close(0); });
  document.addEventListener('keydown', (e) => { if (e.key === 'Escape' && !list.hidden) close(1500); });
</script></html>`;

let server: FixtureServer;
let ext: Loaded;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  server = await serveFixtures({
    '/start': '<!doctype html><html lang="en"><title>Start</title><h1>Start</h1><a href="/gestures.html">Gestures</a></html>',
    '/dialog-combo': DIALOG_COMBO,
    '/bare-menu': BARE_MENU,
    '/modal-list': MODAL_LIST,
  });
  ext = await launchWithExtension();
});
test.afterAll(async () => {
  await ext?.close();
  await server?.close();
});


const gestureModels = (page: Page) => page.evaluate(() => (window as unknown as { models: { silent: number; opened: string[]; trusted: boolean[] } }).models);
/** Deleting report.pdf from its context menu, by a clerk or a model: the book's acts and the card's steps. */
const DELETE_FILE_ACTS = ['invoke Gestures', 'context_menu report.pdf', 'invoke Delete'];
const DELETE_FILE_STEPS = [
  ['invoke', 'navigate'],
  ['context_menu', 'navigate'],
  ['invoke', 'stage'],
];
const picks = (page: Page) => page.evaluate(() => (window as unknown as { picks: string[] }).picks);

test('record mode: a right-click that opens a menu is one context_menu step, done again with a trusted right-click; one that opens no menu records nothing', async () => {
  test.setTimeout(150_000);
  const page = await ext.context.newPage();
  await page.goto(`${server.url}/start`);
  const panel = await openPanel(ext, server.url);
  await startSession(panel, { mode: 'record', goal: 'Delete a file from its menu', owner: 'Dana Clerk', inputs: [] });
  await labelScreen(panel, 'start', 'Start');
  // Opened inside the session: the probe is in the page's main world before its scripts add their listeners.
  await page.getByRole('link', { name: 'Gestures' }).click();
  await expect(page).toHaveURL(/gestures\.html$/);
  await labelScreen(panel, 'files', 'Notes');
  // Offered where the runner offers it (tests/e2e/verbs.spec.ts): each file and the element that opens nothing.
  expect((await menuRows(panel)).filter((m) => m.startsWith('context_menu ')).map((m) => m.replace(/ in .*$/, ''))).toEqual([
    "context_menu text 'report.pdf'",
    "context_menu text 'notes.txt'",
    "context_menu text 'Right-click does nothing visible here'",
  ]);

  // Nothing appears for this one: the guard's trusted right-click reached the page (its handler counted it once; the
  // clerk's own was held), no menu appeared, and the step is refused by name, not written.
  await page.getByText('Right-click does nothing visible here').click({ button: 'right' });
  await expect(panel.getByTestId('note')).toContainText('no menu appeared', { timeout: 20_000 });
  expect(await gestureModels(page)).toMatchObject({ silent: 1, opened: [], trusted: [true] });

  // A file's menu: held, done again with a trusted right-click, and the page's own menu opens at the file.
  await page.getByText('report.pdf').click({ button: 'right' });
  await expect(page.getByRole('menuitem', { name: 'Delete' })).toBeVisible({ timeout: 20_000 });
  await expect(panel.getByTestId('book').locator('li').last()).toContainText('Right-clicked report.pdf to open its menu', { timeout: 20_000 });
  await expect(panel.getByTestId('menu')).toContainText("invoke menuitem 'Delete'", { timeout: 20_000 });
  // The open menu is a screen of its own (its items are furniture), named before anything is done on it.
  await labelScreen(panel, 'file_menu', 'Notes');
  await page.getByRole('menuitem', { name: 'Delete' }).click();
  await answer(panel, "menuitem 'Delete'", 'stage');
  await expect.poll(async () => (await gestureModels(page)).opened).toEqual(['Delete report.pdf']);
  await finishSession(panel);

  const { card } = await exportCompileReplay(panel, { id: 'delete_file', acts: DELETE_FILE_ACTS, baseUrl: server.url, evidenceDir: test.info().outputPath('evidence') });
  expect(card.steps.map((s) => [s.op.verb, s.effect.kind])).toEqual(DELETE_FILE_STEPS);
  await page.close();
  await panel.close();
});

test('record mode: the clerk opens a menu button and clicks an item — one choose on the button, the item activated once; a portal menu too; the runner replays the book', async () => {
  test.setTimeout(150_000);
  const page = await ext.context.newPage();
  await page.goto(`${server.url}/menus.html`);
  const panel = await openPanel(ext, server.url);
  await startSession(panel, { mode: 'record', goal: 'Duplicate, then export', owner: 'Dana Clerk', inputs: [] });
  await labelScreen(panel, 'menus', 'Menus');
  expect((await menuRows(panel)).filter((m) => m.startsWith('choose '))).toEqual(["choose button 'Actions'", "choose button 'Sort'", "choose button 'More'", "choose button 'Share'"]);

  // The click on the button opens the menu (let through: nothing is asked); the click on the item is the step.
  await page.getByRole('button', { name: 'Actions' }).click();
  await page.getByRole('menuitem', { name: 'Duplicate' }).click();
  await expect(panel.getByTestId('book').locator('li').last()).toContainText('Picked Duplicate in Actions', { timeout: 20_000 });
  expect(await picks(page)).toEqual(['actions:Duplicate']);
  await expect(page.locator('#actions-menu')).toBeHidden();

  // A menu made at the end of body a moment after the click, with no aria-controls before it opened.
  await page.getByRole('button', { name: 'More' }).click();
  await page.getByRole('menuitem', { name: 'Export' }).click();
  await expect(panel.getByTestId('book').locator('li').last()).toContainText('Picked Export in More', { timeout: 20_000 });
  expect(await picks(page)).toEqual(['actions:Duplicate', 'more:Export']);
  await expect(panel.getByTestId('screen-label')).toHaveText('menus', { timeout: 20_000 });
  await finishSession(panel);

  // Two picks, never a press on a button or an item.
  const { card } = await exportCompileReplay(panel, { id: 'duplicate_and_export', acts: ['choose Actions Duplicate', 'choose More Export'], baseUrl: server.url, evidenceDir: test.info().outputPath('evidence') });
  expect(card.steps.map((s) => s.op.verb)).toEqual(['choose', 'choose']);
  await page.close();
  await panel.close();
});

test('model mode: a model chooses in a closed menu rendered only on opening and in a radio menu; two items of one name are refused by name', async () => {
  test.setTimeout(150_000);
  const script = parseScript(
    JSON.stringify({
      turns: [
        [
          { tool: 'assert_screen', label: 'menus', title: 'Menus' },
          { tool: 'act', match: "button 'More'", verb: 'choose', value: 'Print' },
        ],
        [{ tool: 'act', match: "button 'Sort'", verb: 'choose', value: 'By name' }],
        [{ tool: 'act', match: "button 'Share'", verb: 'choose', value: 'Copy link' }],
        [{ tool: 'finish', label: 'menus' }],
      ],
    }),
  );
  const fake = await startFakeAnthropic(script, { apiKey: API_KEY });
  try {
    const { page, panel } = await startModelSession(ext, `${server.url}/menus.html`, { key: API_KEY, baseURL: fake.url }, { goal: 'Print, sort by name, share', owner: 'Dana Reviewer' });
    await expect(panel.getByTestId('phase')).toHaveText('finished', { timeout: 60_000 });
    expect(fake.problems).toEqual([]);
    // The Share pick was refused (two items are named "Copy link"): never guessed, so nothing of Share was clicked.
    expect(await picks(page)).toEqual(['more:Print', 'sort:By name']);
    await expect(page.getByRole('menuitemradio', { name: 'By name', includeHidden: true })).toHaveAttribute('aria-checked', 'true');
    expect(actsOf(await exportBook(panel))).toEqual(['choose More Print', 'choose Sort By name']);
    expect(fake.bodies.join('\n')).toContain('2 items are named \\"Copy link\\" in its menu');
    await page.close();
    await panel.close();
  } finally {
    await fake.close();
  }
});

test('model mode: a model\'s context_menu is a trusted right-click that counts only if a menu appears — on a note that opens none it is refused and written nowhere, on a file the menu opens and the model picks in it; the runner replays the book', async () => {
  test.setTimeout(150_000);
  const script = parseScript(
    JSON.stringify({
      turns: [
        [
          { tool: 'assert_screen', label: 'start', title: 'Start' },
          { tool: 'act', match: "link 'Gestures'", verb: 'invoke' },
        ],
        [
          { tool: 'assert_screen', label: 'notes', title: 'Notes' },
          { tool: 'act', match: "text 'Right-click does nothing visible here'", verb: 'context_menu' },
        ],
        [{ tool: 'act', match: "text 'report.pdf'", verb: 'context_menu' }],
        [
          { tool: 'assert_screen', label: 'file_menu', title: 'Notes' },
          { tool: 'act', match: "menuitem 'Delete'", verb: 'invoke' },
        ],
        [{ tool: 'finish', label: 'notes' }],
      ],
    }),
  );
  const fake = await startFakeAnthropic(script, { apiKey: API_KEY });
  try {
    const { page, panel } = await startModelSession(ext, `${server.url}/start`, { key: API_KEY, baseURL: fake.url }, { goal: 'Delete report.pdf from its menu', owner: 'Dana Reviewer' });
    await answer(panel, "menuitem 'Delete'", 'stage', 60_000);
    await expect(panel.getByTestId('phase')).toHaveText('finished', { timeout: 60_000 });
    expect(fake.problems).toEqual([]);
    // Both right-clicks reached the page as a person's; the first opened no menu, and the model was told so.
    expect(await gestureModels(page)).toMatchObject({ silent: 1, opened: ['Delete report.pdf'], trusted: [true, true] });
    expect(fake.bodies.join('\n')).toContain('no menu appeared');

    // The refused right-click is in no book line; the one that opened a menu is, then the pick in it.
    const { card } = await exportCompileReplay(panel, { id: 'delete_file_model', acts: DELETE_FILE_ACTS, baseUrl: server.url, evidenceDir: test.info().outputPath('evidence-model') });
    expect(card.steps.map((s) => [s.op.verb, s.effect.kind])).toEqual(DELETE_FILE_STEPS);
    await page.close();
    await panel.close();
  } finally {
    await fake.close();
  }
});

test('record mode: the clerk opens a menu button, then a submenu (by a click, by a hover), then clicks its item — one choose on the button with the path; the runner replays the book', async () => {
  test.setTimeout(150_000);
  const page = await ext.context.newPage();
  await page.goto(`${server.url}/menus-sub.html`);
  const panel = await openPanel(ext, server.url);
  await startSession(panel, { mode: 'record', goal: 'Export as PDF', owner: 'Dana Clerk', inputs: [] });
  await labelScreen(panel, 'submenus', 'Submenus');
  // The clicks on the button and on the submenu's item open them (let through); the click on the item is the step.
  await page.getByRole('button', { name: 'File' }).click();
  await page.getByRole('menuitem', { name: 'Export' }).click();
  await page.getByRole('menuitem', { name: 'PDF' }).click();
  await expect(panel.getByTestId('book').locator('li').last()).toContainText('Picked Export › PDF in File', { timeout: 20_000 });
  expect(await picks(page)).toEqual(['File/Export/PDF']);
  await expect(panel.getByTestId('screen-label')).toHaveText('submenus', { timeout: 20_000 });
  // A submenu that opens on a hover, made at the end of body: the hover is no step either.
  await page.getByRole('button', { name: 'File' }).click();
  await page.getByRole('menuitem', { name: 'Share' }).hover();
  await page.getByRole('menuitem', { name: 'Link' }).click();
  await expect(panel.getByTestId('book').locator('li').last()).toContainText('Picked Share › Link in File', { timeout: 20_000 });
  expect(await picks(page)).toEqual(['File/Export/PDF', 'File/Share/Link']);
  await expect(panel.getByTestId('screen-label')).toHaveText('submenus', { timeout: 20_000 });
  await finishSession(panel);
  await exportCompileReplay(panel, { id: 'export_pdf', acts: ['choose File Export › PDF', 'choose File Share › Link'], baseUrl: server.url, evidenceDir: test.info().outputPath('evidence-submenu') });
  await page.close();
  await panel.close();
});

test('model mode: a model that presses a menu button and then an item of its menu writes one choose on the button, as the runner does', async () => {
  test.setTimeout(150_000);
  const script = parseScript(
    JSON.stringify({
      turns: [
        [
          { tool: 'assert_screen', label: 'menus', title: 'Menus' },
          { tool: 'act', match: "button 'More'", verb: 'invoke' },
        ],
        [{ tool: 'act', match: "menuitem 'Print'", verb: 'invoke' }],
        [{ tool: 'finish', label: 'menus' }],
      ],
    }),
  );
  const fake = await startFakeAnthropic(script, { apiKey: API_KEY });
  try {
    const { page, panel } = await startModelSession(ext, `${server.url}/menus.html`, { key: API_KEY, baseURL: fake.url }, { goal: 'Print', owner: 'Dana Reviewer' });
    // The extension cannot hold a write, so the owner is asked before each press: about the button (a write it sent
    // would leave unasked), then about the item; the one step carries the item's answer.
    await answer(panel, "button 'More'", 'navigate', 60_000);
    await answer(panel, "menuitem 'Print'", 'stage', 60_000);
    await expect(panel.getByTestId('phase')).toHaveText('finished', { timeout: 60_000 });
    expect(fake.problems).toEqual([]);
    expect(await picks(page)).toEqual(['more:Print']);
    const jsonl = await exportBook(panel);
    expect(actsOf(jsonl)).toEqual(['choose More Print']);
    expect(parseBook(jsonl).find((l) => l.kind === 'act')).toMatchObject({ effect: { kind: 'stage', by: 'owner', owner: 'Dana Reviewer' }, presses: [{ role: 'button', name: 'More' }, { role: 'menuitem', name: 'Print' }] });
    await page.close();
    await panel.close();
  } finally {
    await fake.close();
  }
});

/** Which of menus-sub.html's menus show: the File menu, Export's and Image's submenus, Share's (made on opening). */
/**
 * menus-sub.html whose Escape, when no submenu holds the focus, leaves File's menu open if `when` holds (`!menu`: APG's
 * menu button, which ignores Escape on itself; `window.sticky`: a menu that will not close).
 */
async function menusSubEscapeIgnoredWhen(when: string): Promise<string> {
  const html = await readFile(fileURLToPath(new URL('../fixtures/menus-sub.html', import.meta.url)), 'utf8');
  const changed = html.replace(
    "const open = buttons.find((b) => b.getAttribute('aria-expanded') === 'true');\n    if (!open) return;",
    `const open = buttons.find((b) => b.getAttribute('aria-expanded') === 'true');\n    if (!open || ${when}) return;`,
  );
  expect(changed, 'the fixture still has the Escape handler this test changes').not.toBe(html);
  return changed;
}

const menusShowing = (page: Page) =>
  page.evaluate(() => [
    ...['#file-menu', '#file-menu [aria-label=Export]', '#file-menu [aria-label=Image]'].filter((s) => !(document.querySelector(s) as HTMLElement).hidden),
    ...(document.getElementById('share-sub') ? ['#share-sub'] : []),
  ]);

test('model mode: a model chooses by a path — a submenu opened by a click, one opened by a hover — and a path with a missing level is refused by name, every menu closed again; the runner replays the book', async () => {
  test.setTimeout(150_000);
  const script = parseScript(
    JSON.stringify({
      turns: [
        [
          { tool: 'assert_screen', label: 'submenus', title: 'Submenus' },
          { tool: 'act', match: "button 'File'", verb: 'choose', value: 'Export › PDF' },
        ],
        [{ tool: 'act', match: "button 'File'", verb: 'choose', value: 'Share › Link' }],
        [{ tool: 'act', match: "button 'File'", verb: 'choose', value: 'Export › Nope' }],
        [{ tool: 'finish', label: 'submenus' }],
      ],
    }),
  );
  const fake = await startFakeAnthropic(script, { apiKey: API_KEY });
  try {
    const { page, panel } = await startModelSession(ext, `${server.url}/menus-sub.html`, { key: API_KEY, baseURL: fake.url }, { goal: 'Export as PDF, share a link', owner: 'Dana Reviewer' });
    await expect(panel.getByTestId('phase')).toHaveText('finished', { timeout: 60_000 });
    expect(fake.problems).toEqual([]);
    // Export opens on a click (the APG menubar), Share only on a hover, made at the end of body a moment later.
    expect(await picks(page)).toEqual(['File/Export/PDF', 'File/Share/Link']);
    // The refused path was told to the model in the walker's words, nothing was picked, and no menu is left open.
    expect(fake.bodies.join('\n')).toContain('no item named \\"Nope\\" in the submenu of \\"Export\\"');
    expect(await menusShowing(page)).toEqual([]);
    await expect(page.getByRole('button', { name: 'File' })).toHaveAttribute('aria-expanded', 'false');
    await exportCompileReplay(panel, { id: 'export_pdf_model', acts: ['choose File Export › PDF', 'choose File Share › Link'], baseUrl: server.url, evidenceDir: test.info().outputPath('evidence-submenu-model') });
    await page.close();
    await panel.close();
  } finally {
    await fake.close();
  }
});

test('model mode: submenus that open only from the keyboard are opened with a trusted ArrowRight, two levels down; a submenu that opens by no gesture fails naming its item, nothing picked and every menu closed; the runner replays the book', async () => {
  test.setTimeout(150_000);
  const script = parseScript(
    JSON.stringify({
      turns: [
        [
          { tool: 'assert_screen', label: 'submenus', title: 'Submenus' },
          { tool: 'act', match: "button 'File'", verb: 'choose', value: 'Export › CSV' },
        ],
        [{ tool: 'act', match: "button 'File'", verb: 'choose', value: 'Export › Image › PNG' }],
        [{ tool: 'finish', label: 'submenus' }],
      ],
    }),
  );
  const fake = await startFakeAnthropic(script, { apiKey: API_KEY });
  try {
    // `keys-only`: no submenu opens on a click; `stuck=Image`: Image's submenu opens on nothing.
    const { page, panel } = await startModelSession(ext, `${server.url}/menus-sub.html?keys-only&stuck=Image`, { key: API_KEY, baseURL: fake.url }, { goal: 'Export as CSV', owner: 'Dana Reviewer' });
    await expect(panel.getByTestId('phase')).toHaveText('finished', { timeout: 60_000 });
    expect(fake.problems).toEqual([]);
    expect(await picks(page)).toEqual(['File/Export/CSV']);
    // The same words as the runner's (runner/browser/surface.ts openSubmenus).
    expect(fake.bodies.join('\n')).toContain('the submenu of \\"Image\\" did not open (hovered, clicked, ArrowRight)');
    // Export's submenu opened on the way, and Image was the focused item: each was closed again (one Escape per level).
    expect(await menusShowing(page)).toEqual([]);
    await expect(page.getByRole('button', { name: 'File' })).toHaveAttribute('aria-expanded', 'false');
    await exportCompileReplay(panel, { id: 'export_csv_keys', acts: ['choose File Export › CSV'], baseUrl: server.url, evidenceDir: test.info().outputPath('evidence-submenu-keys') });
    await page.close();
    await panel.close();
  } finally {
    await fake.close();
  }
});

test('model mode: a failed pick by a path inside a modal dialog, on a menu button that ignores Escape itself (APG), closes every menu and leaves the dialog open with its unsaved input', async () => {
  test.setTimeout(150_000);
  // menus-sub.html as APG's menu button behaves (Escape is the menu items' key, not the button's), inside a modal
  // <dialog> with a form, as tests/e2e/menus.spec.ts serves it to the runner: an Escape sent to the button would reach
  // the dialog and close it.
  const html = (await menusSubEscapeIgnoredWhen('!menu'))
    .replace('<body>', '<body><dialog id="dlg"><form><input aria-label="Note" value="typed, unsaved"></form>')
    .replace('</body>', `</dialog><script>document.getElementById('dlg').showModal();
      document.addEventListener('keydown', (e) => { if (e.key === 'Escape' && e.target.closest('[role=menu]')) e.preventDefault(); }, true);</script></body>`);
  const own = await serveFixtures({ '/in-dialog.html': html });
  const script = parseScript(
    JSON.stringify({
      turns: [
        [
          { tool: 'assert_screen', label: 'submenus', title: 'Submenus' },
          { tool: 'act', match: "button 'File'", verb: 'choose', value: 'Export › Image › PNG' },
        ],
        [{ tool: 'finish', label: 'submenus' }],
      ],
    }),
  );
  const fake = await startFakeAnthropic(script, { apiKey: API_KEY });
  try {
    // `stuck=Image`: Image's submenu opens on nothing, so the pick fails with File's menu and Export's submenu open.
    const { page, panel } = await startModelSession(ext, `${own.url}/in-dialog.html?stuck=Image`, { key: API_KEY, baseURL: fake.url }, { goal: 'Export as PNG', owner: 'Dana Reviewer' });
    // The refusal is told to the model once the menus the pick opened are closed again.
    await expect.poll(() => fake.bodies.join('\n'), { timeout: 60_000 }).toContain('the submenu of \\"Image\\" did not open');
    expect(await picks(page)).toEqual([]);
    expect(await page.evaluate(() => (document.getElementById('dlg') as HTMLDialogElement).open)).toBe(true);
    await expect(page.getByRole('textbox', { name: 'Note' })).toHaveValue('typed, unsaved');
    expect(await menusShowing(page)).toEqual([]);
    await expect(page.getByRole('button', { name: 'File' })).toHaveAttribute('aria-expanded', 'false');
    // The screen the model named is still the one showing, so it finishes there.
    await expect(panel.getByTestId('phase')).toHaveText('finished', { timeout: 60_000 });
    expect(fake.problems).toEqual([]);
    await page.close();
    await panel.close();
  } finally {
    await fake.close();
    await own.close();
  }
});

test('record mode: a clerk picks two submenus down in a modal menu that closes one level per Escape — the menu is closed level by level until its button shows, and the pick is recorded and done once; one whose menu never closes is told to the clerk as not recorded', async () => {
  test.setTimeout(150_000);
  // menus-sub.html made modal as Radix's and MUI's menus are: while File's menu is open its button is hidden from
  // assistive technology (aria-hidden) and the rest of the page is inert. Its Escape closes one level at a time (the
  // APG's: the menu that holds the focus), so the Escape at the clerk's item closes only the innermost submenu.
  // `window.sticky`: File's own menu ignores Escape.
  const html = (await menusSubEscapeIgnoredWhen('window.sticky')).replace(
    '</body>',
    `<script>
      const file = document.getElementById('file');
      new MutationObserver(() => {
        const open = file.getAttribute('aria-expanded') === 'true';
        if (open) file.setAttribute('aria-hidden', 'true');
        else file.removeAttribute('aria-hidden');
        document.getElementById('status').inert = open;
      }).observe(file, { attributes: true, attributeFilter: ['aria-expanded'] });
    </script></body>`,
  );
  const own = await serveFixtures({ '/modal-levels.html': html });
  try {
    const page = await ext.context.newPage();
    await page.goto(`${own.url}/modal-levels.html`);
    const panel = await openPanel(ext, own.url);
    await startSession(panel, { mode: 'record', goal: 'Export as PNG', owner: 'Dana Clerk', inputs: [] });
    await labelScreen(panel, 'submenus', 'Submenus');
    await page.getByRole('button', { name: 'File' }).click();
    await page.getByRole('menuitem', { name: 'Export' }).click();
    await page.getByRole('menuitem', { name: 'Image' }).click();
    await page.getByRole('menuitem', { name: 'PNG' }).click();
    await expect(book(panel).last()).toContainText('Picked Export › Image › PNG in File', { timeout: 30_000 });
    // Done once, by the guard (the clerk's click was held), and every menu closed.
    await expect.poll(() => picks(page), { timeout: 20_000 }).toEqual(['File/Export/Image/PNG']);
    expect(await menusShowing(page)).toEqual([]);
    await expect(panel.getByTestId('screen-label')).toHaveText('submenus', { timeout: 20_000 });

    // File's menu no longer closes on Escape: the pick cannot be reported from the screen it started on, and the
    // clerk is told so in the panel — never a click silently dropped.
    await page.evaluate(() => ((window as unknown as { sticky: boolean }).sticky = true));
    await page.getByRole('button', { name: 'File' }).click();
    await page.getByRole('menuitem', { name: 'Export' }).click();
    await page.getByRole('menuitem', { name: 'PDF' }).click();
    await expect(panel.getByTestId('note')).toContainText('your pick of "Export › PDF" in File was not done, and nothing recorded', { timeout: 30_000 });
    expect(await picks(page)).toEqual(['File/Export/Image/PNG']);
    await page.close();
    await panel.close();
  } finally {
    await own.close();
  }
});

test('model mode: a model that presses a list button and then an option of its listbox writes one choose on the button, and the runner replays it', async () => {
  test.setTimeout(150_000);
  const script = parseScript(
    JSON.stringify({
      turns: [
        [
          { tool: 'assert_screen', label: 'lists', title: 'Lists' },
          { tool: 'act', match: "button 'Queue' (holds 'Claims')", verb: 'invoke' },
        ],
        [{ tool: 'act', match: "option 'Fraud'", verb: 'invoke' }],
        [{ tool: 'finish', label: 'lists' }],
      ],
    }),
  );
  const fake = await startFakeAnthropic(script, { apiKey: API_KEY });
  try {
    const { page, panel } = await startModelSession(ext, `${server.url}/lists.html`, { key: API_KEY, baseURL: fake.url }, { goal: 'Move to Fraud', owner: 'Dana Reviewer' });
    // As for a menu button: the owner is asked before each press (the extension cannot hold a write).
    await answer(panel, "button 'Queue' (holds 'Claims')", 'navigate', 60_000);
    await answer(panel, "option 'Fraud'", 'stage', 60_000);
    await expect(panel.getByTestId('phase')).toHaveText('finished', { timeout: 60_000 });
    expect(fake.problems).toEqual([]);
    expect(await picks(page)).toEqual(['Fraud']);
    const { jsonl } = await exportCompileReplay(panel, { id: 'move_queue', acts: ['choose Queue Fraud'], baseUrl: server.url, evidenceDir: test.info().outputPath('evidence') });
    expect(parseBook(jsonl).find((l) => l.kind === 'act')).toMatchObject({ presses: [{ role: 'button', name: 'Queue' }, { role: 'option', name: 'Fraud' }] });
    await page.close();
    await panel.close();
  } finally {
    await fake.close();
  }
});

/** A record session on the served page `path`, its first screen named: the clerk's tab and the panel. */
async function recordOn(path: string, goal: string, label: string, title: string, before?: (page: Page) => Promise<void>): Promise<{ page: Page; panel: Page }> {
  const page = await ext.context.newPage();
  await page.goto(`${server.url}${path}`);
  const panel = await openPanel(ext, server.url);
  await startSession(panel, { mode: 'record', goal, owner: 'Dana Clerk', inputs: [] });
  await before?.(page);
  await labelScreen(panel, label, title);
  return { page, panel };
}

test('record mode: a clerk picks in a combobox whose list is not modal, inside a dialog that made the rest of the page inert (an inert drawer beside it): one choose, and the dialog stays open (no Escape reaches it)', async () => {
  test.setTimeout(120_000);
  // The app opens its dialog while the session watches: the inert it puts on the page is the dialog's, not the list's.
  const { page, panel } = await recordOn('/dialog-combo', 'Assign the new issue to Bob', 'new_issue', 'New issue', (p) => p.evaluate(() => (window as unknown as { openDialog(): void }).openDialog()));
  await page.getByRole('combobox', { name: 'Assignee' }).click();
  await page.getByRole('option', { name: 'Bob' }).click();
  await expect(book(panel).last()).toContainText('Picked Bob in Assignee', { timeout: 20_000 });
  await expect(page.locator('#state')).toHaveText('dialog: open; assignee: Bob', { timeout: 20_000 });
  await finishSession(panel);
  expect(actsOf(await exportBook(panel))).toEqual(['choose Assignee Bob']);
  await expect(page.locator('#state')).toHaveText('dialog: open; assignee: Bob');
  await page.close();
  await panel.close();
});

test('record mode: a clerk picks in the menu of a button without aria-expanded (not modal): one choose, the item activated once by the guard, the menu closed', async () => {
  test.setTimeout(120_000);
  const { page, panel } = await recordOn('/bare-menu', 'Archive the case', 'case', 'Case');
  await page.getByRole('button', { name: 'Actions' }).click();
  await page.getByRole('menuitem', { name: 'Archive' }).click();
  await expect(book(panel).last()).toContainText('Picked Archive in Actions', { timeout: 20_000 });
  await expect.poll(() => picks(page), { timeout: 20_000 }).toEqual(['Archive']);
  await expect(page.locator('#m')).toBeHidden();
  await finishSession(panel);
  expect(actsOf(await exportBook(panel))).toEqual(['choose Actions Archive']);
  expect(await picks(page)).toEqual(['Archive']);
  await page.close();
  await panel.close();
});

// Once timing-dependent (a fixme in session 9): under load the guard's own pick of the first option came after the
// clerk had opened the list again, found its control covered, and refused, so the first pick was done in neither page
// nor book. Now the frame's report of the first pick waits for the clerk's list to close, and the guard, finding the
// control covered by a list, waits for it to show again; the first pick is made again before the second either way.
test('record mode: two quick picks in a modal list — the clerk opens it again while the first is still closing, and it stays open for the second pick; both are recorded, in order', async () => {
  test.setTimeout(120_000);
  const { page, panel } = await recordOn('/modal-list', 'Queue the case in Appeals, then in Fraud', 'queue', 'Queue');
  const list = page.locator('#ql-list');
  await page.locator('#q').click();
  const q = await page.locator('#q').boundingBox();
  await page.getByRole('option', { name: 'Appeals' }).click();
  // The recorder closed the list (its Escape) in that click; the page is still aria-hidden, closing, when the clerk
  // opens it again at once: a bare click where the button is, with none of Playwright's waits, so that even on a loaded
  // machine it lands inside the closing. (Opened after the button shows again, the guard's own pick of Appeals meets
  // the clerk's hand on the page: a gap the README names.)
  await page.mouse.click((q?.x ?? 0) + (q?.width ?? 0) / 2, (q?.y ?? 0) + (q?.height ?? 0) / 2);
  await expect(list).toBeVisible();
  // Past the moment a closing list still open is told Escape again: this one was opened anew, and stays open (the
  // page's own account: opened, closed by the recorder's Escape, opened by the clerk, and nothing since).
  await page.waitForTimeout(600);
  expect(await page.evaluate(() => (window as unknown as { shown: string[] }).shown)).toEqual(['open', 'closed', 'open']);
  await page.getByRole('option', { name: 'Fraud' }).click();
  await expect(book(panel).last()).toContainText('Picked Fraud in Queue', { timeout: 20_000 });
  await finishSession(panel);
  // The book holds exactly what the page saw picked, both picks, in the clerk's order.
  expect(actsOf(await exportBook(panel))).toEqual(['choose Queue Appeals', 'choose Queue Fraud']);
  expect(await picks(page)).toEqual(['Appeals', 'Fraud']);
  await page.close();
  await panel.close();
});
