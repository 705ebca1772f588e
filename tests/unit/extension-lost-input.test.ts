// A clerk's own key or click that the recorder caught and could not book is never lost unsaid: it is a `lost` line in the book, the compiler refuses the book there (INPUT_NOT_BOOKED) naming the action in the clerk's words, the panel asks them to do that step again, and removing the line once they have makes the book compile.
import 'fake-indexeddb/auto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { editBook, reseal } from '../../shared/author/book-edit.ts';
import { compile } from '../../shared/compile/compile.ts';
import { Masker } from '../../shared/secrets.ts';
import { TraceLine, type TraceLost } from '../../shared/schema/trace.ts';
import { Host, type HostDeps } from '../../extension/lib/host.ts';
import type { ClerkAct, ClerkLost } from '../../extension/lib/messages.ts';
import { ReportQueue, type Report } from '../../extension/lib/report-queue.ts';
import { noteOf, plainLine } from '../../extension/lib/panel-state.ts';
import { BookStore } from '../../extension/lib/store.ts';
import { Observation } from '../../shared/schema/observation.ts';
import { fakeTab } from '../fixtures/extension/fake-tab.ts';

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

const SIGNON = Observation.parse(JSON.parse(readFileSync(new URL('../fixtures/plumbline-signon.observation.json', import.meta.url), 'utf8')));
const MEMBER = Observation.parse(JSON.parse(readFileSync(new URL('../fixtures/plumbline-member.observation.json', import.meta.url), 'utf8')));
const SITE = 'http://plumbline.test/signon';
let dbn = 0;

/** A worker recording the clerk on tab 1 (PLUMBLINE's sign-on, labelled), over a tab without a browser. */
async function recording(): Promise<{ host: Host; store: BookStore; id: string }> {
  const store = await BookStore.open(`lost-input-${dbn++}`);
  const tab = fakeTab({ signon: SIGNON, member: MEMBER }, 'signon', { 'signon:|c3': 'member' });
  const vault = new Map<string, Record<string, string>>();
  let ids = 0;
  const deps: HostDeps = {
    store,
    tab: () => tab,
    tabUrl: () => Promise.resolve(SITE),
    vault: { put: (s, v) => Promise.resolve(void vault.set(s, v)), get: (s) => Promise.resolve(vault.get(s) ?? null), drop: (s) => Promise.resolve(void vault.delete(s)) },
    model: () => Promise.reject(new Error('no model in this test')),
    changed: () => undefined,
    keepAlive: () => () => undefined,
    newId: () => `id-${String(ids++).padStart(6, '0')}`,
    lookAgainMs: [],
  };
  const host = new Host(deps);
  const r = await host.command({ type: 'start', tabId: 1, mode: 'record', goal: 'Sign on', owner: 'Dana', inputs: [] });
  if (!r.ok || !r.session) throw new Error(JSON.stringify(r));
  expect(await host.command({ type: 'label', session: r.session, label: 'signon', title: 'Sign On', signature: SIGNON.signature })).toMatchObject({ ok: true });
  return { host, store, id: r.session };
}

const lostEnter: ClerkLost = { type: 'clerk_lost', event: 'e-lost-0001', verb: 'press', control: { role: 'button', name: 'F5=Sign On' }, value: 'Enter', why: 'leaving' };

