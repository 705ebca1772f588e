// React Aria Components as they ship (tests/fixtures/real/aria.mjs, a production build bundled by esbuild): each control
// is offered the verb a person would expect, the verb does what the page's own state then says, a wrong option fails by
// name and changes nothing, the header's "Log in" and the dialog's are two targets, the page behind the open modal is
// not offered, and a card authored over several widgets by a scripted model replays with the server's judge agreeing.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, expect, type Page } from '@playwright/test';
import { BrowserSurface } from '../../runner/browser/surface.ts';
import { ScriptedModel, type Script } from '../../shared/author/scripted.ts';
import type { Control } from '../../shared/schema/observation.ts';
import { replayWithRunner } from '../fixtures/extension/harness.ts';
import { startRealApp, type RealApp } from '../fixtures/real/server.ts';
import { compiled, eveningInBrowser } from './support/evening.ts';
import { controls, one } from './support/observed.ts';
import { CLOSE_AND_SAVE, listed, loginSteps, savesOnly } from './support/real.ts';

let app: RealApp;
let dir: string;
let surface: BrowserSurface;
test.beforeAll(async () => {
  app = await startRealApp();
  dir = await mkdtemp(join(tmpdir(), 'handrail-real-aria-'));
});
test.afterAll(async () => {
  await app.close();
  await rm(dir, { recursive: true, force: true });
});
test.beforeEach(() => {
  app.aria.length = 0;
});

/** The page's own account of what each widget holds ("priority: High", …). */
const held = (page: Page): Promise<Record<string, string>> => listed(page, 'ul[aria-label="Held"]');

/** A fresh browser on the page, its widgets drawn; closed by the caller. */
async function opened(): Promise<BrowserSurface> {
  const s = await BrowserSurface.launch();
  await s.open(`${app.url}/aria`);
  await expect.poll(async () => controls(await s.observe()).length).toBeGreaterThan(10);
  return s;
}

const verbsOf = (c: Control): string[] => [...c.verbs, ...(c.offers ?? [])];

/**
 * Each picker, the control a person picks in, and what picking `value` shows in "Held". React Aria's Select button is
 * labelled by its value and its label (`aria-labelledby`); Chromium names it "Normal Priority" while it holds Normal,
 * the walker by its label alone, "Priority", so a card is not bound to the value (docs/design/walker.md, "The walker",
 * "One deliberate difference").
 */
const PICKS = [
  { widget: 'Select', role: 'button', name: 'Priority', value: 'High', shows: { priority: 'High' } },
  { widget: 'ComboBox', role: 'combobox', name: 'Reviewer', value: 'Grace Hopper', shows: { reviewer: 'Grace Hopper' } },
  { widget: 'MenuTrigger', role: 'button', name: 'Case actions', value: 'Archive', shows: { action: 'Archived' } },
  { widget: 'SubmenuTrigger (a path)', role: 'button', name: 'Case actions', value: 'Export › CSV', shows: { action: 'Exported as CSV' } },
  { widget: 'ListBox', role: 'listbox', name: 'Queue', value: 'Appeals', shows: { queue: 'Appeals' } },
] as const;

for (const pick of PICKS) {
  test(`${pick.widget}: offered choose, and choose '${pick.value}' is what the widget then holds`, async () => {
    surface = await opened();
    try {
      const before = one(await surface.observe(), pick.role, pick.name);
      expect(verbsOf(before)).toContain('choose');
      await surface.act(before.ref, { verb: 'choose', value: pick.value });
      expect(await held(surface.page)).toMatchObject(pick.shows);
      if (pick.role === 'combobox') expect(one(await surface.observe(), pick.role, pick.name).value).toBe(pick.value);
      // Its popup is closed again: no option or item of it is left offered (the standalone ListBox's own stay).
      const left = controls(await surface.observe()).filter((c) => c.role === 'option' || c.role.startsWith('menuitem'));
      expect(left.map((c) => c.name)).toEqual(['Claims', 'Fraud', 'Appeals']);
    } finally {
      await surface.close();
    }
  });
}

test('the ComboBox’s own "Show suggestions" button is its opener, not a second picker: offered invoke, not choose', async () => {
  surface = await opened();
  try {
    // Offered choose, it picked (the page held the reviewer) and then failed: the button shows "▾", not the pick.
    const button = one(await surface.observe(), 'button', 'Show suggestions Reviewer');
    expect(verbsOf(button)).toEqual(['invoke']);
    expect(verbsOf(one(await surface.observe(), 'combobox', 'Reviewer'))).toContain('choose');
  } finally {
    await surface.close();
  }
});

