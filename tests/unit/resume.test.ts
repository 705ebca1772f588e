// An authoring session picked up by another process (an extension worker that was stopped) goes on from its book: the guard numbers on and knows its labels, and a model evening resumed mid-turn finishes with every line written once, in order, the button pressed once, and the turn budget counting turns already taken.
import { describe, expect, it } from 'vitest';
import { resumeEvening, runEvening, type EveningOptions, type EveningState } from '../../shared/author/evening.ts';
import { BookResumeError, Guard } from '../../shared/author/guard.ts';
import type { Operation, ActResult } from '../../shared/surface.ts';
import type { Model, ModelTurn, Owner } from '../../shared/author/ports.ts';
import { ScriptedModel, type Script } from '../../shared/author/scripted.ts';
import { TraceLine } from '../../shared/schema/trace.ts';
import { Masker } from '../../shared/secrets.ts';
import { FakeSurface, MemoryBook, signOnScreens, StoppingBook, until, WatchingFakeSurface } from '../fixtures/author/fake-surface.ts';

const SECRET = 'correct-horse-9';
const INPUTS = [
  { name: 'operator_id', value: 'OP1001', secret: false },
  { name: 'password', value: SECRET, secret: true },
];
const SETTLE = { quietMs: 0, pollMs: 1 };
const answers: Owner = { ask: () => Promise.resolve({ answer: 'navigate', name: 'Olive Owner' }) };
/** The owner who is asked and never answers: the process stops while the question waits. */
const never: Owner = { ask: () => new Promise(() => undefined) };

const SCRIPT: Script = {
  turns: [
    [
      { tool: 'assert_screen', label: 'signon', title: 'Sign On' },
      { tool: 'act', row: 1, verb: 'set_value', value: '{{input.operator_id}}' },
      { tool: 'act', row: 2, verb: 'set_value', value: '{{input.password}}' },
      { tool: 'act', row: 3, verb: 'invoke' },
    ],
    [
      { tool: 'assert_screen', label: 'home', title: 'Home' },
      { tool: 'finish', label: 'home' },
    ],
  ],
};

const lines = (book: MemoryBook): TraceLine[] => book.lines.map((l) => TraceLine.parse(l));
const shape = (ls: readonly TraceLine[]): string[] =>
  ls.map((l) => (l.kind === 'act' ? `act ${l.verb} ${l.control.name || l.control.hint}` : l.kind === 'label' ? `label ${l.label}` : l.kind));

function options(surface: FakeSurface, book: MemoryBook, model: ScriptedModel, owner: Owner, keep: EveningState[]): EveningOptions {
  return {
    surface,
    model,
    owner,
    book,
    goal: 'sign on',
    entry: 'fake://signon',
    inputs: INPUTS,
    settle: SETTLE,
    // Kept as the host keeps it: plain JSON, secrets masked.
    checkpoint: (s) => Promise.resolve(void keep.push(JSON.parse(JSON.stringify(new Masker([{ name: 'password', value: SECRET }]).maskDeep(s))) as EveningState)),
  };
}

/** The same evening, never interrupted: what a resumed one's book must look like. */
async function whole(): Promise<{ shape: string[]; turns: number }> {
  const book = new MemoryBook();
  const r = await runEvening(options(new FakeSurface(signOnScreens(), 'signon'), book, new ScriptedModel(SCRIPT), answers, []));
  expect(r.ok).toBe(true);
  return { shape: shape(lines(book)), turns: r.turns };
}

/** Lets every pending promise chain run until the evening is waiting on something that never comes. */
const idle = (): Promise<void> => new Promise((r) => setTimeout(r, 20));

