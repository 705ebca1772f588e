// A model's press on a button that opens a list (Headless UI's Listbox: aria-haspopup=listbox), or a key pressed on a combobox that opens its list (MUI's Select), and then a press on an option of that list is one choose step on the control with the option's name, as a menu button and its item are: opening is watched, not asked about; anything else writes the press as it was, first; a held press survives a restart.
import { describe, expect, it } from 'vitest';
import { resumeEvening, runEvening, type EveningOptions, type EveningState } from '../../shared/author/evening.ts';
import type { Model, Owner } from '../../shared/author/ports.ts';
import { ScriptedModel, type Script } from '../../shared/author/scripted.ts';
import { compile } from '../../shared/compile/compile.ts';
import { TraceLine } from '../../shared/schema/trace.ts';
import { control, MemoryBook, MenuFakeSurface, until, watchedEvening, type FakeScreen } from '../fixtures/author/fake-surface.ts';

const nobody: Owner = { ask: () => Promise.reject(new Error('opening a list and picking in it writes nothing: nobody is asked')) };

/**
 * A page with a list button, observed as the walker observes Headless UI's (named by its label, holding its text:
 * shared/dom/name.ts); pressing it shows its listbox; an option closes it.
 */
function listButton(): Record<string, FakeScreen> {
  const queue = control('|c0', 'button', 'Queue', { offers: ['choose'], value: 'Claims' });
  const options = ['Claims', 'Fraud', 'Appeals'].map((o, i) => control(`|c${i + 2}`, 'option', o, { ancestors: ['listbox'] }));
  return {
    page: { controls: [queue, control('|c1', 'button', 'Save')], text: 'Case settings', next: { '|c0': 'open' } },
    open: {
      controls: [{ ...queue, expanded: true }, control('|c1', 'button', 'Save'), ...options],
      text: 'Case settings',
      next: { '|c0': 'page', '|c2': 'page', '|c3': 'page', '|c4': 'page' },
      picks: Object.fromEntries(options.map((o) => [o.ref, { button: '|c0', name: 'Queue', value: o.name, opens: false }])),
    },
  };
}

/**
 * A select-only combobox (MUI's Select) that a key opens: its list is modal, so while it shows the rest of the page is
 * hidden, the combobox too; the page names the combobox the list belongs to by its name.
 */
function modalCombobox(): Record<string, FakeScreen> {
  const priority = control('|c0', 'combobox', 'Priority', { verbs: ['choose', 'read'], value: 'Normal' });
  const options = ['Low', 'Normal', 'High'].map((o, i) => control(`|c${i}`, 'option', o, { ancestors: ['listbox'] }));
  return {
    page: { controls: [priority, control('|c1', 'button', 'Save')], text: 'Case settings' },
    open: {
      controls: options,
      text: 'Low Normal High',
      next: { '|c0': 'page', '|c1': 'page', '|c2': 'page' },
      picks: Object.fromEntries(options.map((o) => [o.ref, { button: '|f9', name: 'Priority', value: o.name, opens: false }])),
    },
  };
}

/** The fake opens the combobox's list on ArrowDown, as MUI's Select does (a key on a closed combobox, no click). */
class KeyFakeSurface extends MenuFakeSurface {
  override async act(ref: string, op: Parameters<MenuFakeSurface['act']>[1]): ReturnType<MenuFakeSurface['act']> {
    if (op.verb === 'press' && this.screen === 'page' && ref === '|c0' && op.value === 'ArrowDown') this.screen = 'open';
    return super.act(ref, op);
  }
}

function options(surface: MenuFakeSurface, book: MemoryBook, model: Model, keep: EveningState[] = []): EveningOptions {
  return watchedEvening(surface, book, model, { owner: nobody, goal: 'set the queue', keep });
}