test('a name no option has fails by name in each picker, and nothing changes', async () => {
  surface = await opened();
  try {
    const before = await held(surface.page);
    for (const [role, name, value] of [
      ['button', 'Priority', 'Urgent'],
      ['combobox', 'Reviewer', 'Nobody Known'],
      ['button', 'Case actions', 'Delete'],
      ['button', 'Case actions', 'Export › XML'],
      ['listbox', 'Queue', 'Lost'],
    ] as const) {
      // A list a failed pick closed may still be fading out, its modal underlay hiding the page: the next picker is
      // looked for until the page offers it again, as a run's settling waits for the page to rest.
      await expect.poll(async () => controls(await surface.observe()).filter((c) => c.role === role && c.name === name).length, { timeout: 5_000 }).toBe(1);
      const c = one(await surface.observe(), role, name);
      await expect(surface.act(c.ref, { verb: 'choose', value }), `${role} '${name}' ${value}`).rejects.toThrow(value.split(' › ').at(-1) ?? value);
      expect(await held(surface.page)).toEqual(before);
    }
    // Every list it opened is closed again: the page is offered as before.
    expect(controls(await surface.observe()).filter((c) => c.role.startsWith('menuitem'))).toEqual([]);
  } finally {
    await surface.close();
  }
});

test('Switch and Checkbox are offered toggle, and a toggle is what the page then holds', async () => {
  surface = await opened();
  try {
    for (const [role, name, key] of [['switch', 'Urgent', 'urgent'], ['checkbox', 'Notify the customer', 'notify']] as const) {
      const c = one(await surface.observe(), role, name);
      expect(c.verbs).toContain('toggle');
      expect(c.value).toBe('unchecked');
      await surface.act(c.ref, { verb: 'toggle' });
      expect((await held(surface.page))[key]).toBe('true');
      expect(one(await surface.observe(), role, name).value).toBe('checked');
    }
  } finally {
    await surface.close();
  }
});

test('Slider is offered set_value, and the value set is what the page then holds', async () => {
  surface = await opened();
  try {
    const slider = one(await surface.observe(), 'slider', 'Risk score');
    expect(slider.verbs).toContain('set_value');
    await surface.act(slider.ref, { verb: 'set_value', value: '80' });
    expect((await held(surface.page)).score).toBe('80');
    expect(one(await surface.observe(), 'slider', 'Risk score').value).toBe('80');
  } finally {
    await surface.close();
  }
});

test('Tabs and a table row’s button are offered invoke, and each press is what the page then shows', async () => {
  surface = await opened();
  try {
    const history = one(await surface.observe(), 'tab', 'History');
    expect(history.verbs).toContain('invoke');
    await surface.act(history.ref, { verb: 'invoke' });
    expect((await held(surface.page)).tab).toBe('History');
    const opens = controls(await surface.observe()).filter((c) => c.role === 'button' && c.name === 'Open');
    expect(opens.map((c) => c.scope?.at(-1)?.name)).toEqual(['C-1', 'C-2', 'C-3']);
    await surface.act(opens[1]?.ref ?? '', { verb: 'invoke' });
    expect((await held(surface.page)).opened).toBe('C-2');
  } finally {
    await surface.close();
  }
});

test('the open modal hides the page behind it: only the dialog’s controls are offered, its "Log in" is not the header’s', async () => {
  surface = await opened();
  try {
    const header = one(await surface.observe(), 'button', 'Log in');
    expect(header.scope?.map((s) => s.name)).toEqual(['banner']);
    await surface.act(one(await surface.observe(), 'button', 'Close case').ref, { verb: 'invoke' });
    await expect.poll(async () => controls(await surface.observe()).some((c) => c.name === 'Confirm')).toBe(true);
    const inModal = controls(await surface.observe());
    // React Aria's dismissable Modal adds a visually hidden "Dismiss" button for screen readers; it is in Chromium's
    // accessibility tree too.
    expect(inModal.map((c) => `${c.role} '${c.name}'`).sort()).toEqual(["button 'Cancel'", "button 'Confirm'", "button 'Dismiss'", "button 'Log in'"]);
    const dialogLogin = one(await surface.observe(), 'button', 'Log in');
    expect(dialogLogin.scope?.map((s) => `${s.role} '${s.name}'`)).toEqual(["dialog 'Close the case?'"]);
    await surface.act(dialogLogin.ref, { verb: 'invoke' });
    expect((await held(surface.page)).login).toBe('dialog');
    await surface.act(one(await surface.observe(), 'button', 'Confirm').ref, { verb: 'invoke' });
    await expect.poll(async () => controls(await surface.observe()).some((c) => c.name === 'Close case')).toBe(true);
    expect(await held(surface.page)).toMatchObject({ closed: 'yes', login: 'dialog' });
    await surface.act(one(await surface.observe(), 'button', 'Log in').ref, { verb: 'invoke' });
    expect((await held(surface.page)).login).toBe('dialog, header');
  } finally {
    await surface.close();
  }
});

