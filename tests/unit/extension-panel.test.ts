// The side panel's logic without a browser: the new-session form says what is wrong in a clerk's words, a
// session's phase and book read as the panel shows them, a typed value equal to an input becomes its blank, and
// compiling in the panel shows the holes.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { busyOf, cardIdProblem, compileBook, describeLine, emptyForm, emptyPost, fileStem, noteOf, phaseOf, plainLine, postOf, postsOf, sessionView, startCommand, toLabel, type PostForm } from '../../extension/lib/panel-state.ts';
import { parsePost } from '../../runner/cli/compile.ts';
import { cardBytes, compile } from '../../shared/compile/compile.ts';
import { valueForGuard } from '../../extension/lib/record.ts';
import type { SessionRecord } from '../../extension/lib/store.ts';
import { Capability } from '../../shared/schema/capability.ts';
import { TRACE_SCHEMA_ID, TraceLine, type TraceAct } from '../../shared/schema/trace.ts';

const form = () => ({
  ...emptyForm(),
  goal: 'Place a hold',
  owner: 'Dana',
  inputs: [
    { name: 'member_number', value: '400118', secret: false },
    { name: 'password', value: 'hunter22', secret: true },
    { name: '', value: '', secret: false },
  ],
});

const record = (patch: Partial<SessionRecord> = {}): SessionRecord => ({
  id: 's',
  tabId: 1,
  mode: 'record',
  goal: 'g',
  entry: 'http://x/',
  owner: 'Dana',
  inputs: [],
  state: 'running',
  created: '2026-11-30T02:00:00.000Z',
  updated: '2026-11-30T02:00:00.000Z',
  question: null,
  view: null,
  note: null,
  events: [],
  ...patch,
});

describe('the new-session form', () => {
  it('becomes a start command, skipping blank rows', () => {
    const r = startCommand(form(), 42);
    expect(r).toEqual({
      ok: true,
      cmd: {
        type: 'start',
        tabId: 42,
        mode: 'record',
        goal: 'Place a hold',
        owner: 'Dana',
        inputs: [
          { name: 'member_number', value: '400118', secret: false },
          { name: 'password', value: 'hunter22', secret: true },
        ],
      },
    });
  });

  it('names what is wrong', () => {
    expect(startCommand({ ...form(), goal: ' ' }, 1)).toEqual({ ok: false, message: 'a goal is required' });
    expect(startCommand({ ...form(), owner: '' }, 1)).toEqual({ ok: false, message: 'the owner (your name) is required' });
    const bad = { ...form(), inputs: [{ name: 'Member Number', value: '1', secret: false }] };
    expect(startCommand(bad, 1)).toEqual({ ok: false, message: 'input "Member Number": an input name is lower_snake_case' });
    const twice = { ...form(), inputs: [{ name: 'a', value: '1', secret: false }, { name: 'a', value: '2', secret: false }] };
    expect(startCommand(twice, 1)).toEqual({ ok: false, message: 'the input "a" is named twice' });
    const short = { ...form(), inputs: [{ name: 'pin', value: '12', secret: true }] };
    expect(startCommand(short, 1)).toMatchObject({ ok: false, message: expect.stringContaining('at least 3') as unknown });
  });
});

describe("a clerk's typed value", () => {
  const inputs = [
    { name: 'member_number', value: '400118', secret: false },
    { name: 'password', value: 'hunter22', secret: true },
    { name: 'reason', value: 'LEGAL', secret: false },
  ];
  it('equal to an input becomes its blank; a secret always does', () => {
    expect(valueForGuard({ verb: 'set_value', value: ' 400118 ' }, inputs)).toBe('{{input.member_number}}');
    expect(valueForGuard({ verb: 'set_value', value: 'hunter22' }, inputs)).toBe('{{input.password}}');
    expect(valueForGuard({ verb: 'select', value: 'Legal order', optionValue: 'LEGAL' }, inputs)).toBe('{{input.reason}}');
  });
  it('is kept as a literal otherwise, and an invoke has no value', () => {
    expect(valueForGuard({ verb: 'set_value', value: 'Dispute' }, inputs)).toBe('Dispute');
    expect(valueForGuard({ verb: 'invoke' }, inputs)).toBeUndefined();
  });
  it('a key pressed is its name, never a blank; an option picked in a custom list is a blank like a select', () => {
    expect(valueForGuard({ verb: 'press', value: 'Enter' }, [...inputs, { name: 'key', value: 'Enter', secret: false }])).toBe('Enter');
    expect(valueForGuard({ verb: 'choose', value: 'LEGAL' }, inputs)).toBe('{{input.reason}}');
    expect(valueForGuard({ verb: 'choose', value: 'Sam Okafor' }, inputs)).toBe('Sam Okafor');
    expect(valueForGuard({ verb: 'hover' }, inputs)).toBeUndefined();
  });
});