describe('the guard resumed from a book', () => {
  it('numbers on after the last line, knows the labels pinned and whether it finished', async () => {
    const surface = new FakeSurface(signOnScreens(), 'signon');
    const masker = new Masker([{ name: 'password', value: SECRET }]);
    const first = new MemoryBook();
    const g1 = new Guard({ surface, owner: answers, book: first, masker, goal: 'g', inputs: INPUTS, settle: SETTLE });
    await g1.show();
    await g1.handle({ id: 'a', name: 'assert_screen', input: { label: 'signon' } });
    await g1.handle({ id: 'b', name: 'act', input: { row: 3, verb: 'invoke' } });

    const book = new MemoryBook();
    const g2 = new Guard({ surface, owner: answers, book, masker, goal: 'g', inputs: INPUTS, settle: SETTLE, actor: 'human', resume: lines(first) });
    expect(g2.lines).toBe(2);
    expect(g2.finished).toBeNull();
    await g2.show();
    // "signon" is taken by the screen labelled before the stop, so it cannot name this one.
    expect((await g2.handle({ id: 'c', name: 'assert_screen', input: { label: 'signon' } })).text).toContain('LABEL_TAKEN');
    await g2.handle({ id: 'd', name: 'assert_screen', input: { label: 'home' } });
    await g2.handle({ id: 'e', name: 'act', input: { row: 1, verb: 'invoke' } });
    const more = lines(book);
    // The refused label is kept in the book too.
    expect(more.map((l) => `${l.seq} ${l.kind}`)).toEqual(['3 refusal', '4 label', '5 act']);
    // Back on the sign-on screen, the act line names it by the label from the old book; the actor is the clerk.
    expect(more[2]).toMatchObject({ kind: 'act', actor: 'human', before: { label: 'home' }, after: { label: 'signon' } });

    const g3 = new Guard({ surface, owner: answers, book, masker, goal: 'g', inputs: INPUTS, resume: [...lines(first), ...more] });
    await g3.show();
    expect((await g3.handle({ id: 'f', name: 'finish', input: { label: 'signon' } })).ok).toBe(true);
    const g4 = new Guard({ surface, owner: answers, book, masker, goal: 'g', inputs: INPUTS, resume: [...lines(first), ...lines(book)] });
    expect(g4.finished).toBe('signon');
    await g4.show();
    expect((await g4.handle({ id: 'g', name: 'assert_screen', input: { label: 'x' } })).text).toContain('FINISHED');
  });

  it('refuses a book with a line missing', () => {
    const surface = new FakeSurface(signOnScreens(), 'signon');
    const gap = [{ seq: 1, at: 'x', kind: 'end', outcome: 'failed' } as const, { seq: 3, at: 'x', kind: 'end', outcome: 'failed' } as const];
    const make = () => new Guard({ surface, owner: answers, book: new MemoryBook(), masker: new Masker(), goal: 'g', inputs: [], resume: gap });
    expect(make).toThrow(BookResumeError);
  });
});

