// The walker reports what a page's live regions say beside its screen and takes it out of the screen's text: an
// alert, a status line, a log, an aria-live region, an <output>, one inside a shadow tree, each once (a region inside
// another is part of it), a hidden or empty one not at all; the paths and signature are what they were. It also
// reports the page's rows by key with their text, leaving a toast's rows out (docs/design/replay.md, "What the app says").
import { test, expect, type Page } from '@playwright/test';
import { observePage } from '../../runner/browser/observe.ts';
import { serveFixtures, type FixtureServer } from '../fixtures/server.ts';

const PAGE = `<!doctype html><html lang="en"><head><title>Said</title></head><body>
  <h1>Suppliers</h1>
  <table aria-label="Suppliers"><tr><th>Name</th><th>Status</th></tr>
    <tr><td>Acme Tools</td><td>active</td></tr>
    <tr><td>Birch &amp; Sons</td><td>active, merging with Cobalt Freight</td></tr>
  </table>
  <p>Saved suppliers are listed above.</p>
  <div role="status">Saved supplier Cobalt Freight</div>
  <div role="alert"><p>Not saved:</p> <p>Cobalt Freight is longer than 24 characters</p></div>
  <div aria-live="polite">Two <span role="status">nested</span> words</div>
  <ul role="log"><li>Logged in</li><li>Opened the list</li></ul>
  <form><output>Total 42</output></form>
  <p>Status:<span aria-live="assertive">ok</span></p>
  <div role="status" hidden>Never shown</div>
  <div role="alert"></div>
  <div aria-live="off">Not a region</div>
  <div id="host"></div>
  <script>
    const root = document.getElementById('host').attachShadow({ mode: 'open' });
    root.innerHTML = '<p>Shadow content</p><p role="status">Shadow toast</p>';
  </script>
</body></html>`;

const QUIET = PAGE.replace(/<div role="status">Saved[^<]*<\/div>/, '<div role="status"></div>');

let server: FixtureServer;
test.beforeAll(async () => {
  server = await serveFixtures({ '/said.html': PAGE, '/quiet.html': QUIET });
});
test.afterAll(async () => {
  await server.close();
});

async function open(page: Page, path: string) {
  await page.goto(`${server.url}${path}`);
  await page.waitForLoadState('load');
  return observePage(page);
}

test('each visible live region says its words once, beside the screen, and none of them is left in its text', async ({ page }) => {
  const obs = await open(page, '/said.html');
  const top = obs.parts[0];
  expect(top?.said).toEqual([
    'Saved supplier Cobalt Freight',
    'Not saved: Cobalt Freight is longer than 24 characters',
    'Two nested words',
    'Logged in Opened the list',
    'Total 42',
    'ok',
    'Shadow toast',
  ]);
  const text = top?.text ?? '';
  for (const gone of ['Saved supplier Cobalt', 'Not saved', 'longer than 24', 'nested', 'Logged in', 'Total 42', 'Shadow toast']) expect(text).not.toContain(gone);
  // The page's own content stays, the row that names the same supplier and an inline region's neighbour included.
  for (const kept of ['Suppliers', 'Saved suppliers are listed above.', 'merging with Cobalt Freight', 'Status:', 'Not a region', 'Shadow content']) expect(text).toContain(kept);
  expect(text).not.toContain('Never shown');
  // What the regions say is not furniture: a quieter toast leaves the paths and signature as they were.
  const quiet = await open(page, '/quiet.html');
  expect(quiet.parts[0]?.said).not.toContain('Saved supplier Cobalt Freight');
  expect(quiet.signature).toBe(obs.signature);
  expect(quiet.paths).toEqual(obs.paths);
});

test('the rows are reported by key with their text, as read_rows reads them', async ({ page }) => {
  const obs = await open(page, '/said.html');
  expect(obs.parts[0]?.rows).toEqual([
    { key: 'Acme Tools', text: 'Acme Tools active' },
    { key: 'Birch & Sons', text: 'Birch & Sons active, merging with Cobalt Freight' },
  ]);
});