describe('a session as the panel shows it', () => {
  const lines: TraceLine[] = [
    { seq: 1, at: 't', kind: 'start', schema: TRACE_SCHEMA_ID, goal: 'g', entry: 'e', inputs: [], walker: 'w', author: { kind: 'human' } },
    { seq: 2, at: 't', kind: 'label', label: 'signon', title: 'Sign On', screen: { locus: { url: 'u' }, signature: 's', paths: [], label: 'signon' } },
  ];
  it('has a phase from its state and question', () => {
    expect(phaseOf(null)).toBe('none');
    expect(phaseOf(record())).toBe('recording');
    expect(phaseOf(record({ mode: 'model' }))).toBe('running');
    expect(phaseOf(record({ question: { id: 'q', control: "button 'F10=Post Hold'", screen: 'review', goal: 'g' } }))).toBe('asking');
    expect(phaseOf(record({ state: 'finished' }))).toBe('finished');
  });
  it('lets the clerk label only while recording with no question waiting', () => {
    expect(sessionView(record(), lines)).toMatchObject({ canLabel: true, labels: ['signon'], rows: ['1 start: g (human)', '2 label: signon "Sign On"'] });
    expect(sessionView(record({ mode: 'model' }), lines).canLabel).toBe(false);
    expect(sessionView(record({ question: { id: 'q', control: 'c', screen: null, goal: 'g' } }), lines).canLabel).toBe(false);
  });
  it('shows a refusal or a failure as an error, with what to do next; anything else as a note', () => {
    expect(noteOf(record({ note: 'refused (NO_SUCH_ROW): there is no row 9; the menu has rows 1 to 3' }))).toEqual({
      kind: 'error',
      title: 'Not done.',
      text: 'refused (NO_SUCH_ROW): there is no row 9; the menu has rows 1 to 3',
      next: 'Look at the screen in the tab and do the step again.',
    });
    expect(noteOf(record({ state: 'failed', note: 'SECRET_GONE: the browser was closed during the session; start a new session' }))).toMatchObject({ kind: 'error' });
    expect(noteOf(record({ note: 'that control is not on the menu (disabled, or not a control); nothing recorded' }))).toMatchObject({ kind: 'error' });
    expect(noteOf(record({ note: "refused (CANCELLED): the owner cancelled pressing button 'OK': nothing was pressed or written" }))).toMatchObject({ kind: 'note' });
    // An action that sent a write nobody confirmed was done: the error says so, and what to do instead.
    const unasked = noteOf(record({ note: "Unconfirmed change: line 4, link 'Send Now', sent a change to the application (POST http://127.0.0.1:8080/flag (form)) that nobody confirmed as a commit." }));
    expect(unasked).toMatchObject({ kind: 'error', title: 'Sent without a question.', text: expect.stringMatching(/^line 4, link 'Send Now', sent a change/) });
    expect(unasked?.kind === 'error' ? unasked.next : '').toMatch(/^Undo this step .*handrail author/);
    expect(noteOf(record({ note: 'labelled signon' }))).toEqual({ kind: 'note', text: 'labelled signon' });
    expect(noteOf(record({ note: null }))).toBeNull();
  });
  it('says what the worker is busy with while it works, so the clerk knows to wait (or stop)', () => {
    expect(busyOf(record({ mode: 'model' }))).toBe('The model is working out the next step…');
    expect(busyOf(record({ mode: 'model', question: { id: 'q', control: 'c', screen: null, goal: 'g' } }))).toBeNull();
    expect(busyOf(record())).toBeNull();
    const dispatched = { call: 'e1', lines: 3, line: { verb: 'invoke', control: { role: 'button', name: 'F5=Search' } } } as unknown as SessionRecord['dispatched'];
    expect(busyOf(record({ dispatched }))).toBe("Pressing button 'F5=Search' for you and waiting for the screen…");
    expect(busyOf(record({ state: 'finished', mode: 'model' }))).toBeNull();
  });
  it("reads each line in a clerk's words, the technical form kept beside it", () => {
    const act = {
      seq: 3,
      at: 't',
      kind: 'act',
      actor: 'human',
      row: 1,
      verb: 'set_value',
      value: '{{input.member_number}}',
      control: { ref: 'c0', role: 'textbox', name: 'Member number', verbs: ['set_value'], scope: [], ancestors: [] },
      rungs: [],
      fingerprint: { over: [], value: 'x' },
      effect: { kind: 'stage', by: 'rule' },
      before: { locus: {}, signature: 's', paths: [], label: null },
      after: { locus: {}, signature: 's', paths: [], label: null },
    } as unknown as TraceLine;
    expect(plainLine(act)).toBe('Typed {{input.member_number}} into Member number');
    const post = { ...act, verb: 'invoke', value: undefined, control: { ...(act as { control: object }).control, role: 'button', name: 'F10=Post Hold' }, effect: { kind: 'commit', by: 'owner', owner: 'Dana' } } as unknown as TraceLine;
    expect(plainLine(post)).toBe('Pressed F10=Post Hold — a commit (Dana said)');
    // The verbs done with trusted input read in a clerk's words too.
    const like = (verb: string, value?: string) => plainLine({ ...act, verb, value } as unknown as TraceLine);
    expect([like('press', 'Enter'), like('hover'), like('double_click'), like('choose', '{{input.assignee}}')]).toEqual([
      'Pressed Enter in Member number',
      'Hovered its row to show Member number',
      'Double-clicked Member number',
      'Picked {{input.assignee}} in Member number',
    ]);
    // A table read for a rows output says how many rows and under which output name.
    const rowsLine = { ...act, verb: 'read_rows', value: undefined, control: { ...(act as { control: object }).control, role: 'grid', name: 'Open cases' }, rows: { output: 'cases', columns: {}, headers: [], count: 2 } };
    expect(plainLine(rowsLine as unknown as TraceLine)).toBe('Read 2 rows of Open cases as cases');
    expect(sessionView(record(), lines).plain).toEqual(['Started: g (by hand)', 'Named this screen "Sign On" (signon)']);
    expect(plainLine({ seq: 9, at: 't', kind: 'end', outcome: 'finished' })).toBe('Finished');
  });
  it('describes an end line with its code', () => {
    expect(describeLine({ seq: 9, at: 't', kind: 'end', outcome: 'failed', code: 'STOPPED' })).toBe('9 end: failed STOPPED');
  });
});

