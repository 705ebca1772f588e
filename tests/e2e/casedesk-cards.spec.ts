// CASEDESK's four cards: each evening, scripted through the real Anthropic adapter against the fake Messages API,
// compiles to the card in capabilities/ (verified by the judge and approved through the CLI), and the approved card
// replays SUCCESS with no model for a case the evening never touched, the judge confirming one write; the negative
// cases end with the right word and write nothing. Assign's panel is named after its case: a record path.
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test, expect } from '@playwright/test';
import { DEMO_PASSWORD, startCaseDesk, type Desk } from '../../demo/casedesk/server.ts';
import { approvalStatus } from '../../runner/approval.ts';
import { AnthropicModel } from '../../runner/author/anthropic.ts';
import { JsonlBook, readBook } from '../../runner/author/book.ts';
import { selectorsFor } from '../../runner/author/selectors.ts';
import { BrowserSurface } from '../../runner/browser/surface.ts';
import { runCapability } from '../../runner/run.ts';
import { runEvening } from '../../shared/author/evening.ts';
import type { EveningInput, Owner } from '../../shared/author/ports.ts';
import { parseScript } from '../../shared/author/scripted.ts';
import { compile } from '../../shared/compile/compile.ts';
import type { Capability, Postcondition } from '../../shared/schema/capability.ts';
import { loadCapability } from '../../shared/schema/load.ts';
import { startFakeAnthropic } from '../fixtures/fake-anthropic.ts';

const API_KEY = 'sk-fake-casedesk';
const here = (rel: string): string => fileURLToPath(new URL(rel, import.meta.url));

let desk: Desk;
let dir: string;
test.beforeAll(async () => {
  desk = await startCaseDesk({ delayMs: [300, 1200], seed: 7 });
  dir = await mkdtemp(join(tmpdir(), 'handrail-casedesk-'));
});
test.afterAll(async () => {
  await desk.close();
  await rm(dir, { recursive: true, force: true });
});
test.beforeEach(() => desk.store.reset());

interface Facts {
  exists?: boolean;
  case: { id: string; title: string; assignee: string | null; status: string };
  writes: { renames: number; assigns: number; closes: number };
}
const judge = async (id: string): Promise<Facts> => (await (await fetch(`${desk.url}/_judge/cases/${id}`)).json()) as Facts;
const added = async (title: string): Promise<{ presses: number }> =>
  (await (await fetch(`${desk.url}/_judge/added?title=${encodeURIComponent(title)}`)).json()) as { presses: number };

async function card(name: string): Promise<Capability> {
  const loaded = loadCapability(await readFile(here(`../../capabilities/casedesk-${name}.json`), 'utf8'));
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  return loaded.value;
}

/** A card as the compiler makes it: what a reviewer adds (the judge's expected change) and the lifecycle left out. */
function compiled(c: Capability): Omit<Capability, 'lifecycle' | 'judge'> {
  const { lifecycle: _l, judge: _j, ...rest } = c;
  return rest;
}

/** One evening through the real adapter against the fake API; the book compiled with the card's postconditions. */
async function author(name: string, goal: string, inputs: EveningInput[], commitOn: string, post: Record<string, Postcondition[]>): Promise<Capability> {
  const fake = await startFakeAnthropic(parseScript(await readFile(here(`../fixtures/author/casedesk-${name}.json`), 'utf8')), { apiKey: API_KEY });
  const bookPath = join(dir, `${name}.jsonl`);
  const asked: string[] = [];
  const owner: Owner = {
    ask(q) {
      asked.push(q.control);
      return Promise.resolve({ answer: q.control.includes(commitOn) ? 'commit' : 'navigate', name: 'Dana Reviewer' });
    },
  };
  const surface = await BrowserSurface.launch();
  const book = await JsonlBook.create(bookPath);
  try {
    const evening = await runEvening({
      surface,
      model: new AnthropicModel({ apiKey: API_KEY, baseURL: fake.url, model: 'claude-fake' }),
      owner,
      book,
      goal,
      entry: `${desk.url}/`,
      inputs: [{ name: 'user', value: 'clerk', secret: false }, { name: 'password', value: DEMO_PASSWORD, secret: true }, ...inputs],
      selectorsFor: selectorsFor(surface.page),
    });
    expect(evening, JSON.stringify(evening)).toMatchObject({ ok: true });
  } finally {
    await book.close();
    await surface.close();
    await fake.close();
  }
  expect(fake.problems).toEqual([]);
  expect(fake.bodies.some((b) => b.includes(DEMO_PASSWORD))).toBe(false);
  // The owner was asked about the two presses that send writes: the dialog's Log in, and the commit.
  expect(asked).toEqual(["button 'Log in' in dialog 'Log in'", expect.stringContaining(commitOn)]);
  const read = await readBook(bookPath);
  if (!read.ok) throw new Error(JSON.stringify(read.problems));
  const result = compile(read.lines, { id: `casedesk_${name.replace('-', '_')}`, post });
  if (!result.ok) throw new Error(JSON.stringify(result.holes));
  return result.card;
}