describe('the worker', () => {
  it('books a key the frame could not send before its document was left as a lost line, once, and the panel says which and to do it again', async () => {
    const { host, store, id } = await recording();
    await host.clerkLost(lostEnter, 1, SITE);
    await host.clerkLost(lostEnter, 1, SITE);
    const lines = await store.lines(id);
    expect(lines.map((l) => l.kind)).toEqual(['start', 'label', 'lost']);
    expect(lines[2]).toMatchObject({ seq: 3, kind: 'lost', actor: 'human', verb: 'press', control: { role: 'button', name: 'F5=Sign On' }, value: 'Enter', why: 'leaving' });
    const r = compile(lines);
    expect(r.ok ? [] : r.holes.filter((h) => h.code === 'INPUT_NOT_BOOKED').map((h) => h.line)).toEqual([3]);
    expect(noteOf((await store.getSession(id)) ?? null)).toMatchObject({
      kind: 'error',
      text: "Your press of Enter in button 'F5=Sign On' — the page was being left before it could be recorded.",
      next: expect.stringContaining('Do that step again'),
    });
  });

  it('writes nothing for an action booked after all, a tab nobody records, or a document of another site', async () => {
    const { host, store, id } = await recording();
    await host.clerkLost(lostEnter, 2, SITE);
    await host.clerkLost(lostEnter, 1, 'https://elsewhere.test/page');
    expect((await store.lines(id)).map((l) => l.kind)).toEqual(['start', 'label']);
    // The act itself got through (its event id is booked): the same event is not lost too.
    await store.updateSession(id, (r) => ({ ...r, events: [...r.events, lostEnter.event] }));
    await host.clerkLost(lostEnter, 1, SITE);
    expect((await store.lines(id)).map((l) => l.kind)).toEqual(['start', 'label']);
  });

  it('a typed text is never in a lost line, only which field', async () => {
    const { host, store, id } = await recording();
    await host.clerkLost({ ...lostEnter, verb: 'set_value', control: { role: 'textbox', name: 'Operator ID' }, value: 'OP1001', why: 'gone' }, 1, SITE);
    const lost = (await store.lines(id)).at(-1);
    expect(lost).toMatchObject({ kind: 'lost', verb: 'set_value', why: 'gone' });
    expect(lost && 'value' in lost).toBe(false);
  });

  it("a key lost while the clerk's press before it is still being asked about is booked after that press, in the clerk's order", async () => {
    const { host, store, id } = await recording();
    const press = host.clerkAct({ type: 'clerk_act', event: 'e-press-001', frame: [], ref: 'c3', verb: 'invoke', control: { role: 'button', name: 'F5=Sign On' } }, 1);
    let q = null as string | null;
    for (let i = 0; i < 200 && !q; i++) {
      q = (await store.getSession(id))?.question?.id ?? null;
      if (!q) await new Promise((r) => setTimeout(r, 10));
    }
    // The document is being left with the clerk's next key still unsent: the frame says so as it goes.
    const lost = host.clerkLost(lostEnter, 1, SITE);
    expect(await host.command({ type: 'answer', session: id, question: q ?? '', answer: 'navigate', owner: 'Dana' })).toEqual({ ok: true });
    await Promise.all([press, lost]);
    expect((await store.lines(id)).map((l) => (l.kind === 'act' ? `act ${l.verb}` : l.kind))).toEqual(['start', 'label', 'act invoke', 'lost']);
  });
});

const press = (event: string, value = 'Enter'): ClerkAct => ({ type: 'clerk_act', event, frame: [], ref: 'c1', verb: 'press', control: { role: 'textbox', name: 'New item' }, value });

/** A content script's queue over a worker that answers each report when `answer()` is called (or refuses while down). */
function queue(): { q: ReportQueue; sent: Report[]; posted: Report[]; answer: () => void; down: (on: boolean) => void } {
  const sent: Report[] = [];
  const posted: Report[] = [];
  const waiting: Array<() => void> = [];
  let isDown = false;
  const q = new ReportQueue({
    send: (r) => {
      if (isDown) return Promise.reject(new Error('Could not establish connection. Receiving end does not exist.'));
      sent.push(r);
      return new Promise<void>((res) => waiting.push(res));
    },
    post: (r) => void posted.push(r),
    alive: () => true,
    wait: () => Promise.resolve(),
  });
  return { q, sent, posted, answer: () => waiting.shift()?.(), down: (on) => (isDown = on) };
}

const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 0));

describe("the content script's reports", () => {
  it('a key still waiting its turn when the document is left goes at once as a lost action, with what the frame held; the one being booked is left to the worker', async () => {
    const { q, sent, posted } = queue();
    q.push(press('e-first-001'));
    q.push({ type: 'clerk_act', event: 'e-typed-001', frame: [], ref: 'c1', verb: 'set_value', control: { role: 'textbox', name: 'New item' }, value: 'Renew the lease' });
    q.push(press('e-second-01'));
    await tick();
    // The worker is still booking the first (asking the owner): the others wait their turn, and the page goes.
    expect(sent.map((r) => r.event)).toEqual(['e-first-001']);
    const held: ClerkLost = { type: 'clerk_lost', event: 'e-held-0001', verb: 'invoke', control: { role: 'button', name: 'Save' }, why: 'leaving' };
    q.leaving([held]);
    expect(posted).toEqual([
      { type: 'clerk_lost', event: 'e-typed-001', verb: 'set_value', control: { role: 'textbox', name: 'New item' }, why: 'leaving' },
      { type: 'clerk_lost', event: 'e-second-01', verb: 'press', control: { role: 'textbox', name: 'New item' }, value: 'Enter', why: 'leaving' },
      held,
    ]);
  });

  it('a report the worker could not be reached for is sent as lost once a report gets through again, never dropped', async () => {
    const { q, sent, answer, down } = queue();
    down(true);
    q.push(press('e-unsent-01'));
    await tick();
    expect(sent).toEqual([]);
    down(false);
    q.push(press('e-next-0001'));
    await tick();
    answer();
    await tick();
    expect(sent.map((r) => `${r.type} ${r.event}${r.type === 'clerk_lost' ? ` ${r.why}` : ''}`)).toEqual(['clerk_act e-next-0001', 'clerk_lost e-unsent-01 undelivered']);
  });

  it('one the worker could not be reached for goes as lost when the document is left first', async () => {
    const { q, posted, down } = queue();
    down(true);
    q.push(press('e-unsent-01'));
    await tick();
    q.leaving();
    expect(posted).toMatchObject([{ type: 'clerk_lost', event: 'e-unsent-01', why: 'undelivered' }]);
  });
});
