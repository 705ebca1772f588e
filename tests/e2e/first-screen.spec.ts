// A first screen at rest (docs/design/replay.md, "A first screen at rest"): `handrail observe` on a real React app
// printed its loading screen ("Initializing the connection to the local database…"), and a login replay failed once
// under load with SCREEN_MISMATCH, the app shell it boots into (drawn as the signed-in home) named before the
// signed-out home replaced it. A first screen is taken only once no progress bar, busy region or loading message
// shows and the DOM has held still: for `observe`, authoring's first look, replay's first screen and the extension's
// first look alike. A page that never stops loading ends with a typed word or a note, never a silent name.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { Guard } from '../../shared/author/guard.ts';
import { ScriptedModel, type Script } from '../../shared/author/scripted.ts';
import { renderRow } from '../../shared/menu.ts';
import { Masker } from '../../shared/secrets.ts';
import { BrowserSurface } from '../../runner/browser/surface.ts';
import { runCapability } from '../../runner/run.ts';
import { startBootingSpa, type BootingSpa } from '../fixtures/booting-spa.ts';
import { MemoryBook } from '../fixtures/author/fake-surface.ts';
import { handrail } from './support/cli.ts';
import { compiled, eveningInBrowser } from './support/evening.ts';

let spa: BootingSpa;
let dir: string;
test.beforeAll(async () => {
  spa = await startBootingSpa();
  dir = await mkdtemp(join(tmpdir(), 'handrail-first-screen-'));
});
test.afterAll(async () => {
  await spa.close();
  await rm(dir, { recursive: true, force: true });
});
test.beforeEach(() => {
  spa.bootMs = 1_200;
});

const VARIANTS = ['progressbar', 'busy', 'spinner'] as const;

for (const variant of VARIANTS) {
  test(`observe waits out a ${variant} loading screen and prints the app`, async () => {
    const r = await handrail(['observe', `${spa.url}/${variant}`], { ...process.env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("invoke button 'Add account'");
  });
}

test("authoring's first look is the app, not its loading screen, whichever way it says it is loading", async () => {
  for (const variant of VARIANTS) {
    const surface = await BrowserSurface.launch();
    try {
      await surface.open(`${spa.url}/${variant}`);
      const guard = new Guard({
        surface,
        book: new MemoryBook(),
        masker: new Masker([]),
        goal: 'look',
        inputs: [],
        owner: { ask: () => Promise.resolve({ answer: 'navigate', name: 'Olive Owner' }) },
      });
      const shown = await guard.show();
      expect(shown.menu.map(renderRow).join('\n'), variant).toContain("button 'Add account'");
    } finally {
      await surface.close();
    }
  }
});

test('a page that never stops loading: observe prints it with a note that it was not at rest', async () => {
  spa.bootMs = Infinity;
  const r = await handrail(['observe', `${spa.url}/progressbar`, '--settle-timeout', '1500'], { ...process.env });
  expect(r.code).toBe(0);
  expect(r.stderr).toMatch(/handrail observe: note: .*not at rest.*progress bar, a busy region or a loading message/);
  expect(r.stdout).not.toContain("button 'Add account'");
});

test('a loading message is busy; words that only start like one are not', async () => {
  const surface = await BrowserSurface.launch();
  try {
    await surface.open(`${spa.url}/progressbar`);
    const busyWith = async (html: string): Promise<boolean> => {
      await surface.page.evaluate((h) => {
        document.body.innerHTML = h;
      }, html);
      return (await surface.observe()).busy === true;
    };
    expect(await busyWith('<main><p>Loading…</p></main>')).toBe(true);
    expect(await busyWith('<main><p>Initializing the connection to the local database...</p></main>')).toBe(true);
    expect(await busyWith('<main><div><span>◐</span> <span>Loading</span></div></main>')).toBe(true);
    // Said by a live region.
    expect(await busyWith('<main><p role="status">Checking your session…</p></main>')).toBe(true);
    // An account, a heading, a hidden message, a sentence that mentions loading: not busy.
    expect(await busyWith('<main><p>Checking 1,204.00</p><h2>Loading dock hours</h2><p hidden>Loading…</p><p>Your data finished loading at noon.</p></main>')).toBe(false);
  } finally {
    await surface.close();
  }
});

/** Signs in on the ledger: the signed-out home, the form, the signed-in home. */
const SIGN_IN: Script = {
  turns: [
    [
      { tool: 'assert_screen', label: 'home_out', title: 'Welcome' },
      { tool: 'act', match: "button 'Sign in'", verb: 'invoke' },
    ],
    [
      { tool: 'assert_screen', label: 'sign_in', title: 'Sign in' },
      { tool: 'act', match: "textbox 'User name'", verb: 'set_value', value: '{{input.user}}' },
      { tool: 'act', match: "textbox 'Password'", verb: 'set_value', value: '{{input.password}}' },
      { tool: 'act', match: "button 'Sign in'", verb: 'invoke' },
    ],
    [
      { tool: 'assert_screen', label: 'home_in', title: 'Accounts' },
      { tool: 'finish', label: 'home_in' },
    ],
  ],
};

test('a login replay names the first screen only once the app has booted: its shell is not the signed-in home', async () => {
  test.setTimeout(120_000);
  // Authored on a quiet machine: the shell shows for a moment only.
  spa.bootMs = 50;
  const { evening, lines } = await eveningInBrowser(join(dir, 'ledger.jsonl'), {
    model: new ScriptedModel(SIGN_IN),
    owner: { ask: () => Promise.resolve({ answer: 'navigate', name: 'Dana Reviewer' }) },
    goal: 'Sign in to the ledger',
    entry: `${spa.url}/ledger`,
    inputs: [
      { name: 'user', value: 'dana', secret: false },
      { name: 'password', value: 'pw-ledger-1', secret: true },
    ],
  });
  expect(evening, JSON.stringify(evening)).toMatchObject({ ok: true });
  const card = compiled(lines, { id: 'ledger_sign_in' });
  expect(card.steps[0]?.screen).toBe('home_out');
  const replay = (n: string, o: { settleTimeoutMs?: number } = {}) =>
    runCapability({ card, inputs: { user: 'sam', password: 'pw-ledger-2' }, env: { BASE_URL: spa.url }, surface: () => BrowserSurface.launch(), allowUnapproved: true, evidenceDir: join(dir, n), ...o });
  // Under load the app takes longer to boot than the quiet window: its shell, as still as any screen, was named
  // home_in (it shares all but "Sign out" with it) and the run ended SCREEN_MISMATCH on its first step.
  spa.bootMs = 2_500;
  const loaded = await replay('loaded');
  expect(loaded, JSON.stringify(loaded)).toMatchObject({ word: 'SUCCESS', llm_calls: 0 });
  // It never finishes booting: a typed word that says the first screen never came to rest, not a name.
  spa.bootMs = Infinity;
  const never = await replay('never', { settleTimeoutMs: 2_000 });
  expect(never, JSON.stringify(never)).toMatchObject({ word: 'FAILED', code: 'TIMEOUT' });
  expect(never.message).toMatch(/first screen .*not at rest/);
});
