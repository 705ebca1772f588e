// A clerk records a PLUMBLINE hold in their own browser with the Handrail extension (by hand, or letting a model drive while they answer), exports the trace, and the compiled card replays the hold for another member; a stopped worker loses no line in either mode, and the password is nowhere.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { test, expect, type Page } from '@playwright/test';
import { startBank, type Bank } from '../../demo/plumbline/server.ts';
import { BrowserSurface } from '../../runner/browser/surface.ts';
import { runCapability } from '../../runner/run.ts';
import { parseScript } from '../../shared/author/scripted.ts';
import { startFakeAnthropic } from '../fixtures/fake-anthropic.ts';
import { answer, book, parseBook, dumpIndexedDb, exportBook, labelScreen, launchWithExtension, openPanel, saveModelSettings, startSession, type Loaded, finishSession } from '../fixtures/extension/harness.ts';
import { DOC_SHOT_NAME } from '../tools/golden.ts';
import { compiled } from './support/evening.ts';

const PASSWORD = `pw-${Math.random().toString(36).slice(2, 10)}`;
const SCRIPT = fileURLToPath(new URL('../fixtures/author/plumbline-evening.json', import.meta.url));
const API_KEY = `sk-fake-${Math.random().toString(36).slice(2, 10)}`;
const GOAL = 'Place a LEGAL hold on one share of a PLUMBLINE member';
const INPUTS = [
  { name: 'operator_id', value: 'OP1001' },
  { name: 'password', value: PASSWORD, secret: true },
  { name: 'member_number', value: '400118' },
  { name: 'share_id', value: '400118-S0001' },
  { name: 'reason', value: 'LEGAL' },
];

let bank: Bank;
let ext: Loaded;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  bank = await startBank({ port: 0, operatorPassword: PASSWORD });
  ext = await launchWithExtension();
});
test.afterAll(async () => {
  await ext?.close();
  await bank?.close();
});
test.beforeEach(async () => {
  await fetch(`${bank.url}/_judge/reset`, { method: 'POST' });
});

async function shot(panel: Page, name: string): Promise<string> {
  const path = test.info().outputPath(`sidepanel-${name}.png`);
  await panel.screenshot({ path, fullPage: true });
  return path;
}

/** Compiles the exported book and replays the card for member 400337 with the runner: the judge must see the hold. */
async function compileAndReplay(jsonl: string): Promise<void> {
  const card = compiled(parseBook(jsonl), { id: 'plumbline_place_hold' });
  const result = await runCapability({
    card,
    inputs: { operator_id: 'OP1001', password: PASSWORD, member_number: '400337', share_id: '400337-S0001', reason: 'LEGAL' },
    env: { BASE_URL: bank.url },
    surface: () => BrowserSurface.launch(),
    // The compiled card is a draft that commits: it runs here as verify runs drafts, in the test's isolation.
    allowUnapproved: true,
    evidenceDir: test.info().outputPath('evidence'),
  });
  expect(result).toMatchObject({ word: 'SUCCESS', llm_calls: 0 });
  expect(await (await fetch(`${bank.url}/_judge/holds/400337-S0001`)).json()).toMatchObject({ held: true, reason: 'LEGAL', postPresses: 1 });
}