describe('a model evening resumed in another process', () => {
  it('stopped while the owner is asked about the button: the press is asked again, made once, the book contiguous', async () => {
    const surface = new FakeSurface(signOnScreens(), 'signon');
    const book = new MemoryBook();
    const kept: EveningState[] = [];
    void runEvening(options(surface, book, new ScriptedModel(SCRIPT), never, kept));
    await idle();
    const before = lines(book);
    expect(shape(before).at(-1)).toBe('act set_value Password');
    const state = kept.at(-1) as EveningState;
    expect(state).toMatchObject({ turns: 1, lines: before.length, changed: false });
    expect(state.results).toHaveLength(3);
    expect(JSON.stringify(kept).includes(SECRET)).toBe(false);

    // The new process: a model restored from its saved place, a guard from the book, the same screen.
    const r = await resumeEvening(options(surface, book, new ScriptedModel(SCRIPT, 'scripted', state.model), answers, []), { lines: before, state });
    expect(r).toMatchObject({ ok: true, finished: 'home', turns: 2 });
    const all = lines(book);
    expect(all.map((l) => l.seq)).toEqual(all.map((_, i) => i + 1));
    expect(shape(all)).toEqual((await whole()).shape);
    expect(surface.log.filter((l) => l.startsWith('start invoke'))).toEqual(['start invoke |c2']);
    expect(book.text.includes(SECRET)).toBe(false);
  });

  it('stopped after a book line but before its state was kept: that call counts as run and is not run again', async () => {
    const surface = new FakeSurface(signOnScreens(), 'signon');
    const book = new MemoryBook();
    const kept: EveningState[] = [];
    const o = options(surface, book, new ScriptedModel(SCRIPT), answers, kept);
    // The keep after the first typed value's line (the 4th: answer, label, dispatch, line) never completes.
    const keep = o.checkpoint as NonNullable<EveningOptions['checkpoint']>;
    void runEvening({ ...o, checkpoint: (s) => (kept.length === 3 ? new Promise(() => undefined) : keep(s)) });
    await idle();
    const before = lines(book);
    const state = kept.at(-1) as EveningState;
    expect(before.length).toBe(state.lines + 1);

    const r = await resumeEvening(options(surface, book, new ScriptedModel(SCRIPT, 'scripted', state.model), answers, []), { lines: before, state });
    expect(r.ok).toBe(true);
    const all = lines(book);
    expect(all.map((l) => l.seq)).toEqual(all.map((_, i) => i + 1));
    expect(shape(all)).toEqual((await whole()).shape);
    expect(surface.log.filter((l) => l.startsWith('start '))).toEqual(['start set_value |c0', 'start set_value |c1', 'start invoke |c2']);
  });

  it('counts the turns taken before the stop against the budget', async () => {
    const surface = new FakeSurface(signOnScreens(), 'signon');
    const book = new MemoryBook();
    const kept: EveningState[] = [];
    void runEvening(options(surface, book, new ScriptedModel(SCRIPT), never, kept));
    await idle();
    const state = kept.at(-1) as EveningState;
    const r = await resumeEvening(
      { ...options(surface, book, new ScriptedModel(SCRIPT, 'scripted', state.model), answers, []), maxTurns: 1 },
      { lines: lines(book), state },
    );
    expect(r).toMatchObject({ ok: false, code: 'OVER_BUDGET', turns: 1 });
    expect(lines(book).at(-1)).toMatchObject({ kind: 'end', code: 'OVER_BUDGET' });
  });

  it('refuses the rest of the interrupted turn when the screen is no longer the one the model was shown', async () => {
    const surface = new FakeSurface(signOnScreens(), 'signon');
    const book = new MemoryBook();
    const kept: EveningState[] = [];
    void runEvening(options(surface, book, new ScriptedModel(SCRIPT), never, kept));
    await idle();
    const state = kept.at(-1) as EveningState;
    // Someone moved the tab on while no process was watching.
    surface.screen = 'home';
    const r = await resumeEvening(options(surface, book, new ScriptedModel(SCRIPT, 'scripted', state.model), answers, []), { lines: lines(book), state });
    expect(r).toMatchObject({ ok: true, finished: 'home', turns: 2 });
    expect(surface.log.some((l) => l.startsWith('start invoke'))).toBe(false);
  });
});

/** A surface on which the press of the sign-on button is where the process stops: before or after it takes effect. */
class DiesOnPress extends FakeSurface {
  constructor(private readonly pressFirst: boolean) {
    super(signOnScreens(), 'signon');
  }
  override async act(ref: string, op: Operation): Promise<ActResult> {
    if (ref !== '|c2') return super.act(ref, op);
    if (this.pressFirst) await super.act(ref, op);
    return new Promise(() => undefined);
  }
}

