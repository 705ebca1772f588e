// A clerk records, and a model drives, the verbs a page script cannot fake in the extension — Enter in a field (adding an item, submitting a form), a row's action revealed by hovering, a pick in a custom combobox — done with trusted input (chrome.debugger); the page's own state proves each happened and the recorded card replays.
import { readFile, writeFile } from 'node:fs/promises';
import AxeBuilder from '@axe-core/playwright';
import { test, expect, type Page } from '@playwright/test';
import { Capability } from '../../shared/schema/capability.ts';
import { handrail } from './support/cli.ts';
import { parseScript } from '../../shared/author/scripted.ts';
import { startFakeAnthropic } from '../fixtures/fake-anthropic.ts';
import { serveFixtures, type FixtureServer } from '../fixtures/server.ts';
import { actsOf, answer, replayWithRunner, book, exportBook, exportCompileReplay, labelScreen, launchWithExtension, openPanel, parseBook, startModelSession, startSession, type Loaded, finishSession } from '../fixtures/extension/harness.ts';

const API_KEY = `sk-fake-${Math.random().toString(36).slice(2, 10)}`;
const GOAL = 'Add an item, delete "Buy milk", assign the list to Sam Okafor and search for milk';
const INPUTS = [
  { name: 'item', value: 'Feed the cat' },
  { name: 'assignee', value: 'Sam Okafor' },
  { name: 'query', value: 'milk' },
];

let server: FixtureServer;
let ext: Loaded;

test.describe.configure({ mode: 'serial' });

/**
 * A note editor opened by a press, whose text box is in a frame the page then makes by script and writes with
 * document.open() — as TiddlyWiki's text editor is (core/modules/editor/engines/framed.js) — and a Save in the top
 * document that sends what the frame holds.
 */
const WRITTEN_FRAME = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Notes</title></head><body>
<h1>Notes</h1><button id="new">New note</button><div id="editor"></div>
<script>
  document.getElementById('new').onclick = () => {
    document.getElementById('new').remove();
    document.querySelector('h1').textContent = 'New note';
    const frame = document.createElement('iframe');
    frame.title = 'Note text';
    document.getElementById('editor').append(frame);
    const doc = frame.contentWindow.document;
    doc.open();
    doc.write('<!doctype html><html lang="en"><head><meta charset="utf-8"></head><body></body></html>');
    doc.close();
    const text = doc.createElement('textarea');
    text.setAttribute('aria-label', 'Note');
    doc.body.append(text);
    const save = document.createElement('button');
    save.textContent = 'Save';
    save.onclick = () => (location.href = '/note-saved?text=' + encodeURIComponent(text.value));
    document.getElementById('editor').append(save);
  };
