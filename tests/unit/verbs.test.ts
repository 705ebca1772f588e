// The new verbs end to end over the in-memory surface: a scripted evening hovers a row's hidden action, presses it,
// chooses in a custom combobox and saves with Enter; another renames in place by double-click; the books compile to
// cards that replay with no model, and a right-click opens a menu only where one appears.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCapability } from '../../runner/run.ts';
import { runEvening } from '../../shared/author/evening.ts';
import { ScriptedModel, type ScriptCall } from '../../shared/author/scripted.ts';
import { compile } from '../../shared/compile/compile.ts';
import type { Capability } from '../../shared/schema/capability.ts';
import { fingerprint } from '../../shared/fingerprint.ts';
import { buildMenu, renderRow } from '../../shared/menu.ts';
import type { Control } from '../../shared/schema/observation.ts';
import { TraceLine } from '../../shared/schema/trace.ts';
import { MemoryBook } from '../fixtures/author/fake-surface.ts';
import { MemorySurface, type MemoryApp } from '../fixtures/memory-surface.ts';

const row = (title: string) => [{ role: 'row' as const, name: title }];

/** A desk whose row actions show on hover: hover reveals Assign; the panel's combobox is chosen in; Enter saves. */
function desk(): MemoryApp {
  const rows = (revealed: string | null) =>
    ['Burst pipe', 'Broken window'].map((title) =>
      title === revealed
        ? { role: 'button', name: 'Assign case', scope: row(title), on: { invoke: `panel_${title === 'Burst pipe' ? 'a' : 'b'}` } }
        : { role: 'button', name: 'Assign case', scope: row(title), verbs: ['hover' as const], on: { hover: `hovered_${title === 'Burst pipe' ? 'a' : 'b'}` } },
    );
  const panel = (title: string) => ({
    title: 'Cases',
    furniture: ["heading 'Assign'"],
    text: `ASSIGN ${title}`,
    elements: [
      { role: 'combobox', name: 'Assignee', verbs: ['choose' as const, 'read' as const], options: ['Ada Okafor', 'Dana Kowalski'] },
      { role: 'textbox', name: 'Note', on: { press: 'assigned' } },
    ],
  });
  const list = (revealed: string | null) => ({
    title: 'Cases',
    furniture: ["heading 'Cases'", ...(revealed ? ["list>button 'Assign case'"] : [])],
    elements: rows(revealed),
  });
  return {
    screens: {
      cases: list(null),
      hovered_a: list('Burst pipe'),
      hovered_b: list('Broken window'),
      // The panel says which case it assigns (the record, shown before the press).
      panel_a: panel('Burst pipe'),
      panel_b: panel('Broken window'),
      assigned: { title: 'Cases', furniture: ["heading 'Assigned'"], elements: [{ role: 'link', name: 'Back', on: { invoke: 'cases' } }] },
    },
  };
}

let tmp: string;
beforeEach(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'handrail-verbs-'));
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

/**
 * One scripted evening over a memory app, its book compiled; the owner calls the control whose question names
 * `commitOn` a commit and every other a navigation. Each input's value is the literal the script saw.
 */
async function authored(app: MemoryApp, o: { id: string; goal: string; entry: string; inputs: Record<string, string>; commitOn: string; finished: string; turns: ScriptCall[][] }) {
  const surface = new MemorySurface(app);
  const book = new MemoryBook();
  const evening = await runEvening({
    surface,
    model: new ScriptedModel({ turns: o.turns }),
    owner: { ask: (q) => Promise.resolve({ answer: q.control.includes(o.commitOn) ? 'commit' : 'navigate', name: 'Dana Reviewer' }) },
    book,
    goal: o.goal,
    entry: o.entry,
    inputs: Object.entries(o.inputs).map(([name, value]) => ({ name, value, secret: false })),
    settle: { quietMs: 0, pollMs: 1 },
  });
  expect(evening, JSON.stringify(evening)).toMatchObject({ ok: true, finished: o.finished });
  const compiled = compile(book.lines.map((l) => TraceLine.parse(l)), { id: o.id });
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.holes));
  return { card: compiled.card, surface };
}

/** The card replayed with no model on a fresh copy of the app; the run's receipt and what was done on it. */
async function replayed(app: MemoryApp, card: Capability, inputs: Record<string, string>) {
  const surface = new MemorySurface(app);
  const result = await runCapability({ card, inputs, env: {}, surface: () => Promise.resolve(surface), evidenceDir: path.join(tmp, 'evidence'), allowUnapproved: true });
  expect(result, JSON.stringify(result)).toMatchObject({ word: 'SUCCESS', llm_calls: 0 });
  return surface.acts;
}

