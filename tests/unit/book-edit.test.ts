// A clerk can undo, remove or correct a step of a recorded book and the compiler still accepts it as one unbroken account (re-sealed, the change itself a line saying who did what), while a line lost or changed outside an edit is still caught.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BookEditError, editBook, reseal, type BookEdit } from '../../shared/author/book-edit.ts';
import { compile } from '../../shared/compile/compile.ts';
import { continuityHoles } from '../../shared/compile/continuity.ts';
import { lineHash, TraceLine, type TraceAct } from '../../shared/schema/trace.ts';
import { Masker } from '../../shared/secrets.ts';

const BOOK = fileURLToPath(new URL('../fixtures/author/plumbline.trace.jsonl', import.meta.url));
const PASSWORD = 'pw-edit-7731';
const INPUTS = [
  { name: 'operator_id', value: 'OP1001', secret: false },
  { name: 'password', value: PASSWORD, secret: true },
  { name: 'member_number', value: '400118', secret: false },
  { name: 'share_id', value: '400118-S0001', secret: false },
  { name: 'reason', value: 'LEGAL', secret: false },
];
const ctx = { by: 'Dana Clerk', at: new Date('2026-12-01T12:00:00Z'), inputs: INPUTS, masker: Masker.forInputs(INPUTS) };

/** The PLUMBLINE book (20 lines: start … label hold_result, finish, end), chained as the guard writes it today. */
function book(): TraceLine[] {
  const lines = readFileSync(BOOK, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => TraceLine.parse(JSON.parse(l)));
  return reseal(lines);
}

const holes = (lines: TraceLine[]): string[] => {
  const r = compile(lines, { id: 'plumbline_place_hold' });
  return r.ok ? [] : r.holes.map((h) => `${h.line} ${h.code}`);
};

const refusal = (lines: TraceLine[], edit: BookEdit): { code: string; message: string } => {
  try {
    editBook(lines, edit, ctx);
  } catch (e) {
    expect(e).toBeInstanceOf(BookEditError);
    return { code: (e as BookEditError).code, message: (e as Error).message };
  }
  throw new Error('the edit was made');
};

const act = (lines: TraceLine[], seq: number): TraceAct => lines.find((l) => l.seq === seq) as TraceAct;

describe('re-sealing', () => {
  it('renumbers and re-chains from the given line on, and leaves the lines before it as they were', () => {
    const b = book();
    expect(continuityHoles(b)).toEqual([]);
    const cut = [...b.slice(0, 6), ...b.slice(7)];
    expect(continuityHoles(cut).map((h) => h.code)).toEqual(['BOOK_GAP', 'BOOK_CHAIN']);
    const sealed = reseal(cut, 6);
    expect(sealed.slice(0, 6)).toEqual(b.slice(0, 6));
    expect(sealed.map((l) => l.seq)).toEqual(sealed.map((_, i) => i + 1));
    expect(continuityHoles(sealed)).toEqual([]);
  });
});

describe('undo', () => {
  it('takes back the last step of a book being recorded: the book goes on re-sealed, the edit line says who, what and when', () => {
    const recording = book().slice(0, 14); // … label hold_form, select {{input.reason}}
    const last = recording[13] as TraceAct;
    expect(last).toMatchObject({ kind: 'act', verb: 'select' });
    const edited = editBook(recording, { op: 'undo' }, ctx);
    expect(edited).toHaveLength(14);
    expect(edited.slice(0, 13)).toEqual(recording.slice(0, 13));
    expect(edited[13]).toEqual({
      seq: 14,
      at: '2026-12-01T12:00:00.000Z',
      prev: lineHash(recording[12] as TraceLine),
      kind: 'edit',
      op: 'undo',
      by: 'Dana Clerk',
      line: 14,
      was: lineHash(last),
      what: "undid line 14: select combobox 'Reason' = {{input.reason}}",
    });
    expect(continuityHoles(edited)).toEqual([]);
  });

  it('takes back a step that moved the screen when it is the last thing in the book; recording on from the other screen is then a hole', () => {
    const recording = book().slice(0, 15); // … F8=Review, which moved hold_form → hold_review
    const edited = editBook(recording, { op: 'undo' }, ctx);
    expect(continuityHoles(edited)).toEqual([]);
    // The clerk did not go back: the next line starts on hold_review, which no recorded action led to.
    const next = book()[15] as TraceLine; // label hold_review
    const on = reseal([...edited, next], edited.length);
    expect(continuityHoles(on).map((h) => `${h.line} ${h.code}`)).toEqual(['16 UNEXPLAINED_CHANGE']);
  });

  it('has nothing to undo in a book with no step', () => {
    expect(refusal(book().slice(0, 2), { op: 'undo' }).code).toBe('NOTHING_TO_UNDO');
  });
});

describe('remove', () => {
  it('removes a step in the middle of a finished book, and the book still compiles, one step shorter', () => {
    const b = book();
    const before = compile(b, { id: 'plumbline_place_hold' });
    if (!before.ok) throw new Error(JSON.stringify(before.holes));
    const edited = editBook(b, { op: 'remove', line: 3 }, ctx); // set_value {{input.operator_id}}
    expect(edited).toHaveLength(20);
    expect(edited.at(-1)).toMatchObject({ kind: 'edit', op: 'remove', line: 3, by: 'Dana Clerk' });
    expect(holes(edited)).toEqual([]);
    const after = compile(edited, { id: 'plumbline_place_hold' });
    expect(after.ok && after.card.steps.length).toBe(before.card.steps.length - 1);
  });

  it('refuses to remove a step that moved the screen when later lines start there: the book would not say how it got there', () => {
    const b = book();
    const r = refusal(b, { op: 'remove', line: 5 }); // F5=Sign On
    expect(r).toMatchObject({ code: 'EDIT_REFUSED' });
    expect(r.message).toContain('line 5 moved the application to another screen');
  });

  it('removes only steps, and names a line the book does not have', () => {
    expect(refusal(book(), { op: 'remove', line: 2 }).message).toContain('label line');
    expect(refusal(book(), { op: 'remove', line: 99 }).code).toBe('NO_SUCH_LINE');
  });
});