test('record mode: the clerk does the hold by hand, labels screens in the panel, exports; the card replays for another member', async () => {
  test.setTimeout(180_000);
  const page = await ext.context.newPage();
  await page.goto(`${bank.url}/signon`);
  const panel = await openPanel(ext, bank.url);
  await shot(panel, '1-new-session');
  await startSession(panel, { mode: 'record', goal: GOAL, owner: 'Dana Clerk', inputs: INPUTS });

  await labelScreen(panel, 'signon', 'Operator Sign On');
  await page.locator('input[name=opid]').fill('OP1001');
  await page.locator('input[name=pwd]').fill(PASSWORD);
  await page.getByRole('button', { name: 'F5=Sign On' }).click();
  await answer(panel, "button 'F5=Sign On'", 'navigate');
  await shot(panel, '2-recording');
  await labelScreen(panel, 'inquiry', 'Member Inquiry');

  const work = () => page.frameLocator('frame[name=work]');
  await work().locator('input[name=value]').fill('400118');
  await work().getByRole('button', { name: 'F5=Search' }).click();
  await answer(panel, "button 'F5=Search'", 'navigate');
  await labelScreen(panel, 'results', 'Member Inquiry Results');
  await work().getByRole('link', { name: '400118' }).click();
  await labelScreen(panel, 'member', 'Member Record');
  await work().getByRole('row', { name: /400118-S0001/ }).getByRole('link', { name: 'Hold' }).click();
  await labelScreen(panel, 'hold_form', 'Place Account Hold');
  // The clerk picks the reason with the keyboard (a trusted change event, as a person makes).
  await work().locator('select[name=reason]').focus();
  await page.keyboard.type('LEGAL');
  await work().getByRole('button', { name: 'F8=Review' }).click();
  await answer(panel, "button 'F8=Review'", 'navigate');
  await labelScreen(panel, 'hold_review', 'Hold Review');
  await work().getByRole('button', { name: 'F10=Post Hold' }).click();
  await expect(panel.getByTestId('question-control')).toHaveText("button 'F10=Post Hold'", { timeout: 20_000 });
  // The README's picture (docs/extension-sidepanel.png) is this shot: `npm run golden:update -- --docs` copies it.
  await shot(panel, DOC_SHOT_NAME);
  await answer(panel, "button 'F10=Post Hold'", 'commit');
  await labelScreen(panel, 'hold_result', 'Hold Result');
  await finishSession(panel);
  await expect(book(panel).last()).toContainText('end: finished');
  await shot(panel, '4-finished');

  // The hold really was placed once, by the guard pressing for the clerk.
  expect(await (await fetch(`${bank.url}/_judge/holds/400118-S0001`)).json()).toMatchObject({ held: true, reason: 'LEGAL', postPresses: 1 });

  const jsonl = await exportBook(panel);
  const lines = parseBook(jsonl);
  expect(lines.map((l) => l.seq)).toEqual(lines.map((_, i) => i + 1));
  const acts = lines.filter((l) => l.kind === 'act');
  expect(acts.every((l) => l.actor === 'human')).toBe(true);
  expect(acts.map((l) => l.value).filter(Boolean)).toEqual(['{{input.operator_id}}', '{{input.password}}', '{{input.member_number}}', '{{input.reason}}']);
  expect(acts.find((l) => l.control.name === 'F10=Post Hold')?.effect).toEqual({ kind: 'commit', by: 'owner', owner: 'Dana Clerk' });

  // Compiling in the panel shows the draft (no holes) and offers the card.
  await panel.getByTestId('saved-compile').first().click();
  await expect(panel.getByTestId('download-card')).toBeVisible();
  await shot(panel, '5-compiled');

  // The secret is nowhere: not in IndexedDB, the export, the panel's DOM, or extension storage.
  expect(jsonl.includes(PASSWORD)).toBe(false);
  expect((await dumpIndexedDb(panel)).includes(PASSWORD)).toBe(false);
  expect((await panel.content()).includes(PASSWORD)).toBe(false);
  const stored = await panel.evaluate(async () => {
    type Storage = { storage: { local: { get(): Promise<unknown> }; session: { get(): Promise<unknown> } } };
    const c = (globalThis as unknown as { chrome: Storage }).chrome;
    return JSON.stringify([await c.storage.local.get(), await c.storage.session.get()]);
  });
  expect(stored.includes(PASSWORD)).toBe(false);

  await compileAndReplay(jsonl);
  await page.close();
  await panel.close();
});

