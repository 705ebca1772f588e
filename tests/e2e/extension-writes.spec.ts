// A clerk recording in the extension cannot slip a change past the owner: an action on PLUMBLINE's preferences desk that posts (a link, a select, a checkbox) is recorded as an unasked commit, while Enter in a field is asked about before it is pressed; the panel says so, and the book will not compile; a plain navigation and a write to another site are not flagged.
import { test, expect, type Page } from '@playwright/test';
import { startBank, type Bank } from '../../demo/plumbline/server.ts';
import { compile } from '../../shared/compile/compile.ts';
import type { TraceLine } from '../../shared/schema/trace.ts';
import { exportBook, labelScreen, launchWithExtension, openPanel, parseBook, startSession, type Loaded, finishSession } from '../fixtures/extension/harness.ts';

const MEMBER = '400539';

let bank: Bank;
let ext: Loaded;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  bank = await startBank({ port: 0 });
  ext = await launchWithExtension();
});
test.afterAll(async () => {
  await ext?.close();
  await bank?.close();
});

const acts = (lines: TraceLine[]) => lines.flatMap((l) => (l.kind === 'act' ? [l] : []));

/**
 * The panel's note once it speaks of the clerk's action on `control` (its book line is written by then). Each such
 * action here loads the desk again, and the extension looks at every load it sees: under CI's load (10–23 on two
 * cores) one note took over 20 s to come, so each is given a minute.
 */
async function noteAfter(panel: Page, control: string): Promise<{ kind: string | null; text: string }> {
  const note = panel.getByTestId('note');
  await expect(note).toContainText(control, { timeout: 60_000 }).catch(async (e: unknown) => {
    // What the panel and the pages showed, for a failure seen only under load (CI).
    console.log('panel when the note did not come:', await panel.locator('body').ariaSnapshot());
    for (const pg of ext.context.pages()) console.log('page:', pg.url(), await pg.evaluate(() => document.body.innerText.slice(0, 400)).catch((x: unknown) => String(x)));
    // The worker's own account of what reached it and when (extension/lib/trace-ring.ts).
    const worker = ext.context.serviceWorkers()[0];
    console.log('worker trace:\n' + (await worker?.evaluate(() => ((globalThis as { __handrailTrace?: string[] }).__handrailTrace ?? []).join('\n')).catch((x: unknown) => String(x))));
    throw e;
  });
  return { kind: await note.getAttribute('data-kind'), text: (await note.textContent()) ?? '' };
}

/**
 * The page's own script adds, on every load of the desk, a link that only navigates (a GET of the same desk) and on
 * its way sends a beacon to the bank under another origin's name (localhost, not 127.0.0.1): a write, to a site the
 * session does not record.
 */
async function addLookAgain(page: Page, elsewhere: string): Promise<void> {
  await page.addInitScript(
    ({ elsewhere, member }: { elsewhere: string; member: string }) => {
      document.addEventListener('DOMContentLoaded', () => {
        const a = document.createElement('a');
        a.href = `/prefs?m=${member}`;
        a.textContent = 'Look Again';
        a.addEventListener('click', () => navigator.sendBeacon(`${elsewhere}/prefs/flag`, new URLSearchParams({ m: member })));
        document.body.append(a);
      });
    },
    { elsewhere, member: MEMBER },
  );
}