describe('an action under way when the process stopped', () => {
  const commit: Owner = { ask: () => Promise.resolve({ answer: 'commit', name: 'Olive Owner' }) };

  async function stopDuringPress(pressFirst: boolean, owner: Owner) {
    const dying = new DiesOnPress(pressFirst);
    const book = new MemoryBook();
    const kept: EveningState[] = [];
    void runEvening(options(dying, book, new ScriptedModel(SCRIPT), owner, kept));
    await idle();
    const state = kept.at(-1) as EveningState;
    expect(state.dispatched).toMatchObject({ line: { verb: 'invoke', control: { name: 'Sign On' } } });
    expect(state.lines).toBe(lines(book).length);
    const surface = new FakeSurface(signOnScreens(), dying.screen);
    const r = await resumeEvening(options(surface, book, new ScriptedModel(SCRIPT, 'scripted', state.model), owner, []), { lines: lines(book), state });
    return { r, book, surface, dying };
  }

  it('that happened (the screen moved on) is written from what was kept, not pressed again', async () => {
    const { r, book, surface } = await stopDuringPress(true, commit);
    expect(r).toMatchObject({ ok: true, finished: 'home' });
    const all = lines(book);
    expect(all.map((l) => l.seq)).toEqual(all.map((_, i) => i + 1));
    expect(shape(all)).toEqual((await whole()).shape);
    expect(all.find((l) => l.kind === 'act' && l.verb === 'invoke')).toMatchObject({ before: { label: 'signon' }, after: { label: null }, effect: { kind: 'commit' } });
    expect(surface.log.some((l) => l.startsWith('start invoke'))).toBe(false);
  });

  it('a commit that may or may not have happened is never pressed again: the evening ends PRESS_UNCERTAIN, book kept', async () => {
    const { r, book, surface } = await stopDuringPress(false, commit);
    expect(r).toMatchObject({ ok: false, code: 'PRESS_UNCERTAIN' });
    expect(lines(book).at(-1)).toMatchObject({ kind: 'end', code: 'PRESS_UNCERTAIN' });
    expect(surface.log.some((l) => l.startsWith('start invoke'))).toBe(false);
  });

  it('a navigation that visibly did not happen is simply done again', async () => {
    const { r, surface } = await stopDuringPress(false, answers);
    expect(r).toMatchObject({ ok: true, finished: 'home' });
    expect(surface.log.filter((l) => l.startsWith('start invoke'))).toEqual(['start invoke |c2']);
  });
});

describe('a resumed evening whose last line is an act with its write stopped', () => {
  it('answers that call as refused (WRITE_REFUSED), not as done', async () => {
    const screens = signOnScreens();
    (screens['signon'] as NonNullable<(typeof screens)['signon']>).sends = { '|c2': { method: 'POST', url: 'http://fake/signon', via: 'form', held: true } };
    const surface = new WatchingFakeSurface(screens, 'signon');
    const book = new MemoryBook();
    const kept: EveningState[] = [];
    // The owner says no to the write the press sends; the process stops before the state after its line is kept.
    const no: Owner = { ask: () => Promise.resolve({ answer: 'cancel', name: 'Olive Owner' }) };
    const o = { ...options(surface, book, new ScriptedModel(SCRIPT), no, kept), entry: 'http://fake/signon' };
    const keep = o.checkpoint as NonNullable<EveningOptions['checkpoint']>;
    void runEvening({ ...o, checkpoint: (s) => (lines(book).some((l) => l.kind === 'act' && l.verb === 'invoke') ? new Promise(() => undefined) : keep(s)) });
    await idle();
    const before = lines(book);
    expect(before.at(-1)).toMatchObject({ kind: 'act', verb: 'invoke', writes: [{ fate: 'blocked' }] });
    const state = kept.at(-1) as EveningState;

    const seen: ModelTurn[] = [];
    const model = new ScriptedModel(SCRIPT, 'scripted', state.model);
    const watching: Model = { name: model.name, next: (t) => (seen.push(t), model.next(t)), save: () => model.save() };
    await resumeEvening({ ...options(surface, book, new ScriptedModel(SCRIPT), no, []), model: watching, entry: 'http://fake/signon' }, { lines: before, state });
    const press = seen[0]?.results.at(-1);
    expect(press).toMatchObject({ ok: false });
    expect(press?.text).toMatch(/^refused \(WRITE_REFUSED\): .*POST http:\/\/fake\/signon.*the owner said no: the write was stopped/);
  });
});

/** The line the guard's between-actions watch writes when the page sent a write while nobody acted (shared/author/guard.ts). */
const pageLine = (l: TraceLine): boolean => l.kind === 'refusal' && l.tool === 'page';
const codes = (ls: readonly TraceLine[]): string[] => ls.map((l) => (l.kind === 'refusal' ? `refusal ${l.tool} ${l.code}` : shape([l])[0] ?? l.kind));

