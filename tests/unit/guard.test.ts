// The guard refuses what a model must not do — a row that is not there, a verb not the row's own, a secret or an input typed as a literal, finishing on a screen nobody named or that is not showing — clearly, with nothing written that leaks.
import { describe, expect, it } from 'vitest';
import { Guard } from '../../shared/author/guard.ts';
import type { OwnerQuestion } from '../../shared/author/ports.ts';
import { Masker } from '../../shared/secrets.ts';
import { FakeSurface, MemoryBook, signOnScreens } from '../fixtures/author/fake-surface.ts';

const SECRET = 'hunter-22-zz';

function setup(answer: 'navigate' | 'cancel' = 'navigate') {
  const surface = new FakeSurface(signOnScreens(), 'signon');
  const book = new MemoryBook();
  const asked: OwnerQuestion[] = [];
  const guard = new Guard({
    surface,
    book,
    masker: new Masker([{ name: 'password', value: SECRET }]),
    goal: 'sign on',
    inputs: [
      { name: 'operator_id', value: 'OP1001', secret: false },
      { name: 'password', value: SECRET, secret: true },
    ],
    owner: {
      ask: (q) => {
        asked.push(q);
        return Promise.resolve({ answer, name: 'Olive Owner' });
      },
    },
    settle: { quietMs: 0, pollMs: 1 },
  });
  return { surface, book, guard, asked };
}

async function refused(input: unknown, name = 'act') {
  const s = setup();
  await s.guard.show();
  const out = await s.guard.handle({ id: 't1', name, input });
  return { ...s, out };
}