test('every action on the preferences desk that posts is an unasked commit the panel names and the compiler refuses; a navigation and a write elsewhere are not', async () => {
  test.setTimeout(300_000);
  const page = await ext.context.newPage();
  const elsewhere = bank.url.replace('127.0.0.1', 'localhost');
  await addLookAgain(page, elsewhere);
  await page.goto(`${bank.url}/prefs?m=${MEMBER}`);
  const panel = await openPanel(ext, bank.url);
  await startSession(panel, { mode: 'record', goal: 'Change the statement preferences', owner: 'Dana Clerk', inputs: [{ name: 'nickname', value: 'DANA' }] });
  await labelScreen(panel, 'prefs', 'Statement Preferences');
  const writes = () => bank.store.prefsFor(MEMBER).writes;

  // A navigation (GET) that also beacons to another origin: recorded, not flagged — though the beacon did arrive.
  // Each action that loads a new document is waited for (its load event) before the next: a key pressed while the old
  // document still shows would land in a page that is about to go away.
  const lookedAgain = page.waitForEvent('load');
  await page.getByRole('link', { name: 'Look Again' }).click();
  await lookedAgain;
  const look = await noteAfter(panel, 'Look Again');
  expect(look.kind).toBeNull();
  await expect.poll(() => writes().flag, { timeout: 10_000 }).toBe(1);

  // The link that posts (and loads the desk again: waited for, like every navigation here).
  const sentLoaded = page.waitForEvent('load');
  await page.getByRole('link', { name: 'Send Statement Now' }).click();
  await sentLoaded;
  const sent = await noteAfter(panel, 'Send Statement Now');
  expect(sent.kind).toBe('error');
  expect(sent.text).toContain('Sent without a question.');
  expect(sent.text).toMatch(/link 'Send Statement Now', sent a change to the application \(POST http:\/\/127\.0\.0\.1:\d+\/prefs\/flag \(form\)\) that nobody confirmed as a commit/);
  expect(sent.text).toContain('The book cannot be compiled until this step is done again with the question answered');
  await expect.poll(() => writes().flag, { timeout: 10_000 }).toBe(2);
  await expect(page.locator('body')).toContainText('STATEMENTS SENT 2'); // the beacon counted one, the link the other

  // The select that submits when changed: the change has left before the recorder hears of it. (The clerk's keys:
  // Playwright's selectOption fires untrusted events, which are no clerk's.)
  await page.locator('select[name=cycle]').focus();
  await page.keyboard.press('ArrowDown');
  expect((await noteAfter(panel, 'cycle')).kind).toBe('error');
  await expect(page.locator('body')).toContainText('CYCLE QUARTERLY');

  // The checkbox that submits when changed.
  // (The recorder holds the click and presses it itself, so the box is not checked when the click returns.)
  await page.locator('input[name=on]').click();
  expect((await noteAfter(panel, 'aperless')).kind).toBe('error');
  await expect(page.locator('body')).toContainText('PAPERLESS YES');

  // The field saved with Enter: the key is held like a press and asked about before the extension presses it
  // (docs/design/extension.md, "The extension's trusted input"), so its write goes out confirmed, not unasked.
  await page.locator('input[name=nickname]').fill('DANA');
  await page.locator('input[name=nickname]').press('Enter');
  await expect(panel.getByTestId('question-control')).toContainText('ickname', { timeout: 20_000 });
  await expect(page.locator('body')).toContainText('NICKNAME (NONE)');
  await panel.getByTestId('answer-commit').click();
  await expect(page.locator('body')).toContainText('NICKNAME DANA');

  await expect(panel.getByTestId('screen-label')).toHaveText('prefs', { timeout: 20_000 });
  await finishSession(panel);
  const lines = parseBook(await exportBook(panel));
  const steps = acts(lines);
  expect(steps.map((l) => `${l.verb} ${l.control.name || l.control.hint}`)).toEqual([
    'invoke Look Again',
    'invoke Send Statement Now',
    'select Statement Cycle',
    'toggle Paperless',
    'set_value Nickname',
    'press Nickname',
  ]);
  const saved = steps.slice(-2) as Array<TraceLine & { kind: 'act' }>;
  expect(saved.map((l) => l.effect)).toEqual([{ kind: 'stage', by: 'rule' }, { kind: 'commit', by: 'owner', owner: 'Dana Clerk' }]);
  expect(saved[0]?.writes).toEqual([]);
  expect(new Set(saved[1]?.writes?.map((w) => `${w.method} ${new URL(w.url).pathname} ${w.via} ${w.fate}`))).toEqual(new Set(['POST /prefs/nickname form allowed']));
  const [lookLine, ...posted] = steps.slice(0, -2) as [TraceLine & { kind: 'act' }, ...Array<TraceLine & { kind: 'act' }>];
  expect(lookLine.effect).toEqual({ kind: 'navigate', by: 'rule' });
  expect(lookLine.writes).toEqual([]);
  for (const l of posted) {
    expect(l.effect).toMatchObject({ kind: 'commit', by: 'effects', unasked: true });
    expect(l.writes?.map((w) => `${w.method} ${new URL(w.url).pathname} ${w.via} ${w.fate}`)).toEqual([`POST ${new URL(l.writes?.[0]?.url ?? 'x:').pathname} form unasked`]);
  }
  expect(posted.map((l) => new URL(l.writes?.[0]?.url ?? 'x:').pathname)).toEqual(['/prefs/flag', '/prefs/cycle', '/prefs/paperless']);

  const compiled = compile(lines, { id: 'prefs' });
  expect(compiled.ok).toBe(false);
  const holes = compiled.ok ? [] : compiled.holes;
  // Every posted step is refused as an unasked commit. A control whose change posted and reloaded the page before the
  // recorder looked may also have no rung left to find it by (NO_RUNG on the same line): refused either way.
  expect(holes.filter((h) => h.code === 'UNASKED_COMMIT').map((h) => h.line)).toEqual(posted.map((l) => l.seq));
  for (const h of holes.filter((x) => x.code !== 'UNASKED_COMMIT')) expect([h.code, posted.some((l) => l.seq === h.line)]).toEqual(['NO_RUNG', true]);
  expect(holes[0]?.message).toContain("the link 'Send Statement Now' sent POST");
  // The panel's own compile says the same.
  await panel.getByTestId('saved-compile').first().click();
  await expect(panel.getByTestId('holes')).toContainText('UNASKED_COMMIT');
  await page.close();
  await panel.close();
});
