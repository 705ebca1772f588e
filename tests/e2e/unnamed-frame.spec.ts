// A form inside an unnamed iframe (after an empty about:blank one) is authored through the runner's authoring path, and the card compiled from it replays: both find the frame by its path `#1`.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, expect } from '@playwright/test';
import { elementOf } from '../../runner/browser/observe.ts';
import { BrowserSurface } from '../../runner/browser/surface.ts';
import { runCapability } from '../../runner/run.ts';
import type { Owner } from '../../shared/author/ports.ts';
import { ScriptedModel } from '../../shared/author/scripted.ts';
import { serveFixtures, type FixtureServer } from '../fixtures/server.ts';
import { compiled, eveningInBrowser } from './support/evening.ts';

let server: FixtureServer;
let dir: string;
test.beforeAll(async () => {
  server = await serveFixtures();
  dir = await mkdtemp(join(tmpdir(), 'handrail-unnamed-frame-'));
});
test.afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const owner: Owner = { ask: (q) => Promise.resolve({ answer: q.control.includes('Send') ? 'commit' : 'navigate', name: 'Dana Reviewer' }) };

test('observing names the unnamed frames #0 and #1', async ({ browser }) => {
  const surface = await BrowserSurface.launch({ browser });
  try {
    await surface.open(`${server.url}/unnamed-frame.html`);
    await surface.page.frameLocator('iframe >> nth=1').getByRole('button', { name: 'Send' }).waitFor();
    const obs = await surface.observe();
    expect(obs.parts.map((f) => f.part)).toEqual([[], ['#0'], ['#1']]);
    const field = obs.parts[2]?.controls.find((c) => c.hint === 'Reference');
    expect(field?.ref).toMatch(/^#1\|/);
    expect(field?.scope[0]).toEqual({ role: 'frame', name: '#1' });
    expect(await elementOf(surface.page, field!.ref)).not.toBeNull();

    // A frame inserted before them in the document is counted as window.parts counts it (Chromium: in the
    // order frames were created), so the form keeps its path and its refs stay good.
    await surface.page.evaluate(() => document.body.insertBefore(document.createElement('iframe'), document.querySelector('iframe')));
    const after = await surface.observe();
    expect(after.parts.map((f) => f.part)).toEqual([[], ['#0'], ['#1'], ['#2']]);
    expect(after.parts.find((f) => f.controls.some((c) => c.hint === 'Reference'))?.part).toEqual(['#1']);
    expect(await (await elementOf(surface.page, field!.ref))?.el.getAttribute('name')).toBe('reference');
  } finally {
    await surface.close();
  }
});

test('a step inside an unnamed iframe is authored, and the card compiled from it replays', async ({ browser }) => {
  test.setTimeout(60_000);
  const bookPath = join(dir, 'trace.jsonl');
  const { evening, lines } = await eveningInBrowser(bookPath, {
    model: new ScriptedModel({
      turns: [
        [
          { tool: 'assert_screen', label: 'transfer_form', title: 'New Transfer' },
          { tool: 'act', match: "textbox 'Reference'", verb: 'set_value', value: '{{input.reference}}' },
          { tool: 'act', match: "button 'Send'", verb: 'invoke' },
        ],
        [
          { tool: 'assert_screen', label: 'transfer_sent', title: 'Transfer Sent' },
          { tool: 'finish', label: 'transfer_sent' },
        ],
      ],
    }),
    owner,
    goal: 'Send a transfer with a reference',
    entry: `${server.url}/unnamed-frame.html`,
    inputs: [{ name: 'reference', value: 'TRX-AUTHORED', secret: false }],
  });
  expect(evening).toMatchObject({ ok: true, finished: 'transfer_sent' });

  const card = compiled(lines, { id: 'unnamed_frame_transfer' });
  const send = Object.values(card.targets).find((t) => t.name?.eq === 'Send');
  expect(send?.scope).toContainEqual({ role: 'frame', name: '#1' });
  // The dearest rung was derived inside the unnamed frame too.
  const field = Object.values(card.targets).find((t) => t.hint === 'Reference');
  expect(field?.ladder.at(-1)).toMatchObject({ rung: 'css', value: 'input[name=reference]' });

  let replayed: BrowserSurface | null = null;
  const result = await runCapability({
    card,
    inputs: { reference: 'TRX-REPLAYED' },
    env: { BASE_URL: server.url },
    surface: async () => (replayed = await BrowserSurface.launch({ browser })),
    // The compiled card is a draft that commits: it runs here as verify runs drafts, in the test's isolation.
    allowUnapproved: true,
    evidenceDir: join(dir, 'replay'),
  });
  expect(result, result.message).toMatchObject({ word: 'SUCCESS', screen: 'transfer_sent' });
  expect(result.steps_done).toBe(card.steps.length);
  expect(replayed).not.toBeNull();
});

test('a frame removed while it is being looked at is gone from the look, not an error (TiddlyWiki closes its editor frame so)', async ({ browser }) => {
  const surface = await BrowserSurface.launch({ browser });
  try {
    await surface.page.setContent(`<button>Keep</button><iframe srcdoc="<textarea aria-label='Body'></textarea>"></iframe>`);
    await surface.page.frames().find((f) => f !== surface.page.mainFrame())?.waitForSelector('textarea');
    expect((await surface.observe()).parts).toHaveLength(2);
    // The page takes the frame away at the walker's first look in the top document, as TiddlyWiki closes an editor
    // whose text is a frame: the frame's own walk, asked for at the same time, finds no frame to answer.
    await surface.page.evaluate(() => {
      const own = Element.prototype.checkVisibility;
      Element.prototype.checkVisibility = function (this: Element, o?: CheckVisibilityOptions) {
        document.querySelector('iframe')?.remove();
        return own.call(this, o);
      };
    });
    const after = await surface.observe();
    expect(after.parts.map((f) => f.part)).toEqual([[]]);
    expect(after.parts[0]?.controls.map((c) => c.name)).toContain('Keep');
  } finally {
    await surface.close();
  }
});
