// A pick in a menu button's menu is authored by a scripted model as one `choose` step on the button (not a press on the button and another on the item), compiles to a card whose target is the button, and that card replays SUCCESS with no model for another item — in a menu rendered only when opened — while an item the menu does not have fails by name. A model that presses the button and then an item of the menu it opened (through submenus too) gets the same one step written; an item that is a commit is asked about once; anything else after the button keeps its press as it was.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, expect } from '@playwright/test';
import { JsonlBook, readBook } from '../../runner/author/book.ts';
import { selectorsFor } from '../../runner/author/selectors.ts';
import { BrowserSurface } from '../../runner/browser/surface.ts';
import { runCapability } from '../../runner/run.ts';
import { runEvening } from '../../shared/author/evening.ts';
import type { Owner } from '../../shared/author/ports.ts';
import { ScriptedModel } from '../../shared/author/scripted.ts';
import { compile } from '../../shared/compile/compile.ts';
import type { TraceLine } from '../../shared/schema/trace.ts';
import { handrail } from './support/cli.ts';
import { compiled, eveningInBrowser } from './support/evening.ts';
import { serveFixtures, type FixtureServer } from '../fixtures/server.ts';

let server: FixtureServer;
let dir: string;
test.beforeAll(async () => {
  server = await serveFixtures();
  dir = await mkdtemp(join(tmpdir(), 'handrail-menus-author-'));
});
test.afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const asked: string[] = [];
const owner: Owner = {
  ask(q) {
    asked.push(q.control);
    return Promise.resolve({ answer: 'navigate', name: 'Dana Reviewer' });
  },
};

/** A browser surface that, when the run closes it, first reads what the page was asked to do (the fixture's picks). */
async function watched(into: string[][]): Promise<BrowserSurface> {
  const s = await BrowserSurface.launch();
  const close = s.close.bind(s);
  s.close = async () => {
    into.push(await s.page.evaluate(() => (window as unknown as { picks: string[] }).picks).catch(() => ['(page gone)']));
    await close();
  };
  return s;
}

test('a model picks an item in a menu rendered only on opening: one choose on the button, compiled and replayed for another item', async () => {
  test.setTimeout(120_000);
  const bookPath = join(dir, 'menu.jsonl');
  const authored: string[][] = [];
  const surface = await watched(authored);
  const book = await JsonlBook.create(bookPath);
  try {
    const evening = await runEvening({
      surface,
      model: new ScriptedModel({
        turns: [
          [
            { tool: 'assert_screen', label: 'menus', title: 'Menus' },
            { tool: 'act', match: "button 'More'", verb: 'choose', value: '{{input.item}}' },
          ],
          [{ tool: 'finish', label: 'menus' }],
        ],
      }),
      owner,
      book,
      goal: 'Pick the given item in the More menu',
      entry: `${server.url}/menus.html`,
      inputs: [{ name: 'item', value: 'Export', secret: false }],
      selectorsFor: selectorsFor(surface.page),
    });
    expect(evening, JSON.stringify(evening)).toMatchObject({ ok: true });
  } finally {
    await book.close();
    await surface.close();
  }
  expect(authored).toEqual([['more:Export']]);
  // Opening a menu and picking in it writes nothing: no owner was asked.
  expect(asked).toEqual([]);

  const read = await readBook(bookPath);
  if (!read.ok) throw new Error(JSON.stringify(read.problems));
  const compiled = compile(read.lines, { id: 'menus_more_pick' });
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.holes));
  const card = compiled.card;
  // One step on the button; no press on the button, none on the item.
  expect(card.steps.map((s) => s.op.verb)).toEqual(['choose']);
  const step = card.steps[0];
  expect(step).toMatchObject({ op: { verb: 'choose', value: '{{input.item}}' }, effect: { kind: 'stage' } });
  expect(card.targets[step?.target ?? '']).toMatchObject({ role: 'button', name: { eq: 'More' }, supports: ['invoke', 'choose'] });

  const replay = async (item: string, n: string) => {
    const seen: string[][] = [];
    const result = await runCapability({
      card,
      allowUnapproved: true,
      inputs: { item },
      env: { BASE_URL: server.url },
      surface: () => watched(seen),
      evidenceDir: join(dir, `replay-${n}`),
    });
    return { result, seen };
  };
  const ok = await replay('Print', 'ok');
  expect(ok.result, JSON.stringify(ok.result)).toMatchObject({ word: 'SUCCESS', llm_calls: 0 });
  expect(ok.seen).toEqual([['more:Print']]);
  const missing = await replay('Shred', 'missing');
  expect(missing.result.word).not.toBe('SUCCESS');
  expect(JSON.stringify(missing.result)).toContain('no item named \\"Shred\\" in the menu it opens');
  expect(missing.seen).toEqual([[]]);
});

