// A press held while a menu is open (a submenu item that showed nothing, a menu button, a list button, a submenu item that opened) is, whenever the process stops, either in a book line or in the held presses the host kept: resumed, the book is the one an uninterrupted evening writes, nothing is pressed twice but a press that visibly did nothing, and a button named with a secret's value stays masked.
import { describe, expect, it } from 'vitest';
import { resumeEvening, runEvening, type EveningOptions, type EveningState } from '../../shared/author/evening.ts';
import type { Owner } from '../../shared/author/ports.ts';
import { ScriptedModel, type Script } from '../../shared/author/scripted.ts';
import { Guard, type Dispatch } from '../../shared/author/guard.ts';
import { compile } from '../../shared/compile/compile.ts';
import { Masker } from '../../shared/secrets.ts';
import { TraceLine } from '../../shared/schema/trace.ts';
import { control, MemoryBook, MenuFakeSurface, StoppingBook, until, watchedEvening, type FakeScreen } from '../fixtures/author/fake-surface.ts';

const nobody: Owner = { ask: () => Promise.reject(new Error('opening a menu and picking in it writes nothing: nobody is asked')) };

/** A page with a menu button; its menu has Export, a submenu item whose press shows nothing, and Print, which closes it. */
function screens(buttonName = 'More'): Record<string, FakeScreen> {
  const more = control('|c0', 'button', buttonName, { offers: ['choose'] });
  return {
    page: { controls: [more, control('|c1', 'link', 'Help')], text: 'Page', next: { '|c0': 'open' } },
    open: {
      controls: [{ ...more, expanded: true }, control('|c1', 'link', 'Help'), control('|c2', 'menuitem', 'Export'), control('|c3', 'menuitem', 'Print')],
      text: 'Page',
      next: { '|c0': 'page', '|c3': 'page' },
      picks: { '|c2': { button: '|c0', name: buttonName, value: 'Export', opens: true }, '|c3': { button: '|c0', name: buttonName, value: 'Print', opens: false } },
    },
  };
}

const lines = (book: MemoryBook): TraceLine[] => book.lines.map((l) => TraceLine.parse(l));
/** A book as a reviewer compares two: each line but for its time and chain. */
const content = (book: MemoryBook): unknown[] => lines(book).map(({ at: _at, prev: _prev, ...rest }) => rest);
const presses = (surface: MenuFakeSurface): string[] => surface.log.filter((l) => l.startsWith('start'));

const LABEL = { tool: 'assert_screen', label: 'page', title: 'Page' } as const;
const EXPORT = { tool: 'act', match: "menuitem 'Export'", verb: 'invoke' } as const;
const PRINT = { tool: 'act', match: "menuitem 'Print'", verb: 'invoke' } as const;
const FINISH = { tool: 'finish', label: 'page' } as const;
const button = (name: string) => ({ tool: 'act', match: `button '${name}'`, verb: 'invoke' }) as const;
const at = new Date('2026-01-01T00:00:00Z');

interface Run {
  screens: Record<string, FakeScreen>;
  script: Script;
  inputs?: EveningOptions['inputs'];
}

function options(r: Run, surface: MenuFakeSurface, book: MemoryBook, model: ScriptedModel, keep: EveningState[]): EveningOptions {
  return { ...watchedEvening(surface, book, model, { owner: nobody, goal: 'print', keep }), inputs: r.inputs ?? [], now: () => at };
}

/** The evening run through once, never stopped: its book and the presses the page saw. */
async function uninterrupted(r: Run): Promise<{ book: MemoryBook; presses: string[] }> {
  const surface = new MenuFakeSurface(r.screens, 'page');
  const book = new MemoryBook();
  expect(await runEvening(options(r, surface, book, new ScriptedModel(r.script), []))).toMatchObject({ ok: true, finished: 'page' });
  return { book, presses: presses(surface) };
}

/**
 * The evening run until `stops` says the process stops (after writing a line, or at a place kept), then resumed by a
 * second process from the book and the last place kept, on the same page.
 */
