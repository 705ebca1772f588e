// read_rows in real Chromium on a page of our own: an ARIA grid of divs gives cells by column header (hidden rows left out, a password's value never read), a list gives each item's text without its controls, a target that is no table is refused by name, and an unnamed list is offered, authored, compiled and replayed scoped by the region that makes it unique.
import { test, expect } from '@playwright/test';
import { BrowserSurface } from '../../runner/browser/surface.ts';
import type { BoundTarget } from '../../shared/surface.ts';
import os from 'node:os';
import path from 'node:path';
import { promises as fs } from 'node:fs';
import { renderRowSources, rowSources } from '../../shared/author/rows.ts';
import { runEvening } from '../../shared/author/evening.ts';
import { compile } from '../../shared/compile/compile.ts';
import { runCapability } from '../../runner/run.ts';
import type { TraceLine } from '../../shared/schema/index.ts';
import { ListModel } from '../fixtures/author/list-model.ts';
import { MemoryBook } from '../fixtures/author/fake-surface.ts';
import { serveFixtures, type FixtureServer } from '../fixtures/server.ts';

let server: FixtureServer;
let surface: BrowserSurface;
test.beforeAll(async () => {
  server = await serveFixtures({});
});
test.afterAll(async () => {
  await server.close();
});
test.beforeEach(async ({ browser }) => {
  surface = await BrowserSurface.launch({ browser });
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

test('unnamed lists are offered for read_rows scoped by the named region that makes each unique, and read back through that scope; two in one unnamed place are not offered', async () => {
  await surface.open(`${server.url}/rows-unnamed.html`);
  const sources = await rowSources(surface, await surface.observe());
  const lists = sources.filter((s) => s.control.role === 'list');
  expect(lists.map((s) => ({ name: s.control.name, scope: s.control.scope, rows: s.rows }))).toEqual([
    { name: '', scope: [{ role: 'region', name: 'Closed cases' }], rows: 1 },
    { name: '', scope: [{ role: 'region', name: 'Open cases' }], rows: 2 },
  ]);
  // What the model is offered is what a card's target finds and reads on replay.
  const open = lists.find((s) => s.control.scope[0]?.name === 'Open cases');
  if (!open) throw new Error('no Open cases list');
  const found = await surface.resolve({ ...target('list', ''), scope: open.control.scope });
  if (!found.ok) throw new Error(found.detail);
  expect((await surface.act(found.ref, { verb: 'read_rows' })).rows).toEqual([
    { cells: {}, text: 'Stolen bicycle' },
    { cells: {}, text: 'Water damage' },
  ]);
  expect(renderRowSources(lists)).toContain("list (unnamed, in region 'Open cases'), no headers (use text); 2 rows");
});

test('an unnamed list authored by a model compiles to a target scoped by its region, and the card replays its rows with no model', async () => {
  const entry = `${server.url}/rows-unnamed.html`;
  const book = new MemoryBook();
  const model = new ListModel([
    [{ name: 'assert_screen', input: { label: 'desk' } }],
    [
      { name: 'read_rows', input: { table: 'T2', output: 'open_cases', text: 'title' } },
      { name: 'finish', input: { label: 'desk' } },
    ],
  ]);
  const owner = { ask: () => Promise.resolve({ answer: 'navigate' as const, name: 'Olive Owner' }) };
  const authored = await runEvening({ surface, model, owner, book, goal: 'List the open cases', entry, inputs: [] });
  expect(model.seen[1]?.screen).toContain("T2: list (unnamed, in region 'Open cases'), no headers (use text); 2 rows");
  expect(authored.ok).toBe(true);
  const compiled = compile(book.lines as TraceLine[], { id: 'open_cases' });
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.holes));
  const target = Object.values(compiled.card.targets).find((t) => t.role === 'list');
  expect(target).toMatchObject({ role: 'list', name: { eq: '' }, scope: [{ role: 'region', name: 'Open cases' }], supports: ['read_rows'], ladder: [{ rung: 'role_name' }] });
  const evidenceDir = await fs.mkdtemp(path.join(os.tmpdir(), 'handrail-rows-unnamed-'));
  try {
    const run = await runCapability({ card: compiled.card, inputs: {}, env: { BASE_URL: server.url }, evidenceDir, allowUnapproved: true });
    expect(run.word, JSON.stringify(run)).toBe('SUCCESS');
    expect(run.outputs['open_cases']).toEqual([{ title: 'Stolen bicycle' }, { title: 'Water damage' }]);
  } finally {
    await fs.rm(evidenceDir, { recursive: true, force: true });
  }
});
