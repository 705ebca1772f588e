// Every write is asked: which requests are writes, and what the guard does with them — a held write waits for the
// owner, one that left before anyone could be asked is an unasked commit the compiler refuses, naming the step, and
// the commit policy answers from the effects seen rather than calling every button a commit.
import { describe, expect, it } from 'vitest';
import { CommitPolicyOwner } from '../../runner/author/owner.ts';
import { Guard } from '../../shared/author/guard.ts';
import type { Owner, OwnerQuestion } from '../../shared/author/ports.ts';
import { compile } from '../../shared/compile/index.ts';
import type { TraceLine } from '../../shared/schema/trace.ts';
import { Masker } from '../../shared/secrets.ts';
import { isWrite, scopeOf } from '../../shared/writes.ts';
import { control, MemoryBook, WatchingFakeSurface, type FakeScreen } from '../fixtures/author/fake-surface.ts';

const APP = 'http://127.0.0.1:8080';
const SCOPE = { origins: [APP], ignore: ['POST /analytics*', '/signon'] };

describe('which requests are writes', () => {
  it.each([
    ['a POST form to the app', { method: 'POST', url: `${APP}/post`, via: 'form' as const }, true],
    ['a DELETE by fetch', { method: 'delete', url: `${APP}/holds/1`, via: 'request' as const }, true],
    ['a GET', { method: 'GET', url: `${APP}/results?by=number`, via: 'request' as const }, false],
    ['a HEAD', { method: 'HEAD', url: `${APP}/`, via: 'request' as const }, false],
    ['a beacon (always a write, whatever the method)', { method: 'GET', url: `${APP}/b`, via: 'beacon' as const }, true],
    ['a WebSocket message to the app (ws: upgrades from http:)', { method: 'SEND', url: 'ws://127.0.0.1:8080/live', via: 'websocket' as const }, true],
    ['a POST to another origin', { method: 'POST', url: 'http://127.0.0.1:9090/post', via: 'request' as const }, false],
    ['a POST to another port of the same host', { method: 'POST', url: 'http://127.0.0.1:8081/post', via: 'request' as const }, false],
    ['an ignored endpoint by prefix', { method: 'POST', url: `${APP}/analytics/v2`, via: 'request' as const }, false],
    ['an ignored endpoint, any method', { method: 'PUT', url: `${APP}/signon`, via: 'request' as const }, false],
    ['an ignored prefix for another method', { method: 'PUT', url: `${APP}/analytics/v2`, via: 'request' as const }, true],
    ['a URL that does not parse', { method: 'POST', url: 'not a url', via: 'request' as const }, false],
  ])('%s', (_what, r, want) => {
    expect(isWrite(r, SCOPE)).toBe(want);
  });

  it('a card that names no origins watches its entry\'s, with blanks filled', () => {
    expect(scopeOf(`${APP}/signon`, undefined).origins).toEqual([`${APP}/signon`]);
    expect(scopeOf(`${APP}/signon`, { origins: ['{{env.BASE_URL}}'] }, (o) => o.replace('{{env.BASE_URL}}', APP))).toEqual({ origins: [APP], ignore: [] });
  });
});

function screens(): Record<string, FakeScreen> {
  return {
    desk: {
      controls: [control('|c0', 'button', 'Refresh'), control('|c1', 'button', 'Go Live'), control('|c2', 'link', 'Send Statement')],
      text: 'DESK',
      next: { '|c0': 'desk', '|c1': 'live', '|c2': 'sent' },
      sends: {
        '|c1': { method: 'SEND', url: 'ws://127.0.0.1:8080/live', via: 'websocket', held: false },
        '|c2': { method: 'POST', url: `${APP}/flag`, via: 'form', held: true },
      },
    },
    live: { controls: [control('|c0', 'link', 'Back')], text: 'LIVE', next: { '|c0': 'desk' } },
    sent: { controls: [control('|c0', 'link', 'Back')], text: 'SENT', next: { '|c0': 'desk' } },
  };
}

function guardOver(owner: Owner) {
  const surface = new WatchingFakeSurface(screens(), 'desk');
  const book = new MemoryBook();
  const guard = new Guard({ surface, owner, book, masker: new Masker([]), goal: 'g', inputs: [], settle: { quietMs: 0, pollMs: 1 }, writes: { origins: [APP], ignore: [] } });
  return { surface, book, guard };
}

const START: TraceLine = {
  seq: 0, at: 'x', kind: 'start', schema: 'handrail.trace/v1', goal: 'g', entry: `${APP}/desk`, inputs: [], walker: 'w',
  writes: { origins: [APP], ignore: [] }, author: { kind: 'model' },
};

