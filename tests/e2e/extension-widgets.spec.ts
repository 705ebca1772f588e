// The extension on real component-library pickers (tests/fixtures/real/widgets.mjs: MUI, Radix, Headless UI as they
// ship): a clerk's clicks in MUI's Select, Radix's DropdownMenu and Headless UI's Listbox are recorded as one `choose`
// each, and the card replays on the runner with the server's judge; a model's `choose` in Headless UI's Combobox (a
// list a click does not open) and Listbox is done with trusted input, the page's own state confirming each pick. A
// pick in Radix's submenu (a modal menu: its button hidden while open) is one choose by a path, by a clerk's clicks
// and by a model's choose alike, and replays on the runner.
import { test, expect, type Page } from '@playwright/test';
import { parseScript } from '../../shared/author/scripted.ts';
import { startFakeAnthropic } from '../fixtures/fake-anthropic.ts';
import { startRealApp, type RealApp } from '../fixtures/real/server.ts';
import { listed } from './support/real.ts';
import { actsOf, answer, book, exportBook, exportCompileReplay, finishSession, labelScreen, launchWithExtension, openPanel, parseBook, startModelSession, startSession, type Loaded } from '../fixtures/extension/harness.ts';

const API_KEY = `sk-fake-${Math.random().toString(36).slice(2, 10)}`;

let app: RealApp;
let ext: Loaded;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  app = await startRealApp();
  ext = await launchWithExtension();
});
test.afterAll(async () => {
  await ext?.close();
  await app?.close();
});
test.beforeEach(() => {
  app.widgets.length = 0;
});

/** The page's own account of what each widget holds ("priority: High", …). */
const chosen = (page: Page): Promise<Record<string, string>> => listed(page, 'ul[aria-label="Chosen"]');
/** Every menu action the page carried out, in order (tests/fixtures/real/widgets.mjs). */
const actionsDone = (page: Page): Promise<string[]> => page.evaluate(() => (window as unknown as { actionsDone: string[] }).actionsDone);

test('record mode: a clerk picks in MUI Select, Radix DropdownMenu and Headless UI Listbox; each is one choose, and the card replays with the judge', async () => {
  test.setTimeout(180_000);
  const page = await ext.context.newPage();
  await page.goto(`${app.url}/widgets`);
  const panel = await openPanel(ext, app.url);
  await startSession(panel, { mode: 'record', goal: 'Set priority High, archive the case, queue it in Appeals, save', owner: 'Dana Clerk', inputs: [] });
  await labelScreen(panel, 'settings', 'Case settings');

  await page.getByRole('combobox', { name: 'Priority' }).click();
  await page.getByRole('option', { name: 'High' }).click();
  await expect.poll(async () => (await chosen(page)).priority, { timeout: 20_000 }).toBe('High');
  await page.getByRole('button', { name: 'Case actions' }).click();
  await page.getByRole('menuitem', { name: 'Archive' }).click();
  await expect.poll(async () => (await chosen(page)).action, { timeout: 20_000 }).toBe('Archived');
  // Playwright names it as Chromium does, with the value it holds; the walker names it 'Queue' (real-listbox-name.spec.ts).
  await page.getByRole('button', { name: 'Queue Claims' }).click();
  await page.getByRole('option', { name: 'Appeals' }).click();
  await expect.poll(async () => (await chosen(page)).list_queue, { timeout: 20_000 }).toBe('Appeals');
  await page.getByRole('button', { name: 'Save' }).click();
  await answer(panel, "button 'Save'", 'commit');
  await labelScreen(panel, 'saved', 'Settings saved');
  await finishSession(panel);

  expect(app.widgets).toMatchObject([{ priority: 'High', action: 'Archived', list_queue: 'Appeals' }]);
  app.widgets.length = 0;
  await exportCompileReplay(panel, {
    id: 'widgets_archive',
    // The case settings page is one record, its own: no input chooses it.
    noRecord: ['save'],
    baseUrl: app.url,
    evidenceDir: test.info().outputPath('evidence'),
    acts: ['choose Priority High', 'choose Case actions Archive', 'choose Queue Appeals', 'invoke Save'],
  });
  expect(app.widgets).toMatchObject([{ priority: 'High', action: 'Archived', list_queue: 'Appeals' }]);
  await page.close();
  await panel.close();
});

test('model mode: choose in Headless UI Combobox (opened with Down Arrow) and Listbox is done with trusted input, and the page holds each pick; a pick of no option fails by name and closes MUI\'s modal list', async () => {
  test.setTimeout(180_000);
  const script = parseScript(
    JSON.stringify({
      turns: [
        [
          { tool: 'assert_screen', label: 'settings', title: 'Case settings' },
          // No such priority: refused by name, and MUI's modal list it opened is closed again (else the page under
          // it could not be clicked, and the next pick would fail "covered").
          { tool: 'act', match: "combobox 'Priority'", verb: 'choose', value: 'Urgent' },
        ],
        [{ tool: 'act', match: "combobox 'Assignee'", verb: 'choose', value: '{{input.assignee}}' }],
        [{ tool: 'act', match: "button 'Queue' (holds 'Claims')", verb: 'choose', value: 'Fraud' }],
        [{ tool: 'act', match: "button 'Save'", verb: 'invoke' }],
        [
          { tool: 'assert_screen', label: 'saved', title: 'Settings saved' },
          { tool: 'finish', label: 'saved' },
        ],
      ],
    }),
  );
  const fake = await startFakeAnthropic(script, { apiKey: API_KEY });
  try {
    const { page, panel } = await startModelSession(ext, `${app.url}/widgets`, { key: API_KEY, baseURL: fake.url }, {
      goal: 'Assign the case to Katherine Johnson, queue it in Fraud, save',
      owner: 'Dana Reviewer',
      inputs: [{ name: 'assignee', value: 'Katherine Johnson' }],
    });
    await answer(panel, "button 'Save'", 'commit', 60_000);
    await expect(panel.getByTestId('phase')).toHaveText('finished', { timeout: 60_000 });
    expect(fake.problems).toEqual([]);
    const jsonl = await exportBook(panel);
    expect(app.widgets).toMatchObject([{ assignee: 'Katherine Johnson', list_queue: 'Fraud' }]);
    expect(actsOf(jsonl)).toEqual(['choose Assignee {{input.assignee}}', 'choose Queue Fraud', 'invoke Save']);
    expect(parseBook(jsonl).filter((l) => l.kind === 'refusal').map((l) => l.kind === 'refusal' && `${l.code} ${l.message}`)).toEqual([
      expect.stringMatching(/^ACTION_FAILED .*Urgent/),
    ]);
    await page.close();
    await panel.close();
  } finally {
    await fake.close();
  }
});