describe('hover, choose and press, authored and replayed', () => {
  it('compiles a hover step before the press it reveals, and replays it for another row with the chosen value', async () => {
    const { card, surface } = await authored(desk(), {
      id: 'assign_case',
      goal: 'Assign a case',
      entry: 'memory://cases',
      inputs: { case_title: 'Burst pipe', assignee: 'Dana Kowalski' },
      commitOn: 'Note',
      finished: 'assigned',
      turns: [
        [
          { tool: 'assert_screen', label: 'cases' },
          { tool: 'act', match: "button 'Assign case' in row 'Burst pipe'", verb: 'hover' },
        ],
        [
          { tool: 'assert_screen', label: 'row_actions' },
          { tool: 'act', match: "button 'Assign case' in row 'Burst pipe'", verb: 'invoke' },
        ],
        [
          { tool: 'assert_screen', label: 'panel' },
          { tool: 'act', match: "combobox 'Assignee'", verb: 'choose', value: '{{input.assignee}}' },
          { tool: 'act', match: "textbox 'Note'", verb: 'press', value: 'Enter' },
        ],
        [
          { tool: 'assert_screen', label: 'assigned' },
          { tool: 'finish', label: 'assigned' },
        ],
      ],
    });
    expect(surface.acts.map((a) => a.verb)).toEqual(['hover', 'invoke', 'choose', 'press']);

    expect(card.steps.map((s) => [s.op.verb, s.op.value ?? null, s.effect.kind])).toEqual([
      ['hover', null, 'navigate'],
      ['invoke', null, 'navigate'],
      ['choose', '{{input.assignee}}', 'stage'],
      ['press', 'Enter', 'commit'],
    ]);
    const hover = card.targets[card.steps[0]?.target ?? ''];
    expect(hover).toMatchObject({ supports: ['hover'], scope: [{ role: 'row', name: '{{input.case_title}}' }] });
    expect(card.targets[card.steps[3]?.target ?? '']?.supports).toContain('press');

    const acts = await replayed(desk(), card, { case_title: 'Broken window', assignee: 'Ada Okafor' });
    expect(acts.map((a) => [a.screen, a.verb, a.value ?? null])).toEqual([
      ['cases', 'hover', null],
      ['hovered_b', 'invoke', null],
      ['panel_b', 'choose', 'Ada Okafor'],
      ['panel_b', 'press', 'Enter'],
    ]);
  });

  it('a choice that is not in the list fails by name, as the browser does', async () => {
    const surface = new MemorySurface(desk());
    await surface.open('memory://panel_a');
    const box = (await surface.observe()).parts[0]?.controls.find((c) => c.name === 'Assignee');
    await expect(surface.act(box?.ref ?? '', { verb: 'choose', value: 'Nobody' })).rejects.toMatchObject({ code: 'ACTION_FAILED', message: expect.stringContaining('no option named "Nobody"') as unknown });
  });
});

/** A notes list whose titles rename in place on a double-click, and a file list whose rows open a menu on a right-click. */
function notes(): MemoryApp {
  const list = {
    title: 'Notes',
    furniture: ["heading 'Notes'"],
    elements: [
      { role: 'text', name: 'Burst pipe', scope: row('Burst pipe'), offers: ['double_click' as const], on: { double_click: 'editing_a' } },
      { role: 'text', name: 'Broken window', scope: row('Broken window'), offers: ['double_click' as const], on: { double_click: 'editing_b' } },
      { role: 'text', name: 'report.pdf', offers: ['context_menu' as const], on: { context_menu: 'file_menu' } },
      { role: 'text', name: 'notes.txt', offers: ['context_menu' as const], on: { context_menu: 'file_menu' } },
      // Listens for a right-click and shows no menu.
      { role: 'text', name: 'Pinned note', offers: ['context_menu' as const] },
    ],
  };
  const editing = (title: string) => ({
    title: 'Notes',
    furniture: ["heading 'Notes'", "list>textbox 'Note title'"],
    // The editor says which note it renames: the record, shown before the press.
    text: `RENAMING ${title}`,
    elements: [{ role: 'textbox', name: 'Note title', value: title, on: { press: 'renamed' } }],
  });
  return {
    screens: {
      list,
      editing_a: editing('Burst pipe'),
      editing_b: editing('Broken window'),
      file_menu: { ...list, furniture: ["heading 'Notes'", "menu>menuitem 'Delete'"], elements: [...list.elements, { role: 'menuitem', name: 'Delete', on: { invoke: 'deleted' } }] },
      deleted: { title: 'Notes', furniture: ["heading 'Deleted'"], elements: [{ role: 'link', name: 'Back', on: { invoke: 'list' } }] },
      renamed: { title: 'Notes', furniture: ["heading 'Renamed'"], elements: [{ role: 'link', name: 'Back', on: { invoke: 'list' } }] },
    },
  };
}

