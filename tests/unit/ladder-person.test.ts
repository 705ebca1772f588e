// The escalation ladder's top rungs over the in-memory surface: a person at the console (driven over HTTP on
// 127.0.0.1 with its one-time token) acts through the guarded menu and hands back; a contradicted handback, an abort
// and a silence each end the run; the control rung's answer is believed only on a matching fingerprint; and the
// notebook keeps MCP calls and verify plates, not only CLI replays.
import { promises as fs } from 'node:fs';
import { request } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConsolePerson } from '../../runner/escalate/console.ts';
import { LocalReferee } from '../../runner/escalate/local.ts';
import { NONE, rowKey, type ControlQuestion, type Referee, type RefereeQuestion, type Verdict } from '../../runner/escalate/referee.ts';
import { LOG_FILE } from '../../runner/evidence.ts';
import { CallService } from '../../runner/mcp/service.ts';
import { Notebook } from '../../runner/notebook.ts';
import { runCapability } from '../../runner/run.ts';
import { verify } from '../../runner/verify.ts';
import { approvedCard } from '../fixtures/mcp/cards.ts';
import { handrail } from '../e2e/support/cli.ts';
import { Capability, type CapabilityInput } from '../../shared/schema/capability.ts';
import type { RunResult } from '../../shared/schema/result.ts';
import { MemorySurface, type MemoryApp } from '../fixtures/memory-surface.ts';

const PASSWORD = 'swordfish-42';

/** A desk: sign on, post a hold, read it. `notice` is a page the card never saw (an interstitial after sign-on). */
function desk(): MemoryApp {
  return {
    screens: {
      signon: {
        title: 'Sign On',
        text: 'OPERATOR SIGN ON',
        elements: [
          { role: 'textbox', hint: 'Password', secret: true, ancestors: ['form'] },
          { role: 'button', name: 'Sign On', ancestors: ['form'], on: { invoke: 'review' } },
        ],
      },
      review: {
        title: 'Review Hold',
        text: 'MEMBER 400118',
        elements: [
          { role: 'button', name: 'F10=Post Hold', ancestors: ['form'], css: ['#post'], on: { invoke: 'posted' } },
          { role: 'link', name: 'Sign Off', on: { invoke: 'signon' } },
        ],
      },
      posted: { title: 'Hold Result', furniture: ["heading 'Hold Posted'"], elements: [{ role: 'text', text: 'Hold placed: HX-123456', control: false }] },
      notice: {
        title: 'Notice',
        text: 'NEW TERMS OF USE: READ THEM, THEN CONTINUE',
        elements: [
          { role: 'link', name: 'Continue', on: { invoke: 'review' } },
          { role: 'link', name: 'Sign Off', on: { invoke: 'signon' } },
          { role: 'button', name: 'Accept Terms', ancestors: ['form'] },
        ],
      },
    },
  };
}

function cardFor(s: MemorySurface, edit: (c: CapabilityInput) => void = () => undefined): Capability {
  const card: CapabilityInput = {
    schema: 'handrail.capability/v1',
    id: 'desk_hold',
    intent: 'Place a hold.',
    surface: 'browser',
    entry: 'memory://signon',
    inputs: { password: { type: 'string', secret: true } },
    outputs: { confirmation: { from_step: 'read_result', regex: 'HX-(\\d{6})' } },
    screens: Object.fromEntries(['signon', 'review', 'posted'].map((n) => [n, s.screenRecord(n)])),
    targets: {
      password_field: { role: 'textbox', hint: 'Password', supports: ['set_value', 'read'], ladder: [{ rung: 'label', cost: 200 }], fingerprint: { over: ['role', 'supports'] } },
      sign_on: { role: 'button', name: { eq: 'Sign On' }, supports: ['invoke'], ladder: [{ rung: 'role_name', cost: 100 }], fingerprint: { over: ['role', 'name', 'supports'] } },
      post_button: {
        role: 'button',
        name: { eq: 'F10=Post Hold' },
        supports: ['invoke'],
        ladder: [{ rung: 'role_name', cost: 100 }],
        fingerprint: { over: ['role', 'name', 'supports', 'ancestor_roles'], value: s.fingerprintOf('review', 'F10=Post Hold', ['role', 'name', 'supports', 'ancestor_roles']) },
      },
      result_line: { role: 'text', supports: ['read'], ladder: [{ rung: 'text', cost: 300, value: 'HX-' }], fingerprint: { over: ['role'] } },
    },
    steps: [
      { id: 'enter_password', screen: 'signon', op: { verb: 'set_value', value: '{{input.password}}' }, target: 'password_field', effect: { kind: 'stage' } },
      { id: 'sign_on', screen: 'signon', op: { verb: 'invoke' }, target: 'sign_on', effect: { kind: 'navigate' }, settle: { kind: 'screen_is', screen: 'review', timeout_ms: 300 } },
      {
        id: 'post',
        screen: 'review',
        op: { verb: 'invoke' },
        target: 'post_button',
        effect: { kind: 'commit', confirmed_by: { owner: 'dana' } },
        no_record: true,
        settle: { kind: 'screen_in', screens: ['posted'], timeout_ms: 300 },
        expect: { screen_in: ['posted'] },
      },
      { id: 'read_result', screen: 'posted', op: { verb: 'read' }, target: 'result_line', effect: { kind: 'read' } },
    ],
    outcomes: { success: { screens: ['posted'] } },
    lifecycle: { state: 'verified' },
  };
  edit(card);
  return Capability.parse(card);
}

