// CASEDESK's four cards: each evening, scripted through the real Anthropic adapter against the fake Messages API,
// compiles to the card in capabilities/ (verified by the judge and approved through the CLI), and the approved card
// replays SUCCESS with no model for a case the evening never touched, the judge confirming one write; the negative
// cases end with the right word and write nothing. Assign's panel is named after its case: a record path. Each commit
// is proven by its own row (row-scoped postconditions), never by the status line, whose words the card keeps (`said`).
import { join } from 'node:path';
import { test, expect } from '@playwright/test';
import type { Desk } from '../../demo/casedesk/server.ts';
import { approvalStatus } from '../../runner/approval.ts';
import type { EveningInput } from '../../shared/author/ports.ts';
import type { Capability, Postcondition } from '../../shared/schema/capability.ts';
import { asCompiled as compiled, authorEvening, replayCard, storedCard as card } from './support/casedesk-cards.ts';
import { deskScene, judgeAdded, judgeCase, type Facts } from './support/desk.ts';

let desk: Desk;
let dir: string;
deskScene({ scratch: 'handrail-casedesk-' }, (s) => ({ app: desk, scratch: dir } = s));

const judge = (id: string): Promise<Facts> => judgeCase(desk, id);
const added = (title: string): Promise<{ presses: number }> => judgeAdded(desk, title);

/** One evening through the real adapter against the fake API; the book compiled with the card's postconditions. */
async function author(name: string, goal: string, inputs: EveningInput[], commitOn: string, post: Record<string, Postcondition[]>, noRecord: string[] = []): Promise<Capability> {
  const { card: made, asked } = await authorEvening({ desk, dir, name, goal, inputs, commitOn, post, noRecord });
  // The owner was asked about the two presses that send writes: the dialog's Log in, and the commit.
  expect(asked).toEqual(["button 'Log in' in dialog 'Log in'", expect.stringContaining(commitOn)]);
  return made;
}

let runs = 0;
// The draft runs as `--allow-unapproved` does, and its receipt says so.
const replay = (c: Capability, inputs: Record<string, string>, approved = true) => replayCard(desk, c, inputs, join(dir, `evidence-${++runs}`), approved);

const LOCKED_SHED = 'Stolen bicycle from a locked shed';
const ELM_STREET = 'Water damage, 14 Elm Street';
const VAN = 'Windscreen chip on a delivery van';

test('add: Enter in the New case field is the commit; the card replays for another title, and a duplicate title is never called a success', async () => {
  test.setTimeout(180_000);
  const stored = await card('add-case');
  const live = await author('add-case', 'Add a case to CASEDESK with the given title', [{ name: 'title', value: 'Burst pipe in a top-floor flat', secret: false }], "textbox 'New case'", {
    // The new case's own row shows it open: the status line's "Added case" is what the app says, never proof.
    key_new_case: [{ kind: 'row', key: '{{input.title}}', contains: 'open' }],
  }, ['key_new_case']);
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
  // What the status line said is named beside what it said when the card was made; it proved nothing either way.
  expect(again.message).toContain('the app said "Could not add the case: an open case is already called');
  expect(again.message).toContain('when the card was made it said "Added case C-#: Subsidence cracks in a garden wall"');
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
    { key_case_title: [{ kind: 'row', key: '{{input.new_title}}', contains: 'open' }] },
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
    close_case_2: [{ kind: 'row', key: '{{input.case_title}}', contains: 'closed' }],
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
    { assign: [{ kind: 'row', key: '{{input.case_title}}', contains: '{{input.assignee}}' }] },
  );
  expect(compiled(live)).toEqual(compiled(stored));
  expect(stored.steps.find((s) => s.op.verb === 'choose')).toMatchObject({ op: { value: '{{input.assignee}}' }, effect: { kind: 'stage' } });
  // The panel's name carries the case: kept as templates, filled from the run's case_title (docs/design/replay.md, "Record paths").
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
