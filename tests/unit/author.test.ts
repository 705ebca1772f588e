// An authoring evening runs a model's calls one at a time in the order given — "fill, fill, click" never clicks an empty form — writes each book line before the next call, keeps secrets out of the prompt, and ends as a typed failure (book kept) when the model stops or runs out of turns.
import { describe, expect, it } from 'vitest';
import { runEvening } from '../../shared/author/evening.ts';
import { Guard } from '../../shared/author/guard.ts';
import { ListModel } from '../fixtures/author/list-model.ts';
import { Masker } from '../../shared/secrets.ts';
import { FakeSurface, MemoryBook, signOnScreens } from '../fixtures/author/fake-surface.ts';

const SECRET = 'correct-horse-9';
const INPUTS = [
  { name: 'operator_id', value: 'OP1001', secret: false },
  { name: 'password', value: SECRET, secret: true },
];
const owner = { ask: () => Promise.resolve({ answer: 'navigate' as const, name: 'Olive Owner' }) };

const FILL_FILL_CLICK = [
  { name: 'act', input: { row: 1, verb: 'set_value', value: '{{input.operator_id}}' } },
  { name: 'act', input: { row: 2, verb: 'set_value', value: '{{input.password}}' } },
  { name: 'act', input: { row: 3, verb: 'invoke' } },
];

function screens() {
  const s = signOnScreens();
  // The home screen shows the password: the prompt must still never carry it.
  if (s['home']) s['home'].text = `WELCOME (your password is ${SECRET})`;
  return s;
}

describe('one at a time, in order', () => {
  it('runs three calls from one message in order, each finished and written before the next starts', async () => {
    const surface = new FakeSurface(screens(), 'signon', 15);
    const appendedAt: number[] = [];
    const book = new MemoryBook();
    const append = book.append.bind(book);
    book.append = (line: unknown) => {
      appendedAt.push(surface.log.length);
      return append(line);
    };
    const model = new ListModel([
      [{ name: 'assert_screen', input: { label: 'signon' } }, ...FILL_FILL_CLICK],
      [{ name: 'assert_screen', input: { label: 'home' } }, { name: 'finish', input: { label: 'home' } }],
    ]);
    const result = await runEvening({ surface, model, owner, book, goal: 'sign on', entry: 'fake://', inputs: INPUTS, settle: { quietMs: 0, pollMs: 1 } });
    expect(result).toMatchObject({ ok: true, finished: 'home', turns: 2 });
    expect(surface.log).toEqual([
      'start set_value |c0',
      'end set_value |c0',
      'start set_value |c1',
      'end set_value |c1',
      'start invoke |c2',
      'end invoke |c2',
    ]);
    const kinds = book.lines.map((l) => (l as { kind: string }).kind);
    expect(kinds).toEqual(['start', 'label', 'act', 'act', 'act', 'label', 'finish', 'end']);
    // Each act line was appended after its action ended and before the next began (log lengths 2, 4, 6).
    expect(kinds.map((k, i) => (k === 'act' ? appendedAt[i] : null)).filter((x) => x !== null)).toEqual([2, 4, 6]);
    expect(book.text).not.toContain(SECRET);
    for (const t of model.seen) expect(`${t.system}\n${t.screen}\n${t.results.map((r) => r.text).join('\n')}`).not.toContain(SECRET);
    expect(model.seen[1]?.screen).toContain('[secret:password]');
    expect(model.seen[1]?.results.map((r) => r.id)).toEqual(['c1_0', 'c1_1', 'c1_2', 'c1_3']);
    expect(result.costs.every((c) => c.approx_tokens > 0)).toBe(true);
  });

  it('serialises calls fired at the guard all at once, in the order they arrived', async () => {
    const surface = new FakeSurface(screens(), 'signon', 10);
    const guard = new Guard({
      surface,
      owner,
      book: new MemoryBook(),
      masker: new Masker([{ name: 'password', value: SECRET }]),
      goal: 'sign on',
      inputs: INPUTS,
      settle: { quietMs: 0, pollMs: 1 },
    });
    await guard.show();
    const calls = [{ name: 'assert_screen', input: { label: 'signon' } }, ...FILL_FILL_CLICK];
    const outs = await Promise.all(calls.map((c, i) => guard.handle({ id: `x${i}`, ...c })));
    expect(outs.map((o) => o.ok)).toEqual([true, true, true, true]);
    expect(surface.log).toEqual(['start set_value |c0', 'end set_value |c0', 'start set_value |c1', 'end set_value |c1', 'start invoke |c2', 'end invoke |c2']);
  });
});

describe('an evening that does not finish', () => {
  it('ends NO_FINISH when the model stops, with the book kept and closed', async () => {
    const book = new MemoryBook();
    const result = await runEvening({
      surface: new FakeSurface(screens(), 'signon'),
      model: new ListModel([[{ name: 'assert_screen', input: { label: 'signon' } }]]),
      owner,
      book,
      goal: 'sign on',
      entry: 'fake://',
      inputs: INPUTS,
    });
    expect(result).toMatchObject({ ok: false, code: 'NO_FINISH', turns: 2 });
    expect(book.lines.at(-1)).toMatchObject({ kind: 'end', outcome: 'failed', code: 'NO_FINISH' });
    expect(book.lines).toHaveLength(3);
  });

  it('ends OVER_BUDGET after the turn budget', async () => {
    const book = new MemoryBook();
    const again = { name: 'act', input: { row: 1, verb: 'set_value', value: 'x' } };
    const result = await runEvening({
      surface: new FakeSurface(screens(), 'signon'),
      model: new ListModel([[again], [again], [again], [again]]),
      owner,
      book,
      goal: 'sign on',
      entry: 'fake://',
      inputs: INPUTS,
      maxTurns: 3,
    });
    expect(result).toMatchObject({ ok: false, code: 'OVER_BUDGET', turns: 3 });
    expect(book.lines.at(-1)).toMatchObject({ kind: 'end', outcome: 'failed', code: 'OVER_BUDGET' });
  });

  it('ends MODEL_FAILED when the model throws, without leaking a secret in the message', async () => {
    const book = new MemoryBook();
    const result = await runEvening({
      surface: new FakeSurface(screens(), 'signon'),
      model: { name: 'broken', next: () => Promise.reject(new Error(`upstream echoed ${SECRET}`)) },
      owner,
      book,
      goal: 'sign on',
      entry: 'fake://',
      inputs: INPUTS,
    });
    expect(result).toMatchObject({ ok: false, code: 'MODEL_FAILED' });
    expect(book.text).not.toContain(SECRET);
    expect(!result.ok && result.message).toContain('[secret:password]');
  });
});