/** The desk recorded as it was, then changed: pressing `element` on `screen` now leads to the notice page. */
function noticeAfter(screen: 'signon' | 'review', element: number): { app: MemoryApp; s: MemorySurface; card: Capability } {
  const app = desk();
  const s = new MemorySurface(app);
  const card = cardFor(s);
  const el = app.screens[screen]?.elements[element];
  if (el) el.on = { invoke: 'notice' };
  return { app, s, card };
}

let tmp: string;
let n = 0;
beforeEach(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'handrail-person-'));
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

type Line = { kind: string; data: Record<string, unknown> };
const linesOf = async (dir: string): Promise<Line[]> =>
  (await fs.readFile(path.join(dir, LOG_FILE), 'utf8')).split('\n').filter(Boolean).map((l) => JSON.parse(l) as Line);

/** A person at the console: `script` runs once the one-time URL is announced; the run waits for their answer. */
function atConsole(script: (url: URL) => Promise<void>, timeoutMs?: number): { person: ConsolePerson; urls: string[]; done: () => Promise<void> } {
  const urls: string[] = [];
  let driven: Promise<void> = Promise.resolve();
  // A script that fails aborts the climb, so the run (and the test) ends instead of waiting out the console.
  const drive = async (url: URL): Promise<void> => {
    try {
      await script(url);
    } catch (e) {
      await form(url, '/abort', { name: 'the test', reason: 'the script failed' }).catch(() => undefined);
      throw e;
    }
  };
  const person = new ConsolePerson({ announce: (u) => void (urls.push(u), (driven = drive(new URL(u)))), ...(timeoutMs ? { timeoutMs } : {}) });
  return { person, urls, done: () => driven };
}

const form = (url: URL, where: string, fields: Record<string, string>, token = url.searchParams.get('t') ?? ''): Promise<Response> =>
  fetch(new URL(where, url), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({ t: token, ...fields }),
  });

interface Menu {
  menu: { n: number; text: string }[];
  text: string;
  expected: { label: string }[];
}
const stateOf = async (url: URL): Promise<Menu> => (await (await fetch(new URL(`/state.json?t=${url.searchParams.get('t') ?? ''}`, url))).json()) as Menu;
const rowOf = (m: Menu, text: string): number => {
  const r = m.menu.find((x) => x.text.includes(text));
  if (!r) throw new Error(`no row ${text} in ${m.menu.map((x) => x.text).join(' / ')}`);
  return r.n;
};

/** A GET with a Host header of our choosing (fetch will not send a forged one). */
const getWithHost = (url: URL, host: string): Promise<number> =>
  new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: url.port, path: `${url.pathname}${url.search}`, headers: { host } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });

async function run(s: MemorySurface, card: Capability, extra: Partial<Parameters<typeof runCapability>[0]> = {}): Promise<{ result: RunResult; dir: string; lines: Line[] }> {
  const dir = path.join(tmp, `run-${++n}`);
  const result = await runCapability({ card, inputs: { password: PASSWORD }, env: {}, surface: () => Promise.resolve(s), evidenceDir: dir, allowUnapproved: true, quietMs: 60, ...extra });
  return { result, dir, lines: await linesOf(dir) };
}