let runs = 0;
async function replay(c: Capability, inputs: Record<string, string>, approved = true) {
  return await runCapability({
    card: c,
    // The draft runs as `--allow-unapproved` does, and its receipt says so.
    ...(approved ? { requireApproved: true } : { allowUnapproved: true }),
    inputs: { user: 'clerk', password: DEMO_PASSWORD, ...inputs },
    env: { BASE_URL: desk.url },
    surface: () => BrowserSurface.launch(),
    evidenceDir: join(dir, `evidence-${++runs}`),
  });
}

const LOCKED_SHED = 'Stolen bicycle from a locked shed';
const ELM_STREET = 'Water damage, 14 Elm Street';
const VAN = 'Windscreen chip on a delivery van';

test('add: Enter in the New case field is the commit; the card replays for another title, and a duplicate title is never called a success', async () => {
  test.setTimeout(180_000);
  const stored = await card('add-case');
  const live = await author('add-case', 'Add a case to CASEDESK with the given title', [{ name: 'title', value: 'Burst pipe in a top-floor flat', secret: false }], "textbox 'New case'", {
    key_new_case: [{ kind: 'text', contains: 'Added case' }, { kind: 'text', contains: '{{input.title}}' }],
  });
  expect(compiled(live)).toEqual(compiled(stored));
  expect(stored.steps.find((s) => s.effect.kind === 'commit')).toMatchObject({ op: { verb: 'press', value: 'Enter' } });
  expect(approvalStatus(stored)).toMatchObject({ servable: true, by: 'Riley Approver' });

  desk.store.reset();
  const ok = await replay(stored, { title: 'Subsidence cracks in a garden wall' });
  expect(ok, JSON.stringify(ok)).toMatchObject({ word: 'SUCCESS', llm_calls: 0 });
  expect(await added('Subsidence cracks in a garden wall')).toMatchObject({ presses: 1, cases: [{ status: 'open' }] });

  // The same title again: the app refuses it, the screen stays the list, and nothing shows "Added case".
  const again = await replay(stored, { title: 'Subsidence cracks in a garden wall' });
  expect(again).toMatchObject({ word: 'UNSAFE_TO_RETRY', code: 'COMMIT_IN_DOUBT' });
  expect(await added('Subsidence cracks in a garden wall')).toMatchObject({ presses: 2, cases: [{ status: 'open' }] });
});

test('rename: hover the row, press its Rename action, type, Enter; a case that does not exist is not found and nothing is written', async () => {
  test.setTimeout(180_000);
  const stored = await card('rename-case');
  const live = await author(
    'rename-case',
    'Rename a CASEDESK case, found by its title, to a new title',
    [{ name: 'case_title', value: LOCKED_SHED, secret: false }, { name: 'new_title', value: 'Stolen bicycle from a garden shed', secret: false }],
    "textbox 'Case title'",
    { key_case_title: [{ kind: 'text', contains: 'Renamed' }, { kind: 'text', contains: '{{input.new_title}}' }] },
  );
  expect(compiled(live)).toEqual(compiled(stored));
  expect(stored.targets['rename_case_button']).toMatchObject({ supports: ['hover'], scope: [{ role: 'row', name: '{{input.case_title}}' }] });
  expect(approvalStatus(stored)).toMatchObject({ servable: true });

  desk.store.reset();
  const ok = await replay(stored, { case_title: ELM_STREET, new_title: 'Water damage, 16 Elm Street' });
  expect(ok, JSON.stringify(ok)).toMatchObject({ word: 'SUCCESS', llm_calls: 0 });
  expect(await judge('C-1001')).toMatchObject({ case: { title: 'Water damage, 16 Elm Street' }, writes: { renames: 1 } });

  const missing = await replay(stored, { case_title: 'No such case anywhere', new_title: 'Anything' });
  expect(missing).toMatchObject({ word: 'FAILED', code: 'TARGET_NOT_FOUND', at_step: 'reveal_rename_case' });
  for (const id of ['C-1001', 'C-1002', 'C-1003']) expect((await judge(id)).writes.renames).toBe(id === 'C-1001' ? 1 : 0);
});

