// A model's press on a menu button and then on an item of its menu is one choose step in the book, whatever comes between that is no act (a refused call), and after a stop between the two presses (a host that keeps the evening's place, refusals written after it too); anything else writes the press as it was; a submenu item pressed is held while its submenu shows and kept if it does not; a checked checkbox item is no pick; the page's writes are watched around a refused item; where writes cannot be held the owner is asked before the button; a card's pick by a path names an item at each level.
import { describe, expect, it } from 'vitest';
import { resumeEvening, runEvening, type EveningOptions, type EveningState } from '../../shared/author/evening.ts';
import type { Model, ModelTurn, Owner, ToolCall } from '../../shared/author/ports.ts';
import { ScriptedModel, type Script } from '../../shared/author/scripted.ts';
import { compile } from '../../shared/compile/compile.ts';
import { Capability, type CapabilityInput } from '../../shared/schema/capability.ts';
import { TraceLine } from '../../shared/schema/trace.ts';
import type { Control } from '../../shared/schema/observation.ts';
import { control, MemoryBook, MenuFakeSurface, StoppingBook, until, watchedEvening, type FakeScreen } from '../fixtures/author/fake-surface.ts';
import { minimalCard } from '../fixtures/cards/minimal.ts';

const nobody: Owner = { ask: () => Promise.reject(new Error('opening a menu and picking in it writes nothing: nobody is asked')) };

/** A page with a menu button; pressing it shows its menu; either item closes it. */
function screens(): Record<string, FakeScreen> {
  const more = control('|c0', 'button', 'More', { offers: ['choose'] });
  return {
    page: { controls: [more, control('|c1', 'link', 'Help')], text: 'Page', next: { '|c0': 'open' } },
    open: {
      controls: [{ ...more, expanded: true }, control('|c1', 'link', 'Help'), control('|c2', 'menuitem', 'Export'), control('|c3', 'menuitem', 'Print')],
      text: 'Page',
      next: { '|c0': 'page', '|c2': 'page', '|c3': 'page' },
      picks: { '|c2': { button: '|c0', name: 'More', value: 'Export', opens: false }, '|c3': { button: '|c0', name: 'More', value: 'Print', opens: false } },
    },
  };
}

function options(surface: MenuFakeSurface, book: MemoryBook, model: Model, keep: EveningState[] = []): EveningOptions {
  return watchedEvening(surface, book, model, { owner: nobody, goal: 'print', keep });
}

const lines = (book: MemoryBook): TraceLine[] => book.lines.map((l) => TraceLine.parse(l));
const shape = (ls: readonly TraceLine[]): string[] =>
  ls.map((l) => (l.kind === 'act' ? `act ${l.verb} ${l.control.name}${l.value !== undefined ? ` "${l.value}"` : ''}` : l.kind === 'label' ? `label ${l.label}` : l.kind === 'refusal' ? `refusal ${l.code}` : l.kind));

const LABEL = { tool: 'assert_screen', label: 'page', title: 'Page' } as const;
const BUTTON = { tool: 'act', match: "button 'More'", verb: 'invoke' } as const;
const PRINT = { tool: 'act', match: "menuitem 'Print'", verb: 'invoke' } as const;
const FINISH = { tool: 'finish', label: 'page' } as const;

/** A model that answers `turns` turns of the script and is then asked for the next and never answers: the process stops there. */
function stoppingAfter(script: Script, turns: number): Model & { stopped: boolean } {
  const first = new ScriptedModel(script);
  const model = {
    name: 'scripted',
    stopped: false,
    save: () => first.save(),
    next: (turn: ModelTurn): Promise<ToolCall[]> => {
      if (turn.turn <= turns) return first.next(turn);
      model.stopped = true;
      return new Promise<ToolCall[]>(() => undefined);
    },
  };
  return model;
}