test('model mode: a scripted model behind a fake Messages API drives the tab, the clerk answers in the panel, the book compiles and replays', async () => {
  test.setTimeout(180_000);
  const fake = await startFakeAnthropic(parseScript(await readFile(SCRIPT, 'utf8')), { apiKey: API_KEY });
  try {
    const page = await ext.context.newPage();
    await page.goto(`${bank.url}/signon`);
    const panel = await openPanel(ext, bank.url);
    await saveModelSettings(panel, { key: API_KEY, baseURL: fake.url, model: 'claude-fake' });
    // The panel never shows the key back.
    expect((await panel.content()).includes(API_KEY)).toBe(false);

    await startSession(panel, { mode: 'model', goal: GOAL, owner: 'Dana Reviewer', inputs: INPUTS });
    await answer(panel, "button 'F5=Sign On'", 'navigate');
    await answer(panel, "button 'F5=Search'", 'navigate');
    await answer(panel, "button 'F8=Review'", 'navigate');
    await expect(panel.getByTestId('question-control')).toHaveText("button 'F10=Post Hold'", { timeout: 20_000 });
    await shot(panel, '6-model-question');
    await answer(panel, "button 'F10=Post Hold'", 'commit');
    await expect(panel.getByTestId('phase')).toHaveText('finished', { timeout: 30_000 });
    await shot(panel, '7-model-finished');

    expect(fake.problems).toEqual([]);
    expect(fake.bodies.some((b) => b.includes(PASSWORD))).toBe(false);
    expect(await (await fetch(`${bank.url}/_judge/holds/400118-S0001`)).json()).toMatchObject({ held: true, reason: 'LEGAL', postPresses: 1 });

    // The book landed in IndexedDB (the export reads it from there), closed by a finished end line.
    const jsonl = await exportBook(panel);
    const lines = parseBook(jsonl);
    expect(lines[0]).toMatchObject({ kind: 'start', author: { kind: 'model', model: 'claude-fake' } });
    expect(lines.at(-1)).toMatchObject({ kind: 'end', outcome: 'finished' });
    expect(lines.filter((l) => l.kind === 'act').every((l) => l.actor === 'model')).toBe(true);
    expect(jsonl.includes(PASSWORD)).toBe(false);
    expect(jsonl.includes(API_KEY)).toBe(false);
    const idb = await dumpIndexedDb(panel);
    expect(idb.includes(PASSWORD)).toBe(false);
    expect(idb.includes(API_KEY)).toBe(false);
    expect((await panel.content()).includes(PASSWORD)).toBe(false);

    await compileAndReplay(jsonl);
    await page.close();
    await panel.close();
  } finally {
    await fake.close();
  }
});

/** Stops the extension's service worker the way Chrome does when it idles out, and waits until it has stopped. */
async function stopWorker(panel: Page): Promise<void> {
  const cdp = await ext.context.newCDPSession(panel);
  type Versions = { versions: Array<{ scriptURL: string; runningStatus: string }> };
  const ours = (e: Versions, status: string): boolean => e.versions.some((v) => v.scriptURL.includes(ext.id) && v.runningStatus === status);
  const stopped = new Promise<void>((resolve) => cdp.on('ServiceWorker.workerVersionUpdated', (e: Versions) => ours(e, 'stopped') && resolve()));
  await cdp.send('ServiceWorker.enable');
  await cdp.send('ServiceWorker.stopAllWorkers');
  await stopped;
  await cdp.detach();
}

test('the worker is stopped mid-session, twice, and the recording goes on with no book line lost or written twice', async () => {
  test.setTimeout(120_000);
  const page = await ext.context.newPage();
  await page.goto(`${bank.url}/signon`);
  const panel = await openPanel(ext, bank.url);
  await startSession(panel, { mode: 'record', goal: 'Sign on to PLUMBLINE', owner: 'Dana Clerk', inputs: INPUTS.slice(0, 2) });
  await labelScreen(panel, 'signon', 'Operator Sign On');
  await page.locator('input[name=opid]').fill('OP1001');
  await page.locator('input[name=pwd]').focus();
  await expect(book(panel)).toHaveCount(3, { timeout: 20_000 });

  // 1: stopped between two of the clerk's actions (an idle worker); the next action wakes a new one.
  await stopWorker(panel);
  await page.locator('input[name=pwd]').fill(PASSWORD);
  await page.getByRole('button', { name: 'F5=Sign On' }).click();
  // 2: stopped while the owner question waits; the press had not happened, so it is simply asked again.
  await expect(panel.getByTestId('question-control')).toHaveText("button 'F5=Sign On'", { timeout: 20_000 });
  const asked = await panel.getByTestId('question').getAttribute('data-question');
  await stopWorker(panel);
  // The content script sends the press again (same event id); the new worker asks a new question about it.
  await expect(panel.getByTestId('question')).not.toHaveAttribute('data-question', asked ?? '', { timeout: 20_000 });
  await expect(page).toHaveURL(/\/signon/);
  await answer(panel, "button 'F5=Sign On'", 'navigate');
  await labelScreen(panel, 'inquiry', 'Member Inquiry');
  await finishSession(panel);

  const lines = parseBook(await exportBook(panel));
  expect(lines.map((l) => l.seq)).toEqual(lines.map((_, i) => i + 1));
  expect(lines.map((l) => (l.kind === 'act' ? `act ${l.verb} ${l.control.name || l.control.hint}` : l.kind === 'label' ? `label ${l.label}` : l.kind))).toEqual([
    'start',
    'label signon',
    'act set_value Operator ID',
    'act set_value Password',
    'act invoke F5=Sign On',
    'label inquiry',
    'finish',
    'end',
  ]);
  // The resumed guard still knew the screens labelled before the stop: the act lines name them.
  const signOn = lines.find((l) => l.kind === 'act' && l.control.name === 'F5=Sign On');
  expect(signOn?.kind === 'act' && signOn.before.label).toBe('signon');
  expect(compiled(lines, { id: 'plumbline_sign_on' }).steps).toHaveLength(3);
  await page.close();
  await panel.close();
});