describe('the guard refuses, doing nothing, and keeps each refusal in the book', () => {
  it.each([
    ['a row that does not exist', { row: 9, verb: 'invoke' }, 'NO_SUCH_ROW', 'there is no row 9'],
    ['a verb that is not the row\'s own', { row: 3, verb: 'set_value', value: 'x' }, 'WRONG_VERB', 'row 3 takes "invoke"'],
    ['a secret typed as a literal', { row: 2, verb: 'set_value', value: SECRET }, 'SECRET_LITERAL', '{{input.password}}'],
    ['a secret typed into a field that shows it', { row: 1, verb: 'set_value', value: '{{input.password}}' }, 'SECRET_FIELD', 'not a password field'],
    ['a secret inside a longer literal', { row: 1, verb: 'set_value', value: `id ${SECRET}` }, 'SECRET_LITERAL', '{{input.password}}'],
    ['an input\'s value typed as a literal', { row: 1, verb: 'set_value', value: 'OP1001' }, 'INPUT_LITERAL', '{{input.operator_id}}'],
    ['a blank naming no input', { row: 1, verb: 'set_value', value: '{{input.nobody}}' }, 'UNKNOWN_BLANK', 'names no input'],
    ['an env blank', { row: 1, verb: 'set_value', value: '{{env.HOME}}' }, 'UNKNOWN_BLANK', 'names no input'],
    ['set_value without a value', { row: 1, verb: 'set_value' }, 'VALUE_REQUIRED', 'needs a value'],
    ['invoke with a value', { row: 3, verb: 'invoke', value: 'x' }, 'VALUE_NOT_ALLOWED', 'takes no value'],
  ])('%s', async (_what, input, code, says) => {
    const { out, book, surface } = await refused(input);
    expect(out.ok).toBe(false);
    expect(out.text).toContain(`(${code})`);
    expect(out.text).toContain(says);
    expect(out.text).not.toContain(SECRET);
    expect(book.lines).toEqual([expect.objectContaining({ kind: 'refusal', tool: 'act', code })]);
    expect(JSON.stringify(book.lines)).not.toContain(SECRET);
    expect(surface.log).toEqual([]);
  });

  it('a press the owner cancelled: nothing pressed, nothing written, and the model is told so', async () => {
    const { guard, book, surface, asked } = setup('cancel');
    await guard.show();
    expect((await guard.handle({ id: 't0', name: 'assert_screen', input: { label: 'signon' } })).ok).toBe(true);
    const written = book.lines.length;
    const out = await guard.handle({ id: 't1', name: 'act', input: { row: 3, verb: 'invoke' } });
    expect(asked.map((q) => q.control)).toEqual(["button 'Sign On'"]);
    expect(out.ok).toBe(false);
    expect(out.text).toContain('(CANCELLED)');
    expect(out.text).toContain('nothing was pressed');
    // Nothing done; the refusal itself is kept for the reviewer, like every refused call.
    expect(book.lines.slice(written)).toEqual([expect.objectContaining({ kind: 'refusal', tool: 'act', code: 'CANCELLED' })]);
    expect(surface.log).toEqual([]);
  });

  it('finish on a screen no label names', async () => {
    const { out, book } = await refused({ label: 'signon' }, 'finish');
    expect(out).toMatchObject({ ok: false });
    expect(out.text).toContain('(NOT_LABELLED)');
    expect(book.lines).toEqual([expect.objectContaining({ kind: 'refusal', tool: 'finish', code: 'NOT_LABELLED' })]);
  });

  it('finish on a labelled screen that is not showing', async () => {
    const { guard, book } = setup();
    await guard.show();
    expect((await guard.handle({ id: 'a', name: 'assert_screen', input: { label: 'signon' } })).ok).toBe(true);
    expect((await guard.handle({ id: 'b', name: 'act', input: { row: 3, verb: 'invoke' } })).ok).toBe(true);
    await guard.show();
    const out = await guard.handle({ id: 'c', name: 'finish', input: { label: 'signon' } });
    expect(out.text).toContain('(NOT_SHOWING)');
    expect(out.text).toContain('an unlabelled screen');
    expect(book.lines.map((l) => (l as { kind: string }).kind)).toEqual(['label', 'act', 'refusal']);
    expect(guard.finished).toBeNull();
  });

  it('a call after one that changed the screen, in the same message', async () => {
    const { guard, book } = setup();
    await guard.show();
    await guard.handle({ id: 'l', name: 'assert_screen', input: { label: 'signon' } });
    await guard.handle({ id: 'a', name: 'act', input: { row: 3, verb: 'invoke' } });
    const out = await guard.handle({ id: 'b', name: 'act', input: { row: 1, verb: 'set_value', value: '{{input.operator_id}}' } });
    expect(out.text).toContain('(SCREEN_CHANGED)');
    expect(book.lines.map((l) => (l as { kind: string }).kind)).toEqual(['label', 'act', 'refusal']);
  });

  it('an action on a screen nobody has labelled yet', async () => {
    const { out, book, surface } = await refused({ row: 3, verb: 'invoke' });
    expect(out.text).toContain('(UNLABELLED_SCREEN)');
    expect(out.text).toContain('assert_screen');
    expect(book.lines).toEqual([expect.objectContaining({ kind: 'refusal', code: 'UNLABELLED_SCREEN' })]);
    expect(surface.log).toEqual([]);
  });

  it('a label that already names another screen', async () => {
    const { guard } = setup();
    await guard.show();
    await guard.handle({ id: 'a', name: 'assert_screen', input: { label: 'signon' } });
    await guard.handle({ id: 'b', name: 'act', input: { row: 3, verb: 'invoke' } });
    await guard.show();
    const out = await guard.handle({ id: 'c', name: 'assert_screen', input: { label: 'signon' } });
    expect(out.text).toContain('(LABEL_TAKEN)');
  });
});

describe('the guard lets a good call through and writes its line', () => {
  it('types blanks, asks the owner about the button, and masks the book', async () => {
    const { guard, book, asked } = setup();
    await guard.show();
    const calls = [
      { name: 'assert_screen', input: { label: 'signon', title: 'Sign On' } },
      { name: 'act', input: { row: 1, verb: 'set_value', value: '{{input.operator_id}}' } },
      { name: 'act', input: { row: 2, verb: 'set_value', value: '{{input.password}}' } },
      { name: 'act', input: { row: 3, verb: 'invoke' } },
    ];
    for (const [i, c] of calls.entries()) expect((await guard.handle({ id: `t${i}`, ...c })).ok).toBe(true);
    expect(book.text).not.toContain(SECRET);
    const acts = book.lines.filter((l) => (l as { kind: string }).kind === 'act') as { value?: string; effect: unknown; rungs: { rung: string }[] }[];
    expect(acts.map((a) => a.value)).toEqual(['{{input.operator_id}}', '{{input.password}}', undefined]);
    expect(acts[0]?.rungs.map((r) => r.rung)).toEqual(['label']);
    expect(acts[2]?.rungs.map((r) => r.rung)).toEqual(['role_name']);
    expect(acts[0]?.effect).toEqual({ kind: 'stage', by: 'rule' });
    expect(acts[2]?.effect).toEqual({ kind: 'navigate', by: 'owner', owner: 'Olive Owner' });
    expect(asked.map((q) => q.control)).toEqual(["button 'Sign On'"]);
  });
});