async function stoppedAndResumed(r: Run, stops: { atLine?: (l: TraceLine) => boolean; atKeep?: (s: EveningState) => boolean }) {
  const surface = new MenuFakeSurface(r.screens, 'page');
  const book = new StoppingBook(stops.atLine ?? (() => false));
  const kept: EveningState[] = [];
  let stoppedAtKeep = false;
  const o = options(r, surface, book, new ScriptedModel(r.script), kept);
  const keep = o.checkpoint as NonNullable<EveningOptions['checkpoint']>;
  void runEvening({
    ...o,
    checkpoint: async (s) => {
      await keep(s);
      if (stops.atKeep?.(s)) {
        stoppedAtKeep = true;
        await new Promise(() => undefined);
      }
    },
  });
  await until(() => book.stopped || stoppedAtKeep);
  const state = kept.at(-1) as EveningState;
  const resumed = new MemoryBook();
  for (const l of book.lines) await resumed.append(l);
  const result = await resumeEvening(options(r, surface, resumed, new ScriptedModel(r.script, 'scripted', state.model), []), { lines: lines(resumed), state });
  return { result, state, book: resumed, presses: presses(surface) };
}

describe('a submenu item that showed no submenu, and a stop', () => {
  const run: Run = { screens: screens(), script: { turns: [[LABEL, button('More')], [EXPORT], [PRINT], [FINISH]] } };

  it('stopped just after its refusal line, before the place was kept again: resumed, the pick lists its press, and the book is the uninterrupted one', async () => {
    const once = await uninterrupted(run);
    expect(lines(once.book).find((l) => l.kind === 'act')).toMatchObject({ presses: [{ name: 'More' }, { name: 'Export' }, { name: 'Print' }] });
    const r = await stoppedAndResumed(run, { atLine: (l) => l.kind === 'refusal' && l.code === 'UNLABELLED_SCREEN' });
    expect(r.result).toMatchObject({ ok: true, finished: 'page' });
    expect(r.presses).toEqual(once.presses);
    expect(content(r.book)).toEqual(content(once.book));
    expect(compile(lines(r.book), { id: 'print' }).ok).toBe(true);
  });

  it('stopped after its press was kept with the held ones and before its refusal line: resumed, the refusal is written, nothing pressed again, the book the uninterrupted one', async () => {
    const once = await uninterrupted(run);
    const r = await stoppedAndResumed(run, { atKeep: (s) => s.dispatched?.line.control.name === 'Export' && s.held?.lines.length === 2 });
    expect(r.state.held?.lines.map((l) => l.control.name)).toEqual(['More', 'Export']);
    expect(r.result).toMatchObject({ ok: true, finished: 'page' });
    expect(r.presses).toEqual(once.presses);
    expect(content(r.book)).toEqual(content(once.book));
  });

  it('with the pick sent in the same message as the item, stopped on either side of the refusal line: resumed, the pick runs on and lists the kept press', async () => {
    const same: Run = { screens: screens(), script: { turns: [[LABEL, button('More')], [EXPORT, PRINT], [FINISH]] } };
    const once = await uninterrupted(same);
    expect(lines(once.book).find((l) => l.kind === 'act')).toMatchObject({ presses: [{ name: 'More' }, { name: 'Export' }, { name: 'Print' }] });
    const stops = [
      { atLine: (l: TraceLine) => l.kind === 'refusal' && l.code === 'UNLABELLED_SCREEN' },
      { atKeep: (s: EveningState) => s.dispatched?.refused !== undefined },
    ];
    for (const stop of stops) {
      const r = await stoppedAndResumed(same, stop);
      expect(r.state.results).toHaveLength(0);
      expect(r.result).toMatchObject({ ok: true, finished: 'page' });
      expect(r.presses).toEqual(once.presses);
      expect(content(r.book)).toEqual(content(once.book));
    }
  });

  it('with a button named with a secret\'s value: the place kept is masked, and resumed the pick still joins the masked press, the book the uninterrupted one', async () => {
    const masked: Run = {
      screens: screens('More for 4711-77'),
      script: { turns: [[LABEL, button('More for [secret:account]')], [EXPORT], [PRINT], [FINISH]] },
      inputs: [{ name: 'account', value: '4711-77', secret: true }],
    };
    const once = await uninterrupted(masked);
    const r = await stoppedAndResumed(masked, { atLine: (l) => l.kind === 'refusal' && l.code === 'UNLABELLED_SCREEN' });
    expect(JSON.stringify(r.state)).not.toContain('4711-77');
    expect(r.result).toMatchObject({ ok: true, finished: 'page' });
    expect(content(r.book)).toEqual(content(once.book));
    expect(JSON.stringify(r.book.lines)).not.toContain('4711-77');
    expect(lines(r.book).find((l) => l.kind === 'act')).toMatchObject({ verb: 'choose', value: 'Print', control: { name: 'More for [secret:account]' } });
  });
});