test('record mode: a clerk picks in MUI Autocomplete inside MUI Dialog: one choose, and the dialog stays open (no Escape reaches it)', async () => {
  test.setTimeout(120_000);
  const page = await ext.context.newPage();
  await page.goto(`${app.url}/widgets-dialog`);
  const panel = await openPanel(ext, app.url);
  await startSession(panel, { mode: 'record', goal: 'Choose Grace Hopper as the reviewer', owner: 'Dana Clerk', inputs: [] });
  await labelScreen(panel, 'reviewer_dialog', 'Choose a reviewer');
  await page.getByRole('combobox', { name: 'Reviewer' }).click();
  await page.getByRole('option', { name: 'Grace Hopper' }).click();
  await expect(page.locator('#state')).toHaveText('dialog: open; reviewer: Grace Hopper', { timeout: 20_000 });
  await expect(book(panel).last()).toContainText('Picked Grace Hopper in Reviewer', { timeout: 20_000 });
  await finishSession(panel);
  expect(actsOf(await exportBook(panel))).toEqual(['choose Reviewer Grace Hopper']);
  await expect(page.locator('#state')).toHaveText('dialog: open; reviewer: Grace Hopper');
  await page.close();
  await panel.close();
});

test('record mode: a clerk picks in a Radix submenu (the menu is modal: its button is hidden while it is open) — one choose on the button with the path, done again by the guard, and the runner replays it', async () => {
  test.setTimeout(120_000);
  const page = await ext.context.newPage();
  await page.goto(`${app.url}/widgets`);
  const panel = await openPanel(ext, app.url);
  await startSession(panel, { mode: 'record', goal: 'Export the case as CSV', owner: 'Dana Clerk', inputs: [] });
  await labelScreen(panel, 'settings', 'Case settings');
  // The click on the button opens the menu, the hover on Export its submenu (neither is a step); the click on CSV is.
  await page.getByRole('button', { name: 'Case actions' }).click();
  await page.getByRole('menuitem', { name: 'Export' }).hover();
  await page.getByRole('menuitem', { name: 'CSV' }).click();
  await expect(book(panel).last()).toContainText('Picked Export › CSV in Case actions', { timeout: 20_000 });
  await expect.poll(async () => (await chosen(page)).action, { timeout: 20_000 }).toBe('Exported as CSV');
  // Exported once: the clerk's click was held and only the guard's redo reached the page (a click let through as well
  // would show a second export here, the last action reading the same).
  expect(await actionsDone(page)).toEqual(['Exported as CSV']);
  // The menus are closed, and the screen is the one the pick started on.
  await expect(page.getByRole('menu')).toHaveCount(0);
  await expect(panel.getByTestId('screen-label')).toHaveText('settings', { timeout: 20_000 });
  await finishSession(panel);
  await exportCompileReplay(panel, { id: 'radix_export_csv', baseUrl: app.url, evidenceDir: test.info().outputPath('evidence-radix-sub'), acts: ['choose Case actions Export › CSV'] });
  await page.close();
  await panel.close();
});

test('model mode: a model chooses by a path in Radix\'s submenu (opened on a trusted hover) and the page holds the pick; the runner replays the book', async () => {
  test.setTimeout(120_000);
  const script = parseScript(
    JSON.stringify({
      turns: [
        [
          { tool: 'assert_screen', label: 'settings', title: 'Case settings' },
          { tool: 'act', match: "button 'Case actions'", verb: 'choose', value: 'Export › PDF' },
        ],
        [{ tool: 'finish', label: 'settings' }],
      ],
    }),
  );
  const fake = await startFakeAnthropic(script, { apiKey: API_KEY });
  try {
    const { page, panel } = await startModelSession(ext, `${app.url}/widgets`, { key: API_KEY, baseURL: fake.url }, { goal: 'Export the case as PDF', owner: 'Dana Reviewer' });
    await expect(panel.getByTestId('phase')).toHaveText('finished', { timeout: 60_000 });
    expect(fake.problems).toEqual([]);
    expect((await chosen(page)).action).toBe('Exported as PDF');
    await exportCompileReplay(panel, { id: 'radix_export_pdf', baseUrl: app.url, evidenceDir: test.info().outputPath('evidence-radix-sub-model'), acts: ['choose Case actions Export › PDF'] });
    await page.close();
    await panel.close();
  } finally {
    await fake.close();
  }
});
