// A row's key does not depend on where its table sits: a table of order lines inside a list item keys its rows by
// each cell's whole text, as the same table outside a list does, and an element that holds both a list's items and a
// grid's rows keys each kind by its own column (shared/dom/rows.ts; docs/design/walker.md, "The walker", "One question, one map").
import { test, expect, type Page } from '@playwright/test';
import { findInFrame, observePage, rowsOfRef } from '../../runner/browser/observe.ts';
import type { Control } from '../../shared/schema/observation.ts';
import { serveFixtures, type FixtureServer } from '../fixtures/server.ts';
import { controls } from './support/observed.ts';

/** One order's lines: the item cell holds its colour in a child element, and every quantity is the same. */
const lines = (order: string): string => `
  <table aria-label="Lines of ${order}">
    <tr><th>Item</th><th>Qty</th><th></th></tr>
    <tr><td>Widget <small>(blue)</small></td><td>1</td><td><button>Remove</button></td></tr>
    <tr><td>Widget <small>(red)</small></td><td>1</td><td><button>Remove</button></td></tr>
  </table>`;

/** Orders as cards in a list, each card holding its lines; and the same table on its own. */
const ORDERS = `<!doctype html><html lang="en"><head><title>Orders</title></head><body>
  <h1>Orders</h1>
  <ul aria-label="Orders">
    <li><span>Order 1001</span> <span>Open</span>${lines('1001')}</li>
    <li><span>Order 1002</span> <span>Open</span>${lines('1002')}</li>
  </ul>
  <section aria-label="Draft">${lines('draft')}</section>
</body></html>`;

/**
 * One element that is the container of both an ARIA grid's rows (no grid around them: their parent) and a list's
 * items (their parent): a feed whose rows repeat "Open" in their first column and whose items repeat it in their second.
 */
const FEED = `<!doctype html><html lang="en"><head><title>Feed</title></head><body>
  <div id="feed">
    <div role="row"><span role="cell">Open</span><span role="cell">C-1</span><button>Assign</button></div>
    <div role="row"><span role="cell">Open</span><span role="cell">C-2</span><button>Assign</button></div>
    <div role="listitem"><span>Alpha</span> <span>Open</span> <button>Follow</button></div>
    <div role="listitem"><span>Beta</span> <span>Open</span> <button>Follow</button></div>
  </div>
</body></html>`;

let server: FixtureServer;
test.beforeAll(async () => {
  server = await serveFixtures({ '/orders.html': ORDERS, '/feed.html': FEED });
});
test.afterAll(async () => {
  await server.close();
});

const rowOf = (c: Control): string | undefined => c.scope.findLast((l) => l.role === 'row')?.name;
const table = (c: Control): string | undefined => c.scope.find((l) => l.role === 'table')?.name;

async function open(page: Page, path: string) {
  await page.goto(`${server.url}${path}`);
  await page.waitForLoadState('load');
  return observePage(page);
}

test('a table inside a list item keys its rows by their cells\' whole text, as the same table outside a list does', async ({ page }) => {
  const obs = await open(page, '/orders.html');
  const removes = controls(obs).filter((c) => c.role === 'button' && c.name === 'Remove');
  expect(removes.map((c) => `${table(c)}: ${rowOf(c)}`)).toEqual([
    'Lines of 1001: Widget (blue)',
    'Lines of 1001: Widget (red)',
    'Lines of 1002: Widget (blue)',
    'Lines of 1002: Widget (red)',
    'Lines of draft: Widget (blue)',
    'Lines of draft: Widget (red)',
  ]);
  // The key is the text read_rows reads in that row's Item cell.
  const [lines1002] = await findInFrame(page, [], { rung: 'role_name', role: 'table', name: 'Lines of 1002', scope: [] });
  const cells = (await rowsOfRef(page, lines1002 as string))?.rows.map((r) => r.cells['Item']);
  expect(cells).toEqual(removes.filter((c) => table(c) === 'Lines of 1002').map(rowOf));
  // Each remove button is found again by its scope, and only it: replay presses the line the card names.
  for (const c of removes) {
    expect(await findInFrame(page, [], { rung: 'role_name', role: 'button', name: 'Remove', scope: c.scope }), JSON.stringify(c.scope)).toEqual([c.ref]);
  }
  // The orders themselves are still keyed by their number (the piece that tells them apart), not their status.
  const items = await findInFrame(page, [], { rung: 'role_name', role: 'list', name: 'Orders', scope: [] });
  expect(items).toHaveLength(1);
  const read = await rowsOfRef(page, items[0] as string);
  expect(read?.rows.map((r) => r.text.slice(0, 15))).toEqual(['Order 1001 Open', 'Order 1002 Open']);
  expect(await findInFrame(page, [], { rung: 'role_name', role: 'table', name: 'Lines of 1002', scope: [{ role: 'row', name: 'Order 1002' }] })).toHaveLength(1);
});

test('one element holding a grid\'s rows and a list\'s items: each kind is keyed by its own column', async ({ page }) => {
  const obs = await open(page, '/feed.html');
  const keyed = controls(obs)
    .filter((c) => c.role === 'button')
    .map((c) => `${c.name} in ${rowOf(c)}`);
  expect(keyed).toEqual(['Assign in C-1', 'Assign in C-2', 'Follow in Alpha', 'Follow in Beta']);
});
