// A clerk corrects a recording in the side panel — undoes a wrong step, renames a label, turns a typed value into a literal — and the exported book, re-sealed with each change as a line of its own, compiles in the panel to the same bytes as `handrail compile`; the export and IndexedDB hold no secret in any spelling the scan knows.
import { readFile, writeFile } from 'node:fs/promises';
import { test, expect, type Page } from '@playwright/test';
import { startBank, type Bank } from '../../demo/plumbline/server.ts';
import { TraceLine } from '../../shared/schema/trace.ts';
import { continuityHoles } from '../../shared/compile/continuity.ts';
import { scan } from '../tools/secret-scan.ts';
import { answer, book, dumpIndexedDb, exportBook, labelScreen, launchWithExtension, openPanel, startSession, type Loaded } from '../fixtures/extension/harness.ts';
import { handrail } from './support/cli.ts';

const PASSWORD = `pw-${Math.random().toString(36).slice(2, 10)}`;
const INPUTS = [
  { name: 'operator_id', value: 'OP1001' },
  { name: 'password', value: PASSWORD, secret: true },
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

function parseBook(jsonl: string): TraceLine[] {
  return jsonl
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => TraceLine.parse(JSON.parse(l)));
}

/** The "change" controls of the book line showing `text`, opened (a clerk clicks "change" if it is closed). */
async function changeOf(panel: Page, text: string): Promise<ReturnType<Page['getByTestId']>> {
  const row = book(panel).filter({ hasText: text }).last();
  const change = row.getByTestId('line-change');
  if ((await change.getAttribute('open')) === null) await change.locator('summary').click();
  return change;
}