test('model mode: the worker is stopped twice while the owner is asked, and the evening goes on where it was; the book compiles and replays', async () => {
  test.setTimeout(180_000);
  const script = parseScript(await readFile(SCRIPT, 'utf8'));
  const fake = await startFakeAnthropic(script, { apiKey: API_KEY });
  try {
    const page = await ext.context.newPage();
    await page.goto(`${bank.url}/signon`);
    let panel = await openPanel(ext, bank.url);
    await saveModelSettings(panel, { key: API_KEY, baseURL: fake.url, model: 'claude-fake' });
    await startSession(panel, { mode: 'model', goal: GOAL, owner: 'Dana Reviewer', inputs: INPUTS });
    await answer(panel, "button 'F5=Sign On'", 'navigate');

    /** Stops the worker while the owner is asked about `control`; the clerk reopens the panel, which wakes a new one. */
    const stopWhileAsked = async (control: string): Promise<void> => {
      await expect(panel.getByTestId('question-control')).toHaveText(control, { timeout: 20_000 });
      const asked = await panel.getByTestId('question').getAttribute('data-question');
      await stopWorker(panel);
      // Mid-session, with the evening's place kept in IndexedDB, neither the password nor the key is there.
      const idb = await dumpIndexedDb(panel);
      expect(idb.includes(PASSWORD)).toBe(false);
      expect(idb.includes(API_KEY)).toBe(false);
      await panel.close();
      panel = await openPanel(ext, bank.url);
      // The press had not happened (it waited for the answer): the resumed evening asks again, a new question.
      await expect(panel.getByTestId('question-control')).toHaveText(control, { timeout: 20_000 });
      await expect(panel.getByTestId('question')).not.toHaveAttribute('data-question', asked ?? '', { timeout: 20_000 });
    };
    await stopWhileAsked("button 'F5=Search'");
    await answer(panel, "button 'F5=Search'", 'navigate');
    await answer(panel, "button 'F8=Review'", 'navigate');
    await stopWhileAsked("button 'F10=Post Hold'");
    await answer(panel, "button 'F10=Post Hold'", 'commit');
    await expect(panel.getByTestId('phase')).toHaveText('finished', { timeout: 30_000 });

    // The model went on from its conversation: each scripted answer asked for once, every tool_use answered in order.
    expect(fake.problems).toEqual([]);
    expect(fake.callsPerAnswer).toEqual(script.turns.map((t) => t.length));
    expect(fake.bodies.some((b) => b.includes(PASSWORD))).toBe(false);
    expect(await (await fetch(`${bank.url}/_judge/holds/400118-S0001`)).json()).toMatchObject({ held: true, reason: 'LEGAL', postPresses: 1 });

    const jsonl = await exportBook(panel);
    const lines = parseBook(jsonl);
    expect(lines.map((l) => l.seq)).toEqual(lines.map((_, i) => i + 1));
    // Every call of the script is in the book once, in the script's order: none lost, none written twice.
    const said = script.turns.flat().map((c) => (c.tool === 'assert_screen' ? `label ${c.label}` : c.tool === 'act' ? `act ${c.verb}` : 'finish'));
    const written = lines.flatMap((l) => (l.kind === 'label' ? [`label ${l.label}`] : l.kind === 'act' ? [`act ${l.verb}`] : l.kind === 'finish' ? ['finish'] : []));
    expect(written).toEqual(said);
    expect(lines[0]).toMatchObject({ kind: 'start', author: { kind: 'model', model: 'claude-fake' } });
    expect(lines.at(-1)).toMatchObject({ kind: 'end', outcome: 'finished' });
    expect(lines.filter((l) => l.kind === 'act').every((l) => l.actor === 'model')).toBe(true);
    expect(jsonl.includes(PASSWORD)).toBe(false);
    expect(jsonl.includes(API_KEY)).toBe(false);

    await compileAndReplay(jsonl);
    await page.close();
    await panel.close();
  } finally {
    await fake.close();
  }
});

