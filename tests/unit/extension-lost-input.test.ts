// A clerk's own key or click that the recorder caught and could not book is never lost unsaid: it is a `lost` line in the book, the compiler refuses the book there (INPUT_NOT_BOOKED) naming the action in the clerk's words, the panel asks them to do that step again, and removing the line once they have makes the book compile.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { editBook, reseal } from '../../shared/author/book-edit.ts';
import { compile } from '../../shared/compile/compile.ts';
import { Masker } from '../../shared/secrets.ts';
import { TraceLine, type TraceLost } from '../../shared/schema/trace.ts';
import { plainLine } from '../../extension/lib/panel-state.ts';

const BOOK = new URL('../fixtures/author/plumbline.trace.jsonl', import.meta.url);

/** The PLUMBLINE book as it was written (before `lost` lines existed): it must still read and compile. */
const book = (): TraceLine[] =>
  readFileSync(BOOK, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => TraceLine.parse(JSON.parse(l)));

const enter: Omit<TraceLost, 'seq' | 'at' | 'prev'> = { kind: 'lost', actor: 'human', verb: 'press', control: { role: 'textbox', name: 'Member number' }, value: 'Enter', why: 'leaving' };

/** The book with a lost action after line `after`, sealed as the guard writes it. */
function withLost(after: number, lost = enter): TraceLine[] {
  const b = book();
  return reseal([...b.slice(0, after), TraceLine.parse({ ...lost, seq: 0, at: '2026-11-30T02:04:51.500Z' }), ...b.slice(after)], 0);
}

describe('the book and the compiler', () => {
  it('a book written before lost lines existed still reads and compiles', () => {
    expect(compile(book(), { id: 'plumbline_place_hold' }).ok).toBe(true);
  });

  it("a lost key is a hole on its line that says which action, why, and to do it again; the book's other lines are fine", () => {
    const lines = withLost(7);
    const r = compile(lines, { id: 'plumbline_place_hold' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.holes).toEqual([
      { line: 8, code: 'INPUT_NOT_BOOKED', message: "your press of Enter in textbox 'Member number' was not recorded (the page was being left before it could be recorded): do that step again, then remove this line" },
    ]);
  });

  it('names each kind of lost action in the clerk\'s terms, never a typed text', () => {
    const words = (l: Partial<TraceLost>): string => {
      const r = compile(withLost(7, { ...enter, ...l }));
      return r.ok ? '' : (r.holes.find((h) => h.code === 'INPUT_NOT_BOOKED')?.message ?? '');
    };
    expect(words({ verb: 'invoke', control: { role: 'button', name: 'F5=Search' }, why: 'no_answer' })).toBe(
      "your click on button 'F5=Search' was not recorded (the extension did not answer as the page started, so it was not recorded): do that step again, then remove this line",
    );
    expect(words({ verb: 'select', control: { role: 'combobox', name: 'Reason' }, value: 'LEGAL', why: 'not_on_screen' })).toContain("your pick of \"LEGAL\" in combobox 'Reason' was not recorded (the page had changed");
    const { value: _v, ...noValue } = enter;
    expect(words({ ...noValue, verb: 'set_value' })).toContain("what you typed into textbox 'Member number' was not recorded");
  });

  it('the panel lists the line in the same words and asks for the step again', () => {
    const lost = withLost(7)[7] as TraceLine;
    expect(plainLine(lost)).toBe("Not recorded: Your press of Enter in textbox 'Member number' — the page was being left before it could be recorded. Do that step again, then remove this line.");
  });

  it('once the clerk has done the step again, removing the lost line (an edit, by name) makes the book compile', () => {
    const edited = editBook(withLost(7), { op: 'remove', line: 8 }, { by: 'Dana Clerk', at: new Date('2026-11-30T03:00:00Z'), inputs: [], masker: new Masker() });
    expect(edited.at(-1)).toMatchObject({ kind: 'edit', op: 'remove', line: 8, by: 'Dana Clerk', what: "removed line 8: not recorded, your press of Enter in textbox 'Member number'" });
    expect(compile(edited, { id: 'plumbline_place_hold' }).ok).toBe(true);
  });
});
