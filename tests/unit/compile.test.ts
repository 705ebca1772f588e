// A reviewer compiles a book into a draft card: the PLUMBLINE book always gives the same bytes (the golden card), and a book with holes is refused with every hole at once, each naming its book line.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cardBytes, compile } from '../../shared/compile/compile.ts';
import { TraceLine, type TraceAct } from '../../shared/schema/trace.ts';

const BOOK = fileURLToPath(new URL('../fixtures/author/plumbline.trace.jsonl', import.meta.url));
const GOLDEN = fileURLToPath(new URL('../../capabilities/plumbline-place-hold.authored.json', import.meta.url));

function book(): TraceLine[] {
  return readFileSync(BOOK, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => TraceLine.parse(JSON.parse(l)));
}

function reversedKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(reversedKeys);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).reverse().map(([k, x]) => [k, reversedKeys(x)]));
  return v;
}

describe('compiling the PLUMBLINE book', () => {
  it('gives the golden card, byte for byte, every time and whatever the key order of the lines', () => {
    const first = compile(book(), { id: 'plumbline_place_hold' });
    if (!first.ok) throw new Error(JSON.stringify(first.holes));
    expect(cardBytes(first.card)).toBe(readFileSync(GOLDEN, 'utf8'));
    const shuffled = compile(book().map((l) => TraceLine.parse(reversedKeys(l))), { id: 'plumbline_place_hold' });
    expect(shuffled.ok && cardBytes(shuffled.card)).toBe(cardBytes(first.card));
  });

  it('turns input values standing alone in a name or a row scope into blanks, and says what a reviewer must add', () => {
    const r = compile(book(), { id: 'plumbline_place_hold' });
    if (!r.ok) throw new Error('holes');
    const member = r.card.targets['member_number_link'];
    expect(member?.name).toEqual({ eq: '{{input.member_number}}' });
    expect(member?.fingerprint.over).not.toContain('name');
    expect(member?.ladder.at(-1)).toEqual({ rung: 'css', cost: 10_000_000, value: "a[href$='m={{input.member_number}}']" });
    expect(r.card.targets['hold_link']?.scope).toEqual([{ role: 'frame', name: 'work' }, { role: 'row', name: '{{input.share_id}}' }]);
    expect(r.card.entry).toBe('{{env.BASE_URL}}/signon');
    expect(r.card.lifecycle).toMatchObject({ state: 'draft' });
    expect(r.notes.join('\n')).toMatch(/Business outcomes.*post_hold/);
    expect(JSON.stringify(r.card.targets)).not.toContain('"eq":"400118"');
  });
});

describe('a book with holes', () => {
  it('is refused with every hole at once, each on its line', () => {
    const lines = book();
    const at = (seq: number) => lines.findIndex((l) => l.seq === seq);
    const act = (seq: number) => lines[at(seq)] as TraceAct;
    // Line 4 (the password) types the secret as a literal; line 7 (the member search) types an input's value.
    act(4).value = '[secret:password]';
    act(7).value = '400118';
    // Line 14 (the reason list) was found by no rung.
    act(14).rungs = [];
    // The label of the results screen (line 9) is gone: line 8 lands on an unlabelled screen and the next act
    // (now line 9) acts on one; the lines after it move up by one (the reason list is now line 13).
    lines.splice(at(9), 1);
    // The book never finishes.
    lines.splice(lines.findIndex((l) => l.kind === 'finish'));
    const r = compile(lines);
    expect(r.ok).toBe(false);
    const holes = r.ok ? [] : r.holes;
    expect(holes.map((h) => [h.line, h.code])).toEqual([
      [4, 'SECRET_IN_VALUE'],
      [7, 'LITERAL_INPUT'],
      [8, 'UNLABELLED_LANDING'],
      [9, 'UNLABELLED_SCREEN'],
      [13, 'NO_RUNG'],
      [lines.length, 'NO_FINISH'],
    ]);
    expect(holes.find((h) => h.code === 'LITERAL_INPUT')?.message).toContain('{{input.member_number}}');
  });

  it('without a start line says so', () => {
    const r = compile(book().filter((l) => l.kind !== 'start'));
    expect(r.ok ? [] : r.holes.map((h) => h.code)).toContain('NO_START');
  });
});