test('the secret never appears in IndexedDB, extension storage on disk, the export or the panel, even mid-session', async () => {
  test.setTimeout(60_000);
  const page = await ext.context.newPage();
  await page.goto(`${bank.url}/signon`);
  const panel = await openPanel(ext, bank.url);
  await startSession(panel, { mode: 'record', goal: 'Sign on to PLUMBLINE', owner: 'Dana Clerk', inputs: INPUTS.slice(0, 2) });
  await labelScreen(panel, 'signon', 'Operator Sign On');
  await page.locator('input[name=pwd]').fill(PASSWORD);
  await page.locator('input[name=opid]').focus();
  await expect(book(panel)).toHaveCount(3, { timeout: 20_000 });
  await expect(book(panel).last()).toContainText('{{input.password}}');

  const storage = async (): Promise<{ local: string; session: string }> =>
    panel.evaluate(async () => {
      type Area = { get(): Promise<unknown> };
      const c = (globalThis as unknown as { chrome: { storage: { local: Area; session: Area } } }).chrome;
      return { local: JSON.stringify(await c.storage.local.get()), session: JSON.stringify(await c.storage.session.get()) };
    });
  // Mid-session the value lives only in storage.session (memory, never written to disk), for the guard to type.
  expect((await storage()).session.includes(PASSWORD)).toBe(true);
  expect((await storage()).local.includes(PASSWORD)).toBe(false);
  expect((await dumpIndexedDb(panel)).includes(PASSWORD)).toBe(false);
  expect((await panel.content()).includes(PASSWORD)).toBe(false);
  expect((await exportBook(panel)).includes(PASSWORD)).toBe(false);
  // The agent lives in the extension's isolated world: the page's own scripts cannot see or call it.
  expect(await page.evaluate(() => ['__handrailAgent', '__handrail'].filter((k) => k in globalThis))).toEqual([]);

  // While recording, new documents of this site (and only this site) get the agent from the first moment, and its
  // double-click probe in the page's main world before it (docs/design/extension.md, "The extension's trusted input").
  const registered = async (): Promise<string[]> =>
    panel.evaluate(async () => {
      type Scripting = { getRegisteredContentScripts(): Promise<Array<{ id: string; world?: string; matches?: string[] }>> };
      const c = (globalThis as unknown as { chrome: { scripting: Scripting } }).chrome;
      return (await c.scripting.getRegisteredContentScripts()).map((x) => `${x.id} ${x.world ?? 'ISOLATED'} ${(x.matches ?? []).join(' ')}`);
    });
  const site = `${new URL(bank.url).origin}/*`;
  expect((await registered()).sort()).toEqual([`handrail-agent ISOLATED ${site}`, `handrail-probe MAIN ${site}`]);

  await panel.getByTestId('stop').click();
  await expect(panel.getByTestId('phase')).toHaveText('stopped', { timeout: 20_000 });
  // Once the session ends, the value is forgotten and no new document gets the agent.
  expect((await storage()).session.includes(PASSWORD)).toBe(false);
  expect(await registered()).toEqual([]);
  await page.close();
  await panel.close();
});