const lines = (book: MemoryBook): TraceLine[] => book.lines.map((l) => TraceLine.parse(l));
const shape = (ls: readonly TraceLine[]): string[] =>
  ls.map((l) =>
    l.kind === 'act'
      ? `act ${l.verb} ${l.control.role} '${l.control.name}'${l.value !== undefined ? ` "${l.value}"` : ''}`
      : l.kind === 'label'
        ? `label ${l.label}`
        : l.kind === 'refusal'
          ? `refusal ${l.code}`
          : l.kind,
  );

const LABEL = { tool: 'assert_screen', label: 'settings', title: 'Case settings' } as const;
// The menu shows what the button holds beside its name, and the model's match is the row as it reads.
const QUEUE = { tool: 'act', match: "button 'Queue' (holds 'Claims')", verb: 'invoke' } as const;
const FRAUD = { tool: 'act', match: "option 'Fraud'", verb: 'invoke' } as const;
const FINISH = { tool: 'finish', label: 'settings' } as const;

describe('a list button pressed, then an option of its list', () => {
  it('is one choose on the button with the option\'s name, listing both presses, asked of nobody, and compiles to that choose', async () => {
    const book = new MemoryBook();
    const seen: string[] = [];
    const scripted = new ScriptedModel({ turns: [[LABEL, QUEUE], [FRAUD], [FINISH]] });
    const model: Model = { name: 'scripted', next: (t) => (seen.push(...t.results.map((r) => r.text)), scripted.next(t)) };
    const r = await runEvening(options(new MenuFakeSurface(listButton(), 'page'), book, model));
    expect(r).toMatchObject({ ok: true, finished: 'settings' });
    const all = lines(book);
    expect(shape(all)).toEqual(['start', 'label settings', `act choose button 'Queue' "Fraud"`, 'finish', 'end']);
    expect(all[2]).toMatchObject({
      effect: { kind: 'stage', by: 'rule' },
      before: { label: 'settings' },
      presses: [
        { role: 'button', name: 'Queue' },
        { role: 'option', name: 'Fraud' },
      ],
    });
    // The model was told the list opened and what its next press would be written as.
    expect(seen.find((t) => t.includes('opened its list'))).toContain("choose button 'Queue' with the option's name");
    const compiled = compile(all, { id: 'queue' });
    expect(compiled.ok ? compiled.card.steps.map((s) => s.op) : compiled.holes).toEqual([{ verb: 'choose', value: 'Fraud' }]);
  });

  it('an option named as an input\'s value is that input\'s blank', async () => {
    const book = new MemoryBook();
    const o = options(new MenuFakeSurface(listButton(), 'page'), book, new ScriptedModel({ turns: [[LABEL, QUEUE], [FRAUD], [FINISH]] }));
    await runEvening({ ...o, inputs: [{ name: 'queue', value: 'Fraud', secret: false }] });
    expect(shape(lines(book))).toContain(`act choose button 'Queue' "{{input.queue}}"`);
  });

  it('anything else after the press (naming the open list\'s screen) writes the press as it was, first', async () => {
    const book = new MemoryBook();
    const script: Script = { turns: [[LABEL, QUEUE], [{ tool: 'assert_screen', label: 'queue_list', title: 'Queue list' }, FRAUD], [FINISH]] };
    const r = await runEvening(options(new MenuFakeSurface(listButton(), 'page'), book, new ScriptedModel(script)));
    expect(r).toMatchObject({ ok: true });
    expect(shape(lines(book))).toEqual(['start', 'label settings', `act invoke button 'Queue'`, 'label queue_list', `act invoke option 'Fraud'`, 'finish', 'end']);
  });

  it('stopped between the presses, the host keeps the held press: resumed, the pick is still one choose', async () => {
    const surface = new MenuFakeSurface(listButton(), 'page');
    const book = new MemoryBook();
    const kept: EveningState[] = [];
    const script: Script = { turns: [[LABEL, QUEUE], [FRAUD], [FINISH]] };
    const first = new ScriptedModel(script);
    let stopped = false;
    const stopping: Model = { name: 'scripted', save: () => first.save(), next: (t) => (t.turn === 1 ? first.next(t) : ((stopped = true), new Promise(() => undefined))) };
    void runEvening(options(surface, book, stopping, kept));
    await until(() => stopped);
    const state = kept.at(-1) as EveningState;
    expect(state.held?.lines.map((l) => `${l.verb} ${l.control.role} ${l.control.name}`)).toEqual(['invoke button Queue']);
    const r = await resumeEvening(options(surface, book, new ScriptedModel(script, 'scripted', state.model)), { lines: lines(book), state });
    expect(r).toMatchObject({ ok: true, finished: 'settings' });
    expect(shape(lines(book))).toEqual(['start', 'label settings', `act choose button 'Queue' "Fraud"`, 'finish', 'end']);
  });
});

