// Every write is seen: on PLUMBLINE's preferences desk a link that posts, a toggle and a select that submit when
// changed, and a field that submits on Enter each change the store without a button — and the browser surface
// reports each as a write, holds it while a gate is asked, and stops it when the gate says no.
import { mkdtemp, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { Bank } from '../../demo/plumbline/server.ts';
import { BrowserSurface } from '../../runner/browser/surface.ts';
import { runCapability } from '../../runner/run.ts';
import { runEvening } from '../../shared/author/evening.ts';
import type { Owner, OwnerQuestion } from '../../shared/author/ports.ts';
import { ScriptedModel, type ScriptCall } from '../../shared/author/scripted.ts';
import { compile } from '../../shared/compile/index.ts';
import { loadCapability, type CapabilityInput } from '../../shared/schema/index.ts';
import type { Control } from '../../shared/schema/observation.ts';
import type { TraceLine } from '../../shared/schema/trace.ts';
import type { WriteScope } from '../../shared/writes.ts';
import { bankScene } from './support/bank.ts';

let bank: Bank;
let scratch: string;
bankScene({ scratch: 'handrail-writes-' }, (s) => ({ app: bank, scratch } = s));

const MEMBER = '400118';

async function controlOf(surface: BrowserSurface, role: string, name: string): Promise<Control> {
  const obs = await surface.observe();
  const all = obs.parts.flatMap((p) => p.controls);
  const c = all.find((x) => x.role === role && (x.name === name || x.hint === name));
  if (!c) throw new Error(`no ${role} '${name}' among ${all.map((x) => `${x.role} '${x.name ?? x.hint ?? ''}'`).join(', ')}`);
  return c;
}

const ACTIONS = [
  { what: 'a link that posts', role: 'link', name: 'Send Statement Now', op: { verb: 'invoke' as const }, path: '/prefs/flag', kind: 'flag' },
  { what: 'an auto-submitting toggle', role: 'checkbox', name: 'Paperless', op: { verb: 'toggle' as const }, path: '/prefs/paperless', kind: 'paperless' },
  { what: 'an auto-submitting select', role: 'combobox', name: 'Statement Cycle', op: { verb: 'select' as const, value: 'ANNUAL' }, path: '/prefs/cycle', kind: 'cycle' },
  { what: 'an Enter-submitting form', role: 'textbox', name: 'Nickname', op: { verb: 'set_value' as const, value: 'Sunny' }, path: '/prefs/nickname', kind: 'nickname' },
] as const;

async function writesOf(member: string): Promise<Record<string, number>> {
  return ((await (await fetch(`${bank.url}/_judge/prefs/${member}`)).json()) as { writes: Record<string, number> }).writes;
}

const settle = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

for (const a of ACTIONS) {
  test(`${a.what} is reported as a write, and a gate that says no keeps it from the store`, async ({ browser }) => {
    const scope: WriteScope = { origins: [bank.url], ignore: [] };
    const surface = await BrowserSurface.launch({ browser });
    try {
      await surface.open(`${bank.url}/prefs?m=${MEMBER}`);
      // Watched without a gate (replay): the write goes out and is reported.
      const before = await writesOf(MEMBER);
      await surface.watchWrites(scope);
      await surface.act((await controlOf(surface, a.role, a.name)).ref, a.op);
      await settle(500);
      const seen = await surface.takeWrites();
      expect(seen).toEqual([{ method: 'POST', url: `${bank.url}${a.path}`, via: 'form', fate: 'unasked' }]);
      expect((await writesOf(MEMBER))[a.kind]).toBe((before[a.kind] ?? 0) + 1);
      // Held behind a gate that says no: asked once, stopped, the store unchanged.
      await surface.open(`${bank.url}/prefs?m=${MEMBER}`);
      const asked: string[] = [];
      await surface.watchWrites(scope, (w) => {
        asked.push(`${w.method} ${w.url}`);
        return Promise.resolve(false);
      });
      const op = a.op.verb === 'select' ? { verb: 'select' as const, value: 'QUARTERLY' } : a.op.verb === 'set_value' ? { ...a.op, value: 'Rainy' } : a.op;
      await surface.act((await controlOf(surface, a.role, a.name)).ref, op);
      await settle(500);
      const held = await surface.takeWrites();
      expect(asked).toEqual([`POST ${bank.url}${a.path}`]);
      expect(held.map((w) => w.fate)).toEqual(['blocked']);
      expect((await writesOf(MEMBER))[a.kind]).toBe((before[a.kind] ?? 0) + 1);
    } finally {
      await surface.close();
    }
  });
}

test('reads and navigation are not writes, nor are requests to other origins or ignored endpoints', async ({ browser }) => {
  const surface = await BrowserSurface.launch({ browser });
  try {
    await surface.open(`${bank.url}/prefs?m=${MEMBER}`);
    await surface.watchWrites({ origins: [bank.url], ignore: ['POST /prefs/flag'] });
    await surface.act((await controlOf(surface, 'link', 'Send Statement Now')).ref, { verb: 'invoke' });
    await settle(500);
    await surface.page.evaluate(() => fetch('/prefs?m=400118').then(() => undefined));
    await surface.page.evaluate(() => fetch('http://localhost:9/elsewhere', { method: 'POST' }).catch(() => undefined));
    expect(await surface.takeWrites()).toEqual([]);
  } finally {
    await surface.close();
  }
});

/** A book in memory, as the guard writes it. */
function memoryBook(): { lines: TraceLine[]; append(l: TraceLine): Promise<void> } {
  return {
    lines: [],
    append(l) {
      this.lines.push(l);
      return Promise.resolve();
    },
  };
}

const SCRIPT: ScriptCall[][] = [
  [{ tool: 'assert_screen', label: 'prefs' }, { tool: 'act', match: "link 'Send Statement Now'", verb: 'invoke' }],
  [{ tool: 'act', match: "checkbox 'Paperless'", verb: 'toggle' }],
  [{ tool: 'act', match: "combobox 'Statement Cycle'", verb: 'select', value: 'ANNUAL' }],
  [{ tool: 'act', match: "textbox 'Nickname'", verb: 'set_value', value: 'SUNNY' }],
  [{ tool: 'finish', label: 'prefs' }],
];

test('authoring over the four controls asks the owner about every write before it leaves', async ({ browser }) => {
  const member = '400337';
  const asked: OwnerQuestion[] = [];
  const owner: Owner = {
    ask(q) {
      asked.push(q);
      return Promise.resolve({ answer: 'commit', name: 'Dana Owner' });
    },
  };
  const book = memoryBook();
  const surface = await BrowserSurface.launch({ browser });
  try {
    const r = await runEvening({
      surface,
      model: new ScriptedModel({ turns: SCRIPT }),
      owner,
      book,
      goal: 'Change statement preferences',
      entry: `${bank.url}/prefs?m=${member}`,
      inputs: [],
      settle: { quietMs: 300 },
    });
    expect(r).toMatchObject({ ok: true, finished: 'prefs' });
  } finally {
    await surface.close();
  }
  // Asked four times — a link, a toggle, a select and a text field, none of them a button — each naming its write.
  expect(asked.map((q) => [q.control, q.writes])).toEqual(
    ACTIONS.map((a) => [`${a.role} '${a.name}'`, [`POST ${bank.url}${a.path} (form)`]]),
  );
  const acts = book.lines.filter((l) => l.kind === 'act');
  expect(acts.map((l) => l.effect)).toEqual(ACTIONS.map(() => ({ kind: 'commit', by: 'owner', owner: 'Dana Owner' })));
  expect(acts.map((l) => l.writes?.map((w) => w.fate))).toEqual(ACTIONS.map(() => ['allowed']));
  expect(book.lines[0]).toMatchObject({ kind: 'start', writes: { origins: [`${bank.url}/prefs?m=${member}`], ignore: [] } });
  // And each write reached the store once, after the owner said yes.
  expect(await writesOf(member)).toEqual({ flag: 1, paperless: 1, cycle: 1, nickname: 1 });
});

test('an owner who does not answer in time is a no: the write is stopped, the book says so, the compiler refuses', async ({ browser }) => {
  const member = '400445';
  const owner: Owner = { ask: () => new Promise(() => undefined) };
  const book = memoryBook();
  const surface = await BrowserSurface.launch({ browser });
  try {
    await runEvening({
      surface,
      model: new ScriptedModel({ turns: [SCRIPT[0] as ScriptCall[], [{ tool: 'finish', label: 'prefs' }]] }),
      owner,
      book,
      goal: 'Send a statement',
      entry: `${bank.url}/prefs?m=${member}`,
      inputs: [],
      settle: { quietMs: 300 },
      ownerTimeoutMs: 300,
    });
  } finally {
    await surface.close();
  }
  const act = book.lines.find((l) => l.kind === "act");
  expect(act).toMatchObject({
    writes: [{ method: 'POST', url: `${bank.url}/prefs/flag`, fate: 'blocked' }],
    asked: [{ write: `POST ${bank.url}/prefs/flag (form)`, answer: 'no_answer' }],
  });
  expect((await writesOf(member)).flag).toBe(0);
  const compiled = compile(book.lines);
  expect(compiled.ok).toBe(false);
  if (!compiled.ok) expect(compiled.holes).toContainEqual(expect.objectContaining({ line: act?.seq, code: 'WRITE_REFUSED' }));
});

/** A one-step card over the preferences desk: toggle Paperless, declared `stage` — wrongly: it writes. */
async function toggleCard(network: CapabilityInput['network']): Promise<CapabilityInput> {
  const surface = await BrowserSurface.launch();
  let obs;
  try {
    await surface.open(`${bank.url}/prefs?m=400513`);
    obs = await surface.observe();
  } finally {
    await surface.close();
  }
  return {
    schema: 'handrail.capability/v1',
    id: 'plumbline_toggle_paperless',
    intent: 'Toggle paperless statements',
    surface: 'browser',
    entry: '{{env.BASE_URL}}/prefs?m={{input.member_number}}',
    inputs: { member_number: { type: 'string', pattern: '\\d{6}' } },
    screens: { prefs: { title: 'Preferences', signature: obs.signature, paths: obs.paths } },
    targets: {
      paperless: { role: 'checkbox', hint: 'Paperless', supports: ['toggle'], ladder: [{ rung: 'label', cost: 200 }], fingerprint: { over: ['role'] } },
    },
    steps: [{ id: 'toggle_paperless', screen: 'prefs', op: { verb: 'toggle' }, target: 'paperless', effect: { kind: 'stage' }, settle: { kind: 'screen_is', screen: 'prefs' } }],
    outcomes: { success: { screens: ['prefs'] } },
    ...(network ? { network } : {}),
    lifecycle: { state: 'draft' },
  };
}

test('replaying a card whose non-commit step writes holds the write: FAILED UNDECLARED_WRITE, the store unchanged, the key not in doubt', async ({ browser }) => {
  const loaded = loadCapability(await toggleCard({ ignore: [] }));
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  const before = (await writesOf('400513')).paperless;
  const r = await runCapability({
    card: loaded.value,
    inputs: { member_number: '400513' },
    env: { BASE_URL: bank.url },
    surface: () => BrowserSurface.launch({ browser }),
    evidenceDir: await mkdtemp(join(scratch, 'ev-')),
    allowUnapproved: true,
  });
  expect(r).toMatchObject({ word: 'FAILED', code: 'UNDECLARED_WRITE', at_step: 'toggle_paperless', retryable: false });
  expect(r.message).toContain('POST /prefs/paperless (form)');
  expect(r.message).toContain('nothing was sent');
  const evidence = await readFile(join(r.evidence ?? '', 'evidence.jsonl'), 'utf8');
  expect(evidence).toContain('"undeclared_write"');
  expect(evidence).toContain(`${bank.url}/prefs/paperless`);
  // Held before it left: the store never saw it.
  expect((await writesOf('400513')).paperless).toBe(before);

  // With a journal, the held write is a `held` record and the key stays free: the same call again meets the same
  // held write (the card must change), and still nothing reaches the store.
  const journalPath = join(scratch, 'paperless.journal');
  const again = async () =>
    await runCapability({
      card: loaded.value,
      inputs: { member_number: '400513' },
      env: { BASE_URL: bank.url },
      surface: () => BrowserSurface.launch({ browser }),
      evidenceDir: await mkdtemp(join(scratch, 'ev-')),
      journalPath,
      allowUnapproved: true,
    });
  expect(await again()).toMatchObject({ word: 'FAILED', code: 'UNDECLARED_WRITE' });
  expect(await again()).toMatchObject({ word: 'FAILED', code: 'UNDECLARED_WRITE' });
  const journal = await readFile(journalPath, 'utf8');
  expect(journal.match(/"phase":"held"/g)).toHaveLength(2);
  expect(journal).not.toMatch(/"phase":"dispatched"[^\n]*"effect":"commit"/);
  expect((await writesOf('400513')).paperless).toBe(before);

  // The same endpoint declared ignorable: the run succeeds.
  const ignoring = loadCapability(await toggleCard({ ignore: ['POST /prefs/paperless'] }));
  if (!ignoring.ok) throw new Error(JSON.stringify(ignoring.issues));
  const ok = await runCapability({
    card: ignoring.value,
    inputs: { member_number: '400513' },
    env: { BASE_URL: bank.url },
    surface: () => BrowserSurface.launch({ browser }),
    evidenceDir: await mkdtemp(join(scratch, 'ev-')),
    allowUnapproved: true,
  });
  expect(ok).toMatchObject({ word: 'SUCCESS' });
});

test('a fetch PUT and a beacon are writes too, each held for the owner and stopped on a no', async ({ browser }) => {
  const { serveFixtures } = await import('../fixtures/server.ts');
  const page = `<!doctype html><title>effects</title>
<button onclick="fetch('/api/item', { method: 'PUT', body: 'x' })">Save Item</button>
<button onclick="navigator.sendBeacon('/beacon', 'seen')">Send Beacon</button>`;
  const server = await serveFixtures({ '/effects': page });
  const surface = await BrowserSurface.launch({ browser });
  try {
    await surface.open(`${server.url}/effects`);
    const scope: WriteScope = { origins: [server.url], ignore: [] };
    const asked: string[] = [];
    const gate = (w: { method: string; url: string }): Promise<boolean> => {
      asked.push(`${w.method} ${new URL(w.url).pathname}`);
      return Promise.resolve(false);
    };
    await surface.watchWrites(scope, gate);
    await surface.act((await controlOf(surface, 'button', 'Save Item')).ref, { verb: 'invoke' });
    await settle(500);
    expect(await surface.takeWrites()).toEqual([{ method: 'PUT', url: `${server.url}/api/item`, via: 'request', fate: 'blocked' }]);
    await surface.watchWrites(scope, gate);
    await surface.act((await controlOf(surface, 'button', 'Send Beacon')).ref, { verb: 'invoke' });
    await settle(500);
    expect(await surface.takeWrites()).toEqual([{ method: 'POST', url: `${server.url}/beacon`, via: 'beacon', fate: 'blocked' }]);
    expect(asked).toEqual(['PUT /api/item', 'POST /beacon']);
  } finally {
    await surface.close();
    await server.close();
  }
});

test('a WebSocket message cannot be held: authoring records an unasked commit and the compiler refuses that step', async ({ browser }) => {
  const { createHash } = await import('node:crypto');
  const { createServer } = await import('node:http');
  // The smallest WebSocket server (RFC 6455 §4.2.2 handshake); it only has to accept, the page sends.
  const page = `<!doctype html><title>live</title><h1>Live Desk</h1>
<button onclick="window.sock.send('HOLD 400118-S0001')">Go Live</button>
<script>window.sock = new WebSocket('ws://' + location.host + '/live');</script>`;
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(page));
  const sockets: { destroy(): void }[] = [];
  server.on('upgrade', (req, socket) => {
    sockets.push(socket);
    const accept = createHash('sha1').update(`${String(req.headers['sec-websocket-key'])}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
    socket.on('data', () => undefined);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const asked: string[] = [];
  const book = memoryBook();
  const surface = await BrowserSurface.launch({ browser });
  try {
    await runEvening({
      surface,
      model: new ScriptedModel({ turns: [[{ tool: 'assert_screen', label: 'live' }, { tool: 'act', match: "invoke button 'Go Live'" }], [{ tool: 'finish', label: 'live' }]] }),
      owner: { ask: (q) => (asked.push(q.control), Promise.resolve({ answer: 'commit', name: 'Dana Owner' })) },
      book,
      goal: 'Go live',
      entry: `${url}/`,
      inputs: [],
      settle: { quietMs: 300 },
    });
  } finally {
    await surface.close();
    for (const s of sockets) s.destroy();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
  const act = book.lines.find((l) => l.kind === 'act');
  expect(act).toMatchObject({ effect: { kind: 'commit', by: 'effects', unasked: true }, writes: [{ method: 'SEND', url: `ws://127.0.0.1:${new URL(url).port}/live`, via: 'websocket', fate: 'unasked' }] });
  expect(asked).toEqual([]);
  const compiled = compile(book.lines);
  expect(compiled.ok).toBe(false);
  if (!compiled.ok) expect(compiled.holes).toContainEqual(expect.objectContaining({ line: act?.seq, code: 'UNASKED_COMMIT' }));
});

/** A model that thinks for two seconds before each turn after the first: a page's timers fire meanwhile. */
function slowly(model: ScriptedModel): ScriptedModel {
  const next = model.next.bind(model);
  model.next = async (turn) => {
    if (turn.turn > 1) await settle(2_000);
    return next(turn);
  };
  return model;
}

test('a write the page sends after the action has settled (a delayed autosave) is stopped, and the book says so', async ({ browser }) => {
  const { serveFixtures } = await import('../fixtures/server.ts');
  const page = `<!doctype html><title>autosave</title><h1>Draft</h1>
<button onclick="setTimeout(() => fetch('/api/autosave', { method: 'POST', body: 'draft' }), 1200)">Edit Later</button>`;
  const server = await serveFixtures({ '/autosave': page });
  const book = memoryBook();
  const surface = await BrowserSurface.launch({ browser });
  try {
    const r = await runEvening({
      surface,
      model: slowly(new ScriptedModel({
        turns: [[{ tool: 'assert_screen', label: 'draft' }, { tool: 'act', match: "invoke button 'Edit Later'" }], [{ tool: 'finish', label: 'draft' }]],
      })),
      owner: { ask: () => Promise.resolve({ answer: 'commit', name: 'Dana Owner' }) },
      book,
      goal: 'Edit',
      entry: `${server.url}/autosave`,
      inputs: [],
      settle: { quietMs: 200 },
      progress: () => undefined,
    });
    expect(r).toMatchObject({ ok: true });
  } finally {
    await surface.close();
    await server.close();
  }
  const act = book.lines.find((l) => l.kind === 'act');
  expect(act).toMatchObject({ effect: { kind: 'navigate', by: 'effects' }, writes: [] });
  const stray = book.lines.find((l) => l.kind === 'refusal');
  expect(stray).toMatchObject({ tool: 'page', code: 'STRAY_WRITE' });
  expect(stray?.kind === 'refusal' && stray.message).toContain(`POST ${server.url}/api/autosave`);
});
