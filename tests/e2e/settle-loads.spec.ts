// Settling waits for a click's new document on Chromium's load events instead of looking at the page between two
// documents (docs/design/replay.md, "Settling", "Waiting for a load"): a slow frame, a frame that navigates twice, a
// frameset's frames, a page that never finishes parsing (bounded, then left to the looks), and clicks that load
// nothing (a fragment, pushState, a javascript: link, a 204, empty frames added by script) which must not be waited for.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { BrowserSurface } from '../../runner/browser/surface.ts';
import type { Observation } from '../../shared/schema/observation.ts';

const html = (title: string, body: string): string => `<!doctype html><title>${title}</title><main>${body}</main>`;

const LINKS = html(
  'Links',
  `<a id="slow" href="/slow">slow page</a>
<a id="twice" href="/twice">moves on while it loads</a>
<a id="never" href="/never">never finishes</a>
<a id="frag" href="#below">fragment</a>
<a id="push" href="/pushed" onclick="event.preventDefault(); history.pushState({}, '', '/pushed'); document.title = 'Pushed'">push</a>
<a id="js" href="javascript:void(document.title = 'Scripted')">script</a>
<a id="nothing" href="/204">no content</a>
<a id="frames" href="/frames" target="_top">frameset</a>
<button id="blanks" onclick="for (const how of ['none', 'blank', 'srcdoc', 'written']) { const f = document.createElement('iframe'); if (how === 'blank') f.src = 'about:blank'; if (how === 'srcdoc') f.srcdoc = '<p>inline</p>'; document.body.append(f); if (how === 'written') { f.contentDocument.open(); f.contentDocument.write('<p>written</p>'); f.contentDocument.close(); } } document.title = 'Blanks'">add empty frames</button>
<h2 id="below">Below</h2>`,
);

let app: { server: Server; url: string };
let surface: BrowserSurface;
/** Responses held open by /never, ended when the test is over. */
const open = new Set<import('node:http').ServerResponse>();

test.beforeAll(async () => {
  const server = createServer((req, res) => {
    const page = (body: string, after = 0): void => {
      setTimeout(() => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body), after);
    };
    switch (req.url) {
      case '/':
        return page(`<!doctype html><title>Desk</title><iframe name="work" src="/links" width="600" height="400"></iframe>`);
      case '/links':
        return page(LINKS);
      case '/slow':
        return page(html('Slow', '<p>slow page arrived</p>'), 600);
      case '/twice':
        // The first document asks for another while it is still being parsed: its DOMContentLoaded is not the end.
        return page(html('First', `<p>first</p><script>location.replace('/slow')</script>`));
      case '/never':
        // The head and a paragraph, then nothing more, ever: the parser never finishes.
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.write(`<!doctype html><title>Never</title><main><p>partial page</p>${' '.repeat(2048)}`);
        open.add(res);
        return;
      case '/204':
        return void res.writeHead(204).end();
      case '/frames':
        return page(`<!doctype html><title>Frames</title><frameset cols="50%,*"><frame name="left" src="/left"><frame name="right" src="/right"></frameset>`);
      case '/left':
        return page(html('Left', '<p>left frame</p>'), 300);
      case '/right':
        return page(html('Right', '<p>right frame</p>'), 500);
      default:
        return void res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  app = { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
});
test.beforeEach(async ({ browser }) => {
  surface = await BrowserSurface.launch({ browser });
  await surface.open(`${app.url}/`);
  expect(await surface.loaded(5_000)).toBe(true);
});
test.afterEach(async () => {
  await surface.close();
  for (const res of open) res.end();
  open.clear();
});
test.afterAll(async () => {
  app.server.closeAllConnections();
  await new Promise((r) => app.server.close(r));
});

const work = () => {
  const frame = surface.page.frame({ name: 'work' });
  if (!frame) throw new Error('no work frame');
  return frame;
};
const titles = (o: Observation): string[] => o.parts.map((p) => p.locus['title'] ?? '');
const text = (o: Observation): string => o.parts.map((p) => p.text).join('\n');

/** Runs `fn` and returns how long `loaded(bound)` then took, and what it said. */
async function loadedAfter(fn: () => Promise<unknown>, bound = 5_000): Promise<{ ended: boolean; ms: number }> {
  await fn();
  const began = Date.now();
  const ended = await surface.loaded(bound);
  return { ended, ms: Date.now() - began };
}

test('a frame whose page takes 600 ms is waited for, and the first look after it shows the new page', async () => {
  const { ended, ms } = await loadedAfter(() => work().click('#slow'));
  expect(ended).toBe(true);
  // The click returns long before the answer (Playwright does not wait for a frame's navigation).
  expect(ms).toBeGreaterThan(300);
  const seen = await surface.observe();
  expect(titles(seen)).toContain('Slow');
  expect(text(seen)).toContain('slow page arrived');
});

test('a frame that navigates again while its first page is parsed is waited for until the second is parsed', async () => {
  const { ended } = await loadedAfter(() => work().click('#twice'));
  expect(ended).toBe(true);
  // Not the first document (its DOMContentLoaded came while the second was on its way): the second one.
  expect(titles(await surface.observe())).toContain('Slow');
});

test('a frameset is waited for with its frames, each answered later than the page that holds them', async () => {
  const { ended, ms } = await loadedAfter(() => work().click('#frames'));
  expect(ended).toBe(true);
  expect(ms).toBeGreaterThan(200);
  const seen = await surface.observe();
  expect(titles(seen)).toEqual(expect.arrayContaining(['Frames', 'Left', 'Right']));
  expect(text(seen)).toContain('right frame');
});

test('a page that never finishes parsing is waited for only the bound, then it is looked at, and the bound is not paid twice', async () => {
  const first = await loadedAfter(() => work().click('#never'), 400);
  expect(first.ended).toBe(false);
  expect(first.ms).toBeGreaterThanOrEqual(350);
  // Forgotten once the bound ran out: the next look is not held up again.
  const again = Date.now();
  expect(await surface.loaded(400)).toBe(true);
  expect(Date.now() - again).toBeLessThan(100);
  await expect.poll(async () => text(await surface.observe()), { timeout: 2_000 }).toContain('partial page');
});

for (const [id, what] of [
  ['#frag', 'a fragment link'],
  ['#push', 'history.pushState'],
  ['#js', 'a javascript: link'],
  ['#nothing', 'a link answered 204 No Content'],
  ['#blanks', 'frames added by script with no page of their own (no src, about:blank, srcdoc, document.write)'],
] as const) {
  test(`${what}: no document is on its way, and nothing is waited for`, async () => {
    const { ended, ms } = await loadedAfter(() => work().click(id), 3_000);
    expect(ended).toBe(true);
    expect(ms).toBeLessThan(300);
    const title = { '#frag': 'Links', '#nothing': 'Links', '#push': 'Pushed', '#js': 'Scripted', '#blanks': 'Blanks' }[id];
    // The click did its work: a javascript: URL runs as a task of its own after the click, so the look may need a
    // moment (replay's settle looks again until its screen shows).
    await expect.poll(async () => titles(await surface.observe()), { timeout: 2_000 }).toContain(title);
  });
}