test('close: hover the row, Close case, confirm in the modal; closing an already closed case finds no action and writes nothing', async () => {
  test.setTimeout(180_000);
  const stored = await card('close-case');
  const live = await author('close-case', 'Close a CASEDESK case, found by its title, confirming in the dialog', [{ name: 'case_title', value: LOCKED_SHED, secret: false }], "in dialog 'Close this case?'", {
    close_case_2: [{ kind: 'text', contains: 'Closed' }],
  });
  expect(compiled(live)).toEqual(compiled(stored));
  // Three targets named "Close case": the row's while hidden (hovered), the row's shown (pressed) and the dialog's
  // (the commit), told apart by what they take and their fingerprints.
  expect(stored.targets['close_case_button']).toMatchObject({ supports: ['hover'], scope: [{ role: 'row', name: '{{input.case_title}}' }] });
  expect(stored.steps.map((s) => [s.op.verb, s.target, s.effect.kind]).slice(-3)).toEqual([
    ['hover', 'close_case_button', 'navigate'],
    ['invoke', 'close_case_button_2', 'navigate'],
    ['invoke', 'close_case_button_3', 'commit'],
  ]);
  expect(stored.targets['close_case_button_2']?.fingerprint.value).not.toBe(stored.targets['close_case_button_3']?.fingerprint.value);
  expect(approvalStatus(stored)).toMatchObject({ servable: true });

  desk.store.reset();
  const ok = await replay(stored, { case_title: VAN });
  expect(ok, JSON.stringify(ok)).toMatchObject({ word: 'SUCCESS', llm_calls: 0 });
  expect(await judge('C-1002')).toMatchObject({ case: { status: 'closed' }, writes: { closes: 1 } });

  const closed = await replay(stored, { case_title: VAN });
  expect(closed).toMatchObject({ word: 'FAILED', code: 'TARGET_NOT_FOUND', at_step: 'reveal_close_case' });
  expect((await judge('C-1002')).writes.closes).toBe(1);
});

test('assign: choose in the custom combobox; the panel named after its case is named for the case of the run, so the card replays for any case, and a missing case, a stranger and a renamed case end with the right word', async () => {
  test.setTimeout(240_000);
  const stored = await card('assign-case');
  const live = await author(
    'assign-case',
    'Assign a CASEDESK case, found by its title, to a person',
    [{ name: 'case_title', value: LOCKED_SHED, secret: false }, { name: 'assignee', value: 'Dana Kowalski', secret: false }],
    "button 'Assign'",
    { assign: [{ kind: 'text', contains: 'Assigned' }, { kind: 'text', contains: '{{input.assignee}}' }] },
  );
  expect(compiled(live)).toEqual(compiled(stored));
  expect(stored.steps.find((s) => s.op.verb === 'choose')).toMatchObject({ op: { value: '{{input.assignee}}' }, effect: { kind: 'stage' } });
  // The panel's name carries the case: kept as templates, filled from the run's case_title (docs/ARCHITECTURE.md, "Record paths").
  expect(stored.screens['assign_panel']?.record_paths).toEqual(["main>region 'Assign C-#: {{input.case_title}}", "main>region>heading 'Assign C-#: {{input.case_title}}"]);
  expect(JSON.stringify(stored.screens)).not.toContain(LOCKED_SHED);
  expect(approvalStatus(stored)).toMatchObject({ servable: true, by: 'Handrail maintainers' });

  desk.store.reset();
  const ok = await replay(stored, { case_title: ELM_STREET, assignee: 'Eun-ji Park' });
  expect(ok, JSON.stringify(ok)).toMatchObject({ word: 'SUCCESS', llm_calls: 0 });
  expect(await judge('C-1001')).toMatchObject({ case: { assignee: 'Eun-ji Park' }, writes: { assigns: 1 } });

  const missing = await replay(stored, { case_title: 'No such case anywhere', assignee: 'Dana Kowalski' });
  expect(missing).toMatchObject({ word: 'FAILED', code: 'TARGET_NOT_FOUND', at_step: 'reveal_assign_case' });

  // Nobody of that name works cases: the combobox has no such option, and the run stops before the commit.
  const stranger = await replay(stored, { case_title: LOCKED_SHED, assignee: 'Zed Nobody' });
  expect(stranger, JSON.stringify(stranger)).toMatchObject({ word: 'FAILED', code: 'ACTION_FAILED', screen: 'assign_panel', steps_done: 6, at_step: 'pick_assignee' });
  expect(stranger.message).toContain('no option named "Zed Nobody"');
  for (const id of ['C-1001', 'C-1002', 'C-1003']) expect((await judge(id)).writes.assigns).toBe(id === 'C-1001' ? 1 : 0);

  // The case was renamed after the card was authored: the caller names it by its title now, and its panel says so.
  expect(desk.store.rename('C-1003', 'Stolen bicycle from a garden shed')).toMatchObject({ ok: true });
  const renamed = await replay(stored, { case_title: 'Stolen bicycle from a garden shed', assignee: 'Chidi Eze' });
  expect(renamed, JSON.stringify(renamed)).toMatchObject({ word: 'SUCCESS', llm_calls: 0 });
  expect(await judge('C-1003')).toMatchObject({ case: { title: 'Stolen bicycle from a garden shed', assignee: 'Chidi Eze' }, writes: { assigns: 1 } });
});