/** The open menu's Export opens a submenu showing PDF (a new screen); PDF closes the menu. */
function submenu(): Record<string, FakeScreen> {
  const s = screens();
  const open = s.open as FakeScreen;
  const pdf = control('|c4', 'menuitem', 'PDF');
  const picks = { ...open.picks, '|c4': { button: '|c0', name: 'More', value: 'Export › PDF', opens: false } };
  s.open = { ...open, next: { ...open.next, '|c2': 'open2' }, picks };
  s.open2 = { ...open, controls: [...open.controls, pdf], next: { '|c4': 'page' }, picks };
  return s;
}

/** A list button (Headless UI's Listbox): pressing it shows its options. */
function list(): Record<string, FakeScreen> {
  const queue = control('|c0', 'button', 'Queue', { offers: ['choose'] });
  const claims = control('|c2', 'option', 'Claims', { ancestors: ['listbox'] });
  return {
    page: { controls: [queue], text: 'Page', next: { '|c0': 'open' } },
    open: { controls: [{ ...queue, expanded: true }, claims], text: 'Page', next: { '|c2': 'page' }, picks: { '|c2': { button: '|c0', name: 'Queue', value: 'Claims', opens: false } } },
  };
}

describe('a submenu item that shows no submenu, the process stopped during its press', () => {
  it('the screen unchanged, the press is settled as any press that visibly did nothing (redone, as a navigation is): the book the uninterrupted one', async () => {
    const run: Run = { screens: screens(), script: { turns: [[LABEL, button('More')], [EXPORT], [PRINT], [FINISH]] } };
    const once = await uninterrupted(run);
    const surface = new MenuFakeSurface(run.screens, 'page');
    surface.hangs.add('open|c2');
    const book = new MemoryBook();
    const kept: EveningState[] = [];
    void runEvening(options(run, surface, book, new ScriptedModel(run.script), kept));
    await until(() => surface.log.includes('end invoke |c2'));
    const state = kept.at(-1) as EveningState;
    expect(state).toMatchObject({ dispatched: { line: { control: { name: 'Export' } } }, held: { lines: [{ control: { name: 'More' } }] } });
    surface.hangs.clear();
    const r = await resumeEvening(options(run, surface, book, new ScriptedModel(run.script, 'scripted', state.model), []), { lines: lines(book), state });
    expect(r).toMatchObject({ ok: true, finished: 'page' });
    expect(content(book)).toEqual(content(once.book));
    expect(presses(surface)).toEqual(['start invoke |c0', 'start invoke |c2', 'start invoke |c2', 'start invoke |c3']);
  });
});

/** The open menu's Export shows no submenu, yet its press changes the screen (a submenu toggled shut): Print is still there. */
function toggled(): Record<string, FakeScreen> {
  const s = screens();
  const open = s.open as FakeScreen;
  s.open = { ...open, next: { ...open.next, '|c2': 'open3' } };
  s.open3 = { ...open, next: { '|c3': 'page' } };
  return s;
}

