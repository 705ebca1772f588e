// A pick in a menu button's menu is authored by a scripted model as one `choose` step on the button (not a press on the button and another on the item), compiles to a card whose target is the button, and that card replays SUCCESS with no model for another item — in a menu rendered only when opened — while an item the menu does not have fails by name.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, expect } from '@playwright/test';
import { JsonlBook, readBook } from '../../runner/author/book.ts';
import { selectorsFor } from '../../runner/author/selectors.ts';
import { BrowserSurface } from '../../runner/browser/surface.ts';
import { runCapability } from '../../runner/run.ts';
import { runEvening } from '../../shared/author/evening.ts';
import type { Owner } from '../../shared/author/ports.ts';
import { ScriptedModel } from '../../shared/author/scripted.ts';
import { compile } from '../../shared/compile/compile.ts';
import { serveFixtures, type FixtureServer } from '../fixtures/server.ts';

let server: FixtureServer;
let dir: string;
test.beforeAll(async () => {
  server = await serveFixtures();
  dir = await mkdtemp(join(tmpdir(), 'handrail-menus-author-'));
});
test.afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const asked: string[] = [];
const owner: Owner = {
  ask(q) {
    asked.push(q.control);
    return Promise.resolve({ answer: 'navigate', name: 'Dana Reviewer' });
  },
};

/** A browser surface that, when the run closes it, first reads what the page was asked to do (the fixture's picks). */
async function watched(into: string[][]): Promise<BrowserSurface> {
  const s = await BrowserSurface.launch();
  const close = s.close.bind(s);
  s.close = async () => {
    into.push(await s.page.evaluate(() => (window as unknown as { picks: string[] }).picks).catch(() => ['(page gone)']));
    await close();
  };
  return s;
}

test('a model picks an item in a menu rendered only on opening: one choose on the button, compiled and replayed for another item', async () => {
  test.setTimeout(120_000);
  const bookPath = join(dir, 'menu.jsonl');
  const authored: string[][] = [];
  const surface = await watched(authored);
  const book = await JsonlBook.create(bookPath);
  try {
    const evening = await runEvening({
      surface,
      model: new ScriptedModel({
        turns: [
          [
            { tool: 'assert_screen', label: 'menus', title: 'Menus' },
            { tool: 'act', match: "button 'More'", verb: 'choose', value: '{{input.item}}' },
          ],
          [{ tool: 'finish', label: 'menus' }],
        ],
      }),
      owner,
      book,
      goal: 'Pick the given item in the More menu',
      entry: `${server.url}/menus.html`,
      inputs: [{ name: 'item', value: 'Export', secret: false }],
      selectorsFor: selectorsFor(surface.page),
    });
    expect(evening, JSON.stringify(evening)).toMatchObject({ ok: true });
  } finally {
    await book.close();
    await surface.close();
  }
  expect(authored).toEqual([['more:Export']]);
  // Opening a menu and picking in it writes nothing: no owner was asked.
  expect(asked).toEqual([]);

  const read = await readBook(bookPath);
  if (!read.ok) throw new Error(JSON.stringify(read.problems));
  const compiled = compile(read.lines, { id: 'menus_more_pick' });
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.holes));
  const card = compiled.card;
  // One step on the button; no press on the button, none on the item.
  expect(card.steps.map((s) => s.op.verb)).toEqual(['choose']);
  const step = card.steps[0];
  expect(step).toMatchObject({ op: { verb: 'choose', value: '{{input.item}}' }, effect: { kind: 'stage' } });
  expect(card.targets[step?.target ?? '']).toMatchObject({ role: 'button', name: { eq: 'More' }, supports: ['invoke', 'choose'] });

  const replay = async (item: string, n: string) => {
    const seen: string[][] = [];
    const result = await runCapability({
      card,
      allowUnapproved: true,
      inputs: { item },
      env: { BASE_URL: server.url },
      surface: () => watched(seen),
      evidenceDir: join(dir, `replay-${n}`),
    });
    return { result, seen };
  };
  const ok = await replay('Print', 'ok');
  expect(ok.result, JSON.stringify(ok.result)).toMatchObject({ word: 'SUCCESS', llm_calls: 0 });
  expect(ok.seen).toEqual([['more:Print']]);
  const missing = await replay('Shred', 'missing');
  expect(missing.result.word).not.toBe('SUCCESS');
  expect(JSON.stringify(missing.result)).toContain('no item named \\"Shred\\" in the menu it opens');
  expect(missing.seen).toEqual([[]]);
});