describe('the guard and the compiler, watching writes', () => {
  it('a press whose write left before anyone could be asked is an unasked commit, and the compiler refuses that step', async () => {
    const asked: OwnerQuestion[] = [];
    const { guard, book } = guardOver({ ask: (q) => (asked.push(q), Promise.resolve({ answer: 'navigate', name: 'O' })) });
    await guard.show();
    await guard.handle({ id: 'a', name: 'assert_screen', input: { label: 'desk' } });
    const out = await guard.handle({ id: 'b', name: 'act', input: { row: 2, verb: 'invoke' } });
    expect(out.text).toContain('before the owner could be asked');
    await guard.show();
    await guard.handle({ id: 'c', name: 'assert_screen', input: { label: 'live' } });
    await guard.handle({ id: 'd', name: 'finish', input: { label: 'live' } });
    const lines = book.lines as TraceLine[];
    const act = lines.find((l) => l.kind === 'act');
    expect(act).toMatchObject({ effect: { kind: 'commit', by: 'effects', unasked: true }, writes: [{ via: 'websocket', fate: 'unasked' }] });
    expect(asked).toEqual([]);
    // Renumbered behind a start line the guard did not write, so the lines lose their chain (`prev`): the compiler
    // still checks their numbering and screens, and finds the unasked commit.
    const r = compile([{ ...START, seq: 1 }, ...lines.map(({ prev: _prev, ...l }) => ({ ...l, seq: l.seq + 1 }) as TraceLine)]);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.holes).toEqual([expect.objectContaining({ line: 3, code: 'UNASKED_COMMIT' })]);
      expect(r.holes[0]?.message).toContain("button 'Go Live'");
      expect(r.holes[0]?.message).toContain('SEND ws://127.0.0.1:8080/live (websocket)');
    }
  });

  it('a write that left between actions, unasked, is a hole at its book line', () => {
    const lines: TraceLine[] = [
      START,
      { seq: 1, at: 'x', kind: 'refusal', tool: 'page', code: 'UNASKED_WRITE', message: 'between actions the page sent SEND ws://127.0.0.1:8080/live (websocket)' },
    ];
    const r = compile(lines);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.holes).toContainEqual(expect.objectContaining({ line: 2, code: 'UNASKED_COMMIT' }));
  });

  it('the commit policy answers from effects: a button that writes nothing is not asked about, a link that posts is a commit', async () => {
    const policy = new CommitPolicyOwner('Pat Policy');
    const asked: OwnerQuestion[] = [];
    const { guard, book } = guardOver({ ask: (q) => (asked.push(q), policy.ask()) });
    await guard.show();
    await guard.handle({ id: 'l', name: 'assert_screen', input: { label: 'desk' } });
    await guard.handle({ id: 'a', name: 'act', input: { row: 1, verb: 'invoke' } });
    await guard.show();
    await guard.handle({ id: 'b', name: 'act', input: { row: 3, verb: 'invoke' } });
    const acts = (book.lines as TraceLine[]).filter((l) => l.kind === 'act');
    expect(acts.map((l) => l.effect)).toEqual([
      { kind: 'navigate', by: 'effects' },
      { kind: 'commit', by: 'owner', owner: 'Pat Policy' },
    ]);
    expect(asked.map((q) => [q.control, q.writes])).toEqual([["link 'Send Statement'", [`POST ${APP}/flag (form)`]]]);
  });

  it('a write the owner says no to is stopped: the screen stays, the model is told, the book keeps it', async () => {
    const surface = new WatchingFakeSurface(screens(), 'desk');
    const book = new MemoryBook();
    // An owner who gives no answer in time is a no.
    const slow = new Guard({
      surface, owner: { ask: () => new Promise(() => undefined) }, book, masker: new Masker([]), goal: 'g', inputs: [],
      settle: { quietMs: 0, pollMs: 1 }, writes: { origins: [APP], ignore: [] }, ownerTimeoutMs: 20,
    });
    await slow.show();
    await slow.handle({ id: 'l', name: 'assert_screen', input: { label: 'desk' } });
    const out = await slow.handle({ id: 'a', name: 'act', input: { row: 3, verb: 'invoke' } });
    expect(out).toMatchObject({ ok: false });
    expect(out.text).toContain('(WRITE_REFUSED)');
    expect(out.text).toContain('did not answer in time');
    expect(surface.screen).toBe('desk');
    expect(book.lines).toEqual([expect.objectContaining({ kind: 'label' }), expect.objectContaining({ kind: 'act', asked: [{ write: `POST ${APP}/flag (form)`, answer: 'no_answer' }], writes: [expect.objectContaining({ fate: 'blocked' })] })]);
  });
});
