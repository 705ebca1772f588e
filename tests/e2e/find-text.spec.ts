// A target of role text is found one way, chosen by what it takes: a read target (a result line) by the ordinary rungs, with no walk of the page for gestures; a target that takes a double-click or a right-click among the text the page listens on, and only there.
import { test, expect, type Page } from '@playwright/test';
import { BrowserSurface } from '../../runner/browser/surface.ts';
import { elementOf, findInFrame, observePage } from '../../runner/browser/observe.ts';
import type { FindQuery } from '../../shared/dom/api.ts';
import { LISTENERS_KEY } from '../../shared/dom/gestures.ts';
import type { BoundTarget } from '../../shared/surface.ts';
import { serveFixtures, type FixtureServer } from '../fixtures/server.ts';

let server: FixtureServer;
test.beforeAll(async () => {
  server = await serveFixtures();
});
test.afterAll(async () => {
  await server.close();
});

/** The id of the element behind a page-wide ref. */
async function idOf(page: Page, ref: string): Promise<string | null> {
  const found = await elementOf(page, ref);
  return found ? await found.el.evaluate((e) => e.id) : null;
}

test('a read target of role text takes no gesture walk; a gesture target walks once and finds only text the page listens on', async ({ page }) => {
  // Each gesture walk reads the listener record once (shared/dom/gestures.ts gestureSpotter): on this page, with no
  // listener probe installed, a getter in its place counts the walks and gives what an absent record gives.
  await page.addInitScript((key) => {
    let walks = 0;
    Object.defineProperty(globalThis, key, { get: () => void walks++, configurable: true });
    Object.defineProperty(globalThis, '__walks', { get: () => walks });
  }, LISTENERS_KEY);
  await page.goto(`${server.url}/gestures.html`);
  const walks = () => page.evaluate(() => (globalThis as unknown as { __walks: number }).__walks);
  const find = (q: Omit<FindQuery, 'scope'>) => findInFrame(page, [], { scope: [], role: 'text', ...q });

  expect(await walks()).toBe(0);
  // The counter counts: an observation is one walk, and it offers the pinned title (its ondblclick handler).
  const seen = await observePage(page);
  expect(await walks()).toBe(1);
  expect(seen.parts[0]?.controls.find((c) => c.name === 'Quarterly report')).toMatchObject({ role: 'text', offers: ['double_click'] });

  // A read target: the text rung finds the smallest element holding the words, listening or not; no walk.
  const read = await find({ rung: 'text', value: 'Quarterly report' });
  expect(read).toHaveLength(1);
  expect(await idOf(page, read[0] ?? '')).toBe('pinned');
  const loose = await find({ rung: 'text', value: 'Only the list listens' });
  expect(await idOf(page, loose[0] ?? '')).toBe('loose');
  // `text` is no ARIA role: by role and name a read target finds nothing, and still walks nothing.
  expect(await find({ rung: 'role_name', name: 'Quarterly report' })).toEqual([]);
  expect(await walks()).toBe(1);

  // A gesture target: one walk per find, among the offered text only.
  const named = await find({ rung: 'role_name', name: 'Quarterly report', gesture: true });
  expect(named).toHaveLength(1);
  expect(await idOf(page, named[0] ?? '')).toBe('pinned');
  expect(await walks()).toBe(2);
  expect(await find({ rung: 'text', value: 'Only the list listens', gesture: true })).toEqual([]);
  expect(await walks()).toBe(3);
  // The css rung is the same for both: the selector says which element.
  expect(await find({ rung: 'css', value: '#pinned', gesture: true })).toHaveLength(1);
  expect(await walks()).toBe(3);
});

test('the surface takes the path from what the target supports: a double-click target of role text resolves, a read target by its text', async ({ browser }) => {
  const surface = await BrowserSurface.launch({ browser });
  try {
    await surface.open(`${server.url}/gestures.html`);
    const o = await surface.observe();
    const title = o.parts.flatMap((p) => p.controls).find((c) => c.name === 'Renew the lease');
    expect(title).toMatchObject({ role: 'text', offers: ['double_click'] });
    const target = (supports: BoundTarget['supports'], ladder: BoundTarget['ladder'], scope = title?.scope ?? []): BoundTarget => ({
      id: 't',
      role: 'text',
      name: 'Renew the lease',
      supports,
      scope,
      ladder,
      fingerprint: { over: ['role'] },
    });
    const byName: BoundTarget['ladder'] = [{ rung: 'role_name', cost: 100 }];

    // Double-click on text: found by its name in its row, the element the observation offered.
    expect(await surface.resolve(target(['read', 'double_click'], byName))).toMatchObject({ ok: true, ref: title?.ref, rung: 'role_name' });
    // The same name as a read target: no text is offered to it, and `text` is no ARIA role.
    expect(await surface.resolve(target(['read'], byName))).toMatchObject({ ok: false, code: 'TARGET_NOT_FOUND' });

    // A read target of role text found by its words on its first rung, though nothing listens on it (only its list).
    const line: BoundTarget['ladder'] = [{ rung: 'text', cost: 300, value: 'Only the list listens' }];
    const read = await surface.resolve(target(['read'], line, []));
    expect(read).toMatchObject({ ok: true, rung: 'text' });
    if (read.ok) expect(await idOf(surface.page, read.ref)).toBe('loose');
    // A double-click target is not that text: the list's listener is not the element's.
    expect(await surface.resolve(target(['read', 'double_click'], line, []))).toMatchObject({ ok: false, code: 'TARGET_NOT_FOUND' });
  } finally {
    await surface.close();
  }
});

test('the text rung reads the flat tree: text in a shadow root and text slotted into one are found; a host`s light child that no slot shows is not', async ({ page }) => {
  await page.setContent(`<!doctype html><body>
    <div id="host"><span id="slotted">Slotted words here</span><span id="unshown" slot="nowhere">Never shown words</span></div>
    <script>
      const root = document.getElementById('host').attachShadow({ mode: 'open' });
      root.innerHTML = '<p id="inner">Shadow words here</p><div id="frame"><slot></slot></div>';
    </script></body>`);
  const find = (value: string) => findInFrame(page, [], { scope: [], rung: 'text', value });
  const inner = await find('Shadow words here');
  expect(inner).toHaveLength(1);
  expect(await idOf(page, inner[0] ?? '')).toBe('inner');
  const slotted = await find('Slotted words here');
  expect(slotted).toHaveLength(1);
  expect(await idOf(page, slotted[0] ?? '')).toBe('slotted');
  expect(await find('Never shown words')).toEqual([]);
});

test('text slotted straight into a slot at the top of a shadow root is found at its host, never at the slot', async ({ page }) => {
  await page.setContent(`<!doctype html><body>
    <x-chip id="chip">Approved</x-chip>
    <script>document.getElementById('chip').attachShadow({ mode: 'open' }).innerHTML = '<slot></slot>';</script></body>`);
  const found = await findInFrame(page, [], { scope: [], rung: 'text', value: 'Approved' });
  expect(found).toHaveLength(1);
  expect(await idOf(page, found[0] ?? '')).toBe('chip');
});
