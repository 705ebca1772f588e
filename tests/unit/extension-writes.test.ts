// The extension sees a write only once it has left (chrome.webRequest observes): its surface reports each write to the recorded origins as unasked, the guard asks about a button before the press, and a clerk's action nobody confirmed that sent one is an unasked commit.
import { describe, expect, it } from 'vitest';
import { Guard } from '../../shared/author/guard.ts';
import type { OwnerQuestion } from '../../shared/author/ports.ts';
import type { TraceLine } from '../../shared/schema/trace.ts';
import { Masker } from '../../shared/secrets.ts';
import { SurfaceError } from '../../shared/surface.ts';
import { ExtensionSurface, requestOfDetails } from '../../extension/lib/surface.ts';
import { fakeTab } from '../fixtures/extension/fake-tab.ts';
import { control, MemoryBook, WatchingFakeSurface, type FakeScreen } from '../fixtures/author/fake-surface.ts';

const APP = 'http://127.0.0.1:8080';
const SCOPE = { origins: [APP], ignore: [] };

describe('the extension surface, watching the tab\'s requests', () => {
  it.each([
    ['a POST navigation of the top frame is a form', { method: 'POST', url: `${APP}/f`, type: 'main_frame' }, 'form'],
    ['a POST navigation of a frame is a form', { method: 'POST', url: `${APP}/f`, type: 'sub_frame' }, 'form'],
    ['a GET navigation is a request', { method: 'GET', url: `${APP}/f`, type: 'main_frame' }, 'request'],
    ['a fetch or XHR is a request', { method: 'PUT', url: `${APP}/f`, type: 'xmlhttprequest' }, 'request'],
    ['a ping is a beacon', { method: 'POST', url: `${APP}/b`, type: 'ping' }, 'beacon'],
  ])('%s', (_what, d, via) => {
    expect(requestOfDetails(d)).toEqual({ method: d.method, url: d.url, via });
  });

  it('reports the writes to the recorded origins sent while it watches, each unasked; a GET, another origin and a request before the watch are not', async () => {
    const tab = fakeTab({}, '', {});
    const surface = new ExtensionSurface(tab);
    expect(surface.writesUnheld).toBe(true);
    tab.send({ method: 'POST', url: `${APP}/early`, via: 'form' });
    await surface.watchWrites(SCOPE);
    tab.send({ method: 'POST', url: `${APP}/prefs/flag`, via: 'form' });
    tab.send({ method: 'GET', url: `${APP}/prefs`, via: 'request' });
    tab.send({ method: 'POST', url: 'http://localhost:8080/prefs/flag', via: 'beacon' });
    tab.send({ method: 'POST', url: `${APP}/b`, via: 'beacon' });
    expect(await surface.takeWrites()).toEqual([
      { method: 'POST', url: `${APP}/prefs/flag`, via: 'form', fate: 'unasked' },
      { method: 'POST', url: `${APP}/b`, via: 'beacon', fate: 'unasked' },
    ]);
    // Taken: recording stops until the next watch; closed: the listener is gone.
    tab.send({ method: 'POST', url: `${APP}/late`, via: 'form' });
    expect(await surface.takeWrites()).toEqual([]);
    await surface.close();
    await surface.watchWrites(SCOPE);
    await surface.close();
    tab.send({ method: 'POST', url: `${APP}/after-close`, via: 'form' });
    expect(await surface.takeWrites()).toEqual([]);
  });
});

/** A surface like the extension's: it sees writes and holds none. */
class UnheldSurface extends WatchingFakeSurface {
  readonly writesUnheld = true;
}

function desk(): Record<string, FakeScreen> {
  return {
    desk: {
      controls: [control('|c0', 'button', 'Save'), control('|c1', 'link', 'Send Statement Now'), control('|c2', 'combobox', 'Statement Cycle')],
      text: 'DESK',
      next: { '|c0': 'desk', '|c1': 'desk' },
      sends: {
        '|c0': { method: 'POST', url: `${APP}/save`, via: 'form', held: false },
        '|c1': { method: 'POST', url: `${APP}/prefs/flag`, via: 'form', held: false },
      },
    },
  };
}

async function session(actor: 'model' | 'human', answer: 'commit' | 'navigate' = 'commit') {
  const asked: OwnerQuestion[] = [];
  const surface = new UnheldSurface(desk(), 'desk');
  const book = new MemoryBook();
  const owner = { ask: (q: OwnerQuestion) => (asked.push(q), Promise.resolve({ answer, name: 'Olive Owner' })) };
  const guard = new Guard({ surface, owner, book, masker: new Masker([]), goal: 'g', inputs: [], actor, settle: { quietMs: 0, pollMs: 1 }, writes: SCOPE });
  await guard.show();
  await guard.handle({ id: 'l', name: 'assert_screen', input: { label: 'desk' } });
  const acts = () => (book.lines as TraceLine[]).flatMap((l) => (l.kind === 'act' ? [l] : []));
  return { asked, surface, guard, acts, book };
}