</script></body></html>`;

test.beforeAll(async () => {
  server = await serveFixtures({ '/search-sent': '<!doctype html><title>Sent</title><p>Searched</p>', '/written-frame': WRITTEN_FRAME, '/note-saved': '<!doctype html><html lang="en"><title>Saved</title><h1>Note saved</h1></html>' });
  ext = await launchWithExtension();
});
test.afterAll(async () => {
  await ext?.close();
  await server?.close();
});

/** What the page itself says happened: the items listed, what it announced, and the assignee the combobox shows. */
async function pageState(page: Page): Promise<{ items: string[]; said: string; assignee: string }> {
  return page.evaluate(() => ({
    items: [...document.querySelectorAll('#items li > span:first-child')].map((s) => s.textContent ?? ''),
    said: document.getElementById('said')?.textContent ?? '',
    assignee: (document.querySelector('pick-box')?.shadowRoot?.getElementById('i') as HTMLInputElement | null)?.value ?? '',
  }));
}

/** The book both modes write for the same work: the clerk doing it, or the model. */
const FOUR_VERBS_BOOK = [
  'set_value New item {{input.item}}',
  'press New item Enter',
  'hover Delete item',
  'invoke Delete item',
  'choose Assignee {{input.assignee}}',
  'set_value Query {{input.query}}',
  'press Query Enter',
];

test('record mode: the clerk presses Enter in two fields, hovers a row and clicks its hidden action, picks in a combobox; the book compiles to press, hover and choose steps and the card replays', async () => {
  test.setTimeout(180_000);
  const page = await ext.context.newPage();
  await page.goto(`${server.url}/verbs.html`);
  const panel = await openPanel(ext, server.url);
  await startSession(panel, { mode: 'record', goal: GOAL, owner: 'Dana Clerk', inputs: INPUTS });
  await labelScreen(panel, 'list', 'Verbs');

  // Type a new item and press Enter (the page adds it on keydown): the typed value first, then the key, held
  // until the owner says what it is (Enter may submit), then pressed for the clerk with a trusted key.
  await page.locator('#new-item').click();
  await page.keyboard.type('Feed the cat');
  await page.keyboard.press('Enter');
  await answer(panel, "textbox 'New item'", 'stage');
  await expect.poll(async () => (await pageState(page)).items).toEqual(['Buy milk', 'Walk the dog', 'Feed the cat']);
  // The worker has looked at the list with the new item (its Delete hidden like the others) before the clerk moves on.
  await expect(panel.getByText("hover button 'Delete item' in row 'Feed the cat'")).toBeVisible({ timeout: 20_000 });
  // The pointer moves on at once, maybe while the guard still looks at the Enter's landing: where the pointer rests
  // is no part of the screen (a row's actions it shows are no furniture), so that look and the hover's agree.

  // Hover "Buy milk" and click its Delete, shown only while the row is hovered: a hover step, then the press.
  const row = page.locator('#items li').filter({ hasText: 'Buy milk' });
  await row.hover();
  await row.getByRole('button', { name: 'Delete item' }).click();
  // The clerk's pointer leaves the page for the side panel to answer (no row hovered any more).
  await expect(panel.getByTestId('question-control')).toHaveText("button 'Delete item' in row 'Buy milk'", { timeout: 20_000 });
  await page.mouse.move(1, 1);
  await answer(panel, "button 'Delete item' in row 'Buy milk'", 'stage');
  await expect.poll(async () => (await pageState(page)).said).toBe('Deleted Buy milk');

  // Open the custom combobox (in a shadow root) and click an option: one pick, with the option's name.
  await page.locator('pick-box').locator('input').click();
  await page.getByRole('option', { name: 'Sam Okafor' }).click();
  await expect(book(panel).last()).toContainText('Picked {{input.assignee}} in Assignee', { timeout: 20_000 });
  // The page did each thing once, as the clerk did it.
  expect(await pageState(page)).toEqual({ items: ['Walk the dog', 'Feed the cat'], said: 'Deleted Buy milk', assignee: 'Sam Okafor' });

  // Enter in the search field submits its form (a POST): asked before it is pressed, a commit by the owner's word,
  // and only a trusted Enter submits a form at all.
  await page.locator('#q').click();
  await page.keyboard.type('milk');
  await page.keyboard.press('Enter');
  await answer(panel, "textbox 'Query'", 'commit');
  await expect(page).toHaveURL(/\/search-sent$/);
  await labelScreen(panel, 'sent', 'Sent');
  await finishSession(panel);

  // The card replays the whole task with the runner (no extension, no model) on a fresh page.
  const { jsonl, card } = await exportCompileReplay(panel, {
    id: 'tidy_list',
    acts: FOUR_VERBS_BOOK,
    // The search's Enter sends a query, about no record of the list's.
    noRecord: ['key_query'],
    inputs: Object.fromEntries(INPUTS.map((i) => [i.name, i.value])),
    baseUrl: server.url,
    evidenceDir: test.info().outputPath('evidence'),
  });
  const search = parseBook(jsonl).findLast((l) => l.kind === 'act');
  expect(search?.kind === 'act' && search.effect).toEqual({ kind: 'commit', by: 'owner', owner: 'Dana Clerk' });
  expect(search?.kind === 'act' && search.writes?.map((w) => `${w.method} ${new URL(w.url).pathname} ${w.fate}`)).toEqual(['POST /search-sent allowed']);
  expect(parseBook(jsonl).filter((l) => l.kind === 'act').every((l) => l.actor === 'human')).toBe(true);
  expect(card.steps.map((s) => s.op.verb)).toEqual(['set_value', 'press', 'hover', 'invoke', 'choose', 'set_value', 'press']);
  expect(card.steps.filter((s) => s.op.verb === 'press').map((s) => [s.op.value, s.effect.kind])).toEqual([
    ['Enter', 'stage'],
    ['Enter', 'commit'],
  ]);
  await page.close();
  await panel.close();
});

test('model mode: a scripted model presses Enter, hovers, deletes, picks and submits with Enter through the extension, and the page shows each happened', async () => {
  test.setTimeout(180_000);
  const script = parseScript(
    JSON.stringify({
      turns: [
        [
          { tool: 'assert_screen', label: 'list', title: 'Verbs' },
          { tool: 'act', match: "textbox 'New item'", verb: 'set_value', value: '{{input.item}}' },
          { tool: 'act', match: "textbox 'New item'", verb: 'press', value: 'Enter' },
        ],
        [{ tool: 'act', match: "button 'Delete item' in row 'Buy milk'", verb: 'hover' }],
        [{ tool: 'act', match: "button 'Delete item' in row 'Buy milk'", verb: 'invoke' }],
        [{ tool: 'act', match: "combobox 'Assignee'", verb: 'choose', value: '{{input.assignee}}' }],
        [
          { tool: 'act', match: "textbox 'Query'", verb: 'set_value', value: '{{input.query}}' },
          { tool: 'act', match: "textbox 'Query'", verb: 'press', value: 'Enter' },
        ],
        [
          { tool: 'assert_screen', label: 'sent', title: 'Sent' },
          { tool: 'finish', label: 'sent' },
        ],
      ],
    }),
  );
  const fake = await startFakeAnthropic(script, { apiKey: API_KEY });
  try {
    const { page, panel } = await startModelSession(ext, `${server.url}/verbs.html`, { key: API_KEY, baseURL: fake.url }, { goal: GOAL, owner: 'Dana Reviewer', inputs: INPUTS });
    await answer(panel, "textbox 'New item'", 'stage');
    await answer(panel, "button 'Delete item' in row 'Buy milk'", 'stage');
    // Trusted input worked: a synthetic pointer would not have shown the row's Delete for the model to press, and
    // the combobox shows the option the model named.
    await expect.poll(() => pageState(page)).toEqual({ items: ['Walk the dog', 'Feed the cat'], said: 'Deleted Buy milk', assignee: 'Sam Okafor' });
    // A synthetic Enter does not submit a form; this one does (after the owner said it is a commit).
    await answer(panel, "textbox 'Query'", 'commit');
    await expect(page).toHaveURL(/\/search-sent$/);
    await expect(panel.getByTestId('phase')).toHaveText('finished', { timeout: 30_000 });

    expect(fake.problems).toEqual([]);
    const jsonl = await exportBook(panel);
    expect(actsOf(jsonl)).toEqual(FOUR_VERBS_BOOK);
    expect(parseBook(jsonl).at(-1)).toMatchObject({ kind: 'end', outcome: 'finished' });
    await page.close();
    await panel.close();
  } finally {
    await fake.close();
  }
});

test('a commit that stays on its screen is refused in the panel until the reviewer says what must show after it; the card carries it, byte for byte what handrail compile --post gives', async () => {
  test.setTimeout(180_000);
  const page = await ext.context.newPage();
  await page.goto(`${server.url}/verbs.html`);
  const panel = await openPanel(ext, server.url);
  await startSession(panel, { mode: 'record', goal: 'Add an item to the list', owner: 'Dana Clerk', inputs: [{ name: 'item', value: 'Feed the cat' }] });
  await labelScreen(panel, 'list', 'Verbs');
  // The owner calls adding the item a commit; the list it lands on is the list it started on.
  await page.locator('#new-item').click();
  await page.keyboard.type('Feed the cat');
  await page.keyboard.press('Enter');
  await answer(panel, "textbox 'New item'", 'commit');
  await expect.poll(async () => (await pageState(page)).items).toEqual(['Buy milk', 'Walk the dog', 'Feed the cat']);
  await expect(book(panel).last()).toContainText('Enter', { timeout: 20_000 });
  await finishSession(panel);

  await panel.getByTestId('saved-compile').first().click();
  await expect(panel.getByTestId('holes')).toContainText('NO_VISIBLE_EFFECT');
  await expect(panel.getByTestId('holes')).toContainText('NO_RECORD_IDENTITY');
  await expect(panel.getByTestId('download-card')).toHaveCount(0);
  // Which record the commit acts on is asked too: adding an item chooses none, and the reviewer says so (with neither
  // the words nor the tick, the form says what is missing).
  const record = panel.getByTestId('record-form');
  await expect(record).toHaveCount(1);
  await panel.getByTestId('compile-with-posts').click();
  await expect(panel.getByTestId('post-error')).toContainText('say what the screen shows of the record it acts on');
  await record.getByTestId('record-none').check();
  const form = panel.getByTestId('post-form');
  await expect(form).toHaveCount(1);
  const step = await form.getAttribute('data-step');
  expect(step).toMatch(/^[a-z][a-z0-9_]*$/);
  // Left empty, the form says what is missing and compiles nothing.
  await panel.getByTestId('compile-with-posts').click();
  await expect(panel.getByTestId('post-error')).toContainText(`After "${step}": say what text the screen shows once it has worked`);
  await expect(panel.getByTestId('holes')).toContainText('NO_VISIBLE_EFFECT');
  // A blank naming no input is refused by the card, and the form stays to be corrected, what was typed kept.
  await form.getByTestId('post-text').fill('{{input.itme}}');
  await panel.getByTestId('compile-with-posts').click();
  await expect(panel.getByTestId('holes')).toContainText('{{input.itme}} names no declared input');
  await expect(panel.getByTestId('post-form').getByTestId('post-text')).toHaveValue('{{input.itme}}');
  await panel.getByTestId('post-form').getByTestId('post-text').fill('{{input.item}}');
  // A second one, a control: the item's own row.
  await panel.getByTestId('post-add').click();
  await panel.getByTestId('post-kind').nth(1).selectOption('control');
  await panel.getByTestId('post-role').fill('listitem');
  await panel.getByTestId('post-name').fill('{{input.item}}');
  await panel.getByTestId('compile-with-posts').click();
  await expect(panel.getByTestId('download-card')).toBeVisible();
  await expect(panel.getByTestId('posts-given')).toContainText(`after ${step} the screen shows the text "{{input.item}}"`);
  // The forms, two rows of them, pass axe-core with no serious or critical violation (each control is named).
  const axe = await new AxeBuilder({ page: panel }).include('[data-testid=posts]').include('[data-testid=records]').analyze();
  expect(axe.passes.map((p) => p.id)).toEqual(expect.arrayContaining(['button-name', 'label']));
  expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(' ')}`))).toEqual([]);
  // Changed after the compile, the forms must be compiled again before anything is downloaded; removing the control
  // and compiling again gives a card with the text alone.
  await panel.getByTestId('post-remove').nth(1).click();
  await expect(panel.getByTestId('download-card')).toBeDisabled();
  await panel.getByTestId('compile-with-posts').click();
  await expect(panel.getByTestId('download-card')).toBeEnabled();
  await expect(panel.getByTestId('posts-given').locator('li')).toHaveCount(1);
  await panel.getByTestId('card-id').fill('add_item');
  const [download] = await Promise.all([panel.waitForEvent('download'), panel.getByTestId('download-card').click()]);
  const fromPanel = await readFile(await download.path(), 'utf8');
  const card = Capability.parse(JSON.parse(fromPanel));
  expect(card.steps.find((s) => s.id === step)?.post).toEqual([{ kind: 'text', contains: '{{input.item}}' }]);
  expect(card.steps.find((s) => s.id === step)?.no_record).toBe(true);

  // The CLI, given the same book and the same postcondition, writes the same bytes.
  const bookFile = test.info().outputPath('add.trace.jsonl');
  const cardFile = test.info().outputPath('add_item.json');
  await writeFile(bookFile, await exportBook(panel));
  const refused = await handrail(['compile', bookFile, '--id', 'add_item', '--out', cardFile], { ...process.env });
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('NO_VISIBLE_EFFECT');
  expect(refused.stderr).toContain('NO_RECORD_IDENTITY');
  const cli = await handrail(['compile', bookFile, '--id', 'add_item', '--post', `${step}=text:{{input.item}}`, '--no-record', step ?? '', '--out', cardFile], { ...process.env });
  expect(cli.code, cli.stderr).toBe(0);
  expect(fromPanel).toBe(await readFile(cardFile, 'utf8'));

  // The card the panel made replays: the added item is what proves the commit did something.
  const result = await replayWithRunner(card, { inputs: { item: 'Water the plants' }, baseUrl: server.url, evidenceDir: test.info().outputPath('evidence-add') });
  expect(result).toMatchObject({ word: 'SUCCESS', llm_calls: 0 });
  await page.close();
  await panel.close();
});


