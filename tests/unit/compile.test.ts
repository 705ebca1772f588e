// A reviewer compiles a book into a draft card: the PLUMBLINE book always gives the same bytes (the golden card), and a book with holes is refused with every hole at once, each naming its book line.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseNoRecord, parsePost } from '../../runner/cli/compile.ts';
import { cardBytes, compile, entryOf, idFromGoal } from '../../shared/compile/compile.ts';
import { TRACE_SCHEMA_ID, TraceLine, type TraceAct } from '../../shared/schema/trace.ts';
import { Guard } from '../../shared/author/guard.ts';
import { Masker } from '../../shared/secrets.ts';
import { FakeSurface, MemoryBook, control } from '../fixtures/author/fake-surface.ts';

const BOOK = fileURLToPath(new URL('../fixtures/author/plumbline.trace.jsonl', import.meta.url));
const GOLDEN = fileURLToPath(new URL('../../capabilities/plumbline-place-hold.authored.json', import.meta.url));

function book(): TraceLine[] {
  return readFileSync(BOOK, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => TraceLine.parse(JSON.parse(l)));
}

/** A book as if written this way from the start: its lines numbered in the order they now stand. */
function renumbered(lines: TraceLine[]): TraceLine[] {
  return lines.map((l, i) => ({ ...l, seq: i + 1 }));
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
    expect(cardBytes(first.card), 'the golden card (regenerate: npm run golden:update)').toBe(readFileSync(GOLDEN, 'utf8'));
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

describe('commits must be able to show their effect', () => {
  /** The book as if F10=Post Hold had left the review screen showing (a page that wants Enter, say). */
  function stuckBook(): { lines: TraceLine[]; line: number } {
    const lines = book();
    const i = lines.findIndex((l) => l.kind === 'act' && l.effect.kind === 'commit');
    const commit = lines[i] as TraceAct;
    commit.after = { ...commit.before };
    const rest = lines.slice(0, i + 1).filter((l) => l.kind !== 'finish');
    const finish = lines.find((l) => l.kind === 'finish');
    if (!finish || finish.kind !== 'finish') throw new Error('the fixture book has no finish');
    return { lines: renumbered([...rest, { ...finish, label: 'hold_review', screen: commit.before }]), line: i + 1 };
  }

  it('marks every screen that can follow a commit, in the golden card', () => {
    const r = compile(book(), { id: 'plumbline_place_hold' });
    if (!r.ok) throw new Error('holes');
    expect(r.card.screens['hold_result']?.marks?.paths).toContain("work>strong 'HOLD POSTED CONFIRMATION HX-#'");
    expect(r.card.screens['signon']?.marks).toBeUndefined();
  });

  it('refuses a commit that ends where it started, naming the step and its book line', () => {
    const { lines, line } = stuckBook();
    const r = compile(lines, { id: 'stuck' });
    expect(r.ok).toBe(false);
    const hole = r.ok ? undefined : r.holes.find((h) => h.code === 'NO_VISIBLE_EFFECT');
    expect(hole?.line).toBe(line);
    expect(hole?.message).toContain('post_hold');
  });

  it('refuses a commit that lands on a screen the evening showed before it (a refusal may close back to it), naming that step', () => {
    // As if F10=Post Hold closed the review and showed the member's page again, the page the hold form was opened from.
    const lines = book();
    const i = lines.findIndex((l) => l.kind === 'act' && l.effect.kind === 'commit');
    const commit = lines[i] as TraceAct;
    const openHold = lines.find((l): l is TraceAct => l.kind === 'act' && l.seq === 12);
    if (!openHold) throw new Error('the fixture book has no act on line 12 (the member page\'s Place Hold)');
    commit.after = { ...openHold.before };
    const finish = lines.find((l) => l.kind === 'finish');
    if (!finish || finish.kind !== 'finish') throw new Error('the fixture book has no finish');
    const numbered = renumbered([...lines.slice(0, i + 1), { ...finish, label: 'member', screen: openHold.before }]);
    const r = compile(numbered, { id: 'closes_back' });
    const hole = r.ok ? undefined : r.holes.find((h) => h.code === 'NO_VISIBLE_EFFECT');
    expect(hole?.line).toBe(i + 1);
    expect(hole?.message).toMatch(/post_hold" ends on member, which the evening showed before it \(step "open_hold"\)/);
    const given = compile(numbered, { id: 'closes_back', post: { post_hold: [{ kind: 'text', contains: 'HOLD' }] } });
    expect(given.ok ? [] : given.holes.map((h) => h.code)).toEqual([]);
  });

  it('compiles it once a reviewer supplies a postcondition, and refuses one for a step that is no commit', () => {
    const { lines } = stuckBook();
    const r = compile(lines, { id: 'stuck', post: { post_hold: [{ kind: 'text', contains: 'HOLD POSTED' }] } });
    if (!r.ok) throw new Error(JSON.stringify(r.holes));
    expect(r.card.steps.find((s) => s.id === 'post_hold')?.post).toEqual([{ kind: 'text', contains: 'HOLD POSTED' }]);
    const wrong = compile(lines, { id: 'stuck', post: { post_hold: [{ kind: 'text', contains: 'X' }], review: [{ kind: 'text', contains: 'X' }] } });
    expect(wrong.ok ? [] : wrong.holes.map((h) => h.code)).toEqual(['UNKNOWN_POSTCONDITION_STEP']);
  });
});

describe('identity before the press: each commit proves its record or says it chooses none', () => {
  /** The PLUMBLINE book as if its member and share had been chosen by nothing an input names (other values typed). */
  function unchosen(): TraceLine[] {
    return book().map((l) =>
      l.kind === 'start' ? { ...l, inputs: l.inputs.map((i) => (i.name === 'member_number' ? { ...i, value: '999001' } : i.name === 'share_id' ? { ...i, value: '999001-S0009' } : i)) } : l,
    );
  }

  it('the inputs that chose the record (the member link, the share row) become preconditions of the commit', () => {
    const r = compile(book(), { id: 'place_hold' });
    if (!r.ok) throw new Error(JSON.stringify(r.holes));
    const post = r.card.steps.find((s) => s.id === 'post_hold');
    expect(post?.pre).toEqual([
      { kind: 'text', contains: '{{input.member_number}}' },
      { kind: 'text', contains: '{{input.share_id}}' },
    ]);
    // The reason was typed, not chosen: it chooses no record.
    expect(JSON.stringify(post?.pre)).not.toContain('reason');
  });

  it('a commit no input chose is a NO_RECORD_IDENTITY hole naming the step; --pre or --no-record answers it', () => {
    const lines = unchosen();
    const r = compile(lines, { id: 'place_hold' });
    expect(r.ok ? [] : r.holes.map((h) => [h.code, h.step])).toEqual([['NO_RECORD_IDENTITY', 'post_hold']]);
    expect(r.ok ? '' : r.holes[0]?.message).toMatch(/--pre 'post_hold=text:\{\{input.<name>\}\}'.*--no-record post_hold/);
    const none = compile(lines, { id: 'place_hold', noRecord: parseNoRecord(['post_hold']) });
    expect(none.ok && none.card.steps.find((s) => s.id === 'post_hold')).toMatchObject({ no_record: true });
    const pre = compile(lines, { id: 'place_hold', pre: parsePost(['post_hold=text:{{input.share_id}}'], '--pre') });
    expect(pre.ok && pre.card.steps.find((s) => s.id === 'post_hold')?.pre).toEqual([{ kind: 'text', contains: '{{input.share_id}}' }]);
    const wrong = compile(lines, { id: 'place_hold', noRecord: ['post_hold', 'review'] });
    expect(wrong.ok ? [] : wrong.holes.map((h) => [h.code, h.step])).toEqual([['UNKNOWN_PRECONDITION_STEP', 'review']]);
  });

  it('a precondition that names no input is refused as the card would refuse it', () => {
    const r = compile(unchosen(), { id: 'place_hold', pre: { post_hold: [{ kind: 'text', contains: 'HOLD REVIEW' }] } });
    expect(r.ok ? [] : r.holes.map((h) => [h.code, h.step])).toEqual([['INVALID_CARD', 'post_hold']]);
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
    const numbered = renumbered(lines);
    const r = compile(numbered);
    expect(r.ok).toBe(false);
    const holes = r.ok ? [] : r.holes;
    const post = numbered.findIndex((l) => l.kind === 'act' && l.effect.kind === 'commit') + 1;
    expect(holes.map((h) => [h.line, h.code])).toEqual([
      [4, 'SECRET_IN_VALUE'],
      [7, 'LITERAL_INPUT'],
      [8, 'UNLABELLED_LANDING'],
      [9, 'UNLABELLED_SCREEN'],
      [13, 'NO_RUNG'],
      [post, 'COMMIT_WITHOUT_OUTCOME'],
      [lines.length, 'NO_FINISH'],
    ]);
    expect(holes.find((h) => h.code === 'LITERAL_INPUT')?.message).toContain('{{input.member_number}}');
  });

  it('an evening that ended after its commit, before any outcome screen, names the pressed commit', () => {
    const lines = book();
    const post = lines.findIndex((l) => l.kind === 'act' && l.effect.kind === 'commit');
    const cut = renumbered(lines.slice(0, post + 1));
    const r = compile(cut);
    const holes = r.ok ? [] : r.holes;
    const named = holes.find((h) => h.code === 'COMMIT_WITHOUT_OUTCOME');
    expect(named?.line).toBe(post + 1);
    expect(named?.message).toContain("F10=Post Hold");
    expect(named?.message).toContain('check the application');
  });

  it('without a start line says so', () => {
    const r = compile(book().filter((l) => l.kind !== 'start'));
    expect(r.ok ? [] : r.holes.map((h) => h.code)).toContain('NO_START');
  });
});

describe('handrail compile --post', () => {
  it('reads text and control postconditions, with blanks, and refuses anything else by name', () => {
    expect(parsePost(['add_note=text:{{input.note}}', 'add_note=control:link:{{input.note}}'])).toEqual({
      add_note: [
        { kind: 'text', contains: '{{input.note}}' },
        { kind: 'control', role: 'link', name: '{{input.note}}' },
      ],
    });
    expect(() => parsePost(['add_note=shows:x'])).toThrow(/step=text:WORDS, step=control:ROLE:NAME or step=row:KEY:WORDS/);
    expect(() => parsePost(['add_note=control:link'])).toThrow(/ROLE:NAME/);
  });

  it('reads a row-scoped one: the row whose key is KEY (up to the first colon) shows WORDS, for --post and --pre alike', () => {
    expect(parsePost(['assign=row:{{input.case_title}}:{{input.assignee}}', 'assign=row:{{input.case_title}}: Status: closed '])).toEqual({
      assign: [
        { kind: 'row', key: '{{input.case_title}}', contains: '{{input.assignee}}' },
        { kind: 'row', key: '{{input.case_title}}', contains: 'Status: closed' },
      ],
    });
    expect(parsePost(['close=row:{{input.case_title}}:open'], '--pre')).toEqual({ close: [{ kind: 'row', key: '{{input.case_title}}', contains: 'open' }] });
    expect(() => parsePost(['assign=row:{{input.case_title}}'])).toThrow(/--post assign=row: expects KEY:WORDS/);
    expect(() => parsePost(['assign=row::words'], '--pre')).toThrow(/--pre assign=row: give the key of the row/);
    expect(() => parsePost(['assign=row:{{input.case_title}}: '])).toThrow(/say what the row/);
  });
});

describe('a commit keeps what the app said where it landed', () => {
  /** The PLUMBLINE book as if its pages had a status line: "Signed on" before Post Hold, a toast after it. */
  function saying(after: string[], before: string[] = ['Signed on as OP1001']): TraceLine[] {
    return book().map((l) => {
      if (l.kind !== 'act' || l.effect.kind !== 'commit') return l;
      return { ...l, before: { ...l.before, said: before }, after: { ...l.after, said: after } };
    });
  }

  it('writes what was new since the press, input values as their blanks, into the commit step', () => {
    const r = compile(saying(['Signed on as OP1001', 'Hold posted on share 400118-S0001 at 10:42']), { id: 'plumbline_place_hold' });
    if (!r.ok) throw new Error(JSON.stringify(r.holes));
    const commit = r.card.steps.find((s) => s.effect.kind === 'commit');
    expect(commit?.said).toEqual(['Hold posted on share {{input.share_id}} at #:#']);
    for (const s of r.card.steps) if (s !== commit) expect(s.said).toBeUndefined();
  });

  it('writes nothing when the landing said nothing new (silence proves nothing)', () => {
    const r = compile(saying(['Signed on as OP1001']), { id: 'plumbline_place_hold' });
    if (!r.ok) throw new Error(JSON.stringify(r.holes));
    expect(r.card.steps.some((s) => s.said !== undefined)).toBe(false);
  });
});

describe('the entry is blanked as its surface declares', () => {
  it('a URL loses its origin; a terminal entry (host:port) is blanked whole; nothing else is touched', () => {
    expect(entryOf('http://127.0.0.1:8080/signon?x=1', 'browser', true)).toBe('{{env.BASE_URL}}/signon?x=1');
    expect(entryOf('file:///tmp/page.html', 'browser', true)).toBe('file:///tmp/page.html');
    expect(entryOf('127.0.0.1:3270', 'tn3270', true)).toBe('{{env.BASE_URL}}');
    expect(entryOf('com.apple.TextEdit', 'macos', true)).toBe('com.apple.TextEdit');
    expect(entryOf('http://127.0.0.1:8080/signon', 'browser', false)).toBe('http://127.0.0.1:8080/signon');
  });

  it('a book from another surface is held to that surface: browser rungs and frame scopes do not load on tn3270', () => {
    const lines = book();
    const start = lines[0];
    if (start?.kind !== 'start') throw new Error('the fixture book starts with its start line');
    const terminal = compile([{ ...start, surface: 'tn3270', entry: '127.0.0.1:3270' }, ...lines.slice(1)]);
    expect(terminal.ok).toBe(false);
    if (!terminal.ok) expect(terminal.holes.map((h) => h.message).join('\n')).toMatch(/tn3270 surface cannot resolve a "css" rung/);
  });
});

describe('the guard and the compiler agree on which screens are labelled', () => {
  it('a screen the guard calls already labelled (similar furniture) is no unlabelled landing to the compiler', async () => {
    const links = Array.from({ length: 30 }, (_, i) => control(`|c${i}`, 'link', `Item ${i}`));
    const surface = new FakeSurface({
      list: { controls: [...links, control('|c30', 'button', 'Refresh')], text: 'LIST', next: { '|c30': 'refreshed' } },
      // One banner more than the list (and the fake's own screen path differs): Jaccard 31/34, the similar tier names it `list`.
      refreshed: { controls: [...links, control('|c30', 'button', 'Refresh'), control('|c31', 'link', 'Updated')], text: 'LIST' },
    }, 'list');
    const book = new MemoryBook();
    const guard = new Guard({
      surface, book, masker: new Masker([]), goal: 'refresh', inputs: [],
      owner: { ask: () => Promise.resolve({ answer: 'navigate', name: 'Olive Owner' }) },
      settle: { quietMs: 0, pollMs: 1 },
    });
    await guard.show();
    expect((await guard.handle({ id: 'a', name: 'assert_screen', input: { label: 'list' } })).ok).toBe(true);
    const acted = await guard.handle({ id: 'b', name: 'act', input: { row: 31, verb: 'invoke' } });
    expect(acted.text).toContain('the screen changed to list');
    await guard.show();
    expect((await guard.handle({ id: 'c', name: 'assert_screen', input: { label: 'refreshed' } })).text).toContain('(ALREADY_LABELLED)');
    expect((await guard.handle({ id: 'd', name: 'finish', input: { label: 'list' } })).ok).toBe(true);
    const start = TraceLine.parse({
      seq: 0, at: '2026-12-01T00:00:00.000Z', kind: 'start', schema: TRACE_SCHEMA_ID, goal: 'refresh', entry: 'fake://list',
      inputs: [], walker: surface.observer, author: { kind: 'model', model: 'list' }, surface: 'browser',
    });
    const lines = [start, ...book.lines.map((l) => TraceLine.parse(l))];
    const r = compile(lines, { id: 'refresh' });
    expect(r.ok ? [] : r.holes.map((h) => h.code)).not.toContain('UNLABELLED_LANDING');
    expect(r.ok ? [] : r.holes.map((h) => h.code)).not.toContain('UNLABELLED_SCREEN');
  });
});

describe('the guard and the compiler agree on a landing labelled after a refused call', () => {
  it('a label the guard refused (already taken) between the act and the landing`s label leaves no unlabelled landing', async () => {
    const surface = new FakeSurface({
      list: { controls: [control('|o', 'button', 'Open')], text: 'LIST', next: { '|o': 'detail' } },
      detail: { controls: [control('|b', 'link', 'Back'), control('|s', 'button', 'Save')], text: 'DETAIL' },
    }, 'list');
    const book = new MemoryBook();
    const guard = new Guard({
      surface, book, masker: new Masker([]), goal: 'open', inputs: [],
      owner: { ask: () => Promise.resolve({ answer: 'navigate', name: 'Olive Owner' }) },
      settle: { quietMs: 0, pollMs: 1 },
    });
    // The evening's start line, numbered and chained by the guard like every line after it.
    await guard.write({
      kind: 'start', schema: TRACE_SCHEMA_ID, goal: 'open', entry: 'fake://list', inputs: [], walker: surface.observer,
      author: { kind: 'model', model: 'list' }, surface: 'browser',
    });
    await guard.show();
    expect((await guard.handle({ id: 'a', name: 'assert_screen', input: { label: 'list' } })).ok).toBe(true);
    expect((await guard.handle({ id: 'b', name: 'act', input: { row: 1, verb: 'invoke' } })).text).toContain('an unlabelled screen');
    await guard.show();
    expect((await guard.handle({ id: 'c', name: 'assert_screen', input: { label: 'list' } })).text).toContain('(LABEL_TAKEN)');
    expect((await guard.handle({ id: 'd', name: 'assert_screen', input: { label: 'detail' } })).ok).toBe(true);
    expect((await guard.handle({ id: 'e', name: 'finish', input: { label: 'detail' } })).ok).toBe(true);
    const lines = book.lines.map((l) => TraceLine.parse(l));
    expect(lines.map((l) => l.kind)).toEqual(['start', 'label', 'act', 'refusal', 'label', 'finish']);
    const r = compile(lines, { id: 'open' });
    expect(r.ok, JSON.stringify(r.ok ? null : r.holes)).toBe(true);
    if (r.ok) expect(r.card.steps[0]).toMatchObject({ screen: 'list', settle: { kind: 'screen_is', screen: 'detail' } });
    // Without the label the landing is still a hole: the next action would start on a screen nobody named.
    const unlabelled = compile(lines.filter((l) => !(l.kind === 'label' && l.label === 'detail')), { id: 'open' });
    expect(unlabelled.ok ? [] : unlabelled.holes.map((h) => h.code)).toContain('UNLABELLED_LANDING');
  });
});

describe('two controls with one role and name in different places', () => {
  it('are two targets, each with its own fingerprint, so replay of a correct page never mismatches', async () => {
    // The header's "Log in" opens a modal dialog whose own "Log in" is then the only one offered (the header's is
    // behind the modal), so both are found by role and name alone at scope [] — yet they are different elements.
    const header = control('|c0', 'button', 'Log in', { ancestors: ['banner'] });
    const inDialog = control('|c1', 'button', 'Log in', { ancestors: ['dialog', 'form'] });
    const surface = new FakeSurface({
      home: { controls: [header], text: 'HOME', next: { '|c0': 'dialog' } },
      dialog: { controls: [control('|c0', 'textbox', 'User'), inDialog], text: 'SIGN IN', next: { '|c1': 'done' } },
      done: { controls: [control('|c0', 'link', 'Log out')], text: 'WELCOME' },
    }, 'home');
    const book = new MemoryBook();
    const guard = new Guard({
      surface, book, masker: new Masker([]), goal: 'log in', inputs: [],
      owner: { ask: () => Promise.resolve({ answer: 'navigate', name: 'Olive Owner' }) },
      settle: { quietMs: 0, pollMs: 1 },
    });
    const say = async (name: string, input: unknown) => {
      await guard.show();
      const out = await guard.handle({ id: name, name, input });
      expect(out.ok, out.text).toBe(true);
    };
    // The start line goes through the guard, as an evening writes it: the book is numbered and chained from it.
    await guard.write({ kind: 'start', schema: TRACE_SCHEMA_ID, goal: 'log in', entry: 'fake://home', inputs: [], walker: surface.observer, author: { kind: 'model', model: 'list' }, surface: 'browser' });
    await say('assert_screen', { label: 'home' });
    await say('act', { row: 1, verb: 'invoke' });
    await say('assert_screen', { label: 'sign_in' });
    await say('act', { row: 2, verb: 'invoke' });
    await say('assert_screen', { label: 'welcome' });
    await say('finish', { label: 'welcome' });
    const lines = book.lines.map((l) => TraceLine.parse(l));
    const r = compile(lines, { id: 'log_in' });
    if (!r.ok) throw new Error(JSON.stringify(r.holes));
    const acts = lines.filter((l): l is TraceAct => l.kind === 'act');
    expect(r.card.steps.map((s) => r.card.targets[s.target]?.fingerprint.value)).toEqual(acts.map((a) => a.fingerprint.value));
    expect(new Set(r.card.steps.map((s) => s.target)).size).toBe(2);
  });
});

describe('a capability id from the task\'s words', () => {
  it.each([
    ['Place a LEGAL hold on one share of a PLUMBLINE member', 'place_hold'],
    ['Close the case through the confirm dialog', 'close_case'],
    ['Add a note to member 400118', 'add_note'],
    ['Sign on to PLUMBLINE', 'sign_on'],
    ['Log in to CaseDesk', 'log_in'],
    ['  ', 'authored_capability'],
    ['42 QUICK', 'n_42_quick'],
  ])('%j → %s', (goal, id) => {
    expect(idFromGoal(goal)).toBe(id);
    expect(id).toMatch(/^[a-z][a-z0-9_]*$/);
  });
});