describe('a value: blank or literal', () => {
  it('makes a typed value a literal the reviewer sees in the card, and back into its blank', () => {
    const b = book();
    const literal = editBook(b, { op: 'value', line: 14, value: 'FRAUD' }, ctx);
    expect(act(literal, 14).value).toBe('FRAUD');
    expect(literal.at(-1)).toMatchObject({ kind: 'edit', op: 'value', what: 'line 14: Reason takes FRAUD (was {{input.reason}})' });
    const card = compile(literal, { id: 'plumbline_place_hold' });
    if (!card.ok) throw new Error(JSON.stringify(card.holes));
    expect(card.card.steps.find((s) => s.screen === 'hold_form' && s.op.verb === 'select')?.op).toEqual({ verb: 'select', value: 'FRAUD' });
    const back = editBook(literal, { op: 'value', line: 14, value: '{{input.reason}}' }, ctx);
    expect(act(back, 14).value).toBe('{{input.reason}}');
    expect(back.filter((l) => l.kind === 'edit')).toHaveLength(2);
    expect(holes(back)).toEqual([]);
  });

  it('holds a new value to the guard\'s rules: no input\'s value as a literal, no secret in any spelling, no secret into a visible field, no unknown blank', () => {
    const b = book();
    expect(refusal(b, { op: 'value', line: 14, value: 'LEGAL' }).message).toContain('INPUT_LITERAL');
    expect(refusal(b, { op: 'value', line: 3, value: Buffer.from(PASSWORD).toString('base64') }).message).toContain('SECRET_LITERAL');
    expect(refusal(b, { op: 'value', line: 3, value: '{{input.password}}' }).message).toContain('SECRET_FIELD');
    expect(refusal(b, { op: 'value', line: 3, value: '{{input.nobody}}' }).message).toContain('UNKNOWN_BLANK');
    expect(refusal(b, { op: 'value', line: 5, value: 'x' }).message).toContain('types or chooses no value');
    // No message ever carries the secret.
    expect(refusal(b, { op: 'value', line: 3, value: PASSWORD }).message).not.toContain(PASSWORD);
  });
});

describe('a label', () => {
  it('renames a screen everywhere the book names it, and the card names it so', () => {
    const edited = editBook(book(), { op: 'label', line: 13, label: 'hold_entry' }, ctx);
    expect(edited.at(-1)).toMatchObject({ kind: 'edit', op: 'label', what: 'line 13: the screen hold_form "Place Account Hold" is now hold_entry "Hold Entry"' });
    expect(JSON.stringify(edited.slice(0, -1))).not.toContain('"hold_form"');
    const r = compile(edited, { id: 'plumbline_place_hold' });
    if (!r.ok) throw new Error(JSON.stringify(r.holes));
    expect(Object.keys(r.card.screens)).toContain('hold_entry');
    expect(Object.keys(r.card.screens)).not.toContain('hold_form');
  });

  it('renames the screen the task finishes on, finish line included', () => {
    const edited = editBook(book(), { op: 'label', line: 18, label: 'hold_done', title: 'Hold Done' }, ctx);
    expect(edited.find((l) => l.kind === 'finish')).toMatchObject({ label: 'hold_done', screen: { label: 'hold_done' } });
    expect(holes(edited)).toEqual([]);
  });

  it('refuses a label another screen has, or one that is not lower_snake_case', () => {
    expect(refusal(book(), { op: 'label', line: 13, label: 'member' }).message).toContain('LABEL_TAKEN');
    expect(refusal(book(), { op: 'label', line: 13, label: 'Hold Form' }).message).toContain('LABEL_INVALID');
    expect(refusal(book(), { op: 'label', line: 14, label: 'x' }).message).toContain('not a label');
  });
});

describe('after an edit the continuity check still finds real gaps', () => {
  it('a line lost, a line changed by hand, or lines moved in an edited book are holes where they show', () => {
    const edited = editBook(book(), { op: 'remove', line: 3 }, ctx);
    expect(holes(edited)).toEqual([]);
    const lost = [...edited.slice(0, 9), ...edited.slice(10)];
    expect(holes(lost)).toEqual(expect.arrayContaining(['10 BOOK_GAP', '10 BOOK_CHAIN']));
    const changed = edited.map((l) => (l.seq === 13 && l.kind === 'act' ? { ...l, value: 'FRAUD' } : l));
    expect(holes(changed)).toEqual(['14 BOOK_CHAIN']);
    const moved = [...edited];
    [moved[5], moved[6]] = [moved[6] as TraceLine, moved[5] as TraceLine];
    expect(holes(moved)).toEqual(expect.arrayContaining(['6 BOOK_GAP', '6 BOOK_CHAIN', '7 BOOK_ORDER']));
    // An edit line itself cannot be dropped quietly either.
    expect(holes(edited.slice(0, -2).concat(edited.slice(-1)))).toEqual(['19 BOOK_CHAIN', '19 BOOK_GAP']);
  });
});
