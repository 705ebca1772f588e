// A reviewer can trust that a book is one unbroken account: each line is numbered and carries the hash of the line before, so a lost line (a worker stopped during a commit), a reordering, an edit or an action the recorder never saw is refused by the compiler, on the line where it shows.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runEvening } from '../../shared/author/evening.ts';
import type { Model, ModelTurn, ToolCall } from '../../shared/author/ports.ts';
import { cardBytes, compile } from '../../shared/compile/compile.ts';
import { lineHash, TraceLine, type TraceAct } from '../../shared/schema/trace.ts';
import { FakeSurface, MemoryBook, signOnScreens } from '../fixtures/author/fake-surface.ts';

const BOOK = fileURLToPath(new URL('../fixtures/author/plumbline.trace.jsonl', import.meta.url));
const GOLDEN = fileURLToPath(new URL('../../capabilities/plumbline-place-hold.authored.json', import.meta.url));

/** The PLUMBLINE book as it was written before books were chained (no `prev`). */
function oldBook(): TraceLine[] {
  return readFileSync(BOOK, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => TraceLine.parse(JSON.parse(l)));
}

/** The same lines as a book written today: numbered in order, each carrying the hash of the one before. */
function chain(lines: TraceLine[]): TraceLine[] {
  const out: TraceLine[] = [];
  for (const [i, l] of lines.entries()) {
    const { prev: _old, ...rest } = l;
    const last = out[i - 1];
    out.push(TraceLine.parse({ ...rest, seq: i + 1, ...(last ? { prev: lineHash(last) } : {}) }));
  }
  return out;
}

const holesOf = (lines: TraceLine[]): Array<[number, string]> => {
  const r = compile(lines, { id: 'plumbline_place_hold' });
  return r.ok ? [] : r.holes.map((h) => [h.line, h.code]);
};

const commitAt = (lines: TraceLine[]): number => lines.findIndex((l) => l.kind === 'act' && l.effect.kind === 'commit');

describe('a whole book', () => {
  it('compiles to the golden card whether it was written before the chain or with it', () => {
    const golden = readFileSync(GOLDEN, 'utf8');
    for (const lines of [oldBook(), chain(oldBook())]) {
      const r = compile(lines, { id: 'plumbline_place_hold' });
      if (!r.ok) throw new Error(JSON.stringify(r.holes));
      expect(cardBytes(r.card)).toBe(golden);
    }
  });

  it('is written chained by the guard: every line after the first carries the hash of the one before', async () => {
    const book = new MemoryBook();
    const turns: Omit<ToolCall, 'id'>[][] = [
      [
        { name: 'assert_screen', input: { label: 'signon' } },
        { name: 'act', input: { row: 1, verb: 'set_value', value: '{{input.operator_id}}' } },
        { name: 'act', input: { row: 3, verb: 'invoke' } },
      ],
      [{ name: 'assert_screen', input: { label: 'home' } }, { name: 'finish', input: { label: 'home' } }],
    ];
    const model: Model = {
      name: 'list',
      next: (t: ModelTurn) => Promise.resolve((turns[t.turn - 1] ?? []).map((c, i) => ({ id: `c${t.turn}_${i}`, ...c }))),
    };
    const owner = { ask: () => Promise.resolve({ answer: 'navigate' as const, name: 'Olive Owner' }) };
    const result = await runEvening({
      surface: new FakeSurface(signOnScreens(), 'signon', 0),
      model,
      owner,
      book,
      goal: 'sign on',
      entry: 'fake://',
      inputs: [{ name: 'operator_id', value: 'OP1001', secret: false }],
      settle: { quietMs: 0, pollMs: 1 },
    });
    expect(result).toMatchObject({ ok: true });
    const lines = book.lines.map((l) => TraceLine.parse(l));
    expect(lines.length).toBeGreaterThan(4);
    expect(lines[0]?.prev).toBeUndefined();
    lines.slice(1).forEach((l, i) => expect(l.prev).toBe(lineHash(lines[i] as TraceLine)));
  });
});

describe('a broken book is refused where it breaks', () => {
  it('the commit line lost (the worker stopped during it): a gap, a broken chain and a screen change nothing explains, all on that line', () => {
    const lines = chain(oldBook());
    const i = commitAt(lines);
    lines.splice(i, 1);
    const r = compile(lines, { id: 'plumbline_place_hold' });
    expect(r.ok).toBe(false);
    const here = r.ok ? [] : r.holes.filter((h) => h.line === i + 1);
    expect(here.map((h) => h.code).sort()).toEqual(['BOOK_CHAIN', 'BOOK_GAP', 'UNEXPLAINED_CHANGE']);
    expect(here.find((h) => h.code === 'UNEXPLAINED_CHANGE')?.message).toContain('from "hold_review" to "hold_result"');
    expect(here.find((h) => h.code === 'BOOK_GAP')?.message).toContain('a line is missing');
  });

  it('the same loss in a book written before the chain is still a gap and an unexplained change', () => {
    const lines = oldBook();
    const i = commitAt(lines);
    lines.splice(i, 1);
    expect(holesOf(lines).filter(([line]) => line === i + 1).map(([, c]) => c).sort()).toEqual(['BOOK_GAP', 'UNEXPLAINED_CHANGE']);
  });

  it('two lines swapped: out of order, and the chain broken on both', () => {
    const lines = chain(oldBook());
    const i = 3;
    [lines[i], lines[i + 1]] = [lines[i + 1] as TraceLine, lines[i] as TraceLine];
    const holes = holesOf(lines);
    expect(holes).toContainEqual([i + 2, 'BOOK_ORDER']);
    expect(holes).toContainEqual([i + 1, 'BOOK_CHAIN']);
    expect(holes).toContainEqual([i + 2, 'BOOK_CHAIN']);
  });

  it('a line edited after it was written (the value typed): the next line no longer follows it', () => {
    const lines = chain(oldBook());
    const i = lines.findIndex((l) => l.kind === 'act' && l.value === '{{input.member_number}}');
    (lines[i] as TraceAct).value = '{{input.share_id}}';
    expect(holesOf(lines)).toEqual([[i + 2, 'BOOK_CHAIN']]);
  });

  it('a press the recorder never saw (the book numbered and chained as written): the screen changed with no action, named with both screens', () => {
    // The clerk clicked the member link before the recorder could see it: no act line, and the next line starts
    // on the member screen while the last one left the results screen.
    const lines = oldBook();
    const i = lines.findIndex((l) => l.kind === 'act' && l.control.role === 'link' && l.control.name === '400118');
    const rechained = chain([...lines.slice(0, i), ...lines.slice(i + 1)]);
    const r = compile(rechained, { id: 'plumbline_place_hold' });
    expect(r.ok ? [] : r.holes.map((h) => [h.line, h.code, h.message])).toEqual([
      [i + 1, 'UNEXPLAINED_CHANGE', expect.stringContaining('from "results" to "member"')],
    ]);
  });

  it('a chain that does not start at the first line: the book was cut', () => {
    const lines = chain(oldBook()).slice(1);
    expect(holesOf(lines)).toEqual(expect.arrayContaining([[1, 'BOOK_GAP'], [1, 'BOOK_CHAIN']]));
  });
});