describe('the guard over a surface that cannot hold writes', () => {
  it('asks about a button before the press, and the commit the owner confirmed sent its write allowed', async () => {
    const { asked, guard, acts } = await session('model');
    const out = await guard.handle({ id: 'a', name: 'act', input: { row: 1, verb: 'invoke' } });
    expect(out.ok).toBe(true);
    expect(asked.map((q) => q.control)).toEqual(["button 'Save'"]);
    expect(acts()[0]).toMatchObject({ effect: { kind: 'commit', by: 'owner', owner: 'Olive Owner' }, writes: [{ url: `${APP}/save`, fate: 'allowed' }] });
  });

  it('a button the owner said only moves on sends its write allowed: not an unasked commit', async () => {
    const { guard, acts } = await session('model', 'navigate');
    await guard.handle({ id: 'a', name: 'act', input: { row: 1, verb: 'invoke' } });
    expect(acts()[0]).toMatchObject({ effect: { kind: 'navigate', by: 'owner' }, writes: [{ url: `${APP}/save`, fate: 'allowed' }] });
  });

  it('a link nobody was asked about that posts is an unasked commit', async () => {
    const { asked, guard, acts } = await session('model');
    const out = await guard.handle({ id: 'a', name: 'act', input: { row: 2, verb: 'invoke' } });
    expect(out.text).toContain('before the owner could be asked');
    expect(asked).toEqual([]);
    expect(acts()[0]).toMatchObject({ effect: { kind: 'commit', by: 'effects', unasked: true }, writes: [{ url: `${APP}/prefs/flag`, fate: 'unasked' }] });
  });

  it('a clerk\'s choice whose write left before the guard heard of it is that choice\'s unasked commit, not a stray', async () => {
    const { surface, guard, acts } = await session('human');
    // The page's onchange submitted the form the moment the clerk chose; the report reaches the guard after.
    surface.pageSends({ method: 'POST', url: `${APP}/prefs/cycle`, via: 'form' });
    await guard.show();
    await guard.handle({ id: 'c', name: 'act', input: { row: 3, verb: 'select', value: 'QUARTERLY' } });
    expect(acts()[0]).toMatchObject({ verb: 'select', effect: { kind: 'commit', by: 'effects', unasked: true }, writes: [{ url: `${APP}/prefs/cycle`, fate: 'unasked' }] });
  });

  it('a clerk\'s choice whose form submit takes the page while its rungs are probed is written, probed on the page that replaced it, and not done again there', async () => {
    // CI saw this one: the select's onchange submitted the form; the guard's look still saw the old document, its
    // probe then found it gone (STALE), the error left the guard and nothing was written or said.
    const { surface, guard, acts } = await session('human');
    surface.pageSends({ method: 'POST', url: `${APP}/prefs/cycle`, via: 'form' });
    await guard.show();
    const resolve = surface.resolve.bind(surface);
    let probes = 0;
    const acted: string[] = [];
    surface.resolve = (t) => (probes++ === 0 ? Promise.reject(new SurfaceError('STALE', 'frame (top) has no agent (it navigated)')) : resolve(t));
    const act = surface.act.bind(surface);
    surface.act = (ref, op) => (acted.push(`${op.verb} ${ref}`), act(ref, op));
    const out = await guard.handle({ id: 'c', name: 'act', input: { row: 3, verb: 'select', value: 'QUARTERLY' } });
    expect(out.ok).toBe(true);
    expect(acts()[0]).toMatchObject({ verb: 'select', value: 'QUARTERLY', effect: { kind: 'commit', by: 'effects', unasked: true }, writes: [{ url: `${APP}/prefs/cycle`, fate: 'unasked' }] });
    // Its rungs come from the twin control on the document that replaced it (the desk loaded again).
    expect(acts()[0]?.rungs.length).toBeGreaterThan(0);
    expect(acted).toEqual([]);
  });

  it('a model\'s write between actions stays the page\'s: an UNASKED_WRITE line, not the next action\'s', async () => {
    const { surface, guard, acts, book } = await session('model');
    surface.pageSends({ method: 'POST', url: `${APP}/autosave`, via: 'request' });
    await guard.show();
    await guard.handle({ id: 'c', name: 'act', input: { row: 3, verb: 'select', value: 'QUARTERLY' } });
    expect(acts()[0]).toMatchObject({ verb: 'select', effect: { kind: 'stage', by: 'rule' }, writes: [] });
    expect((book.lines as TraceLine[]).find((l) => l.kind === 'refusal')).toMatchObject({ tool: 'page', code: 'UNASKED_WRITE', message: expect.stringContaining(`POST ${APP}/autosave`) });
  });
});