test('the clerk undoes a wrong step and renames a label, a value the guard would refuse is refused; the export compiles in the panel to the bytes of handrail compile', async () => {
  test.setTimeout(150_000);
  const page = await ext.context.newPage();
  await page.goto(`${bank.url}/signon`);
  const panel = await openPanel(ext, bank.url);
  await startSession(panel, { mode: 'record', goal: 'Sign on to PLUMBLINE', owner: 'Dana Clerk', inputs: INPUTS });
  // A label the clerk will want to change.
  await labelScreen(panel, 'sign_in', 'Sign In');

  // A wrong step: a number typed into Operator ID. Undo takes it out of the book.
  await page.locator('input[name=opid]').fill('OP9');
  await page.locator('input[name=pwd]').focus();
  await expect(book(panel).last()).toContainText('Typed OP9 into Operator ID', { timeout: 20_000 });
  await panel.getByTestId('undo').click();
  await expect(book(panel).last()).toContainText('Changed by Dana Clerk: undid line 3', { timeout: 20_000 });
  await expect(book(panel).filter({ hasText: 'Typed OP9' })).toHaveCount(0);

  // The task goes on from where the book stands.
  await page.locator('input[name=opid]').fill('OP1001');
  await page.locator('input[name=pwd]').fill(PASSWORD);
  await page.locator('input[name=opid]').focus();
  await expect(book(panel).last()).toContainText('{{input.password}}', { timeout: 20_000 });
  await page.getByRole('button', { name: 'F5=Sign On' }).click();
  await answer(panel, "button 'F5=Sign On'", 'navigate');
  await labelScreen(panel, 'inquiry', 'Member Inquiry');

  // The label is fixed: every line that named the screen now names it so.
  const relabel = await changeOf(panel, 'Named this screen "Sign In"');
  await relabel.getByTestId('relabel-input').fill('signon');
  await relabel.getByTestId('relabel-save').click();
  await expect(book(panel).last()).toContainText('the screen sign_in "Sign In" is now signon "Signon"', { timeout: 20_000 });

  // A value the guard refuses is refused, with what to do, and nothing changes.
  const lines = await book(panel).count();
  const wrong = await changeOf(panel, 'Typed {{input.operator_id}} into Operator ID');
  await wrong.getByTestId('value-input').fill('OP1001');
  await wrong.getByTestId('value-save').click();
  await expect(panel.getByTestId('live-error')).toContainText('INPUT_LITERAL', { timeout: 20_000 });
  expect(await book(panel).count()).toBe(lines);
  // The secret's blank cannot go into a field that shows its text, and the refusal never shows the secret.
  await wrong.getByTestId('value-input').fill(PASSWORD);
  await wrong.getByTestId('value-save').click();
  await expect(panel.getByTestId('live-error')).toContainText('SECRET_LITERAL', { timeout: 20_000 });
  expect((await panel.content()).includes(PASSWORD)).toBe(false);

  await panel.getByTestId('finish').click();
  await expect(panel.getByTestId('phase')).toHaveText('finished', { timeout: 20_000 });

  const jsonl = await exportBook(panel);
  const exported = parseBook(jsonl);
  const edits = exported.filter((l) => l.kind === 'edit');
  expect(edits.map((e) => [e.op, e.by, e.line])).toEqual([
    ['undo', 'Dana Clerk', 3],
    ['label', 'Dana Clerk', 2],
  ]);
  // Re-sealed: one unbroken account, numbered in order, each line with the hash of the one before.
  expect(exported.map((l) => l.seq)).toEqual(exported.map((_, i) => i + 1));
  expect(continuityHoles(exported)).toEqual([]);
  expect(JSON.stringify(exported.filter((l) => l.kind !== 'edit'))).not.toContain('sign_in');

  // The panel's compile and the CLI's, on the same exported book, give the same bytes.
  await panel.getByTestId('saved-compile').first().click();
  await expect(panel.getByTestId('card-id')).toHaveValue('sign_on');
  const [download] = await Promise.all([panel.waitForEvent('download'), panel.getByTestId('download-card').click()]);
  const fromPanel = await readFile(await download.path(), 'utf8');
  const bookFile = test.info().outputPath('edited.trace.jsonl');
  const cardFile = test.info().outputPath('sign_on.json');
  await writeFile(bookFile, jsonl);
  const cli = await handrail(['compile', bookFile, '--id', 'sign_on', '--out', cardFile], { ...process.env });
  expect(cli.code, cli.stderr).toBe(0);
  expect(fromPanel).toBe(await readFile(cardFile, 'utf8'));
  expect(JSON.parse(fromPanel)).toMatchObject({ id: 'sign_on', screens: { signon: expect.any(Object), inquiry: expect.any(Object) } });

  // An ended session can still be corrected, but a value may then only become a blank (its secrets are forgotten).
  const after = await changeOf(panel, 'Typed {{input.operator_id}} into Operator ID');
  await after.getByTestId('value-input').fill('OP7');
  await after.getByTestId('value-save').click();
  await expect(panel.getByTestId('live-error')).toContainText('only become one of its blanks', { timeout: 20_000 });

  // The secret scan over what the extension exports and keeps: the book and IndexedDB, as files, 0 hits; the same
  // dump with the password planted in it is a hit (the scan reads these files, it does not pass vacuously).
  const dir = test.info().outputPath('extension-export');
  const { mkdir } = await import('node:fs/promises');
  await mkdir(dir, { recursive: true });
  await writeFile(`${dir}/book.trace.jsonl`, jsonl);
  const dump = await dumpIndexedDb(panel);
  await writeFile(`${dir}/indexeddb.json`, dump);
  const secrets = [{ name: 'password', value: PASSWORD }];
  expect((await scan([dir], secrets)).hits).toEqual([]);
  const planted = test.info().outputPath('planted');
  await mkdir(planted, { recursive: true });
  await writeFile(`${planted}/indexeddb.json`, dump.replace('"Sign on to PLUMBLINE"', JSON.stringify(`Sign on ${Buffer.from(`OP1001:${PASSWORD}`).toString('base64')}`)));
  expect((await scan([planted], secrets)).hits.map((h) => h.secret)).toEqual(['password']);
  await page.close();
  await panel.close();
});
