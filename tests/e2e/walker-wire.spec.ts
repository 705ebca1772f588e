// An observation that crosses out of the page in the wire form is the one the page made, and a walker of this version installed without that form (another build's) is still read, as plain JSON.
import { test, expect } from '@playwright/test';
import { observePage } from '../../runner/browser/observe.ts';
import type { InPage } from '../../shared/dom/api.ts';
import { frameObservation } from '../../shared/ref.ts';
import { combineParts } from '../../shared/screens.ts';
import { WALKER_VERSION } from '../../shared/dom/version.ts';
import { WIRE_VERSION } from '../../shared/dom/wire.ts';
import { generatePage } from '../bench/walker.ts';
import { serveFixtures, type FixtureServer } from '../fixtures/server.ts';

type WithWalker = typeof globalThis & { __handrail: InPage };
/** The walker as another build may have installed it: its methods may be missing. */
type WithAnyWalker = typeof globalThis & { __handrail: Partial<InPage> };

let server: FixtureServer;
test.beforeAll(async () => {
  server = await serveFixtures({ '/bench.html': generatePage(1500) });
});
test.afterAll(async () => {
  await server.close();
});

test('the bench page observed through the wire form is the page’s own observation, and so is an old walker’s plain answer', async ({ page }) => {
  await page.goto(`${server.url}/bench.html`);
  const wired = await observePage(page);
  expect(wired.parts[0]!.controls.length).toBeGreaterThan(300);

  // The page's own observe(), as JSON, made into the screen the same way observePage makes it.
  const own = JSON.parse(await page.evaluate(() => JSON.stringify((globalThis as WithWalker).__handrail.observe())));
  expect(JSON.stringify(wired)).toBe(JSON.stringify(combineParts([frameObservation([], own)], WALKER_VERSION)));

  // A walker of this version from a build without the wire form: no wireVersion, no observeWire.
  const wireVersion = await page.evaluate(() => {
    const api = (globalThis as WithAnyWalker).__handrail;
    const had = api.wireVersion;
    delete api.wireVersion;
    delete api.observeWire;
    return had;
  });
  expect(wireVersion).toBe(WIRE_VERSION);
  const plain = await observePage(page);
  expect(await page.evaluate(() => 'observeWire' in (globalThis as WithAnyWalker).__handrail)).toBe(false);
  expect(JSON.stringify(plain)).toBe(JSON.stringify(wired));
});
