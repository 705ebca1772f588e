// A Headless UI Listbox button labels itself (aria-labelledby="label button"), so Chromium names it by the value it
// holds ("Queue Claims"); the walker names it by its label alone ("Queue") and shows the value beside it, so a card
// authored while it held one value replays when it holds another, and is not taken for a listbox of another label
// (docs/design/walker.md, "The walker", "One deliberate difference"; shared/dom/name.ts).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, expect } from '@playwright/test';
import { BrowserSurface } from '../../runner/browser/surface.ts';
import { findInFrame, observePage } from '../../runner/browser/observe.ts';
import { runCapability } from '../../runner/run.ts';
import type { Owner } from '../../shared/author/ports.ts';
import { ScriptedModel } from '../../shared/author/scripted.ts';
import { buildMenu, renderMenu } from '../../shared/menu.ts';
import { serveFixtures } from '../fixtures/server.ts';
import { startRealApp, type RealApp } from '../fixtures/real/server.ts';
import { compareWithChromium } from './support/ax-oracle.ts';
import { compiled, eveningInBrowser } from './support/evening.ts';
import { controls, one } from './support/observed.ts';

let app: RealApp;
let dir: string;
test.beforeAll(async () => {
  app = await startRealApp();
  dir = await mkdtemp(join(tmpdir(), 'handrail-listbox-name-'));
});
test.afterAll(async () => {
  await app.close();
  await rm(dir, { recursive: true, force: true });
});
test.beforeEach(() => {
  app.widgets.length = 0;
});

test('the listbox button is named by its label, holds its value, and differs from Chromium\'s name by exactly that value', async ({ page }) => {
  await page.goto(`${app.url}/widgets?list_queue=Fraud`);
  await page.getByRole('button', { name: 'Queue Fraud' }).waitFor();
  const obs = await observePage(page);
  const queue = one(obs, 'button', 'Queue');
  expect(queue).toMatchObject({ value: 'Fraud', offers: ['choose'] });
  // The model's menu shows what it holds.
  expect(renderMenu(buildMenu(obs)).split('\n').filter((r) => r.includes("button 'Queue'")).map((r) => r.replace(/^\d+: /, ''))).toEqual([
    "invoke button 'Queue' (holds 'Fraud')",
    "choose button 'Queue' (holds 'Fraud')",
  ]);
  // Chromium's accessibility tree keeps the value in the name: the one deliberate difference, by name.
  const oracle = await compareWithChromium(page, obs);
  const row = oracle.rows.find((r) => r.ref === queue.ref);
  expect(row).toMatchObject({ walker: { role: 'button', name: 'Queue' }, chromium: { role: 'button', name: 'Queue Fraud' }, match: false });
});

test('a label that is a prefix, or that holds the value\'s word, is another listbox: only the one labelled exactly is found', async ({ page }) => {
  const server = await serveFixtures({
    '/queues.html': `<!doctype html><html lang="en"><head><title>Queues</title></head><body>
      <span id="l1">Queue</span><button id="b1" aria-haspopup="listbox" aria-labelledby="l1 b1">Claims</button>
      <span id="l2">Queue owner</span><button id="b2" aria-haspopup="listbox" aria-labelledby="l2 b2">Claims</button>
      <span id="l3">Queue Claims</span><button id="b3" aria-haspopup="listbox" aria-labelledby="l3 b3">Fraud</button>
      <span id="l4">Queue</span><button id="b4" aria-labelledby="l4 b4">Claims</button>
      <span id="l5"></span><button id="b5" aria-haspopup="listbox" aria-labelledby="l5 b5">Appeals</button>
      <span id="l6">Priority</span><div id="c6" role="combobox" tabindex="0" aria-expanded="false" aria-labelledby="l6 c6">Normal</div>
      <span id="l7">Orders</span><button id="b7" aria-haspopup="listbox" aria-labelledby="l7 b7" aria-label="Sort">⇅</button>
      <span id="l8">Orders</span><button id="b8" aria-haspopup="listbox" aria-labelledby="l8 b8" aria-label="Filter">⏷</button>
      <span id="l9">Severity</span><button id="b9" aria-haspopup="listbox" aria-labelledby="v9 l9"><span id="v9">Minor</span><span aria-hidden="true"> ▾</span></button>
    </body></html>`,
  });
  try {
    await page.goto(`${server.url}/queues.html`);
    const obs = await observePage(page);
    expect(controls(obs).map((c) => `${c.name} = ${c.value ?? '-'}`)).toEqual([
      'Queue = Claims',
      'Queue owner = Claims',
      'Queue Claims = Fraud',
      // Not a list button: a plain button labelled by itself keeps Chromium's name.
      'Queue Claims = -',
      // Its other label says nothing: named as Chromium names it, by what it shows.
      'Appeals = Appeals',
      // A combobox that labels itself (APG select-only combobox markup) is named by its label the same way.
      'Priority = Normal',
      // Its own part is its aria-label, not what it holds: named as Chromium names it, so the two stay apart.
      'Orders Sort = ⇅',
      'Orders Filter = ⏷',
      // Labelled by a part of itself that shows its value (React Aria's Select: aria-labelledby="value label"): named
      // by the label alone; its value is what it shows without the aria-hidden arrow.
      'Severity = Minor',
    ]);
    const find = (name: string) => findInFrame(page, [], { rung: 'role_name', role: 'button', name, scope: [] });
    expect(await find('Queue')).toEqual([one(obs, 'button', 'Queue').ref]);
    expect(await find('Queue owner')).toHaveLength(1);
    expect(await find('Queue Claims')).toHaveLength(2);
    expect(await findInFrame(page, [], { rung: 'role_name', role: 'combobox', name: 'Priority', scope: [] })).toEqual([one(obs, 'combobox', 'Priority').ref]);
  } finally {
    await server.close();
  }
});

