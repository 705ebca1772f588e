// A clerk records, and a model drives, the verbs a page script cannot fake in the extension: Enter in a field, a row's action revealed by hovering, and a pick in a custom combobox — done with trusted input (chrome.debugger) — and the page's own state proves each happened.
import { test, expect, type Page } from '@playwright/test';
import { compile } from '../../shared/compile/compile.ts';
import { parseScript } from '../../shared/author/scripted.ts';
import { startFakeAnthropic } from '../fixtures/fake-anthropic.ts';
import { serveFixtures, type FixtureServer } from '../fixtures/server.ts';
import { answer, book, exportBook, labelScreen, launchWithExtension, openPanel, parseBook, saveModelSettings, startSession, type Loaded } from '../fixtures/extension/harness.ts';

const API_KEY = `sk-fake-${Math.random().toString(36).slice(2, 10)}`;
const GOAL = 'Add an item, delete "Buy milk" and assign the list to Sam Okafor';
const INPUTS = [
  { name: 'item', value: 'Feed the cat' },
  { name: 'assignee', value: 'Sam Okafor' },
];

let server: FixtureServer;
let ext: Loaded;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  server = await serveFixtures();
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

/** The book's act lines as `verb name value`, in order. */
function actsOf(jsonl: string): string[] {
  return parseBook(jsonl).flatMap((l) => (l.kind === 'act' ? [`${l.verb} ${l.control.name}${l.value !== undefined ? ` ${l.value}` : ''}`] : []));
}

test('record mode: the clerk types and presses Enter, hovers a row and clicks its hidden action, picks in a combobox; the book compiles to press, hover and choose steps', async () => {
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
  await panel.getByTestId('finish').click();
  await expect(panel.getByTestId('phase')).toHaveText('finished', { timeout: 20_000 });

  // The page did each thing once, as the clerk did it.
  expect(await pageState(page)).toEqual({ items: ['Walk the dog', 'Feed the cat'], said: 'Deleted Buy milk', assignee: 'Sam Okafor' });
  const jsonl = await exportBook(panel);
  expect(actsOf(jsonl)).toEqual([
    'set_value New item {{input.item}}',
    'press New item Enter',
    'hover Delete item',
    'invoke Delete item',
    'choose Assignee {{input.assignee}}',
  ]);
  expect(parseBook(jsonl).filter((l) => l.kind === 'act').every((l) => l.actor === 'human')).toBe(true);
  const compiled = compile(parseBook(jsonl), { id: 'tidy_list' });
  if (!compiled.ok) throw new Error(`holes: ${JSON.stringify(compiled.holes)}`);
  expect(compiled.card.steps.map((s) => s.op.verb)).toEqual(['set_value', 'press', 'hover', 'invoke', 'choose']);
  expect(compiled.card.steps.find((s) => s.op.verb === 'press')?.op.value).toBe('Enter');
  await page.close();
  await panel.close();
});

test('model mode: a scripted model presses Enter, hovers, deletes and picks through the extension, and the page shows each happened', async () => {
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
        [{ tool: 'finish', label: 'list' }],
      ],
    }),
  );
  const fake = await startFakeAnthropic(script, { apiKey: API_KEY });
  try {
    const page = await ext.context.newPage();
    await page.goto(`${server.url}/verbs.html`);
    const panel = await openPanel(ext, server.url);
    await saveModelSettings(panel, { key: API_KEY, baseURL: fake.url, model: 'claude-fake' });
    await startSession(panel, { mode: 'model', goal: GOAL, owner: 'Dana Reviewer', inputs: INPUTS });
    await answer(panel, "textbox 'New item'", 'stage');
    await answer(panel, "button 'Delete item' in row 'Buy milk'", 'stage');
    await expect(panel.getByTestId('phase')).toHaveText('finished', { timeout: 30_000 });

    expect(fake.problems).toEqual([]);
    // Trusted input worked: a synthetic Enter would not have added the item, a synthetic pointer would not have
    // shown the row's Delete, and the combobox shows the option the model named.
    expect(await pageState(page)).toEqual({ items: ['Walk the dog', 'Feed the cat'], said: 'Deleted Buy milk', assignee: 'Sam Okafor' });
    const jsonl = await exportBook(panel);
    expect(actsOf(jsonl)).toEqual([
      'set_value New item {{input.item}}',
      'press New item Enter',
      'hover Delete item',
      'invoke Delete item',
      'choose Assignee {{input.assignee}}',
    ]);
    expect(parseBook(jsonl).at(-1)).toMatchObject({ kind: 'end', outcome: 'finished' });
    await page.close();
    await panel.close();
  } finally {
    await fake.close();
  }
});