describe('a resumed evening whose book ends with a line the page wrote (a write between actions)', () => {
  const TWO_TURNS: Script = {
    turns: [
      [
        { tool: 'assert_screen', label: 'signon', title: 'Sign On' },
        { tool: 'act', row: 1, verb: 'set_value', value: '{{input.operator_id}}' },
        { tool: 'act', row: 2, verb: 'set_value', value: '{{input.password}}' },
      ],
      [{ tool: 'act', row: 3, verb: 'invoke' }],
      [
        { tool: 'assert_screen', label: 'home', title: 'Home' },
        { tool: 'finish', label: 'home' },
      ],
    ],
  };
  /** The page sends an autosave while the model thinks about its second turn: the press then reports it first. */
  function autosaving(surface: WatchingFakeSurface, model: Model): Model {
    return {
      name: model.name,
      save: () => model.save?.(),
      next: (t) => {
        if (t.turn === 2) surface.pageSends({ method: 'POST', url: 'http://fake/autosave', via: 'request' });
        return model.next(t);
      },
    };
  }
  function watched(surface: WatchingFakeSurface, book: MemoryBook, model: Model, keep: EveningState[]): EveningOptions {
    return { ...options(surface, book, new ScriptedModel(TWO_TURNS), answers, keep), model, entry: 'http://fake/signon' };
  }
  async function uninterrupted(): Promise<string[]> {
    const surface = new WatchingFakeSurface(signOnScreens(), 'signon');
    const book = new MemoryBook();
    const r = await runEvening(watched(surface, book, autosaving(surface, new ScriptedModel(TWO_TURNS)), []));
    expect(r).toMatchObject({ ok: true, finished: 'home' });
    return codes(lines(book));
  }

  it('stopped just after the page line, before the press: the line answers no call, the press is settled and made once, the book as if never stopped', async () => {
    const surface = new WatchingFakeSurface(signOnScreens(), 'signon');
    const book = new StoppingBook(pageLine);
    const kept: EveningState[] = [];
    void runEvening(watched(surface, book, autosaving(surface, new ScriptedModel(TWO_TURNS)), kept));
    await until(() => book.stopped);
    const before = lines(book);
    expect(codes(before).at(-1)).toBe('refusal page UNASKED_WRITE');
    const state = kept.at(-1) as EveningState;
    expect(state).toMatchObject({ lines: before.length - 1, dispatched: { line: { verb: 'invoke' } } });

    const r = await resumeEvening(watched(surface, book, new ScriptedModel(TWO_TURNS, 'scripted', state.model), []), { lines: before, state });
    expect(r).toMatchObject({ ok: true, finished: 'home', turns: 3 });
    const all = lines(book);
    expect(all.map((l) => l.seq)).toEqual(all.map((_, i) => i + 1));
    expect(codes(all)).toEqual(await uninterrupted());
    expect(surface.log.filter((l) => l.startsWith('start invoke'))).toEqual(['start invoke |c2']);
  });

  it('stopped after the page line and the press\'s own line, before the place was kept: the press counts as done, the page line as no answer', async () => {
    const surface = new WatchingFakeSurface(signOnScreens(), 'signon');
    const book = new MemoryBook();
    const kept: EveningState[] = [];
    const o = watched(surface, book, autosaving(surface, new ScriptedModel(TWO_TURNS)), kept);
    const keep = o.checkpoint as NonNullable<EveningOptions['checkpoint']>;
    void runEvening({ ...o, checkpoint: (s) => (lines(book).some((l) => l.kind === 'act' && l.verb === 'invoke') ? new Promise(() => undefined) : keep(s)) });
    await until(() => lines(book).some((l) => l.kind === 'act' && l.verb === 'invoke'));
    const before = lines(book);
    expect(codes(before).slice(-2)).toEqual(['refusal page UNASKED_WRITE', 'act invoke Sign On']);
    const state = kept.at(-1) as EveningState;

    const seen: ModelTurn[] = [];
    const model = new ScriptedModel(TWO_TURNS, 'scripted', state.model);
    const r = await resumeEvening({ ...watched(surface, book, model, []), model: { name: model.name, next: (t) => (seen.push(t), model.next(t)), save: () => model.save() } }, { lines: before, state });
    expect(r).toMatchObject({ ok: true, finished: 'home' });
    expect(seen[0]?.results).toEqual([expect.objectContaining({ ok: true, text: expect.stringContaining(`book line ${before.length}`) as unknown })]);
    expect(codes(lines(book))).toEqual(await uninterrupted());
    expect(surface.log.filter((l) => l.startsWith('start invoke'))).toEqual(['start invoke |c2']);
  });
});