test('the modal’s visually hidden "Dismiss", offered as Chromium exposes it, closes the dialog when invoked', async () => {
  surface = await opened();
  try {
    await surface.act(one(await surface.observe(), 'button', 'Close case').ref, { verb: 'invoke' });
    await expect.poll(async () => controls(await surface.observe()).some((c) => c.name === 'Dismiss')).toBe(true);
    await surface.act(one(await surface.observe(), 'button', 'Dismiss').ref, { verb: 'invoke' });
    await expect.poll(async () => controls(await surface.observe()).some((c) => c.name === 'Close case')).toBe(true);
    expect((await held(surface.page)).closed).toBe('no');
  } finally {
    await surface.close();
  }
});

/** A model's evening over React Aria: a Select, a ComboBox, a Switch, a Slider, a Menu, the Modal's "Log in" and "Confirm", the header's "Log in", Save. */
const EVENING: Script = {
  turns: [
    [
      { tool: 'assert_screen', label: 'case', title: 'Case C-7' },
      { tool: 'act', match: "button 'Priority' (holds 'Normal')", verb: 'choose', value: '{{input.priority}}' },
    ],
    [{ tool: 'act', match: "combobox 'Reviewer'", verb: 'choose', value: '{{input.reviewer}}' }],
    [{ tool: 'act', match: "switch 'Urgent'", verb: 'toggle' }],
    [{ tool: 'act', match: "slider 'Risk score'", verb: 'set_value', value: '80' }],
    [{ tool: 'act', match: "button 'Case actions'", verb: 'choose', value: 'Escalate' }],
    ...CLOSE_AND_SAVE,
  ],
};

test('a card authored over React Aria widgets compiles, replays with no model, and the judge sees what it set; a reviewer not listed fails by name before Save', async () => {
  test.setTimeout(180_000);
  const asked: string[] = [];
  const { evening, lines } = await eveningInBrowser(join(dir, 'aria.jsonl'), {
    model: new ScriptedModel(EVENING),
    owner: savesOnly(asked),
    goal: 'Set the case priority and reviewer, mark it urgent and escalated, close it and save',
    entry: `${app.url}/aria`,
    inputs: [
      { name: 'priority', value: 'High', secret: false },
      { name: 'reviewer', value: 'Grace Hopper', secret: false },
    ],
  });
  expect(evening, JSON.stringify(evening)).toMatchObject({ ok: true });
  expect(asked).toContain("button 'Save'");
  const want = { priority: 'High', reviewer: 'Grace Hopper', urgent: 'true', score: '80', action: 'Escalated', closed: 'yes', login: 'dialog, header' };
  expect(app.aria).toMatchObject([want]);
  const card = compiled(lines, /* the page shows one record, its own: no input chooses it */ { id: 'aria_close', noRecord: ['save'] });
  expect(card.steps.map((s) => `${s.op.verb} ${s.op.value ?? ''}`.trim())).toEqual([
    'choose {{input.priority}}',
    'choose {{input.reviewer}}',
    'toggle',
    'set_value 80',
    'choose Escalate',
    'invoke',
    'invoke',
    'invoke',
    'invoke',
    'invoke',
  ]);
  // The two "Log in" steps are two targets, on two screens: their fingerprints hash their ancestors' roles (a dialog,
  // a banner), so neither can be found as the other.
  expect(loginSteps(card)).toEqual({ screens: ['closing', 'case'], fingerprints: 2 });
  // React Aria's ids are drawn again at each load (`react-aria<random>-…`): no target keeps one as a rung.
  expect(JSON.stringify(card.targets)).not.toContain('react-aria');

  app.aria.length = 0;
  const replay = (inputs: Record<string, string>, n: string) => replayWithRunner(card, { inputs, baseUrl: app.url, evidenceDir: join(dir, `aria-${n}`) });
  const ok = await replay({ priority: 'Low', reviewer: 'Ada Lovelace' }, 'ok');
  expect(ok, JSON.stringify(ok)).toMatchObject({ word: 'SUCCESS', llm_calls: 0 });
  expect(app.aria).toMatchObject([{ ...want, priority: 'Low', reviewer: 'Ada Lovelace' }]);
  const missing = await replay({ priority: 'Low', reviewer: 'Nobody Known' }, 'missing');
  expect(missing, JSON.stringify(missing)).toMatchObject({ word: 'FAILED' });
  expect(missing.message).toContain('Nobody Known');
  expect(app.aria).toHaveLength(1);
});
