// A clerk records TiddlyWiki (npm `tiddlywiki`, a wiki nobody here wrote) by hand in the extension, as they would at
// work: closes the welcome tiddler, opens a new tiddler, types its title, text and tag, and presses the checkmark,
// answering the panel's question that it commits. The book exports, compiles and replays on the runner for a tiddler
// the clerk never made, and the wiki's own API says it was saved with the run's text and tag.
import { test, expect, type Page } from '@playwright/test';
import { exportBook, finishSession, labelScreen, launchWithExtension, openPanel, parseBook, replayWithRunner, startSession, type Loaded } from '../fixtures/extension/harness.ts';
import { compiled } from './support/evening.ts';
import { wikiScene, type Wiki } from './support/tiddly.ts';

/** The checkmark's step, as the compiler names it from the button ("Confirm changes to this tiddler"). */
const SAVE = 'confirm_changes_to_this_tiddle';

let wiki: Wiki;
let ext: Loaded;
wikiScene({ scratch: 'handrail-ext-tiddly-' }, (s) => (wiki = s.app));
test.beforeAll(async () => {
  ext = await launchWithExtension();
});
test.afterAll(async () => {
  await ext?.close();
});

/** Answers the panel's question about `control` if it asks one within a moment (the wiki saves drafts as it goes). */
async function answerIfAsked(panel: Page, control: RegExp, a: 'commit' | 'navigate' | 'stage'): Promise<boolean> {
  const q = panel.getByTestId('question-control');
  const asked = await q.filter({ hasText: control }).waitFor({ timeout: 4_000 }).then(() => true, () => false);
  if (!asked) return false;
  await panel.getByTestId(`answer-${a}`).click();
  await expect(panel.getByTestId('question')).toHaveCount(0, { timeout: 20_000 });
  return true;
}

// Not yet green (issue 34, "record one of them by hand in the extension"). Of the two defects this spec found, the
// first is fixed: the text typed into the wiki's editor (a textarea in an iframe the wiki writes with document.open(),
// which erases every listener of that document and its window) is booked now (extension/lib/agent.ts adds the
// listeners again; extension-verbs.spec.ts holds it). Left:
// 2. The wiki saves a draft (PUT …/Draft of 'New Tiddler') about a second after the clerk types; the extension cannot
//    hold a write (MV3), so the draft is booked as an unasked commit of the title and text fields (UNASKED_COMMIT
//    holes) and the book does not compile. The CLI's guard holds it and asks (the owner says it only moves). The
//    extension needs the session to declare writes that are no commit (as `handrail author --ignore-write` does), or
//    to ask after the fact.
test.fixme();

test('a clerk records a new tagged tiddler by hand; the book compiles and replays on the runner for another tiddler', async () => {
  test.setTimeout(240_000);
  await wiki.store.reset();
  const page = await ext.context.newPage();
  page.setDefaultNavigationTimeout(60_000);
  await page.goto(`${wiki.url}/`);
  await expect(page.getByRole('button', { name: 'new tiddler' })).toBeVisible({ timeout: 60_000 });
  const panel = await openPanel(ext, wiki.url);
  await startSession(panel, {
    mode: 'record',
    goal: 'Create a tiddler with a title, text and a tag, and save it',
    owner: 'Dana Clerk',
    inputs: [
      { name: 'title', value: 'Shopping list' },
      { name: 'text', value: 'Milk and bread' },
      { name: 'tag', value: 'errands' },
    ],
  });
  await labelScreen(panel, 'welcome', 'The wiki with its welcome tiddler open', 60_000);
  await page.getByRole('main').getByRole('button', { name: 'close' }).first().click();
  await answerIfAsked(panel, /close/, 'navigate');
  await labelScreen(panel, 'wiki', 'The wiki with nothing open', 60_000);
  await page.getByRole('button', { name: 'new tiddler' }).click();
  await answerIfAsked(panel, /new tiddler/, 'navigate');
  await labelScreen(panel, 'editing', 'A new tiddler in the editor', 60_000);
  const draft = page.locator('.tc-tiddler-edit-frame');
  await draft.locator('input.tc-titlebar').fill('Shopping list');
  // The wiki's text editor is a textarea in its own iframe (core/modules/editor/engines/framed.js).
  await draft.frameLocator('iframe').first().getByRole('textbox').fill('Milk and bread');
  const tag = draft.getByRole('textbox', { name: 'tag name' });
  await tag.fill('errands');
  await tag.press('Enter');
  // Enter in a field may send a form: the extension holds it and asks; here it only adds the tag.
  expect(await answerIfAsked(panel, /tag name/, 'stage')).toBe(true);
  await expect(draft.getByText('errands', { exact: true }).first()).toBeVisible({ timeout: 20_000 });
  await page.getByRole('button', { name: 'Confirm changes to this tiddler' }).click();
  const askedSave = await answerIfAsked(panel, /Confirm changes to this tiddler/, 'commit');
  expect(askedSave).toBe(true);
  await labelScreen(panel, 'saved', 'The new tiddler shown', 60_000);
  await expect.poll(() => wiki.tiddler('Shopping list'), { timeout: 30_000 }).toMatchObject({ text: 'Milk and bread', tags: 'errands' });
  await finishSession(panel);

  const jsonl = await exportBook(panel);
  const lines = parseBook(jsonl);
  const card = compiled(lines, { id: 'tiddlywiki_new_tiddler_by_hand', noRecord: [SAVE] });
  expect(card.steps.find((s) => s.effect.kind === 'commit'), JSON.stringify(card.steps)).toMatchObject({ id: SAVE, effect: { confirmed_by: { owner: 'Dana Clerk' } } });
  const result = await replayWithRunner(card, { inputs: { title: 'Bike repair', text: 'Fix the rear brake', tag: 'errands' }, baseUrl: wiki.url, evidenceDir: test.info().outputPath('evidence') });
  expect(result, JSON.stringify(result)).toMatchObject({ word: 'SUCCESS', llm_calls: 0 });
  expect(await wiki.tiddler('Bike repair')).toMatchObject({ text: 'Fix the rear brake', tags: 'errands' });
  await page.close();
  await panel.close();
});