test('a clerk types into a text box in a frame the page wrote with document.open(): it is booked, and the card replays', async () => {
  test.setTimeout(120_000);
  const page = await ext.context.newPage();
  await page.goto(`${server.url}/written-frame`);
  const panel = await openPanel(ext, `${server.url}/written-frame`);
  await startSession(panel, { mode: 'record', goal: 'Write a note and save it', owner: 'Dana Clerk', inputs: [{ name: 'note', value: 'Milk and bread' }] });
  await labelScreen(panel, 'notes', 'Notes');
  // The frame is made while the session records: the content script is in its first empty document before the page
  // writes it anew.
  await page.getByRole('button', { name: 'New note' }).click();
  await answer(panel, "button 'New note'", 'navigate');
  await labelScreen(panel, 'note', 'New note');
  await page.frameLocator('iframe[title="Note text"]').getByRole('textbox', { name: 'Note' }).fill('Milk and bread');
  await page.getByRole('button', { name: 'Save' }).click();
  await answer(panel, "button 'Save'", 'commit');
  await expect(page).toHaveURL(/note-saved\?text=Milk%20and%20bread$/);
  await labelScreen(panel, 'saved', 'Note saved');
  await finishSession(panel);
  const { result } = await exportCompileReplay(panel, {
    id: 'written_frame_note',
    noRecord: ['save'],
    inputs: { note: 'Fix the rear brake' },
    acts: ['invoke New note', 'set_value Note {{input.note}}', 'invoke Save'],
    baseUrl: server.url,
    evidenceDir: test.info().outputPath('evidence'),
  });
  expect(result.word).toBe('SUCCESS');
  await page.close();
  await panel.close();
});