test('a card authored on the Headless UI Listbox while it held Claims replays from Fraud, and not on a listbox labelled "Queue owner"', async ({ browser }) => {
  test.setTimeout(120_000);
  const asked: string[] = [];
  const owner: Owner = {
    ask(q) {
      asked.push(q.control);
      return Promise.resolve({ answer: q.control === "button 'Save'" ? 'commit' : 'navigate', name: 'Dana Reviewer' });
    },
  };
  const { evening, lines } = await eveningInBrowser(join(dir, 'listbox.jsonl'), {
    model: new ScriptedModel({
      turns: [
        [
          { tool: 'assert_screen', label: 'settings', title: 'Case settings' },
          { tool: 'act', match: "button 'Queue' (holds 'Claims')", verb: 'choose', value: '{{input.queue}}' },
        ],
        [{ tool: 'act', match: "button 'Save'", verb: 'invoke' }],
        [
          { tool: 'assert_screen', label: 'saved', title: 'Settings saved' },
          { tool: 'finish', label: 'saved' },
        ],
      ],
    }),
    owner,
    goal: 'Move the case to another queue and save',
    entry: `${app.url}/widgets`,
    inputs: [{ name: 'queue', value: 'Appeals', secret: false }],
  });
  expect(evening, JSON.stringify(evening)).toMatchObject({ ok: true });
  expect(asked).toEqual(["button 'Save'"]);
  expect(app.widgets).toMatchObject([{ list_queue: 'Appeals' }]);
  const card = compiled(lines, /* the page shows one record, its own: no input chooses it */ { id: 'listbox_queue', noRecord: ['save'] });
  const pick = card.steps.find((s) => s.op.verb === 'choose');
  // The target is the label's name, not the value it held while authored.
  expect(card.targets[pick?.target ?? '']).toMatchObject({ role: 'button', name: { eq: 'Queue' } });

  app.widgets.length = 0;
  const replay = (query: string, queue: string, n: string) =>
    runCapability({
      card: { ...card, entry: `${card.entry}?${query}` },
      allowUnapproved: true,
      inputs: { queue },
      env: { BASE_URL: app.url },
      surface: () => BrowserSurface.launch({ browser }),
      evidenceDir: join(dir, `listbox-${n}`),
    });
  const fromFraud = await replay('list_queue=Fraud', 'Claims', 'fraud');
  expect(fromFraud, JSON.stringify(fromFraud)).toMatchObject({ word: 'SUCCESS', llm_calls: 0 });
  expect(app.widgets).toMatchObject([{ list_queue: 'Claims' }]);
  // A listbox whose label only begins with the card's is not the card's target: the name rung finds nothing. The card
  // has no css rung to fall back on (Headless UI's id is React's useId, drawn again at each load, so it is never a
  // rung: shared/dom/selectors.ts); had one found the other listbox, its fingerprint would fail by name. Nothing is
  // chosen and Save is never pressed.
  expect(JSON.stringify(card.targets[pick?.target ?? ''])).not.toContain('"css"');
  const other = await replay(`list_label=${encodeURIComponent('Queue owner')}&list_queue=Fraud`, 'Claims', 'other');
  expect(other, JSON.stringify(other)).toMatchObject({ word: 'FAILED', code: 'TARGET_NOT_FOUND', at_step: pick?.id });
  expect(other.message).toContain('role_name=0');
  expect(app.widgets).toHaveLength(1);
});
