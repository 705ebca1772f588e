// The browser surface puts the walker into every document as it starts (an init script), so the first look at a new
// page is one round trip (docs/design/profiling.md, "Profiling a replay"): the page's own scripts find it already there,
// and a frame whose first about:blank window is reused by its page observes its page, not the blank it replaced.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { BrowserSurface } from '../../runner/browser/surface.ts';
import { WALKER_VERSION } from '../../runner/browser/walker-bundle.ts';

let app: { server: Server; url: string };
let surface: BrowserSurface;

test.beforeAll(async () => {
  const server = createServer((req, res) => {
    const body =
      req.url === '/inner'
        ? `<!doctype html><title>Inner</title><main><button>Inner button</button></main>`
        : `<!doctype html><title>Outer</title><script>window.walkerAtParse = typeof globalThis.__handrail</script>
<main><button>Outer button</button><iframe name="inner" src="/inner"></iframe></main>`;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  app = { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
});
test.beforeEach(async ({ browser }) => {
  surface = await BrowserSurface.launch({ browser });
});
test.afterEach(async () => {
  await surface.close();
});
test.afterAll(async () => {
  app.server.closeAllConnections();
  await new Promise((r) => app.server.close(r));
});

test('the walker is in the document before its own scripts run, at the version this runner observes with', async () => {
  await surface.open(`${app.url}/`);
  expect(await surface.page.evaluate(() => (window as unknown as { walkerAtParse: string }).walkerAtParse)).toBe('object');
  expect(await surface.page.evaluate(() => (globalThis as unknown as { __handrail?: { version: string } }).__handrail?.version)).toBe(WALKER_VERSION);
});

test('a same-origin frame observes its own page, not the about:blank document its window was first made for', async () => {
  await surface.open(`${app.url}/`);
  await surface.loaded(5_000);
  const seen = await surface.observe();
  const inner = seen.parts.find((p) => p.locus['title'] === 'Inner');
  expect(inner?.controls.map((c) => c.name)).toEqual(['Inner button']);
  expect(seen.parts.find((p) => p.locus['title'] === 'Outer')?.controls.map((c) => c.name)).toEqual(['Outer button']);
});