/** The act lines of a book, as verb, control and value (and the presses a step stands for). */
function acts(lines: readonly TraceLine[]): unknown[] {
  return lines.flatMap((l) => (l.kind === 'act' ? [{ verb: l.verb, control: `${l.control.role} '${l.control.name}'`, ...(l.value !== undefined ? { value: l.value } : {}), ...(l.presses ? { presses: l.presses.map((p) => `${p.role} '${p.name}'`) } : {}) }] : []));
}

test('a model that presses the menu button and then an item of the menu it opened writes one choose on the button, which replays SUCCESS for another item', async () => {
  test.setTimeout(120_000);
  asked.length = 0;
  const { evening, lines } = await eveningInBrowser(join(dir, 'presses.jsonl'), {
    model: new ScriptedModel({
      turns: [
        [
          { tool: 'assert_screen', label: 'menus', title: 'Menus' },
          { tool: 'act', match: "button 'More'", verb: 'invoke' },
        ],
        [{ tool: 'act', match: "menuitem 'Export'", verb: 'invoke' }],
        [{ tool: 'finish', label: 'menus' }],
      ],
    }),
    owner,
    goal: 'Pick the given item in the More menu',
    entry: `${server.url}/menus.html`,
    inputs: [{ name: 'item', value: 'Export', secret: false }],
  });
  expect(evening, JSON.stringify(evening)).toMatchObject({ ok: true });
  expect(acts(lines)).toEqual([{ verb: 'choose', control: "button 'More'", value: '{{input.item}}', presses: ["button 'More'", "menuitem 'Export'"] }]);
  const step = lines.find((l) => l.kind === 'act');
  // The step starts on the screen before the button (labelled) and ends on the one after the item.
  expect(step).toMatchObject({ before: { label: 'menus' }, after: { label: 'menus' }, effect: { kind: 'stage', by: 'rule' } });
  expect(asked).toEqual([]);
  const card = compiled(lines, { id: 'menus_more_presses' });
  expect(card.steps.map((s) => s.op)).toEqual([{ verb: 'choose', value: '{{input.item}}' }]);
  expect(card.targets[card.steps[0]?.target ?? '']).toMatchObject({ role: 'button', name: { eq: 'More' }, supports: ['invoke', 'choose'] });
  const seen: string[][] = [];
  const result = await runCapability({ card, allowUnapproved: true, inputs: { item: 'Print' }, env: { BASE_URL: server.url }, surface: () => watched(seen), evidenceDir: join(dir, 'replay-presses') });
  expect(result, JSON.stringify(result)).toMatchObject({ word: 'SUCCESS', llm_calls: 0 });
  expect(seen).toEqual([['more:Print']]);
});

