// Settling on single-page apps (docs/design/replay.md, "Settling"): a screen whose data is still on its way is not at
// rest. A page that fetches for 1.5 s with no spinner looked finished the moment the button was pressed; now the
// browser surface reports the observation busy while a fetch or XHR to the app's origins is out. Another origin's
// request (analytics) never keeps it busy.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { BrowserSurface } from '../../runner/browser/surface.ts';

const PAGE = (other: string): string => `<!doctype html><title>Orders</title><main>
<h1>Orders</h1>
<button id="load" onclick="fetch('/api/slow').then(r => r.text()).then(t => { document.querySelector('#out').textContent = t; })">Load</button>
<button id="xhr" onclick="const x = new XMLHttpRequest(); x.open('GET', '/api/slow'); x.onload = () => { document.querySelector('#out').textContent = 'xhr ' + x.responseText; }; x.send();">Load by XHR</button>
<button id="other" onclick="fetch('${other}/beacon').then(() => { document.querySelector('#out').textContent = 'counted'; })">Count me</button>
<p id="out">nothing yet</p></main>`;

async function listen(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

let app: { server: Server; url: string };
let analytics: { server: Server; url: string };
let surface: BrowserSurface;

test.beforeAll(async () => {
  analytics = await listen((_req, res) => {
    setTimeout(() => res.writeHead(200, { 'access-control-allow-origin': '*' }).end('ok'), 3_000);
  });
  app = await listen((req, res) => {
    if (req.url === '/api/slow') {
      setTimeout(() => res.writeHead(200, { 'content-type': 'text/plain' }).end('Loaded 42 orders'), 1_500);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE(analytics.url));
  });
});
test.beforeEach(async ({ browser }) => {
  surface = await BrowserSurface.launch({ browser });
  await surface.open(`${app.url}/`);
});
test.afterEach(async () => {
  await surface.close();
});
test.afterAll(async () => {
  app.server.closeAllConnections();
  analytics.server.closeAllConnections();
  await new Promise((r) => app.server.close(r));
  await new Promise((r) => analytics.server.close(r));
});

/** Observes until the screen is no longer busy; returns how many busy looks came first. */
async function untilQuiet(): Promise<{ busyLooks: number }> {
  let busyLooks = 0;
  for (let i = 0; i < 100; i++) {
    const obs = await surface.observe();
    if (!obs.busy) return { busyLooks };
    busyLooks++;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('still busy after 10 s');
}

for (const [button, shows] of [['#load', 'Loaded 42 orders'], ['#xhr', 'xhr Loaded 42 orders']] as const) {
  test(`a ${button === '#load' ? 'fetch' : 'XHR'} to the app keeps the screen busy until its answer is on the screen`, async () => {
    await surface.page.click(button);
    const { busyLooks } = await untilQuiet();
    // Busy for the 1.5 s the answer took (before, every look was quiet and the half-made screen could rest).
    expect(busyLooks).toBeGreaterThan(5);
    // Once quiet, the answer is on the screen within the settle's quiet window (the page's own script paints it).
    await expect.poll(async () => (await surface.observe()).parts.map((p) => p.text).join('\n'), { timeout: 1_000 }).toContain(shows);
  });
}

test('a slow request to another origin does not keep the screen busy', async () => {
  await surface.page.click('#other');
  const obs = await surface.observe();
  expect(obs.busy).toBeUndefined();
  expect(surface.loading()).toBe(0);
});