describe('the person rung: a console on 127.0.0.1 with a one-time token', () => {
  it('a person follows Continue through the guarded menu and hands back: the run goes on, escalated_to_human, their step in the evidence and the proposal', async () => {
    const { s, card } = noticeAfter('signon', 1);
    const seen: Record<string, number> = {};
    const desk1 = atConsole(async (url) => {
      // Without the token, with a wrong one, or through another Host: 403, and nothing is shown.
      seen['no token'] = (await fetch(new URL('/', url))).status;
      seen['wrong token'] = (await fetch(new URL('/state.json?t=not-the-token', url))).status;
      seen['post without token'] = (await form(url, '/handback', { name: 'Mallory', label: 'review' }, '')).status;
      seen['rebound host'] = await getWithHost(url, `evil.example:${url.port}`);
      seen['json without token'] = (await fetch(new URL('/handback', url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"label":"review"}' })).status;
      const page = await (await fetch(url)).text();
      expect(page).toContain('NEW TERMS OF USE');
      expect(page).toMatch(/<label for="row-\d+">1: invoke link &#39;Continue&#39;/);
      // A press nobody classified is refused until the person says what it does; a commit never goes through here.
      const m = await stateOf(url);
      const refusedCommit = await (await form(url, '/act', { name: 'Ada Lovelace', row: String(rowOf(m, "button 'Accept Terms'")), verb: 'invoke', effect: 'commit' })).json();
      expect(refusedCommit).toMatchObject({ ok: false, text: expect.stringMatching(/a person does not commit/) as unknown });
      const nameless = await form(url, '/act', { row: String(rowOf(m, "link 'Continue'")), verb: 'invoke' });
      expect(nameless.status).toBe(400);
      const done = await (await form(url, '/act', { name: 'Ada Lovelace', row: String(rowOf(m, "link 'Continue'")), verb: 'invoke' })).json();
      expect(done).toMatchObject({ ok: true });
      expect((await stateOf(url)).text).toContain('MEMBER 400118');
      expect(await (await form(url, '/handback', { name: 'Ada Lovelace', label: 'review' })).json()).toMatchObject({ ok: true });
    });
    const { result, dir, lines } = await run(s, card, { person: desk1.person });
    await desk1.done();
    expect(seen).toEqual({ 'no token': 403, 'wrong token': 403, 'post without token': 403, 'rebound host': 403, 'json without token': 403 });
    expect(result).toMatchObject({ word: 'SUCCESS', escalated_to_human: true, outputs: { confirmation: '123456' } });
    expect(s.presses('F10=Post Hold')).toBe(1);
    // The token was for that climb only: the console is closed.
    await expect(fetch(desk1.urls[0] as string)).rejects.toThrow();
    const kinds = lines.map((l) => l.kind);
    expect(kinds).toContain('baton');
    const steps = lines.filter((l) => l.kind === 'human_step').map((l) => l.data);
    expect(steps.map((d) => [d['by'], d['control'], d['effect']])).toEqual([
      ['Ada Lovelace', "3: invoke button 'Accept Terms'", null],
      ['Ada Lovelace', "1: invoke link 'Continue'", 'navigate'],
    ]);
    expect(steps[1]).toMatchObject({ actor: 'human', before: expect.any(String) as unknown, after: s.screenRecord('review').signature });
    expect(lines.filter((l) => l.kind === 'baton').map((l) => `${String(l.data['from'])}>${String(l.data['to'])}`)).toEqual(['RUNNING>PAUSED', 'PAUSED>HUMAN_CONTROL', 'HUMAN_CONTROL>RUNNING']);
    expect(lines.find((l) => l.kind === 'handback')?.data).toMatchObject({ by: 'Ada Lovelace', label: 'review', judgement: { kind: 'named' } });
    // Screenshot and text before and after; never the token.
    const shots = lines.filter((l) => l.kind === 'screenshot' || l.kind === 'text').map((l) => `${l.kind} ${String(l.data['name'])}`);
    expect(shots).toEqual(expect.arrayContaining(['screenshot person-before', 'text person-before', 'screenshot person-after', 'text person-after']));
    const token = new URL(desk1.urls[0] as string).searchParams.get('t') as string;
    expect(await fs.readFile(path.join(dir, LOG_FILE), 'utf8')).not.toContain(token);
    expect(await fs.readFile(path.join(dir, LOG_FILE), 'utf8')).not.toContain(PASSWORD);
    const proposed = Capability.parse(JSON.parse(await fs.readFile(`${dir}.proposed.json`, 'utf8')));
    expect(proposed.lifecycle.review_notes.join('\n')).toMatch(/the person Ada Lovelace did 2\. 1: invoke link 'Continue' \(navigate\)/);
  });

  it('a handback the page contradicts (it is exactly another declared screen) is a mismatch: refused, no recovery', async () => {
    const { s, card } = noticeAfter('signon', 1);
    const c = atConsole(async (url) => {
      await form(url, '/act', { name: 'Bob', row: String(rowOf(await stateOf(url), "link 'Sign Off'")), verb: 'invoke' });
      await form(url, '/handback', { name: 'Bob', label: 'review' });
    });
    const { result, lines } = await run(s, card, { person: c.person });
    await c.done();
    expect(result).toMatchObject({ word: 'FAILED', at_step: 'sign_on', escalated_to_human: true });
    expect(lines.find((l) => l.kind === 'handback')?.data).toMatchObject({ label: 'review', judgement: { kind: 'mismatch', showing: 'signon' } });
    expect(lines.filter((l) => l.kind === 'ladder').map((l) => l.data['decision'])).toContainEqual({ stop: 'mismatch' });
    expect(s.presses('F10=Post Hold')).toBe(0);
  });

  it('an abort ends the run; a person who never answers is recorded as a timeout', async () => {
    const { app, s, card } = noticeAfter('signon', 1);
    const aborting = atConsole(async (url) => void (await form(url, '/abort', { name: 'Cleo', reason: 'the terms need legal' })));
    const aborted = await run(s, card, { person: aborting.person });
    await aborting.done();
    expect(aborted.result).toMatchObject({ word: 'FAILED', escalated_to_human: true });
    expect(aborted.lines.find((l) => l.kind === 'person_abort')?.data).toMatchObject({ by: 'Cleo', reason: 'the terms need legal' });
    const silent = atConsole(() => Promise.resolve(), 150);
    const timedOut = await run(new MemorySurface(app), card, { person: silent.person });
    expect(timedOut.result).toMatchObject({ word: 'FAILED', escalated_to_human: true });
    expect(timedOut.lines.find((l) => l.kind === 'person_timeout')?.data['after_ms']).toBeGreaterThanOrEqual(150);
  });

  it('told to stop while a person is asked (a signal): the climb ends at once, CANCELLED with nothing pressed, the console closed, no act after it', async () => {
    const { s, card } = noticeAfter('signon', 1);
    const stop = new AbortController();
    let late: unknown;
    const c = atConsole(async (url) => {
      stop.abort('SIGTERM');
      // A press sent after the signal is not made.
      late = await form(url, '/act', { name: 'Dee', row: '1', verb: 'invoke' }).then((r) => r.status, () => 'closed');
    });
    const began = Date.now();
    const { result, lines } = await run(s, card, { person: c.person, signal: stop.signal });
    await c.done();
    expect(Date.now() - began).toBeLessThan(5_000);
    expect(result).toMatchObject({ word: 'RECOVERABLE', code: 'CANCELLED', retryable: true, escalated_to_human: true, at_step: 'sign_on' });
    expect(result.message).toMatch(/stopped \(SIGTERM\) while a person was asked at step sign_on/);
    expect(lines.find((l) => l.kind === 'person_stopped')?.data).toMatchObject({ step: 'sign_on', reason: 'SIGTERM' });
    expect(lines.filter((l) => l.kind === 'ladder').map((l) => l.data['decision'])).toContainEqual({ stop: 'stopped' });
    expect(lines.some((l) => l.kind === 'human_step')).toBe(false);
    expect([409, 'closed']).toContain(late);
    await expect(fetch(c.urls[0] as string)).rejects.toThrow();
    expect(s.presses('F10=Post Hold')).toBe(0);
  });

  it('with a commit in flight the person may look and navigate but not stage; without --console nobody is asked', async () => {
    const { app, s, card } = noticeAfter('review', 0);
    const c = atConsole(async (url) => {
      const said = await (await form(url, '/act', { name: 'Dee', row: String(rowOf(await stateOf(url), "button 'Accept Terms'")), verb: 'invoke', effect: 'stage' })).json();
      expect(said).toMatchObject({ ok: false, text: expect.stringMatching(/commit is in flight/) as unknown });
      await form(url, '/handback', { name: 'Dee', label: 'posted' });
    });
    const { result, lines } = await run(s, card, { person: c.person });
    await c.done();
    // The notice is no proof of a hold (posted follows a commit and carries no marks here, so nothing proves it).
    expect(result).toMatchObject({ word: 'UNSAFE_TO_RETRY', code: 'COMMIT_IN_DOUBT', escalated_to_human: true });
    expect(lines.find((l) => l.kind === 'baton')?.data).toMatchObject({ to: 'PAUSED', commit_in_flight: true });
    const without = await run(new MemorySurface(app), card);
    expect(without.result.escalated_to_human).toBeUndefined();
    expect(without.lines.some((l) => l.kind === 'baton')).toBe(false);
  });

  it('with a commit in flight a button is not pressed even when the person calls it navigate: only links are followed', async () => {
    const { s, card } = noticeAfter('review', 0);
    const c = atConsole(async (url) => {
      const row = String(rowOf(await stateOf(url), "button 'Accept Terms'"));
      const said = await (await form(url, '/act', { name: 'Dee', row, verb: 'invoke', effect: 'navigate' })).json();
      expect(said).toMatchObject({ ok: false, text: expect.stringMatching(/commit is in flight.*links/) as unknown });
      await form(url, '/handback', { name: 'Dee', label: 'posted' });
    });
    const { result } = await run(s, card, { person: c.person });
    await c.done();
    expect(result).toMatchObject({ word: 'UNSAFE_TO_RETRY', code: 'COMMIT_IN_DOUBT', escalated_to_human: true });
    expect(s.presses('Accept Terms')).toBe(0);
  });

  it('with a commit in flight a link the person follows may not write: its script\'s POST is stopped and named in the evidence, and the commit\'s own write is kept', async () => {
    const { app, card } = noticeAfter('review', 0);
    const s = new MemorySurface(app, { writes: true });
    const origins = { network: { origins: ['http://memory.test'] } };
    const networked = Capability.parse({ ...card, ...origins });
    // The commit sends its own write; the notice's "Continue" link posts too (a script on the link), then navigates.
    const post = app.screens['review']!.elements[0]!;
    post.writes = { invoke: ['POST http://memory.test/post'] };
    const cont = app.screens['notice']!.elements[0]!;
    cont.writes = { invoke: ['POST http://memory.test/terms-accepted'] };
    const c = atConsole(async (url) => {
      const row = String(rowOf(await stateOf(url), "link 'Continue'"));
      const said = await (await form(url, '/act', { name: 'Dee', row, verb: 'invoke', effect: 'navigate' })).json();
      expect(said).toMatchObject({ ok: true });
      await form(url, '/handback', { name: 'Dee', label: 'posted' });
    });
    const { result, lines } = await run(s, networked, { person: c.person });
    await c.done();
    expect(s.sent).toEqual(['POST http://memory.test/post']);
    expect(lines.find((l) => l.kind === 'writes_stopped')?.data).toMatchObject({ step: 'post', by: 'person', writes: [{ method: 'POST', url: 'http://memory.test/terms-accepted', fate: 'blocked' }] });
    // The commit's window still has its own write, and only that.
    expect(lines.filter((l) => l.kind === 'writes').map((l) => l.data['writes'])).toEqual([[{ method: 'POST', url: 'http://memory.test/post', via: 'request', fate: 'unasked' }]]);
    expect(result).toMatchObject({ escalated_to_human: true });
    expect(s.presses('F10=Post Hold')).toBe(1);
  });
});

/** A referee that answers the control question as told, whatever the menu shows. */
class Told implements Referee {
  readonly name = 'told';
  readonly kind = 'classifier' as const;
  calls = 0;
  constructor(private readonly pick: (q: ControlQuestion) => Record<string, number>) {}
  ask(_q: RefereeQuestion): Promise<Verdict> {
    this.calls++;
    return Promise.reject(new Error('not asked about screens here'));
  }
  askControl(q: ControlQuestion): Promise<Verdict> {
    this.calls++;
    return Promise.resolve({ backend: this.name, probabilities: this.pick(q) });
  }
}

describe('the control rung: which menu row is this target, believed only on a matching fingerprint', () => {
  /** The post button's ladder no longer finds it (its only rung is a css selector the page dropped). */
  const lostPost = (s: MemorySurface, fingerprint?: CapabilityInput['targets'][string]['fingerprint']): Capability =>
    cardFor(s, (c) => {
      const t = c.targets['post_button'];
      if (t) t.ladder = [{ rung: 'css', cost: 10_000_000, value: '#post-old' }];
      if (t && fingerprint) t.fingerprint = fingerprint;
    });

  it('believes the local referee\'s row when its control has the card\'s fingerprint', async () => {
    const s = new MemorySurface(desk());
    const { result, lines } = await run(s, lostPost(s), { referee: new LocalReferee() });
    expect(result).toMatchObject({ word: 'SUCCESS', rungs: { post_button: 'control' }, classifier_calls: 1 });
    expect(lines.find((l) => l.kind === 'control')?.data).toMatchObject({ target: 'post_button', row: 1, believed: true, why: expect.stringMatching(/matches the card's/) as unknown });
    expect(s.presses('F10=Post Hold')).toBe(1);
  });

  it('refuses a confident wrong row (the fingerprint does not match) and the run ends as without it', async () => {
    const s = new MemorySurface(desk());
    const liar = new Told((q) => ({ [rowKey(q.rows.find((r) => r.name === 'Sign Off')?.n ?? 0)]: 0.99, [NONE]: 0.01 }));
    const { result, lines } = await run(s, lostPost(s), { referee: liar });
    expect(result).toMatchObject({ word: 'FAILED', code: 'TARGET_NOT_FOUND', at_step: 'post' });
    expect(lines.find((l) => l.kind === 'control')?.data).toMatchObject({ row: 2, believed: false, why: expect.stringMatching(/the card recorded/) as unknown });
    expect(s.presses('Sign Off')).toBe(0);
    expect(s.presses('F10=Post Hold')).toBe(0);
    // Asked once for this target on this screen.
    expect(lines.filter((l) => l.kind === 'control')).toHaveLength(1);
  });

  it('cannot be believed for a target whose card recorded no fingerprint value', async () => {
    const s = new MemorySurface(desk());
    const { result, lines } = await run(s, lostPost(s, { over: ['role'] }), { referee: new LocalReferee() });
    expect(result).toMatchObject({ word: 'FAILED', code: 'TARGET_NOT_FOUND' });
    expect(lines.find((l) => l.kind === 'control')?.data).toMatchObject({ believed: false, why: expect.stringMatching(/no fingerprint/) as unknown });
  });
});

describe('the notebook keeps every run that comes through runCapability', () => {
  it('records an MCP call and each verify plate, with the rung per target', async () => {
    const book = Notebook.open(':memory:');
    try {
      const home = path.join(tmp, 'home');
      await fs.mkdir(home);
      const card = Capability.parse(approvedCard(cardFor(new MemorySurface(desk()))));
      const service = new CallService({ env: { HANDRAIL_HOME: home }, evidenceDir: path.join(tmp, 'mcp'), log: () => undefined, surfaceFactory: () => Promise.resolve(new MemorySurface(desk())), notebook: book });
      try {
        expect(await service.call(card, { password: PASSWORD })).toMatchObject({ word: 'SUCCESS' });
      } finally {
        await service.close();
      }
      expect(book.lastWords(card.id)).toEqual(['SUCCESS']);
      // verify: the judge reads the memory app's own presses, before and after each plate.
      let s = new MemorySurface(desk());
      const report = await verify(card, {
        plates: [{ password: PASSWORD }, { password: PASSWORD }],
        judge: ({ phase }) => Promise.resolve({ ok: true, state: { held: phase === 'after' && s.presses('F10=Post Hold') === 1 ? 'yes' : 'no' } }),
        change: { before: { held: 'no' }, after: { held: 'yes' } },
        env: {},
        surfaceFactory: () => Promise.resolve((s = new MemorySurface(desk()))),
        evidenceRoot: path.join(tmp, 'verify'),
        notebook: book,
      });
      expect(report.plates.map((p) => p.word)).toEqual(['SUCCESS', 'SUCCESS']);
      expect(book.lastWords(card.id)).toEqual(['SUCCESS', 'SUCCESS', 'SUCCESS']);
      expect(book.drift(card.id).find((d) => d.target === 'post_button')).toMatchObject({ runs: 3, off_first: 0, latest: 'role_name' });
    } finally {
      book.close();
    }
  });
});

describe('handrail replay --console', () => {
  it('refuses a console timeout without a console, and one that is not milliseconds, before anything runs', async () => {
    const env = { ...process.env, HANDRAIL_HOME: tmp };
    const lonely = await handrail(['replay', 'capabilities/plumbline-place-hold.json', '--console-timeout', '5000'], env);
    expect(lonely.code).not.toBe(0);
    expect(lonely.stderr).toContain('--console-timeout needs --console');
    const bad = await handrail(['replay', 'capabilities/plumbline-place-hold.json', '--console', '--console-timeout', 'soon'], env);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--console-timeout expects milliseconds, got "soon"');
    expect(bad.stdout).toBe('');
  });
});