describe('a press that may open a menu or a list, the process stopped during it (the screen moved on, the place not kept again)', () => {
  const cases: { what: string; run: Run; hang: string }[] = [
    { what: 'a menu button', run: { screens: screens(), script: { turns: [[LABEL, button('More')], [PRINT], [FINISH]] } }, hang: 'page|c0' },
    { what: 'a list button', run: { screens: list(), script: { turns: [[LABEL, button('Queue')], [{ tool: 'act', match: "option 'Claims'", verb: 'invoke' }], [FINISH]] } }, hang: 'page|c0' },
    {
      what: 'a held submenu item that opened its submenu',
      run: { screens: submenu(), script: { turns: [[LABEL, button('More')], [EXPORT], [{ tool: 'act', match: "menuitem 'PDF'", verb: 'invoke' }], [FINISH]] } },
      hang: 'open|c2',
    },
    {
      what: "a menu button named with a secret's value (the place kept masked)",
      run: { screens: screens('More for 4711-77'), script: { turns: [[LABEL, button('More for [secret:account]')], [PRINT], [FINISH]] }, inputs: [{ name: 'account', value: '4711-77', secret: true }] },
      hang: 'page|c0',
    },
    { what: 'a held submenu item that showed no submenu (toggled shut)', run: { screens: toggled(), script: { turns: [[LABEL, button('More')], [EXPORT], [PRINT], [FINISH]] } }, hang: 'open|c2' },
  ];
  for (const c of cases) {
    it(`${c.what}: resumed, the press is held again as the lost process held it: the book the uninterrupted one, never pressed again`, async () => {
      const once = await uninterrupted(c.run);
      const surface = new MenuFakeSurface(c.run.screens, 'page');
      surface.hangs.add(c.hang);
      const book = new MemoryBook();
      const kept: EveningState[] = [];
      void runEvening(options(c.run, surface, book, new ScriptedModel(c.run.script), kept));
      const ref = c.hang.slice(c.hang.indexOf('|'));
      await until(() => surface.log.includes(`end invoke ${ref}`));
      const state = kept.at(-1) as EveningState;
      expect(state.dispatched).toMatchObject({ line: { control: { ref } }, opening: { row: expect.stringContaining('invoke') as unknown } });
      expect(JSON.stringify(kept)).not.toContain('4711-77');
      surface.hangs.clear();
      const r = await resumeEvening(options(c.run, surface, book, new ScriptedModel(c.run.script, 'scripted', state.model), []), { lines: lines(book), state });
      expect(r).toMatchObject({ ok: true, finished: 'page' });
      expect(presses(surface)).toEqual(once.presses);
      expect(content(book)).toEqual(content(once.book));
      expect(JSON.stringify(book.lines)).not.toContain('4711-77');
    });
  }

  it('a host that does not keep held presses (no holding hook: the extension\'s clerk sessions) has the press written as it was', async () => {
    const surface = new MenuFakeSurface(screens(), 'page');
    const book = new MemoryBook();
    const dispatched: Dispatch[] = [];
    const guard = new Guard({
      surface,
      owner: nobody,
      book,
      masker: Masker.forInputs([]),
      goal: 'print',
      inputs: [],
      writes: { origins: ['http://app.test'], ignore: [] },
      dispatching: (d) => Promise.resolve(void dispatched.push(d)),
    });
    const { menu } = await guard.show();
    await guard.handle({ id: 'a', name: 'assert_screen', input: { label: 'page', title: 'Page' } });
    const more = menu.find((r) => r.verb === 'invoke' && r.control.name === 'More');
    expect(await guard.handle({ id: 'b', name: 'act', input: { row: more?.n, verb: 'invoke' } })).toMatchObject({ ok: true, text: expect.stringContaining('opened its menu') as unknown });
    expect(dispatched).toHaveLength(1);
    expect(dispatched[0]?.opening).toBeUndefined();
    // A second guard, as after a stop during the press: the screen moved on, so it happened, and is written.
    const again = new Guard({ surface, owner: nobody, book, masker: Masker.forInputs([]), goal: 'print', inputs: [], resume: lines(book), writes: { origins: ['http://app.test'], ignore: [] } });
    await again.show();
    expect(await again.recover(dispatched[0] as Dispatch)).toBe('written');
    expect(lines(book).map((l) => (l.kind === 'act' ? `${l.verb} ${l.control.name}` : l.kind))).toEqual(['label', 'invoke More']);
  });
});