test('a model that presses the menu button and then does something else keeps its press: written as it was, before what followed', async () => {
  test.setTimeout(120_000);
  const { evening, lines } = await eveningInBrowser(join(dir, 'else.jsonl'), {
    model: new ScriptedModel({
      turns: [
        [
          { tool: 'assert_screen', label: 'menus', title: 'Menus' },
          { tool: 'act', match: "button 'Actions'", verb: 'invoke' },
        ],
        // Something else than a pick in the menu: the open menu is named, then closed again by its button.
        [{ tool: 'assert_screen', label: 'actions_open', title: 'Actions open' }],
        [{ tool: 'act', match: "button 'Actions'", verb: 'invoke' }],
        [{ tool: 'finish', label: 'menus' }],
      ],
    }),
    owner,
    goal: 'Open the Actions menu and close it',
    entry: `${server.url}/menus.html`,
    inputs: [],
  });
  expect(evening, JSON.stringify(evening)).toMatchObject({ ok: true });
  expect(acts(lines)).toEqual([
    { verb: 'invoke', control: "button 'Actions'" },
    { verb: 'invoke', control: "button 'Actions'" },
  ]);
  // The press that opened the menu is written before the label of the screen it led to, as it happened.
  expect(lines.map((l) => (l.kind === 'label' ? `label ${l.label}` : l.kind))).toEqual(['start', 'label menus', 'act', 'label actions_open', 'act', 'finish', 'end']);
  // It landed on a screen not labelled yet, as any press that opens a new screen does (the compiler names it by the label after).
  expect(lines.filter((l) => l.kind === 'act').map((l) => [l.before.label, l.after.label])).toEqual([
    ['menus', null],
    ['actions_open', 'menus'],
  ]);
  const card = compiled(lines, { id: 'menus_open_close' });
  expect(card.steps.map((s) => s.op.verb)).toEqual(['invoke', 'invoke']);
});

const CASE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Case 7</title></head><body>
<h1>Case 7</h1>
<button id="b" aria-haspopup="menu" aria-controls="m" aria-expanded="false">Case actions</button>
<ul role="menu" id="m" aria-label="Case actions" hidden>
  <li role="menuitem" id="close" tabindex="-1">Close case</li>
  <li role="menuitem" id="copy" tabindex="-1">Copy id</li>
</ul>
<script>
  const b = document.getElementById('b');
  const m = document.getElementById('m');
  b.addEventListener('click', () => { m.hidden = !m.hidden; b.setAttribute('aria-expanded', String(!m.hidden)); });
  document.getElementById('close').addEventListener('click', () => {
    m.hidden = true; b.setAttribute('aria-expanded', 'false');
    fetch('/case-save', { method: 'POST', body: 'close 7' }).then(() => { location.href = '/case-closed'; });
  });