describe('compiling in the panel', () => {
  it('shows every hole of a book that never finished', () => {
    const r = compileBook([{ seq: 1, at: 't', kind: 'start', schema: TRACE_SCHEMA_ID, goal: 'g', entry: 'http://x/', inputs: [], walker: 'w', author: { kind: 'human' } }]);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.holes.map((h) => h.code)).toContain('NO_FINISH');
  });

  const plumblineBook = (): TraceLine[] =>
    readFileSync(fileURLToPath(new URL('../fixtures/author/plumbline.trace.jsonl', import.meta.url)), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => TraceLine.parse(JSON.parse(l)));

  /** PLUMBLINE's book as if F10=Post Hold had left the review showing: its screen cannot show the hold was posted. */
  function stuckBook(): TraceLine[] {
    const lines = plumblineBook();
    const i = lines.findIndex((l) => l.kind === 'act' && l.effect.kind === 'commit');
    const commit = lines[i] as TraceAct;
    commit.after = { ...commit.before };
    const finish = lines.find((l) => l.kind === 'finish');
    if (!finish || finish.kind !== 'finish') throw new Error('the fixture book has no finish');
    return [...lines.slice(0, i + 1), { ...finish, label: 'hold_review', screen: commit.before }].map((l, n) => ({ ...l, seq: n + 1 }));
  }

  it('asks for a postcondition for a commit that cannot show its effect, and compiles once one is given, into the card it downloads', () => {
    const stuck = compileBook(stuckBook());
    if (stuck.ok) throw new Error('a commit that stays on its screen compiled without a postcondition');
    expect(stuck.holes.map((h) => h.code)).toContain('NO_VISIBLE_EFFECT');
    expect(stuck.needsPost).toEqual(['post_hold']);
    expect(stuck.inputs).toEqual(['operator_id', 'password', 'member_number', 'share_id', 'reason']);
    const given = postsOf({ post_hold: [{ ...emptyPost(), text: 'HOLD POSTED' }, { kind: 'control', text: '', role: 'row', name: '{{input.share_id}}' }] });
    if (!given.ok) throw new Error(given.problem);
    const card = compileBook(stuckBook(), { id: 'stuck_hold', post: given.post });
    if (!card.ok) throw new Error(JSON.stringify(card.holes));
    const parsed = Capability.parse(JSON.parse(card.bytes));
    expect(parsed.id).toBe('stuck_hold');
    expect(parsed.steps.find((s) => s.id === 'post_hold')?.post).toEqual([
      { kind: 'text', contains: 'HOLD POSTED' },
      { kind: 'control', role: 'row', name: '{{input.share_id}}' },
    ]);
    // A book whose commit shows its effect compiles with no question.
    const fine = compileBook(plumblineBook());
    expect(fine.ok).toBe(true);
  });

  it('writes the bytes handrail compile --post writes for the same words, text and control, spaces and all', () => {
    const words: [string, PostForm][] = [
      ['post_hold=text:  HOLD POSTED ', { ...emptyPost(), text: '  HOLD POSTED ' }],
      ['post_hold=control: row : {{input.share_id}} ', { kind: 'control', text: '', role: ' row ', name: ' {{input.share_id}} ' }],
    ];
    for (const [spec, form] of words) {
      const panel = postsOf({ post_hold: [form] });
      if (!panel.ok) throw new Error(panel.problem);
      const fromPanel = compileBook(stuckBook(), { id: 'stuck_hold', post: panel.post });
      const fromCli = compile(stuckBook(), { id: 'stuck_hold', post: parsePost([spec]) });
      if (!fromPanel.ok || !fromCli.ok) throw new Error(spec);
      expect(fromPanel.bytes, spec).toBe(cardBytes(fromCli.card));
    }
  });

  it('keeps the form of a postcondition the card refuses, naming its step: a blank naming no input, or a secret', () => {
    for (const [blank, why] of [
      ['{{input.nope}}', '{{input.nope}} names no declared input'],
      ['{{input.password}}', 'a secret never proves a commit'],
    ] as const) {
      const bad = compileBook(stuckBook(), { post: { post_hold: [{ kind: 'text', contains: blank }] } });
      if (bad.ok) throw new Error(`${blank} compiled`);
      expect(bad.needsPost).toEqual(['post_hold']);
      expect(bad.holes.find((h) => h.step === 'post_hold' && h.code === 'INVALID_CARD')?.message).toContain(why);
    }
    // A hole elsewhere in the book does not ask for a postcondition the book already has.
    const unfinished = compileBook(stuckBook().slice(0, -1), { post: { post_hold: [{ kind: 'text', contains: 'HOLD' }] } });
    expect(unfinished.ok ? [] : unfinished.needsPost).toEqual([]);
  });

  it('says what is missing from a postcondition the reviewer left half filled in, and takes a control by role and name', () => {
    expect(postOf('post_hold', emptyPost())).toEqual({ ok: false, problem: expect.stringMatching(/After "post_hold": say what text the screen shows once it has worked/) });
    expect(postOf('post_hold', { ...emptyPost(), text: '   ' }).ok).toBe(false);
    expect(postOf('assign', { kind: 'control', text: '', role: 'Row!', name: 'x' })).toEqual({ ok: false, problem: expect.stringMatching(/role in lower-case letters/) });
    expect(postOf('assign', { kind: 'control', text: '', role: 'row', name: ' ' })).toEqual({ ok: false, problem: expect.stringMatching(/give the name of the row/) });
    expect(postOf('assign', { kind: 'control', text: 'ignored', role: ' row ', name: '{{input.case_id}}' })).toEqual({ ok: true, post: { kind: 'control', role: 'row', name: '{{input.case_id}}' } });
    // One bad form stops the lot: nothing is compiled with half the postconditions.
    expect(postsOf({ a: [{ ...emptyPost(), text: 'ok' }], b: [emptyPost()] }).ok).toBe(false);
  });
});

describe('small helpers', () => {
  it('make labels and file names', () => {
    expect(toLabel(' Hold Form! ')).toBe('hold_form');
    expect(toLabel('2 Review')).toBe('review');
    expect(fileStem({ goal: 'Place a LEGAL hold', created: '2026-11-30T02:00:00.000Z' })).toBe('place-a-legal-hold-20261130T0200');
  });
});

describe('the capability id a reviewer types before download', () => {
  it('is lower_snake_case starting with a letter, at most 64 characters; anything else says what to do', () => {
    expect(cardIdProblem('place_hold')).toBeNull();
    expect(cardIdProblem('')).toMatch(/Give the capability an id/);
    expect(cardIdProblem('Place Hold')).toMatch(/lower-case letters, digits and underscores/);
    expect(cardIdProblem('9_lives')).toMatch(/starting with a letter/);
    expect(cardIdProblem(`a${'b'.repeat(64)}`)).toMatch(/at most 64/);
  });
});