describe('double-click and right-click, offered where the page listens', () => {
  it('a rename in place by double-click is authored, compiled with the gesture outside the fingerprint, and replayed for another row', async () => {
    const { card, surface } = await authored(notes(), {
      id: 'rename_note',
      goal: 'Rename a note in place',
      entry: 'memory://list',
      inputs: { note: 'Burst pipe', new_title: 'Burst pipe in the attic' },
      commitOn: 'Note title',
      finished: 'renamed',
      turns: [
        [
          { tool: 'assert_screen', label: 'notes' },
          { tool: 'act', match: "text 'Burst pipe'", verb: 'double_click' },
        ],
        [
          { tool: 'assert_screen', label: 'editing' },
          { tool: 'act', match: "textbox 'Note title'", verb: 'set_value', value: '{{input.new_title}}' },
          { tool: 'act', match: "textbox 'Note title'", verb: 'press', value: 'Enter' },
        ],
        [
          { tool: 'assert_screen', label: 'renamed' },
          { tool: 'finish', label: 'renamed' },
        ],
      ],
    });
    expect(card.steps.map((s) => [s.op.verb, s.effect.kind])).toEqual([
      ['double_click', 'navigate'],
      ['set_value', 'stage'],
      ['press', 'commit'],
    ]);
    const title = card.targets[card.steps[0]?.target ?? ''];
    // The target takes the gesture it was used with; its fingerprint hashes only the role's vocabulary (read).
    expect(title).toMatchObject({ role: 'text', name: { eq: '{{input.note}}' }, supports: ['read', 'double_click'] });
    const text: Control = { ref: 'x', role: 'text', name: 'Burst pipe', verbs: ['read'], scope: [], ancestors: [] };
    expect(title?.fingerprint.value).toBe(fingerprint(text, title?.fingerprint.over ?? [], surface.observer));

    const acts = await replayed(notes(), card, { note: 'Broken window', new_title: 'Broken window, back door' });
    expect(acts.map((a) => [a.screen, a.verb, a.element])).toEqual([
      ['list', 'double_click', 'Broken window'],
      ['editing_b', 'set_value', 'Note title'],
      ['editing_b', 'press', 'Note title'],
    ]);
  });

  it('a right-click that opens a menu makes its items the next screen\'s rows; one that opens none fails by name and moves nothing', async () => {
    const surface = new MemorySurface(notes());
    await surface.open('memory://list');
    const seen = await surface.observe();
    const menu = buildMenu(seen).map(renderRow);
    // The gestures come after the rows the screen always had.
    expect(menu).toEqual([
      "1: double_click text 'Burst pipe'",
      "2: double_click text 'Broken window'",
      "3: context_menu text 'report.pdf'",
      "4: context_menu text 'notes.txt'",
      "5: context_menu text 'Pinned note'",
    ]);
    const pinned = seen.parts[0]?.controls.find((c) => c.name === 'Pinned note');
    await expect(surface.act(pinned?.ref ?? '', { verb: 'context_menu' })).rejects.toMatchObject({ code: 'ACTION_FAILED', message: expect.stringContaining('no menu appeared') as unknown });
    expect((await surface.observe()).signature).toBe(seen.signature);

    const file = seen.parts[0]?.controls.find((c) => c.name === 'report.pdf');
    await surface.act(file?.ref ?? '', { verb: 'context_menu' });
    const opened = buildMenu(await surface.observe()).map(renderRow);
    expect(opened).toContain("1: invoke menuitem 'Delete'");
  });

  it('a right-click step opens the menu whose item the next step presses, and replays for another file', async () => {
    const { card } = await authored(notes(), {
      id: 'delete_file',
      goal: 'Delete a file from its context menu',
      entry: 'memory://list',
      inputs: { file: 'report.pdf' },
      commitOn: 'Delete',
      finished: 'deleted',
      turns: [
        [
          { tool: 'assert_screen', label: 'notes' },
          { tool: 'act', match: "text 'report.pdf'", verb: 'context_menu' },
        ],
        [
          { tool: 'assert_screen', label: 'file_menu' },
          { tool: 'act', match: "menuitem 'Delete'", verb: 'invoke' },
        ],
        [
          { tool: 'assert_screen', label: 'deleted' },
          { tool: 'finish', label: 'deleted' },
        ],
      ],
    });
    expect(card.steps.map((s) => [s.op.verb, s.effect.kind, s.intent])).toEqual([
      ['context_menu', 'navigate', "Right-click text '{{input.file}}' to open its menu"],
      ['invoke', 'commit', "Press menuitem 'Delete'"],
    ]);

    const acts = await replayed(notes(), card, { file: 'notes.txt' });
    expect(acts.map((a) => [a.screen, a.verb, a.element])).toEqual([
      ['list', 'context_menu', 'notes.txt'],
      ['file_menu', 'invoke', 'Delete'],
    ]);
  });
});
