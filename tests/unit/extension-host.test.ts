// The extension worker's session machine without a browser: a clerk's actions go through the guard into the
// book with inputs as blanks; a worker that restarts picks the session up from IndexedDB (labels known, no line
// lost or repeated, a re-sent action written once); the secret is never in IndexedDB.
import 'fake-indexeddb/auto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Host, type HostDeps } from '../../extension/lib/host.ts';
import type { ClerkAct, Mode } from '../../extension/lib/messages.ts';
import { BookStore, type SessionRecord } from '../../extension/lib/store.ts';
import { ExtensionSurface } from '../../extension/lib/surface.ts';
import { parseScript, ScriptedModel } from '../../shared/author/scripted.ts';
import { Observation } from '../../shared/schema/observation.ts';
import { fakeTab, type FakeTab } from '../fixtures/extension/fake-tab.ts';

const load = (name: string): Observation => Observation.parse(JSON.parse(readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8')));
const SCREENS = { signon: load('plumbline-signon.observation.json'), member: load('plumbline-member.observation.json') };
const SECRET = 'pw-unit-7731';

let dbn = 0;
let ids = 0;

async function setup(
  screens: Record<string, Observation> = SCREENS,
  first = 'signon',
  moves: Record<string, string> = { 'signon:|c3': 'member' },
): Promise<{ store: BookStore; tab: FakeTab; deps: HostDeps; vault: Map<string, Record<string, string>>; changes: string[]; agents: string[] }> {
  const store = await BookStore.open(`host-test-${dbn++}`);
  const tab = fakeTab(screens, first, moves);
  const vault = new Map<string, Record<string, string>>();
  const changes: string[] = [];
  const agents: string[] = [];
  const deps: HostDeps = {
    agents: {
      register: (origins, probeOnly = []) => Promise.resolve(void agents.push(`register ${origins.join(' ')}${probeOnly.length ? `; probe only ${probeOnly.join(' ')}` : ''}`)),
      unregister: () => Promise.resolve(void agents.push('unregister')),
    },
    store,
    tab: () => tab,
    tabUrl: () => Promise.resolve('http://plumbline.test/signon'),
    vault: {
      put: (s, v) => Promise.resolve(void vault.set(s, v)),
      get: (s) => Promise.resolve(vault.get(s) ?? null),
      drop: (s) => Promise.resolve(void vault.delete(s)),
    },
    model: () => Promise.reject(new Error('no model in this test')),
    changed: (s) => void changes.push(s),
    keepAlive: () => () => undefined,
    newId: () => `id-${String(ids++).padStart(6, '0')}`,
  };
  return { store, tab, deps, vault, changes, agents };
}

const act = (event: string, ref: string, verb: ClerkAct['verb'], value?: string): ClerkAct => ({
  type: 'clerk_act',
  event,
  frame: [],
  ref,
  verb,
  ...(value !== undefined ? { value } : {}),
});

/** Answers the owner question as soon as it is asked. */
async function answerWhenAsked(host: Host, store: BookStore, session: string, answer: 'commit' | 'navigate'): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const q = (await store.getSession(session))?.question;
    if (q && host.asking(q.id)) {
      expect(await host.command({ type: 'answer', session, question: q.id, answer, owner: 'Dana' })).toEqual({ ok: true });
      return;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('the owner was never asked');
}

/** Starts a session on tab 1 signing on as OP1001 (the clerk recording, or a model driving). */
async function begin(host: Host, mode: Mode = 'record'): Promise<string> {
  const r = await host.command({
    type: 'start',
    tabId: 1,
    mode,
    goal: 'Sign on',
    owner: 'Dana',
    inputs: [
      { name: 'operator_id', value: 'OP1001', secret: false },
      { name: 'password', value: SECRET, secret: true },
    ],
  });
  if (!r.ok || !r.session) throw new Error(JSON.stringify(r));
  return r.session;
}

describe('the worker in record mode', () => {
  it('labels the screen the clerk was shown, by its signature; if the tab shows another one now, it labels nothing and says so', async () => {
    const { store, deps } = await setup();
    const host = new Host(deps);
    const id = await begin(host);
    // The panel showed the member screen a moment ago; the tab is on sign-on now.
    const r = await host.command({ type: 'label', session: id, label: 'member', title: 'Member', signature: SCREENS.member.signature });
    expect(r).toMatchObject({ ok: false, code: 'SCREEN_CHANGED' });
    expect(r.ok ? '' : r.message).toContain('nothing was labelled');
    expect((await store.lines(id)).map((l) => l.kind)).toEqual(['start']);
    expect(await host.command({ type: 'label', session: id, label: 'signon', title: 'Sign On', signature: SCREENS.signon.signature })).toMatchObject({ ok: true });
    expect((await store.lines(id)).flatMap((l) => (l.kind === 'label' ? [`${l.label} ${l.screen.signature}`] : []))).toEqual([`signon ${SCREENS.signon.signature}`]);
  });

  it("writes the clerk's actions through the guard, inputs as blanks, the secret nowhere in IndexedDB", async () => {
    const { store, tab, deps, vault, agents } = await setup();
    const host = new Host(deps);
    const id = await begin(host);
    // New documents of the recorded site get the agent, and learn they are being recorded.
    expect(agents).toEqual(['register http://plumbline.test']);
    expect([await host.recording(1), await host.recording(2)]).toEqual([true, false]);
    expect(await host.command({ type: 'label', session: id, label: 'signon', title: 'Sign On', signature: SCREENS.signon.signature })).toMatchObject({ ok: true });
    await host.clerkAct(act('e-0000001', 'c0', 'set_value', 'OP1001'), 1);
    await host.clerkAct(act('e-0000002', 'c1', 'set_value', SECRET), 1);
    await Promise.all([host.clerkAct(act('e-0000003', 'c3', 'invoke'), 1), answerWhenAsked(host, store, id, 'navigate')]);
    expect(tab.screen).toBe('member');
    // The guard filled the secret in the page; the book has only its blank.
    expect(tab.acts.map((a) => a.value)).toEqual(['OP1001', SECRET, undefined]);
    const lines = await store.lines(id);
    expect(lines.map((l) => l.kind)).toEqual(['start', 'label', 'act', 'act', 'act']);
    const acts = lines.flatMap((l) => (l.kind === 'act' ? [l] : []));
    expect(acts.map((l) => [l.actor, l.value])).toEqual([
      ['human', '{{input.operator_id}}'],
      ['human', '{{input.password}}'],
      ['human', undefined],
    ]);
    expect(acts[2]?.effect).toEqual({ kind: 'navigate', by: 'owner', owner: 'Dana' });
    expect(JSON.stringify([await store.listSessions(), lines]).includes(SECRET)).toBe(false);
    // Stopping closes the book and forgets the secret.
    expect(await host.command({ type: 'stop', session: id })).toEqual({ ok: true });
    expect((await store.lines(id)).at(-1)).toMatchObject({ kind: 'end', outcome: 'failed', code: 'STOPPED' });
    expect(vault.has(id)).toBe(false);
    expect(await host.recording(1)).toBe(false);
    expect(agents.at(-1)).toBe('unregister');
  });

  it('a screen an action settled on unlabelled is looked at again a little later: the panel catches up with the page without another action, and stops looking once it shows a labelled screen', async () => {
    for (const waits of [[], [40, 80, 400]]) {
      const { store, tab, deps } = await setup();
      const host = new Host({ ...deps, lookAgainMs: waits });
      const id = await begin(host);
      expect(await host.command({ type: 'label', session: id, label: 'signon', title: 'Sign On', signature: SCREENS.signon.signature })).toMatchObject({ ok: true });
      await Promise.all([host.clerkAct(act('e-0000001', 'c3', 'invoke'), 1), answerWhenAsked(host, store, id, 'navigate')]);
      // The look after the press saw the member screen, which nobody named; a moment later the page shows sign-on
      // again (as a closing list's page shows again after its exit transition).
      expect((await store.getSession(id))?.view).toMatchObject({ label: null, signature: SCREENS.member.signature });
      tab.screen = 'signon';
      await new Promise((r) => setTimeout(r, 250));
      const view = (await store.getSession(id))?.view;
      if (waits.length === 0) expect(view).toMatchObject({ label: null, signature: SCREENS.member.signature });
      else expect(view).toMatchObject({ label: 'signon', signature: SCREENS.signon.signature });
      // Labelled: no look after that (the 400 ms one is not made), so the screen the panel shows stays as it was.
      const looks = tab.looks;
      await new Promise((r) => setTimeout(r, 450));
      expect(tab.looks).toBe(looks);
    }
  });

  it("a clerk's pick whose control a list covers now (they opened it again) waits for it to show, then is made once; stopped meanwhile, nothing is done", async () => {
    // The queue desk: sign-on's screen with a list button "Queue" at |c6. With its list up (the clerk opened it again),
    // |c6 is the listbox — the same position, another control — and the options show.
    const queue = { ref: '|c6', role: 'button', name: 'Queue', value: 'Claims', verbs: ['invoke'], offers: ['choose'], scope: [], ancestors: ['form'] };
    const desk = Observation.parse({ ...SCREENS.signon, parts: SCREENS.signon.parts.map((p) => ({ ...p, controls: [...p.controls, queue] })) });
    const listbox = { ...queue, role: 'listbox', value: undefined, verbs: ['choose', 'read'], offers: undefined };
    const option = (n: number, name: string) => ({ ref: `|c${n}`, role: 'option', name, verbs: ['invoke'], scope: [], ancestors: ['listbox'] });
    const listUp = Observation.parse({
      ...SCREENS.signon,
      signature: 'list-up-0000000',
      parts: SCREENS.signon.parts.map((p) => ({ ...p, controls: [...p.controls, listbox, option(7, 'Appeals'), option(8, 'Fraud')] })),
    });
    for (const stop of [false, true]) {
      const { store, tab, deps } = await setup({ desk, listUp }, 'desk');
      const host = new Host({ ...deps, lookAgainMs: [] });
      const id = await begin(host);
      expect(await host.command({ type: 'label', session: id, label: 'desk', title: 'Sign On', signature: desk.signature })).toMatchObject({ ok: true });
      // The guard's last look saw the list up; the clerk's first pick (made while it was closing) comes now.
      tab.screen = 'listUp';
      await host.tabLoaded(1);
      const picked = host.clerkAct({ ...act('e-0000001', 'c6', 'choose', 'Appeals'), control: { role: 'button', name: 'Queue' } }, 1);
      await new Promise((r) => setTimeout(r, 600));
      // Not picked on the listbox at |c6, nor refused: waiting, and the clerk is told so.
      expect(tab.inputs).toEqual([]);
      expect((await store.getSession(id))?.note).toContain("waiting for the list over button 'Queue' to close");
      if (stop) expect(await host.command({ type: 'stop', session: id })).toEqual({ ok: true });
      else tab.screen = 'desk';
      await picked;
      const acts = (await store.lines(id)).flatMap((l) => (l.kind === 'act' ? [`${l.verb} ${l.control.name} ${l.value}`] : []));
      expect(acts).toEqual(stop ? [] : ['choose Queue Appeals']);
      expect(tab.inputs.length > 0).toBe(!stop);
    }
  });

  it("a clerk's press whose control moved to another place by the worker's look (a row inserted above it) is matched by role and name when only one control has them", async () => {
    // Sign-on with a link inserted first: every control one place further (F5=Sign On at |c4, a combobox at |c3).
    const shifted = Observation.parse({
      ...SCREENS.signon,
      parts: SCREENS.signon.parts.map((p) => ({
        ...p,
        controls: [
          { ref: '|c0', role: 'link', name: 'Skip to content', verbs: ['invoke'], scope: [], ancestors: [] },
          ...p.controls.map((c) => ({ ...c, ref: `|c${Number(c.ref.slice(2)) + 1}` })),
        ],
      })),
    });
    // Twice F5=Sign On: which one the clerk meant cannot be told, so nothing is pressed.
    const twice = Observation.parse({ ...shifted, parts: shifted.parts.map((p) => ({ ...p, controls: [...p.controls, { ...p.controls[4], ref: '|c7' }] })) });
    // And the clerk's F5=Sign On was in a dialog, this one is not: another control, though alike.
    const row = { role: 'row' as const, name: 'F5=Sign On F1=Index F12=Help' };
    // A row inserted above the clerk's: at the reported place, another row's F5=Sign On (same role and name, another
    // scope); the clerk's is one further down. The one pressed must be the clerk's (it leads to member).
    const inserted = Observation.parse({
      ...SCREENS.signon,
      parts: SCREENS.signon.parts.map((p) => ({
        ...p,
        controls: [
          ...p.controls.slice(0, 3),
          { ...p.controls[3], scope: [{ role: 'row', name: 'Another F5=Sign On' }] },
          ...p.controls.slice(3).map((c) => ({ ...c, ref: `|c${Number(c.ref.slice(2)) + 1}` })),
        ],
      })),
    });
    const cases = [
      ['inserted', [row], true],
      ['shifted', [row], true],
      ['twice', [row], false],
      ['shifted', [{ role: 'dialog' as const, name: 'Confirm' }, row], false],
    ] as const;
    for (const [screen, scope, pressed] of cases) {
      const { store, tab, deps } = await setup({ shifted, twice, inserted, member: SCREENS.member }, screen, { 'shifted:|c4': 'member', 'inserted:|c4': 'member' });
      const host = new Host({ ...deps, lookAgainMs: [] });
      const id = await begin(host);
      expect(await host.command({ type: 'label', session: id, label: 'signon', title: 'Sign On', signature: SCREENS.signon.signature })).toMatchObject({ ok: true });
      const press = host.clerkAct({ ...act('e-0000001', 'c3', 'invoke'), control: { role: 'button', name: 'F5=Sign On', scope: [...scope] } }, 1);
      if (pressed) await Promise.all([press, answerWhenAsked(host, store, id, 'navigate')]);
      else await press;
      const acts = (await store.lines(id)).flatMap((l) => (l.kind === 'act' ? [`${l.verb} ${l.control.name}`] : []));
      expect(acts).toEqual(pressed ? ['invoke F5=Sign On'] : []);
      expect(tab.screen).toBe(pressed ? 'member' : screen);
      // Not pressed, and not lost unsaid: a hole in the book naming the press (tests/unit/extension-lost-input.test.ts).
      if (!pressed) expect((await store.lines(id)).at(-1)).toMatchObject({ kind: 'lost', verb: 'invoke', control: { role: 'button', name: 'F5=Sign On' }, why: 'not_on_screen' });
    }
  });

  it("a clerk's action the worker cannot record is said in the panel, never dropped unsaid", async () => {
    const { store, tab, deps } = await setup();
    // The document goes away under the guard's probe of the button's rungs (the page navigated on its own).
    const leaving = { ...tab, call: (frameId: number, c: Parameters<typeof tab.call>[1]) => (c.op === 'find' ? Promise.reject(new Error('Frame with ID 0 was removed.')) : tab.call(frameId, c)) };
    const host = new Host({ ...deps, tab: () => leaving, lookAgainMs: [] });
    const id = await begin(host);
    expect(await host.command({ type: 'label', session: id, label: 'signon', title: 'Sign On', signature: SCREENS.signon.signature })).toMatchObject({ ok: true });
    await expect(host.clerkAct({ ...act('e-0000001', 'c3', 'invoke'), control: { role: 'button', name: 'F5=Sign On' } }, 1)).rejects.toMatchObject({ code: 'STALE' });
    expect((await store.getSession(id))?.note).toMatch(/your last action \(invoke on button 'F5=Sign On'\) could not be recorded: .*do it again if it did not happen/);
    // The book says so too, where the compiler sees it.
    expect((await store.lines(id)).map((l) => l.kind)).toEqual(['start', 'label', 'lost']);
    expect((await store.lines(id)).at(-1)).toMatchObject({ kind: 'lost', verb: 'invoke', why: 'failed' });
  });

  it("a clerk's action the worker cannot read is said in the panel by the field at fault, and nothing is recorded", async () => {
    const { store, deps } = await setup();
    const host = new Host({ ...deps, lookAgainMs: [] });
    const id = await begin(host);
    await host.clerkUnreadable(1, 'control.scope');
    expect((await store.getSession(id))?.note).toBe('your last action could not be read by the extension (control.scope is not as expected) and was not recorded; do it again, and if this repeats, reload the page');
    expect(await store.countLines(id)).toBe(1);
    // Another tab (not the session's): nothing is said there.
    const before = (await store.getSession(id))?.note;
    await host.clerkUnreadable(2, 'verb');
    expect((await store.getSession(id))?.note).toBe(before);
  });

  it('a restarted worker goes on where the last one stopped: labels known, numbering unbroken, a re-sent action written once', async () => {
    const { store, deps } = await setup();
    const first = new Host(deps);
    const id = await begin(first);
    await first.command({ type: 'label', session: id, label: 'signon', title: 'Sign On', signature: SCREENS.signon.signature });
    await first.clerkAct(act('e-0000001', 'c0', 'set_value', 'OP1001'), 1);

    // The worker is stopped; a new one starts over the same IndexedDB (and the same session storage).
    const second = new Host(deps);
    await second.wake();
    // The content script re-sends the action the old worker had already written: nothing new is written.
    await second.clerkAct(act('e-0000001', 'c0', 'set_value', 'OP1001'), 1);
    expect(await store.countLines(id)).toBe(3);
    await second.clerkAct(act('e-0000002', 'c1', 'set_value', SECRET), 1);
    // The resumed guard knows the screen is signon, and refuses to give the label to another screen.
    const lines = await store.lines(id);
    expect(lines.map((l) => l.seq)).toEqual([1, 2, 3, 4]);
    const last = lines.at(-1);
    expect(last?.kind === 'act' && last.before.label).toBe('signon');
    expect((await store.getSession(id))?.view?.label).toBe('signon');
    expect(await second.command({ type: 'finish', session: id, label: 'signon' })).toMatchObject({ ok: true });
    expect((await store.lines(id)).map((l) => `${l.seq} ${l.kind}`)).toEqual(['1 start', '2 label', '3 act', '4 act', '5 finish', '6 end']);
    expect((await store.getSession(id))?.state).toBe('finished');
  });

  /** The worker stops while the guard presses F5=Sign On for the clerk: after the press took effect, or before. */
  async function stopDuringPress(pressFirst: boolean, answer: 'commit' | 'navigate') {
    const { store, tab, deps } = await setup();
    const dying = {
      ...tab,
      call: (frameId: number, c: Parameters<typeof tab.call>[1]) => {
        if (c.op !== 'act' || c.ref !== 'c3') return tab.call(frameId, c);
        if (pressFirst) void tab.call(frameId, c);
        return new Promise<never>(() => undefined);
      },
    };
    const first = new Host({ ...deps, tab: () => dying });
    const id = await begin(first);
    await first.command({ type: 'label', session: id, label: 'signon', title: 'Sign On', signature: SCREENS.signon.signature });
    void first.clerkAct(act('e-0000009', 'c3', 'invoke'), 1);
    await answerWhenAsked(first, store, id, answer);
    for (let i = 0; i < 200 && !(await store.getSession(id))?.dispatched; i++) await new Promise((r) => setTimeout(r, 10));
    expect((await store.getSession(id))?.dispatched).toMatchObject({ call: 'e-0000009', lines: 2, line: { verb: 'invoke' } });
    // A new worker; the content script sends the press again with the same event id.
    const second = new Host(deps);
    await second.wake();
    await second.clerkAct(act('e-0000009', 'c3', 'invoke'), 1);
    return { store, tab, id, s: await store.getSession(id), lines: await store.lines(id) };
  }

  it('a worker stopped after its press took effect writes that press from what it kept, and never presses again', async () => {
    const { tab, s, lines } = await stopDuringPress(true, 'commit');
    expect(tab.acts.filter((a) => a.verb === 'invoke')).toHaveLength(1);
    expect(lines.map((l) => `${l.seq} ${l.kind}`)).toEqual(['1 start', '2 label', '3 act']);
    expect(lines[2]).toMatchObject({ actor: 'human', effect: { kind: 'commit', by: 'owner' }, before: { label: 'signon' } });
    expect(lines[2]?.kind === 'act' && lines[2].after.signature).not.toBe(lines[2]?.kind === 'act' && lines[2].before.signature);
    expect(s?.dispatched).toBeUndefined();
  });

  it('a commit the stopped worker may or may not have pressed is not pressed again: the clerk is told to check', async () => {
    const { tab, s, lines } = await stopDuringPress(false, 'commit');
    expect(tab.acts.filter((a) => a.verb === 'invoke')).toHaveLength(0);
    expect(lines).toHaveLength(2);
    expect(s).toMatchObject({ state: 'running', note: expect.stringContaining('cannot tell whether it happened') });
    expect(s?.events).toContain('e-0000009');
  });

  it('a worker that restarts while the owner is asked drops the question: the press never happened', async () => {
    const { store, tab, deps } = await setup();
    const first = new Host(deps);
    const id = await begin(first);
    await first.command({ type: 'label', session: id, label: 'signon', title: 'Sign On', signature: SCREENS.signon.signature });
    const pending = first.clerkAct(act('e-0000003', 'c3', 'invoke'), 1).then(
      () => null,
      (e: unknown) => e,
    );
    for (let i = 0; i < 200 && !(await store.getSession(id))?.question; i++) await new Promise((r) => setTimeout(r, 10));
    const asked = (await store.getSession(id))?.question;
    expect(asked?.control).toBe("button 'F5=Sign On'");

    const second = new Host(deps);
    await second.wake();
    expect((await store.getSession(id))?.question).toBeNull();
    expect(await second.command({ type: 'answer', session: id, question: asked?.id ?? '', answer: 'navigate', owner: 'Dana' })).toMatchObject({
      ok: false,
      code: 'NO_QUESTION',
    });
    expect(tab.screen).toBe('signon');
    expect(await store.countLines(id)).toBe(2);
    // (The first worker's call is gone with it in real life; here it is ended so the test leaves nothing pending.)
    await first.command({ type: 'stop', session: id });
    expect(await pending).toMatchObject({ code: 'OWNER_FAILED' });
  });
});

describe('the worker in model mode', () => {
  const script = parseScript(
    JSON.stringify([
      [
        { tool: 'assert_screen', label: 'signon', title: 'Sign On' },
        { tool: 'act', match: "textbox 'Operator ID'", verb: 'set_value', value: '{{input.operator_id}}' },
        { tool: 'act', match: "textbox 'Password'", verb: 'set_value', value: '{{input.password}}' },
        { tool: 'act', match: "button 'F5=Sign On'", verb: 'invoke' },
      ],
      [
        { tool: 'assert_screen', label: 'member', title: 'Member Record' },
        { tool: 'finish', label: 'member' },
      ],
    ]),
  );

  async function startModel(deps: HostDeps): Promise<{ host: Host; id: string }> {
    const host = new Host({ ...deps, model: () => Promise.resolve(new ScriptedModel(script, 'scripted-unit')) });
    return { host, id: await begin(host, 'model') };
  }

  async function until(store: BookStore, id: string, ok: (s: SessionRecord) => boolean): Promise<SessionRecord> {
    for (let i = 0; i < 500; i++) {
      const s = await store.getSession(id);
      if (s && ok(s)) return s;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error('the session never got there');
  }

  it('runs the evening through shared/author, the owner answering from the panel, and closes the book', async () => {
    const { store, deps, tab, agents } = await setup();
    const { host, id } = await startModel(deps);
    // New documents of the model's site get the double-click probe, not the recorder; nothing once it ends.
    expect(agents[0]).toBe('register ; probe only http://plumbline.test');
    await answerWhenAsked(host, store, id, 'navigate');
    const done = await until(store, id, (s) => s.state !== 'running');
    expect(done).toMatchObject({ state: 'finished', model: 'scripted-unit', note: 'finished on member' });
    expect(tab.screen).toBe('member');
    const lines = await store.lines(id);
    expect(lines.map((l) => l.kind)).toEqual(['start', 'label', 'act', 'act', 'act', 'label', 'finish', 'end']);
    expect(lines.map((l) => l.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(JSON.stringify(lines).includes(SECRET)).toBe(false);
    await until(store, id, () => agents.at(-1) === 'unregister');
  });

  it('a model that cannot start fails the session, lets go of its site and forgets its secrets', async () => {
    const { store, deps, vault, agents } = await setup();
    const id = await begin(new Host(deps), 'model'); // setup's model rejects: "no model in this test"
    const done = await until(store, id, (s) => s.state !== 'running');
    expect(done).toMatchObject({ state: 'failed', note: 'no model in this test' });
    // The probe registered for the model's site is gone with it; pages of that site are no longer touched.
    await until(store, id, () => agents.at(-1) === 'unregister');
    expect(vault.has(id)).toBe(false);
  });

  it('stopped while the owner is asked, the evening ends itself: one end line, nothing pressed', async () => {
    const { store, deps, tab } = await setup();
    const { host, id } = await startModel(deps);
    await until(store, id, (s) => s.question !== null);
    expect(await host.command({ type: 'stop', session: id })).toEqual({ ok: true });
    const done = await until(store, id, (s) => s.state !== 'running');
    expect(done.state).toBe('stopped');
    const lines = await store.lines(id);
    expect(lines.filter((l) => l.kind === 'end')).toEqual([expect.objectContaining({ kind: 'end', outcome: 'failed', code: 'OWNER_FAILED' })]);
    expect(tab.screen).toBe('signon');
    expect(tab.acts.map((a) => a.verb)).toEqual(['set_value', 'set_value']);
  });

  it('a worker stopped while the owner is asked goes on with the evening: the model where it was, the press asked again and made once', async () => {
    const { store, deps, tab, vault } = await setup();
    const { id } = await startModel(deps);
    const asked = await until(store, id, (s) => s.question !== null);
    expect(asked.evening).toMatchObject({ turns: 1, results: [expect.anything(), expect.anything(), expect.anything()] });
    expect(JSON.stringify(asked).includes(SECRET)).toBe(false);
    // The next worker: same IndexedDB and session storage, nothing in memory. The old one never hears an answer.
    const restored: unknown[] = [];
    const next = new Host({
      ...deps,
      model: (s) => {
        restored.push(s);
        return Promise.resolve(new ScriptedModel(script, 'scripted-unit', s));
      },
    });
    expect(vault.has(id)).toBe(true);
    await next.wake();
    const again = await until(store, id, (s) => s.question !== null && s.question.id !== asked.question?.id);
    expect(again.question?.control).toBe(asked.question?.control);
    await answerWhenAsked(next, store, id, 'navigate');
    const done = await until(store, id, (s) => s.state !== 'running');
    expect(done).toMatchObject({ state: 'finished', note: 'finished on member' });
    expect(done.evening).toBeUndefined();
    // The model went on from its saved place (one turn answered), not from the top of its script.
    expect(restored).toEqual([{ next: 1 }]);
    const lines = await store.lines(id);
    expect(lines.map((l) => l.kind)).toEqual(['start', 'label', 'act', 'act', 'act', 'label', 'finish', 'end']);
    expect(lines.map((l) => l.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(tab.acts.map((a) => a.verb)).toEqual(['set_value', 'set_value', 'invoke']);
  });

  it('a second session on a busy tab is refused', async () => {
    const { deps, store } = await setup();
    const { host, id } = await startModel(deps);
    const again = await host.command({ type: 'start', tabId: 1, mode: 'record', goal: 'g', owner: 'Dana', inputs: [] });
    expect(again).toMatchObject({ ok: false, code: 'ALREADY_RUNNING' });
    await until(store, id, (s) => s.question !== null);
    await host.command({ type: 'stop', session: id });
    await until(store, id, (s) => s.state !== 'running');
  });
});

describe("the extension's surface", () => {
  it('puts the agent into a frame that has none yet (it just navigated) and sees the whole frameset', async () => {
    const tab = fakeTab(SCREENS, 'member', {});
    tab.bare = new Set([1, 2]);
    const surface = new ExtensionSurface(tab);
    const obs = await surface.observe();
    expect(tab.bare.size).toBe(0);
    // The same screen, signature and refs as the runner's observation of it.
    expect(obs.signature).toBe(SCREENS.member.signature);
    expect(obs.parts.flatMap((f) => f.controls.map((c) => c.ref))).toEqual(SCREENS.member.parts.flatMap((f) => f.controls.map((c) => c.ref)));
  });

  it('finds a control through the frame it is in, and says how many a rung matched', async () => {
    const surface = new ExtensionSurface(fakeTab(SCREENS, 'member', {}));
    await surface.observe();
    const hold = { id: 't', role: 'link', name: 'Hold', supports: ['invoke' as const], fingerprint: { over: ['role' as const] } };
    const one = await surface.resolve({ ...hold, scope: [{ role: 'frame', name: 'work' }, { role: 'row', name: '400118-S0001' }], ladder: [{ rung: 'role_name', cost: 100 }] });
    expect(one).toMatchObject({ ok: true, ref: 'work|c0', rung: 'role_name' });
    const two = await surface.resolve({ ...hold, scope: [{ role: 'frame', name: 'work' }], ladder: [{ rung: 'role_name', cost: 100 }] });
    expect(two).toMatchObject({ ok: false, code: 'AMBIGUOUS', attempts: [{ rung: 'role_name', count: 2 }] });
    const gone = await surface.resolve({ ...hold, scope: [{ role: 'frame', name: 'nowhere' }], ladder: [{ rung: 'role_name', cost: 100 }] });
    expect(gone).toMatchObject({ ok: false, code: 'TARGET_NOT_FOUND' });
  });
});

describe('a browser that was closed mid-session', () => {
  it('ends the session on the next start: the secret values went with it', async () => {
    const { store, deps, vault } = await setup();
    const host = new Host(deps);
    const id = await begin(host);
    vault.clear();
    await new Host(deps).wake();
    expect((await store.getSession(id))?.state).toBe('failed');
    expect((await store.lines(id)).at(-1)).toMatchObject({ kind: 'end', code: 'SECRET_GONE' });
  });
});

describe('the writes a record session watches', () => {
  it('a clerk\'s typing whose write went out first is an unasked commit, the note says so, and a site the clerk adds is watched from then on', async () => {
    const { store, tab, deps } = await setup();
    const host = new Host(deps);
    const id = await begin(host);
    expect((await store.lines(id))[0]).toMatchObject({ kind: 'start', writes: { origins: ['http://plumbline.test'], ignore: [] } });
    expect(await host.command({ type: 'label', session: id, label: 'signon', title: 'Sign On', signature: SCREENS.signon.signature })).toMatchObject({ ok: true });
    // A write to a site the session does not record is not one.
    tab.send({ method: 'POST', url: 'https://sso.test/save', via: 'form' });
    await host.clerkAct(act('e-0000001', 'c0', 'set_value', 'OP1001'), 1);
    // The clerk adds the site; the page's field saves there as the clerk types.
    expect(await host.command({ type: 'allow_origin', session: id, origin: 'https://sso.test' })).toEqual({ ok: true });
    tab.send({ method: 'POST', url: 'https://sso.test/save', via: 'form' });
    await host.clerkAct(act('e-0000002', 'c1', 'set_value', SECRET), 1);
    const acts = (await store.lines(id)).flatMap((l) => (l.kind === 'act' ? [l] : []));
    expect(acts.map((l) => [l.effect, l.writes])).toEqual([
      [{ kind: 'stage', by: 'rule' }, []],
      [{ kind: 'commit', by: 'effects', unasked: true }, [{ method: 'POST', url: 'https://sso.test/save', via: 'form', fate: 'unasked' }]],
    ]);
    const note = (await store.getSession(id))?.note ?? '';
    expect(note).toMatch(/^Unconfirmed change: line 4, textbox 'Password', sent a change to the application \(POST https:\/\/sso\.test\/save \(form\)\) that nobody confirmed as a commit/);
  });
});