describe('a menu opened and picked in by a model', () => {
  it('a call refused between the two presses (the rest of the turn that opened the menu) keeps them one step', async () => {
    const book = new MemoryBook();
    const script: Script = { turns: [[LABEL, BUTTON, PRINT], [PRINT], [FINISH]] };
    const r = await runEvening(options(new MenuFakeSurface(screens(), 'page'), book, new ScriptedModel(script)));
    expect(r).toMatchObject({ ok: true, finished: 'page' });
    expect(shape(lines(book))).toEqual(['start', 'label page', 'refusal SCREEN_CHANGED', 'act choose More "Print"', 'finish', 'end']);
    const compiled = compile(lines(book), { id: 'print' });
    expect(compiled.ok ? compiled.card.steps.map((s) => s.op) : compiled.holes).toEqual([{ verb: 'choose', value: 'Print' }]);
  });

  it('pressing the button again (closing the menu) writes both presses as they were', async () => {
    const book = new MemoryBook();
    const script: Script = { turns: [[LABEL, BUTTON], [{ tool: 'assert_screen', label: 'open', title: 'Open' }], [BUTTON], [FINISH]] };
    const r = await runEvening(options(new MenuFakeSurface(screens(), 'page'), book, new ScriptedModel(script)));
    expect(r).toMatchObject({ ok: true });
    expect(shape(lines(book))).toEqual(['start', 'label page', 'act invoke More', 'label open', 'act invoke More', 'finish', 'end']);
  });

  it('an evening that ends between the presses writes the press before its end line', async () => {
    const book = new MemoryBook();
    const r = await runEvening(options(new MenuFakeSurface(screens(), 'page'), book, new ScriptedModel({ turns: [[LABEL, BUTTON]] })));
    expect(r).toMatchObject({ ok: false, code: 'NO_FINISH' });
    expect(shape(lines(book))).toEqual(['start', 'label page', 'act invoke More', 'end']);
  });

  it('stopped between the two presses, the host keeps the held press with the evening: resumed, the pick is still one step', async () => {
    const surface = new MenuFakeSurface(screens(), 'page');
    const book = new MemoryBook();
    const kept: EveningState[] = [];
    const script: Script = { turns: [[LABEL, BUTTON], [PRINT], [FINISH]] };
    // The first process: its model answers the first turn and then never again (the process stops there).
    const stopping = stoppingAfter(script, 1);
    void runEvening(options(surface, book, stopping, kept));
    await until(() => stopping.stopped);
    const before = lines(book);
    expect(shape(before)).toEqual(['start', 'label page']);
    const state = kept.at(-1) as EveningState;
    expect(state.held?.lines.map((l) => `${l.verb} ${l.control.name}`)).toEqual(['invoke More']);

    const r = await resumeEvening(options(surface, book, new ScriptedModel(script, 'scripted', state.model)), { lines: before, state });
    expect(r).toMatchObject({ ok: true, finished: 'page' });
    const all = lines(book);
    expect(shape(all)).toEqual(['start', 'label page', 'act choose More "Print"', 'finish', 'end']);
    expect(all.map((l) => l.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(all.find((l) => l.kind === 'act')).toMatchObject({ presses: [{ role: 'button', name: 'More' }, { role: 'menuitem', name: 'Print' }] });
  });
});

describe('a modal menu, which hides its button while open (Radix, MUI)', () => {
  /** The open menu hides the rest of the page: its button is on no menu row, and the page names it by its name. */
  function modal(buttonName: string): Record<string, FakeScreen> {
    const s = screens();
    s.open = {
      controls: [control('|c2', 'menuitem', 'Export'), control('|c3', 'menuitem', 'Print')],
      text: 'Page',
      next: { '|c2': 'page', '|c3': 'page' },
      picks: { '|c3': { button: '|f0', name: buttonName, value: 'Print', opens: false } },
    };
    return s;
  }
  it('the button the page says opened the menu is known by its name: one choose', async () => {
    const book = new MemoryBook();
    const r = await runEvening(options(new MenuFakeSurface(modal('More'), 'page'), book, new ScriptedModel({ turns: [[LABEL, BUTTON], [PRINT], [FINISH]] })));
    expect(r).toMatchObject({ ok: true });
    expect(shape(lines(book))).toEqual(['start', 'label page', 'act choose More "Print"', 'finish', 'end']);
  });

  it('another name is another button: no pair, so the item is refused on the unlabelled open menu, and the press is kept', async () => {
    const book = new MemoryBook();
    const r = await runEvening(options(new MenuFakeSurface(modal('Less'), 'page'), book, new ScriptedModel({ turns: [[LABEL, BUTTON], [PRINT], [FINISH]] })));
    expect(r).toMatchObject({ ok: false, code: 'NO_FINISH' });
    // Refusals do not end a hold (nothing happened on the screen), so the press is written after them, at the end.
    expect(shape(lines(book))).toEqual(['start', 'label page', 'refusal UNLABELLED_SCREEN', 'refusal NOT_SHOWING', 'act invoke More', 'end']);
  });
});

describe('a pick the process stopped during', () => {
  it('the item was pressed (the menu closed): resumed, the one choose is written, the press not made again', async () => {
    const surface = new MenuFakeSurface(screens(), 'page');
    surface.hangs.add('open|c3');
    const book = new MemoryBook();
    const kept: EveningState[] = [];
    const script: Script = { turns: [[LABEL, BUTTON], [PRINT], [FINISH]] };
    void runEvening(options(surface, book, new ScriptedModel(script), kept));
    await until(() => kept.at(-1)?.dispatched?.line.verb === 'choose' && surface.log.includes('end invoke |c3'));
    const state = kept.at(-1) as EveningState;
    expect(state.dispatched?.line).toMatchObject({ verb: 'choose', value: 'Print' });
    expect(surface.screen).toBe('page');

    surface.hangs.clear();
    const r = await resumeEvening(options(surface, book, new ScriptedModel(script, 'scripted', state.model)), { lines: lines(book), state });
    expect(r).toMatchObject({ ok: true, finished: 'page' });
    expect(shape(lines(book))).toEqual(['start', 'label page', 'act choose More "Print"', 'finish', 'end']);
    expect(surface.log.filter((l) => l.startsWith('start invoke'))).toEqual(['start invoke |c0', 'start invoke |c3']);
  });

  it('the menu still shows: whether the item was pressed cannot be told, so nothing is pressed again and the presses are kept', async () => {
    const surface = new MenuFakeSurface(screens(), 'page');
    const book = new MemoryBook();
    const kept: EveningState[] = [];
    const script: Script = { turns: [[LABEL, BUTTON], [PRINT], [FINISH]] };
    // The press on the item never arrives at the page: the screen stays on the open menu.
    surface.screens.open = { ...(surface.screens.open as FakeScreen), next: { '|c0': 'page', '|c2': 'page' } };
    surface.hangs.add('open|c3');
    void runEvening(options(surface, book, new ScriptedModel(script), kept));
    await until(() => kept.at(-1)?.dispatched?.line.verb === 'choose' && surface.log.includes('end invoke |c3'));
    const state = kept.at(-1) as EveningState;
    surface.hangs.clear();
    const r = await resumeEvening(options(surface, book, new ScriptedModel(script, 'scripted', state.model)), { lines: lines(book), state });
    expect(r).toMatchObject({ ok: false, code: 'PRESS_UNCERTAIN' });
    expect(shape(lines(book))).toEqual(['start', 'label page', 'act invoke More', 'end']);
  });
});

describe('a pick by a path on a card', () => {
  it('loads with a name at each level (a blank too), and not with an empty level, naming the step\'s value', () => {
    const card = minimalCard() as CapabilityInput & { targets: Record<string, { supports: string[] }> };
    const t = card.targets['password_field'];
    if (t) t.supports = ['invoke', 'choose'];
    card.outputs = {};
    card.outcomes = { success: { screens: ['signon'] } };
    for (const [value, loads] of [['Export', true], ['Export › PDF', true], ['Export › {{input.password}}', true], ['Export ›  › PDF', false], [' › PDF', false]] as const) {
      card.steps = [{ id: 'only', screen: 'signon', op: { verb: 'choose', value }, target: 'password_field', effect: { kind: 'stage' } }];
      const loaded = Capability.safeParse(card);
      expect(loaded.success, value).toBe(loads);
      if (!loaded.success) {
        expect(loaded.error.issues).toContainEqual(expect.objectContaining({ path: ['steps', 0, 'op', 'value'], message: expect.stringContaining('this one has an empty level') as unknown }));
      }
    }
  });
});

describe('what the page and the model do around a held press', () => {
  /** The open menu of screens() with an item no button's menu reaches (`Other`: the page answers no pick for it). */
  function withOther(): Record<string, FakeScreen> {
    const s = screens();
    const open = s.open as FakeScreen;
    s.open = { ...open, controls: [...open.controls, control('|c4', 'menuitem', 'Other')], next: { ...open.next, '|c4': 'page' } };
    return s;
  }

  it('a page write while the model thinks, after an item press was refused on the open menu, is an UNASKED_WRITE line (the watch between actions stays on)', async () => {
    const surface = new MenuFakeSurface(withOther(), 'page');
    const book = new MemoryBook();
    const scripted = new ScriptedModel({ turns: [[LABEL, BUTTON], [{ tool: 'act', match: "menuitem 'Other'", verb: 'invoke' }], [PRINT], [FINISH]] });
    const model: Model = {
      name: 'scripted',
      next: (turn: ModelTurn): Promise<ToolCall[]> => {
        // An autosave the page sends while the model thinks about its third turn.
        if (turn.turn === 3) surface.pageSends({ method: 'POST', url: 'http://app.test/autosave', via: 'request' });
        return scripted.next(turn);
      },
    };
    await runEvening(options(surface, book, model));
    const all = lines(book);
    expect(shape(all).slice(0, 5)).toEqual(['start', 'label page', 'refusal UNLABELLED_SCREEN', 'act invoke More', 'refusal UNASKED_WRITE']);
    expect(all[4]).toMatchObject({ tool: 'page', message: expect.stringContaining('POST http://app.test/autosave') as unknown });
  });

  it('stopped after the item press was refused in the turn that opened the menu (a refusal line beyond the kept place): resumed, the press is still held and the pick is one step', async () => {
    const surface = new MenuFakeSurface(screens(), 'page');
    const book = new MemoryBook();
    const kept: EveningState[] = [];
    const script: Script = { turns: [[LABEL, BUTTON, PRINT], [PRINT], [FINISH]] };
    const stopping = stoppingAfter(script, 1);
    void runEvening(options(surface, book, stopping, kept));
    await until(() => stopping.stopped);
    const written = lines(book);
    expect(shape(written)).toEqual(['start', 'label page', 'refusal SCREEN_CHANGED']);
    // The stop came after the refusal line was written and before the place was kept again.
    const state = kept.find((s) => s.results.length === 2) as EveningState;
    expect(state.lines).toBe(2);
    const r = await resumeEvening(options(surface, book, new ScriptedModel(script, 'scripted', state.model)), { lines: written, state });
    expect(r).toMatchObject({ ok: true, finished: 'page' });
    expect(shape(lines(book))).toEqual(['start', 'label page', 'refusal SCREEN_CHANGED', 'act choose More "Print"', 'finish', 'end']);
  });

  it('stopped just after the line the page\'s write made the item press write (the held press first): resumed, that line answers no call, the item press is run again, the book as if never stopped', async () => {
    const script: Script = { turns: [[LABEL, BUTTON], [PRINT], [{ tool: 'assert_screen', label: 'more_menu', title: 'More menu' }, PRINT], [FINISH]] };
    /** An autosave the page sends while the model thinks about its second turn, with the menu open. */
    const autosaving = (surface: MenuFakeSurface, model: Model): Model => ({
      name: 'scripted',
      save: () => model.save?.(),
      next: (turn: ModelTurn): Promise<ToolCall[]> => {
        if (turn.turn === 2) surface.pageSends({ method: 'POST', url: 'http://app.test/autosave', via: 'request' });
        return model.next(turn);
      },
    });
    const whole = new MemoryBook();
    const once = new MenuFakeSurface(screens(), 'page');
    expect(await runEvening(options(once, whole, autosaving(once, new ScriptedModel(script))))).toMatchObject({ ok: true, finished: 'page' });
    const expected = shape(lines(whole));
    expect(expected).toEqual(['start', 'label page', 'act invoke More', 'refusal UNASKED_WRITE', 'refusal UNLABELLED_SCREEN', 'label more_menu', 'act invoke Print', 'finish', 'end']);

    const surface = new MenuFakeSurface(screens(), 'page');
    const book = new StoppingBook((l) => l.kind === 'refusal' && l.tool === 'page');
    const kept: EveningState[] = [];
    void runEvening(options(surface, book, autosaving(surface, new ScriptedModel(script)), kept));
    await until(() => book.stopped);
    const written = lines(book);
    expect(shape(written)).toEqual(['start', 'label page', 'act invoke More', 'refusal UNASKED_WRITE']);
    const state = kept.at(-1) as EveningState;
    expect(state).toMatchObject({ lines: 2, held: { lines: [{ verb: 'invoke' }] }, results: [] });
    const r = await resumeEvening(options(surface, book, new ScriptedModel(script, 'scripted', state.model)), { lines: written, state });
    expect(r).toMatchObject({ ok: true, finished: 'page' });
    expect(shape(lines(book))).toEqual(expected);
  });

  it('a refusal and then an act beyond the kept place: the press was written (first), so it is not held again', async () => {
    const surface = new MenuFakeSurface(screens(), 'page');
    const book = new MemoryBook();
    const kept: EveningState[] = [];
    const script: Script = { turns: [[LABEL, BUTTON], [{ tool: 'act', match: "link 'Help'", verb: 'invoke' }, { tool: 'assert_screen', label: 'open', title: 'Open' }], [FINISH]] };
    const stopping = stoppingAfter(script, 2);
    void runEvening(options(surface, book, stopping, kept));
    await until(() => stopping.stopped);
    const written = lines(book);
    expect(shape(written)).toEqual(['start', 'label page', 'refusal UNLABELLED_SCREEN', 'act invoke More', 'label open']);
    // The place kept when turn 2 began: the press still held, the book at 2 lines.
    const state = kept.find((s) => s.turns === 2 && s.results.length === 0) as EveningState;
    expect(state).toMatchObject({ lines: 2, held: { lines: [{ verb: 'invoke' }] } });
    const r = await resumeEvening(options(surface, book, new ScriptedModel(script, 'scripted', state.model)), { lines: written, state });
    expect(r).toMatchObject({ ok: false, code: 'NO_FINISH' });
    expect(shape(lines(book)).filter((s) => s === 'act invoke More')).toHaveLength(1);
  });
});

describe('a submenu item pressed', () => {
  const more = control('|c0', 'button', 'More', { offers: ['choose'] });
  const EXPORT = { tool: 'act', match: "menuitem 'Export'", verb: 'invoke' } as const;

  it('whose submenu already shows (opened on hover): the press shows no new item, and the pick below it is still one choose that compiles', async () => {
    const open = [{ ...more, expanded: true }, control('|c2', 'menuitem', 'Export'), control('|c3', 'menuitem', 'PDF')];
    const picks = { '|c2': { button: '|c0', name: 'More', value: 'Export', opens: true }, '|c3': { button: '|c0', name: 'More', value: 'Export › PDF', opens: false } };
    const s: Record<string, FakeScreen> = {
      page: { controls: [more], text: 'Page', next: { '|c0': 'open' } },
      open: { controls: open, text: 'Page', next: { '|c2': 'open2', '|c3': 'page' }, picks },
      open2: { controls: open, text: 'Page ', next: { '|c3': 'page' }, picks },
    };
    const book = new MemoryBook();
    const script: Script = { turns: [[LABEL, BUTTON], [EXPORT], [{ tool: 'act', match: "menuitem 'PDF'", verb: 'invoke' }], [FINISH]] };
    const r = await runEvening(options(new MenuFakeSurface(s, 'page'), book, new ScriptedModel(script)));
    expect(r).toMatchObject({ ok: true, finished: 'page' });
    expect(shape(lines(book))).toEqual(['start', 'label page', 'act choose More "Export › PDF"', 'finish', 'end']);
    const compiled = compile(lines(book), { id: 'pdf' });
    expect(compiled.ok ? compiled.card.steps.map((st) => st.op) : compiled.holes).toEqual([{ verb: 'choose', value: 'Export › PDF' }]);
  });

  it('that opens nothing is refused, not written on the unlabelled menu: its press is kept with the others, and the pick after it is one choose listing all three', async () => {
    const s = screens();
    const open = s.open as FakeScreen;
    // Export is a submenu item whose press shows nothing (its submenu fails to open): the screen stays as it was.
    s.open = { ...open, next: { '|c0': 'page', '|c3': 'page' }, picks: { ...open.picks, '|c2': { button: '|c0', name: 'More', value: 'Export', opens: true } } };
    const book = new MemoryBook();
    const script: Script = { turns: [[LABEL, BUTTON], [EXPORT], [PRINT], [FINISH]] };
    const r = await runEvening(options(new MenuFakeSurface(s, 'page'), book, new ScriptedModel(script)));
    expect(r).toMatchObject({ ok: true, finished: 'page' });
    const all = lines(book);
    expect(shape(all)).toEqual(['start', 'label page', 'refusal UNLABELLED_SCREEN', 'act choose More "Print"', 'finish', 'end']);
    expect(all[2]).toMatchObject({ message: expect.stringContaining("menuitem 'Export' showed no submenu") as unknown });
    expect(all[3]).toMatchObject({ presses: [{ role: 'button', name: 'More' }, { role: 'menuitem', name: 'Export' }, { role: 'menuitem', name: 'Print' }] });
    expect(compile(all, { id: 'print' }).ok).toBe(true);
  });

  it('that opens nothing, then the open menu named as the refusal advises: the presses are written as they were on the named screen, and the book compiles', async () => {
    const s = screens();
    const open = s.open as FakeScreen;
    s.open = { ...open, next: { '|c0': 'page', '|c3': 'page' }, picks: { ...open.picks, '|c2': { button: '|c0', name: 'More', value: 'Export', opens: true } } };
    const book = new MemoryBook();
    const script: Script = { turns: [[LABEL, BUTTON], [EXPORT], [{ tool: 'assert_screen', label: 'more_menu', title: 'More' }], [PRINT], [FINISH]] };
    const r = await runEvening(options(new MenuFakeSurface(s, 'page'), book, new ScriptedModel(script)));
    expect(r).toMatchObject({ ok: true, finished: 'page' });
    const all = lines(book);
    expect(shape(all)).toEqual(['start', 'label page', 'refusal UNLABELLED_SCREEN', 'act invoke More', 'label more_menu', 'act invoke Export', 'act invoke Print', 'finish', 'end']);
    // The press on the open menu was made there, and that screen is now named: its line says so.
    // The press that opened the menu (landing on a screen not named yet, as in any evening), its label, then the
    // press made on the named menu.
    expect(all[3]).toMatchObject({ before: { label: 'page' }, after: { label: null } });
    expect(all[5]).toMatchObject({ before: { label: 'more_menu' }, after: { label: 'more_menu' } });
    const compiled = compile(all, { id: 'print' });
    expect(compiled.ok ? compiled.card.steps.map((st) => st.op.verb) : JSON.stringify(compiled.holes)).toEqual(['invoke', 'invoke', 'invoke']);
  });
});

describe('a checked menuitemcheckbox pressed', () => {
  function boxes(value: 'checked' | 'unchecked'): Record<string, FakeScreen> {
    const s = screens();
    const open = s.open as FakeScreen;
    s.open = {
      ...open,
      controls: [...open.controls, control('|c4', 'menuitemcheckbox', 'Archived', { value })],
      next: { ...open.next, '|c4': 'page' },
      picks: { ...open.picks, '|c4': { button: '|c0', name: 'More', value: 'Archived', opens: false } },
    };
    return s;
  }
  const ARCHIVED = { tool: 'act', match: "menuitemcheckbox 'Archived'", verb: 'invoke' } as const;

  it('is no pick (choose ensures an item checked; this press unchecks it): refused on the open menu, the press kept, and written as they were once the screen is named', async () => {
    const book = new MemoryBook();
    const script: Script = { turns: [[LABEL, BUTTON], [ARCHIVED], [{ tool: 'assert_screen', label: 'more_menu', title: 'More menu' }, ARCHIVED], [FINISH]] };
    const r = await runEvening(options(new MenuFakeSurface(boxes('checked'), 'page'), book, new ScriptedModel(script)));
    expect(r).toMatchObject({ ok: true, finished: 'page' });
    expect(shape(lines(book))).toEqual(['start', 'label page', 'refusal UNLABELLED_SCREEN', 'act invoke More', 'label more_menu', 'act invoke Archived', 'finish', 'end']);
  });

  it('unchecked, it is a pick like any item: one choose', async () => {
    const book = new MemoryBook();
    const r = await runEvening(options(new MenuFakeSurface(boxes('unchecked'), 'page'), book, new ScriptedModel({ turns: [[LABEL, BUTTON], [ARCHIVED], [FINISH]] })));
    expect(r).toMatchObject({ ok: true });
    expect(shape(lines(book))).toEqual(['start', 'label page', 'act choose More "Archived"', 'finish', 'end']);
  });
});

/** A menu surface like the extension's: it sees writes and holds none (each reported `unasked`). */
class UnheldMenuSurface extends MenuFakeSurface {
  readonly writesUnheld = true;
}

describe('a menu button on a surface that cannot hold writes (the extension)', () => {
  function asking(asked: string[], answer: 'commit' | 'navigate' | 'stage'): Owner {
    return { ask: (q) => (asked.push(q.control), Promise.resolve({ answer, name: 'Olive Owner' })) };
  }

  it('that also saves: the owner is asked before the press, and the write goes out as the commit they confirmed, not unasked', async () => {
    const s = screens();
    s.page = { ...(s.page as FakeScreen), sends: { '|c0': { method: 'POST', url: 'http://app.test/save', via: 'request', held: false } } };
    const book = new MemoryBook();
    const asked: string[] = [];
    const r = await runEvening({ ...options(new UnheldMenuSurface(s, 'page'), book, new ScriptedModel({ turns: [[LABEL, BUTTON], [{ tool: 'assert_screen', label: 'open', title: 'Open' }], [FINISH]] })), owner: asking(asked, 'commit') });
    expect(r).toMatchObject({ ok: false });
    expect(asked).toEqual(["button 'More'"]);
    expect(lines(book).find((l) => l.kind === 'act')).toMatchObject({ verb: 'invoke', effect: { kind: 'commit', by: 'owner' }, writes: [{ url: 'http://app.test/save', fate: 'allowed' }] });
  });

  it('that writes nothing: asked about before the press, held, and the item asked about too: one choose', async () => {
    const book = new MemoryBook();
    const asked: string[] = [];
    const r = await runEvening({ ...options(new UnheldMenuSurface(screens(), 'page'), book, new ScriptedModel({ turns: [[LABEL, BUTTON], [PRINT], [FINISH]] })), owner: asking(asked, 'stage') });
    expect(r).toMatchObject({ ok: true });
    expect(asked).toEqual(["button 'More'", "menuitem 'Print'"]);
    expect(shape(lines(book))).toEqual(['start', 'label page', 'act choose More "Print"', 'finish', 'end']);
  });
});

describe('the page writing while the item press is under way', () => {
  const AUTOSAVE = { method: 'POST', url: 'http://app.test/autosave', via: 'request' } as const;

  it('while the owner is asked about the item (where writes cannot be held): the hold ends — the press written as it was, the page\'s write, the item refused on the unnamed menu — never the press twice', async () => {
    const surface = new UnheldMenuSurface(screens(), 'page');
    const book = new MemoryBook();
    let sent = false;
    const owner: Owner = {
      ask: (q) => {
        // The page autosaves while the owner thinks about the item, the first time.
        if (q.control === "menuitem 'Print'" && !sent) {
          sent = true;
          surface.pageSends(AUTOSAVE);
        }
        return Promise.resolve({ answer: 'stage', name: 'Olive Owner' });
      },
    };
    const script: Script = { turns: [[LABEL, BUTTON], [PRINT], [{ tool: 'assert_screen', label: 'more_menu', title: 'More menu' }, PRINT], [FINISH]] };
    const r = await runEvening({ ...options(surface, book, new ScriptedModel(script)), owner });
    expect(r).toMatchObject({ ok: true, finished: 'page' });
    expect(shape(lines(book))).toEqual(['start', 'label page', 'act invoke More', 'refusal UNASKED_WRITE', 'refusal UNLABELLED_SCREEN', 'label more_menu', 'act invoke Print', 'finish', 'end']);
  });

  it('just before the item is pressed (while its place is kept): the press is written once, in the one choose, after the page\'s write', async () => {
    const surface = new MenuFakeSurface(screens(), 'page');
    const book = new MemoryBook();
    const o = options(surface, book, new ScriptedModel({ turns: [[LABEL, BUTTON], [PRINT], [FINISH]] }));
    const keep = o.checkpoint as NonNullable<EveningOptions['checkpoint']>;
    const r = await runEvening({
      ...o,
      checkpoint: (st) => {
        if (st.dispatched?.line.verb === 'choose') surface.pageSends(AUTOSAVE);
        return keep(st);
      },
    });
    expect(r).toMatchObject({ ok: true, finished: 'page' });
    expect(shape(lines(book))).toEqual(['start', 'label page', 'refusal UNASKED_WRITE', 'act choose More "Print"', 'finish', 'end']);
  });

  it('stopped just after that write\'s line, before the item was pressed: resumed, the presses are still held, and the menu still showing, nothing is pressed again (PRESS_UNCERTAIN) and the press is written as it was', async () => {
    const surface = new MenuFakeSurface(screens(), 'page');
    const book = new StoppingBook((l) => l.kind === 'refusal' && l.tool === 'page');
    const kept: EveningState[] = [];
    const script: Script = { turns: [[LABEL, BUTTON], [PRINT], [FINISH]] };
    const o = options(surface, book, new ScriptedModel(script), kept);
    const keep = o.checkpoint as NonNullable<EveningOptions['checkpoint']>;
    void runEvening({
      ...o,
      checkpoint: (st) => {
        if (st.dispatched?.line.verb === 'choose') surface.pageSends(AUTOSAVE);
        return keep(st);
      },
    });
    await until(() => book.stopped);
    const state = kept.at(-1) as EveningState;
    expect(state).toMatchObject({ lines: 2, held: { lines: [{ verb: 'invoke' }] }, dispatched: { line: { verb: 'choose' } } });
    expect(surface.screen).toBe('open');
    const r = await resumeEvening(options(surface, book, new ScriptedModel(script, 'scripted', state.model)), { lines: lines(book), state });
    expect(r).toMatchObject({ ok: false, code: 'PRESS_UNCERTAIN' });
    expect(shape(lines(book))).toEqual(['start', 'label page', 'refusal UNASKED_WRITE', 'act invoke More', 'end']);
    expect(surface.log.filter((l) => l.startsWith('start invoke'))).toEqual(['start invoke |c0']);
  });
});

describe('a menu button whose name holds a secret\'s value', () => {
  it('joins with its item, in one process and after a resume between the presses (the kept press is masked)', async () => {
    const s = screens();
    const named = (c: Control): Control => (c.ref === '|c0' ? { ...c, name: 'More for 4711-77' } : c);
    for (const k of ['page', 'open'] as const) s[k] = { ...(s[k] as FakeScreen), controls: (s[k] as FakeScreen).controls.map(named) };
    s.open = { ...(s.open as FakeScreen), picks: { '|c3': { button: '|c0', name: 'More for 4711-77', value: 'Print', opens: false } } };
    const inputs = [{ name: 'account', value: '4711-77', secret: true }];
    const button = { tool: 'act', match: "button 'More for [secret:account]'", verb: 'invoke' } as const;
    const script: Script = { turns: [[LABEL, button], [PRINT], [FINISH]] };

    const book = new MemoryBook();
    const scripted = new ScriptedModel(script);
    const seen: ModelTurn[] = [];
    const watched: Model = { name: 'scripted', next: (turn: ModelTurn): Promise<ToolCall[]> => (seen.push(turn), scripted.next(turn)) };
    const r = await runEvening({ ...options(new MenuFakeSurface(s, 'page'), book, watched), inputs });
    expect(r).toMatchObject({ ok: true });
    expect(shape(lines(book))).toEqual(['start', 'label page', 'act choose More for [secret:account] "Print"', 'finish', 'end']);
    // What the model is told of each call is masked as its screens are.
    expect(JSON.stringify(seen)).not.toContain('4711-77');
    expect(JSON.stringify(seen)).toContain("written as one step with the presses that opened its menu: choose button 'More for [secret:account]'");

    const surface = new MenuFakeSurface(s, 'page');
    const book2 = new MemoryBook();
    const kept: EveningState[] = [];
    const stopping = stoppingAfter(script, 1);
    void runEvening({ ...options(surface, book2, stopping, kept), inputs });
    await until(() => stopping.stopped);
    const state = kept.at(-1) as EveningState;
    expect(JSON.stringify(state)).not.toContain('4711-77');
    const r2 = await resumeEvening({ ...options(surface, book2, new ScriptedModel(script, 'scripted', state.model)), inputs }, { lines: lines(book2), state });
    expect(r2).toMatchObject({ ok: true });
    expect(shape(lines(book2))).toEqual(['start', 'label page', 'act choose More for [secret:account] "Print"', 'finish', 'end']);
  });
});

describe('every answer the model reads is masked, refusals too', () => {
  it('the owner cancelling, or not answering, the press on a button named with a secret\'s value (the extension asks before it): the refusal the model reads names it masked', async () => {
    const s = screens();
    const named = (c: Control): Control => (c.ref === '|c0' ? { ...c, name: 'More for 4711-77' } : c);
    for (const k of ['page', 'open'] as const) s[k] = { ...(s[k] as FakeScreen), controls: (s[k] as FakeScreen).controls.map(named) };
    const inputs = [{ name: 'account', value: '4711-77', secret: true }];
    const button = { tool: 'act', match: "button 'More for [secret:account]'", verb: 'invoke' } as const;
    const owners: Record<string, Owner> = {
      cancel: { ask: () => Promise.resolve({ answer: 'cancel', name: 'Olive Owner' } as never) },
      timeout: { ask: () => new Promise(() => undefined) },
    };
    for (const [why, owner] of Object.entries(owners)) {
      const book = new MemoryBook();
      const scripted = new ScriptedModel({ turns: [[LABEL, button], [FINISH]] });
      const seen: string[] = [];
      const watched: Model = { name: 'scripted', next: (turn: ModelTurn): Promise<ToolCall[]> => (seen.push(...turn.results.map((x) => x.text)), scripted.next(turn)) };
      await runEvening({ ...options(new UnheldMenuSurface(s, 'page'), book, watched), inputs, owner, ownerTimeoutMs: 50 });
      const refused = seen.filter((t) => t.startsWith('refused'));
      expect(refused.length, why).toBeGreaterThan(0);
      expect(refused.join('\n'), why).toContain('[secret:account]');
      expect(JSON.stringify(seen), why).not.toContain('4711-77');
      expect(JSON.stringify(book.lines), why).not.toContain('4711-77');
    }
  });
});

