// The extension on React Aria Components and Bootstrap as they ship (tests/fixtures/real/aria.mjs, bootstrap.html): a
// clerk's pick in React Aria's Select and Menu is one `choose` each and the card replays on the runner; a model's
// `choose` on Bootstrap's dropdown (a disclosure) picks by name with trusted input; a clerk's React Aria Save is held
// and asked, a click on its Switch's drawn label is one toggle, and a clerk's pick in Bootstrap's dropdown is one
// `choose` that replays.
import { test, expect, type Page } from '@playwright/test';
import { startFakeAnthropic } from '../fixtures/fake-anthropic.ts';
import { startRealApp, type RealApp } from '../fixtures/real/server.ts';
import { listed } from './support/real.ts';
import { actsOf, answer, exportBook, exportCompileReplay, finishSession, labelScreen, launchWithExtension, openPanel, parseBook, startModelSession, startSession, type Loaded } from '../fixtures/extension/harness.ts';

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
  app.aria.length = 0;
  app.bootstrap.length = 0;
});

/** A recording session on `path` of the real-library server, its first screen labelled. */
async function recording(path: string, goal: string, label: [string, string]): Promise<{ page: Page; panel: Page }> {
  const page = await ext.context.newPage();
  await page.goto(`${app.url}${path}`);
  const panel = await openPanel(ext, app.url);
  await startSession(panel, { mode: 'record', goal, owner: 'Dana Clerk', inputs: [] });
  await labelScreen(panel, ...label);
  return { page, panel };
}

test('React Aria: a clerk’s pick in Select and in Menu is one choose each, and the card replays on the runner', async () => {
  test.setTimeout(180_000);
  const { page, panel } = await recording('/aria', 'Set priority High and escalate', ['case', 'Case C-7']);
  const state = () => listed(page, 'ul[aria-label="Held"]');
  await page.getByRole('button', { name: 'Normal Priority' }).click();
  await page.getByRole('option', { name: 'High' }).click();
  await expect.poll(async () => (await state()).priority, { timeout: 20_000 }).toBe('High');
  await page.getByRole('button', { name: 'Case actions' }).click();
  await page.getByRole('menuitem', { name: 'Escalate' }).click();
  await expect.poll(async () => (await state()).action, { timeout: 20_000 }).toBe('Escalated');
  await finishSession(panel);
  await exportCompileReplay(panel, {
    id: 'aria_escalate',
    baseUrl: app.url,
    evidenceDir: test.info().outputPath('evidence'),
    acts: ['choose Priority High', 'choose Case actions Escalate'],
  });
  await page.close();
  await panel.close();
});

// Seen before the fix: the book had no act for Save and a refusal UNASKED_WRITE "between actions the page sent POST
// …/api/aria: it left before anyone could be asked". React Aria's usePress, after pointerup, waits 80 ms for the click
// on a capturing listener of the element; the recorder held that click, so usePress clicked the element itself (a
// script's click, which the recorder let through as not the clerk's). The recorder now holds a page's own click on the
// control whose press it holds, until the guard's own press begins.
test('React Aria: a clerk’s Save (React Aria Button) is held and asked before its write leaves', async () => {
  const { page, panel } = await recording('/aria', 'Save the case', ['case', 'Case C-7']);
  await page.getByRole('button', { name: 'Save' }).click();
  // usePress clicks the button itself 80 ms after pointerup when the held click has not reached it: by the time the
  // owner is asked, that click has long been made, and held too.
  await expect(panel.getByTestId('question-control')).toContainText("button 'Save'", { timeout: 20_000 });
  await page.waitForTimeout(300);
  expect(app.aria).toHaveLength(0);
  await answer(panel, "button 'Save'", 'commit');
  await labelScreen(panel, 'saved', 'Case saved');
  await finishSession(panel);
  const lines = parseBook(await exportBook(panel));
  expect(lines.filter((l) => l.kind === 'refusal')).toEqual([]);
  expect(lines.flatMap((l) => (l.kind === 'act' ? [{ step: `${l.verb} ${l.control.name}`, effect: l.effect }] : []))).toEqual([
    { step: 'invoke Save', effect: { kind: 'commit', by: 'owner', owner: expect.any(String) } },
  ]);
  expect(app.aria).toHaveLength(1);
  await page.close();
  await panel.close();
});