</script></body></html>`;
const CLOSED = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Case closed</title></head><body><h1>Case closed</h1></body></html>';

test('a menu item that is a commit, pressed after its menu button: the owner is asked once, about the item and its write, and the one choose step carries the answer', async () => {
  test.setTimeout(120_000);
  const site = await serveFixtures({ '/case': CASE, '/case-save': 'saved', '/case-closed': CLOSED });
  const questions: { control: string; writes?: string[] }[] = [];
  const commitOwner: Owner = {
    ask(q) {
      questions.push({ control: q.control, ...(q.writes ? { writes: q.writes } : {}) });
      return Promise.resolve({ answer: 'commit', name: 'Dana Reviewer' });
    },
  };
  let lines: TraceLine[];
  try {
    const run = await eveningInBrowser(join(dir, 'commit.jsonl'), {
      model: new ScriptedModel({
        turns: [
          [
            { tool: 'assert_screen', label: 'case', title: 'Case' },
            { tool: 'act', match: "button 'Case actions'", verb: 'invoke' },
          ],
          [{ tool: 'act', match: "menuitem 'Close case'", verb: 'invoke' }],
          [
            { tool: 'assert_screen', label: 'case_closed', title: 'Case closed' },
            { tool: 'finish', label: 'case_closed' },
          ],
        ],
      }),
      owner: commitOwner,
      goal: 'Close case 7',
      entry: `${site.url}/case`,
      inputs: [],
    });
    expect(run.evening, JSON.stringify(run.evening)).toMatchObject({ ok: true });
    lines = run.lines;
  } finally {
    await site.close();
  }
  expect(questions).toHaveLength(1);
  expect(questions[0]?.control).toContain("menuitem 'Close case'");
  expect(questions[0]?.writes?.join(' ')).toContain('/case-save');
  expect(acts(lines)).toEqual([{ verb: 'choose', control: "button 'Case actions'", value: 'Close case', presses: ["button 'Case actions'", "menuitem 'Close case'"] }]);
  const step = lines.find((l) => l.kind === 'act');
  expect(step).toMatchObject({
    effect: { kind: 'commit', by: 'owner', owner: 'Dana Reviewer' },
    asked: [{ answer: 'commit', owner: 'Dana Reviewer' }],
    writes: [{ method: 'POST', fate: 'allowed' }],
    before: { label: 'case' },
  });
  const card = compiled(lines, /* the page shows one record, its own: no input chooses it */ { id: 'case_close', noRecord: ['pick_case_actions'] });
  expect(card.steps.map((s) => [s.op.verb, s.op.value, s.effect.kind])).toEqual([['choose', 'Close case', 'commit']]);
});

test('a model that presses the menu button, a submenu item and an item of the submenu writes one choose with the path, which replays SUCCESS for another item', async () => {
  test.setTimeout(120_000);
  const { evening, lines } = await eveningInBrowser(join(dir, 'submenu.jsonl'), {
    model: new ScriptedModel({
      turns: [
        [
          { tool: 'assert_screen', label: 'submenus', title: 'Submenus' },
          { tool: 'act', match: "button 'File'", verb: 'invoke' },
        ],
        [{ tool: 'act', match: "menuitem 'Export'", verb: 'invoke' }],
        [{ tool: 'act', match: "menuitem 'PDF'", verb: 'invoke' }],
        [{ tool: 'finish', label: 'submenus' }],
      ],
    }),
    owner,
    goal: 'Export the file in the given format',
    entry: `${server.url}/menus-sub.html`,
    inputs: [{ name: 'format', value: 'PDF', secret: false }],
  });
  expect(evening, JSON.stringify(evening)).toMatchObject({ ok: true });
  expect(acts(lines)).toEqual([{ verb: 'choose', control: "button 'File'", value: 'Export › {{input.format}}', presses: ["button 'File'", "menuitem 'Export'", "menuitem 'PDF'"] }]);
  const card = compiled(lines, { id: 'file_export' });
  expect(card.steps.map((s) => s.op)).toEqual([{ verb: 'choose', value: 'Export › {{input.format}}' }]);
  const seen: string[][] = [];
  const result = await runCapability({ card, allowUnapproved: true, inputs: { format: 'CSV' }, env: { BASE_URL: server.url }, surface: () => watched(seen), evidenceDir: join(dir, 'replay-submenu') });
  expect(result, JSON.stringify(result)).toMatchObject({ word: 'SUCCESS', llm_calls: 0 });
  expect(seen).toEqual([['File/Export/CSV']]);
});

test('`handrail author` with a scripted model that presses its way down a submenu writes the one choose with the path', async () => {
  test.setTimeout(120_000);
  const script = join(dir, 'cli-script.json');
  await writeFile(
    script,
    JSON.stringify({
      turns: [
        [
          { tool: 'assert_screen', label: 'submenus', title: 'Submenus' },
          { tool: 'act', match: "button 'File'", verb: 'invoke' },
        ],
        [{ tool: 'act', match: "menuitem 'Export'", verb: 'invoke' }],
        [{ tool: 'act', match: "menuitem 'CSV'", verb: 'invoke' }],
        [{ tool: 'finish', label: 'submenus' }],
      ],
    }),
  );
  const book = join(dir, 'cli.jsonl');
  const ran = await handrail(['author', '--url', `${server.url}/menus-sub.html`, '--goal', 'Export as CSV', '--model', `scripted:${script}`, '--owner', 'Dana Reviewer', '--input', 'format=CSV', '-o', book], process.env);
  expect(ran.code, ran.stderr.slice(-800)).toBe(0);
  const read = await readBook(book);
  if (!read.ok) throw new Error(JSON.stringify(read.problems));
  expect(acts(read.lines)).toEqual([{ verb: 'choose', control: "button 'File'", value: 'Export › {{input.format}}', presses: ["button 'File'", "menuitem 'Export'", "menuitem 'CSV'"] }]);
});
