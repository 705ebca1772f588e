// Settling while the page moves (docs/design/replay.md, "Settling"): a list that fades out over the page behind it is
// not the screen an action led to while the fade runs. MUI keeps its closing list in the page through an exit
// transition, the page behind covered; authoring's settle took three still looks of that for the landing screen
// (UNLABELLED_LANDING in extension-widgets.spec.ts under load). The walker now reports a screen with a finite
// animation or transition running as moving; an infinite one (a spinner) does not count.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { settleAfter } from '../../shared/author/settle.ts';
import { BrowserSurface } from '../../runner/browser/surface.ts';

const PAGE = `<!doctype html><title>Case</title><style>
  #list { transition: opacity 900ms linear; position: fixed; inset: 0; background: #fff; }
  #list.closing { opacity: 0; }
  .spin { display: inline-block; width: 1em; height: 1em; border: 2px solid #333; border-top-color: transparent; border-radius: 50%; animation: spin 0.8s linear infinite; }
  @keyframes spin { to { transform: rotate(360deg); } }
</style><main><h1>Case settings</h1><span class="spin" aria-hidden="true"></span>
<button id="save">Save</button>
<div id="list" role="listbox" aria-label="Priority"><div role="option" aria-selected="false" id="high"
  onclick="const l = document.querySelector('#list'); l.classList.add('closing'); l.addEventListener('transitionend', () => l.remove());">High</div></div>
</main>`;

let server: Server;
let url: string;
let surface: BrowserSurface;

test.beforeAll(async () => {
  server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
test.beforeEach(async ({ browser }) => {
  surface = await BrowserSurface.launch({ browser });
  await surface.open(url);
});
test.afterEach(async () => {
  await surface.close();
});
test.afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

test('a spinner is not movement; a fade is, until it ends', async () => {
  expect((await surface.observe()).moving).toBeUndefined();
  await surface.page.click('#high');
  expect((await surface.observe()).moving).toBe(true);
  await expect.poll(async () => (await surface.observe()).moving, { timeout: 5_000 }).toBeUndefined();
});

test("authoring's settle waits out a closing list's fade and lands on the page behind it", async () => {
  const before = await surface.observe();
  await surface.page.click('#high');
  const landed = await settleAfter(surface, before.signature, { quietMs: 300, maxMs: 5_000 });
  // The list is gone: the landing is the page, not the covered screen the fade showed for 900 ms.
  const roles = landed.parts.flatMap((p) => p.controls.map((c) => c.role));
  expect(roles).not.toContain('option');
  expect(roles).toContain('button');
  expect(landed.moving).toBeUndefined();
});