// Seen before the fix: a click on the Switch's drawn label toggled it on the page (urgent: true) and the book got no
// act at all. React Aria's Switch is a visually hidden <input role=switch> inside the <label> it draws, and toggles
// from the label's own click (usePress), so no click reaches the input; a click on a label is now the press of the
// control it labels.
test('React Aria: a clerk’s click on the Switch is one toggle', async () => {
  const { page, panel } = await recording('/aria', 'Mark the case urgent', ['case', 'Case C-7']);
  await page.locator('label', { hasText: 'Urgent' }).click();
  await expect.poll(async () => (await listed(page, 'ul[aria-label="Held"]')).urgent, { timeout: 20_000 }).toBe('true');
  // Toggled once, not by the clerk's click and again by the guard's.
  await page.waitForTimeout(500);
  expect((await listed(page, 'ul[aria-label="Held"]')).urgent).toBe('true');
  await finishSession(panel);
  expect(parseBook(await exportBook(panel)).flatMap((l) => (l.kind === 'act' ? [`${l.verb} ${l.control.name}`] : []))).toEqual(['toggle Urgent']);
  await page.close();
  await panel.close();
});

// Seen before the fix: the click on the toggle opened the dropdown while the press was held for the owner, so the
// screen changed under it and its book line was refused UNLABELLED_SCREEN. The toggle was taken for a plain press
// (the guard pressed it, opening the list), and the item — a link with no menu role — for another. A disclosure menu
// button's click now opens its list, as a menu button's does, and a click on a link or button in that list is one
// `choose` on the button (options.ts disclosureOf).
test('Bootstrap: a clerk’s click on the dropdown toggle and then an item is recorded and replays', async () => {
  const { page, panel } = await recording('/bootstrap', 'Archive the case', ['case', 'Case C-9']);
  await page.getByRole('button', { name: 'Case actions' }).click();
  await page.getByRole('link', { name: 'Archive' }).click();
  await expect.poll(async () => (await listed(page, '#held')).action, { timeout: 20_000 }).toBe('Archived');
  await finishSession(panel);
  await exportCompileReplay(panel, { id: 'bootstrap_archive', baseUrl: app.url, evidenceDir: test.info().outputPath('evidence'), acts: ['choose Case actions Archive'] });
  await page.close();
  await panel.close();
});

// A button in the dropdown may write ("Delete account", a sign-out form): it is no pick (a pick is not asked about)
// but a press, held and put to the guard like any button. (The first version of the disclosure pick took it as a
// `choose`, and a review saw its write leave unasked.) The open dropdown is a screen nobody named, so the guard refuses
// the press until the clerk names it: the page is not touched and the book gets no step.
test('Bootstrap: a button in the dropdown is a press put to the guard, not a pick: on the unnamed open dropdown it is refused and not done', async () => {
  const { page, panel } = await recording('/bootstrap', 'Print the case', ['case', 'Case C-9']);
  await page.getByRole('button', { name: 'Case actions' }).click();
  await page.getByRole('button', { name: 'Print' }).click();
  await expect(panel.getByTestId('live-error').or(panel.getByTestId('note'))).toContainText("UNLABELLED_SCREEN", { timeout: 20_000 });
  await page.waitForTimeout(500);
  expect((await listed(page, '#held')).action).toBe('none');
  await panel.getByTestId('stop').click();
  expect(parseBook(await exportBook(panel)).flatMap((l) => (l.kind === 'act' ? [`${l.verb} ${l.control.name}`] : []))).toEqual([]);
  await page.close();
  await panel.close();
});

test('model mode on Bootstrap: choose on the dropdown (a disclosure) picks by name with trusted input, a missing name fails by name, and the page holds the pick', async () => {
  test.setTimeout(180_000);
  const fake = await startFakeAnthropic(
    {
      turns: [
        [
          { tool: 'assert_screen', label: 'case', title: 'Case C-9' },
          { tool: 'act', match: "button 'Case actions'", verb: 'choose', value: 'Delete' },
        ],
        [{ tool: 'act', match: "button 'Case actions'", verb: 'choose', value: 'Archive' }],
        [{ tool: 'finish', label: 'case' }],
      ],
    },
    { apiKey: API_KEY },
  );
  try {
    const { page, panel } = await startModelSession(ext, `${app.url}/bootstrap`, { key: API_KEY, baseURL: fake.url }, { goal: 'Archive the case', owner: 'Dana Reviewer' });
    await expect(panel.getByTestId('phase')).toHaveText('finished', { timeout: 60_000 });
    expect(fake.problems).toEqual([]);
    const jsonl = await exportBook(panel);
    expect(actsOf(jsonl)).toEqual(['choose Case actions Archive']);
    expect(parseBook(jsonl).flatMap((l) => (l.kind === 'refusal' ? [`${l.code} ${l.message}`] : []))).toEqual([expect.stringMatching(/^ACTION_FAILED .*Delete/)]);
    expect((await listed(page, '#held')).action).toBe('Archived');
    await page.close();
    await panel.close();
  } finally {
    await fake.close();
  }
});