describe('a combobox a key opened, then an option of its list', () => {
  const OPEN = { tool: 'act', match: "combobox 'Priority'", verb: 'press', value: 'ArrowDown' } as const;
  const HIGH = { tool: 'act', match: "option 'High'", verb: 'invoke' } as const;

  it('is one choose on the combobox, though the open list hides it (known by the name the page gives it), and compiles', async () => {
    const book = new MemoryBook();
    const r = await runEvening(options(new KeyFakeSurface(modalCombobox(), 'page'), book, new ScriptedModel({ turns: [[LABEL, OPEN], [HIGH], [FINISH]] })));
    expect(r).toMatchObject({ ok: true, finished: 'settings' });
    const all = lines(book);
    expect(shape(all)).toEqual(['start', 'label settings', `act choose combobox 'Priority' "High"`, 'finish', 'end']);
    expect(all[2]).toMatchObject({ presses: [{ role: 'combobox', name: 'Priority' }, { role: 'option', name: 'High' }] });
    const compiled = compile(all, { id: 'priority' });
    expect(compiled.ok ? compiled.card.steps.map((s) => s.op) : compiled.holes).toEqual([{ verb: 'choose', value: 'High' }]);
  });

  it('Enter that shows options (suggestions fetched with a GET, which writes nothing) is no opening: written as it was, never folded into a pick', async () => {
    // A fake whose Enter on the combobox shows its list: the same screen change ArrowDown makes.
    class EnterShows extends MenuFakeSurface {
      override async act(ref: string, op: Parameters<MenuFakeSurface['act']>[1]): ReturnType<MenuFakeSurface['act']> {
        if (op.verb === 'press' && this.screen === 'page' && ref === '|c0' && op.value === 'Enter') this.screen = 'open';
        return super.act(ref, op);
      }
    }
    const book = new MemoryBook();
    const script: Script = { turns: [[LABEL, { ...OPEN, value: 'Enter' }], [HIGH], [{ tool: 'assert_screen', label: 'suggestions', title: 'Suggestions' }, HIGH], [FINISH]] };
    await runEvening(options(new EnterShows(modalCombobox(), 'page'), book, new ScriptedModel(script)));
    const acts = shape(lines(book)).filter((l) => l.startsWith('act '));
    // The Enter is in the book as the press it was: a card without it would not replay what was done.
    expect(acts[0]).toBe(`act press combobox 'Priority' "Enter"`);
    expect(acts.some((a) => a.startsWith('act choose'))).toBe(false);
  });

  it('a key that opens nothing is written as it was, not held', async () => {
    const book = new MemoryBook();
    const script: Script = { turns: [[LABEL, { ...OPEN, value: 'Escape' }], [FINISH]] };
    const r = await runEvening(options(new KeyFakeSurface(modalCombobox(), 'page'), book, new ScriptedModel(script)));
    expect(r).toMatchObject({ ok: true });
    expect(shape(lines(book))).toEqual(['start', 'label settings', `act press combobox 'Priority' "Escape"`, 'finish', 'end']);
  });
});
