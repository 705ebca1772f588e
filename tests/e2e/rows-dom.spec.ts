// read_rows in real Chromium on a page of our own: an ARIA grid of divs gives cells by column header (hidden rows left out, a password's value never read), a list gives each item's text without its controls, and a target that is no table is refused by name.
import { test, expect } from '@playwright/test';
import { BrowserSurface } from '../../runner/browser/surface.ts';
import type { BoundTarget } from '../../shared/surface.ts';
import { serveFixtures, type FixtureServer } from '../fixtures/server.ts';

let server: FixtureServer;
let surface: BrowserSurface;
test.beforeAll(async () => {
  server = await serveFixtures({});
});
test.afterAll(async () => {
  await server.close();
});
test.beforeEach(async () => {
  surface = await BrowserSurface.launch();
  await surface.open(`${server.url}/rows.html`);
  await surface.observe();
});
test.afterEach(async () => {
  await surface.close();
});

function target(role: string, name: string): BoundTarget {
  return { id: 't', role, name, supports: ['read_rows'], scope: [], ladder: [{ rung: 'role_name', cost: 100 }], fingerprint: { over: ['role'] } };
}

async function read(role: string, name: string): Promise<{ rows?: unknown; headers?: string[] }> {
  const found = await surface.resolve(target(role, name));
  if (!found.ok) throw new Error(`${role} ${name}: ${found.detail}`);
  return surface.act(found.ref, { verb: 'read_rows' });
}
const rowsOf = async (role: string, name: string): Promise<unknown> => (await read(role, name)).rows;

test('an ARIA grid of divs: cells by header, the hidden row left out, the password never read', async () => {
  const rows = await rowsOf('grid', 'Open cases');
  expect(rows).toEqual([
    { cells: { Case: 'C-101', Owner: 'Ada', State: 'Open' }, text: 'C-101 Ada Open' },
    { cells: { Case: 'C-102', Owner: 'Grace', State: 'Open' }, text: 'C-102 Grace Open' },
  ]);
  expect(JSON.stringify(rows)).not.toContain('s3cret-pin');
  expect((await read('grid', 'Open cases')).headers).toEqual(['Case', 'Owner', 'State']);
  // The same grid reached through one of its column headers.
  expect(await rowsOf('columnheader', 'Owner')).toEqual(rows);
});

test('a list: each of its own items\' text without the item\'s controls', async () => {
  expect(await rowsOf('list', 'Groceries')).toEqual([
    { cells: {}, text: 'Buy milk' },
    { cells: {}, text: 'Walk dog' },
  ]);
  expect(await rowsOf('list', 'Nested')).toEqual([{ cells: {}, text: 'leash' }]);
  expect((await read('list', 'Groceries')).headers).toEqual([]);
});

test('read_rows on something that is no table, grid or list is refused ACTION_FAILED, naming it', async () => {
  const found = await surface.resolve(target('heading', 'Rows'));
  if (!found.ok) throw new Error(found.detail);
  await expect(surface.act(found.ref, { verb: 'read_rows' })).rejects.toMatchObject({ code: 'ACTION_FAILED', message: expect.stringMatching(/not a table, grid or list/) as unknown as string });
});
