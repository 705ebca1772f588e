// The mac helper protocol holds both ways: every line the client writes and every line the fake helper answers is
// the protocol's, and each refusal AX would give (stale ref, unlisted action, unsettable value, disabled press,
// silence, a dead or babbling helper) reaches the caller as a typed error, never a hang or a stack trace.
import { spawn } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { helperCommand, MacHelperClient, type MacHelperError } from '../../mac-agent/client.ts';
import { FakeTextEdit } from '../../mac-agent/fake/textedit.ts';
import { HelperEvent, PROTOCOL_VERSION, Request, Response, RESULTS, type AxNode, type Method } from '../../mac-agent/protocol.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'handrail-mac-protocol-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function find(n: AxNode, pred: (n: AxNode) => boolean): AxNode | undefined {
  if (pred(n)) return n;
  for (const c of n.children) {
    const hit = find(c, pred);
    if (hit) return hit;
  }
  return undefined;
}
const byTitle = (root: AxNode, role: string, title: string): AxNode => {
  const n = find(root, (x) => x.role === role && x.title === title);
  if (!n) throw new Error(`no ${role} ${title}`);
  return n;
};

async function failure(p: Promise<unknown>): Promise<MacHelperError> {
  try {
    await p;
  } catch (e) {
    return e as MacHelperError;
  }
  throw new Error('expected a failure');
}

describe('every message is the protocol\'s, both ways', () => {
  it('one request of each method, written raw to the fake: each request parses, each answer is a response or event whose result fits its method', async () => {
    const { command, args } = helperCommand('fake');
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
    const lines: unknown[] = [];
    const rl = createInterface({ input: child.stdout });
    rl.on('line', (l) => lines.push(JSON.parse(l)));
    const waitFor = async (id: number): Promise<Response> => {
      for (let i = 0; i < 400; i++) {
        const hit = lines.find((l) => (l as { id?: number }).id === id);
        if (hit) return Response.parse(hit);
        await new Promise((r) => setTimeout(r, 10));
      }
      throw new Error(`no answer to ${id}`);
    };
    let id = 0;
    const ask = async (method: Method, params: unknown): Promise<Response> => {
      const req = Request.parse({ v: PROTOCOL_VERSION, id: ++id, method, params });
      child.stdin.write(`${JSON.stringify(req)}\n`);
      const res = await waitFor(id);
      if (res.ok) RESULTS[method].parse(res.result);
      return res;
    };
    try {
      expect(await ask('hello', { version: PROTOCOL_VERSION, client: 'test' })).toMatchObject({ ok: true });
      expect(await ask('permissions', {})).toMatchObject({ ok: true, result: { accessibility: true, inputMonitoring: true } });
      const open = await ask('open', { bundleId: 'com.apple.TextEdit' });
      const pid = (open as { result: { pid: number } }).result.pid;
      expect(await ask('observe', { pid, notifications: ['AXSheetCreated', 'AXValueChanged', 'AXUIElementDestroyed', 'AXFocusedUIElementChanged'] })).toMatchObject({ ok: true });
      expect(await ask('tap.start', {})).toMatchObject({ ok: true });
      const snap = (await ask('snapshot', { pid, scope: 'app', maxDepth: 12 })) as { result: { root: AxNode } };
      const text = find(snap.result.root, (n) => n.role === 'AXTextArea') as AxNode;
      expect(await ask('set', { ref: text.ref, attr: 'AXValue', value: 'hello' })).toMatchObject({ ok: true });
      expect(await ask('perform', { ref: byTitle(snap.result.root, 'AXMenuItem', 'Save…').ref, action: 'AXPress' })).toMatchObject({ ok: true });
      expect(await ask('snapshot', { pid, scope: 'focused_window', maxDepth: 3 })).toMatchObject({ ok: true });
      expect(await ask('snapshot', { pid, scope: { ref: text.ref }, maxDepth: 1 })).toMatchObject({ ok: true, result: { root: { value: 'hello' } } });
      expect(await ask('fake.human', { kind: 'mouse' })).toMatchObject({ ok: true });
      expect(await ask('fake.files', {})).toMatchObject({ ok: true, result: { files: [] } });
      expect(await ask('tap.stop', {})).toMatchObject({ ok: true });
      // A method the protocol does not have, and a malformed one, are refused by name.
      child.stdin.write(`${JSON.stringify({ v: PROTOCOL_VERSION, id: 90, method: 'click', params: { x: 1, y: 2 } })}\n`);
      expect(await waitFor(90)).toMatchObject({ ok: false, error: { code: 'unknown_method' } });
      child.stdin.write(`${JSON.stringify({ v: PROTOCOL_VERSION, id: 91, method: 'perform', params: { ref: 'nope' } })}\n`);
      expect(await waitFor(91)).toMatchObject({ ok: false, error: { code: 'bad_request' } });
    } finally {
      child.stdin.end();
      await new Promise((r) => child.once('exit', r));
    }
    // Every line the fake wrote is a response or an event; the events are the notifications and the human click.
    const events = lines.filter((l) => (l as { event?: string }).event).map((l) => HelperEvent.parse(l));
    for (const l of lines) expect(() => ((l as { event?: string }).event ? HelperEvent.parse(l) : Response.parse(l))).not.toThrow();
    expect(events.map((e) => (e.event === 'ax' ? e.notification : `input:${e.kind}`))).toEqual([
      'AXValueChanged',
      'AXSheetCreated',
      'AXFocusedUIElementChanged',
      'input:mouse',
    ]);
  });
});

describe('AX refusals reach the caller as typed errors', () => {
  let client: MacHelperClient;
  let root: AxNode;
  let pid: number;
  beforeAll(async () => {
    client = await MacHelperClient.start({ helper: 'fake' });
    pid = (await client.request('open', { bundleId: 'com.apple.TextEdit' })).pid;
    root = (await client.request('snapshot', { pid, scope: 'app', maxDepth: 12 })).root;
  });
  afterAll(async () => {
    await client.close();
  });

  it('an action the element does not list, and a value it does not let be set', async () => {
    const text = find(root, (n) => n.role === 'AXTextArea') as AxNode;
    expect(await failure(client.request('perform', { ref: text.ref, action: 'AXPress' }))).toMatchObject({ name: 'SurfaceError', code: 'ACTION_FAILED', reason: 'action_not_listed' });
    const save = byTitle(root, 'AXMenuItem', 'Save…');
    expect(await failure(client.request('set', { ref: save.ref, attr: 'AXValue', value: 'x' }))).toMatchObject({ code: 'ACTION_FAILED', reason: 'not_settable' });
  });

  it('a disabled Save is refused before the press (AX itself would answer success and do nothing), and a ref of a closed sheet is stale', async () => {
    await client.request('perform', { ref: byTitle(root, 'AXMenuItem', 'Save…').ref, action: 'AXPress' });
    const sheetTree = (await client.request('snapshot', { pid, scope: 'focused_window', maxDepth: 6 })).root;
    const name = find(sheetTree, (n) => n.role === 'AXTextField' && !!n.titleElement) as AxNode;
    const save = byTitle(sheetTree, 'AXButton', 'Save');
    expect(save.enabled).toBe(true);
    await client.request('set', { ref: name.ref, attr: 'AXValue', value: '' });
    const after = (await client.request('snapshot', { pid, scope: { ref: save.ref }, maxDepth: 1 })).root;
    expect(after.enabled).toBe(false);
    expect(await failure(client.request('perform', { ref: save.ref, action: 'AXPress' }))).toMatchObject({ code: 'ACTION_FAILED', reason: 'disabled' });
    expect((await client.request('fake.files', {})).files).toEqual([]);
    // Cancel closes the sheet: its elements are destroyed, and their refs are answered stale.
    await client.request('perform', { ref: byTitle(sheetTree, 'AXButton', 'Cancel').ref, action: 'AXPress' });
    expect(await failure(client.request('perform', { ref: save.ref, action: 'AXPress' }))).toMatchObject({ code: 'STALE', reason: 'stale_ref' });
    expect(await failure(client.request('set', { ref: name.ref, attr: 'AXValue', value: 'x' }))).toMatchObject({ code: 'STALE', reason: 'stale_ref' });
  });

  it('the recording answers a press on a disabled button as AX does: success, and nothing happens', () => {
    const app = new FakeTextEdit();
    const menu = find(app.snapshot('app', 12), (n) => n.title === 'Save…') as AxNode;
    app.perform(menu.ref, 'AXPress');
    const sheet = app.snapshot('focused_window', 6);
    app.set((find(sheet, (n) => n.role === 'AXTextField' && !!n.titleElement) as AxNode).ref, 'AXValue', '');
    expect(app.perform(byTitle(sheet, 'AXButton', 'Save').ref, 'AXPress')).toEqual([]);
    expect(app.ignoredPresses).toBe(1);
    expect(app.sheet).not.toBeNull();
    expect(app.savedFiles()).toEqual([]);
  });
});

describe('a helper that is missing, dies, babbles or is silent', () => {
  it('on Linux the default helper is refused, saying the real one runs only on macOS', () => {
    expect(() => helperCommand(undefined, 'linux')).toThrow(/runs only on macOS/);
    try {
      helperCommand(undefined, 'linux');
    } catch (e) {
      expect(e).toMatchObject({ code: 'SURFACE_UNREACHABLE', reason: 'helper_unavailable' });
    }
    expect(() => helperCommand(join(dir, 'no-such-helper'))).toThrow(/does not exist/);
  });

  it('a helper that exits, writes nonsense, or never answers is a typed error, and nothing is left pending', async () => {
    const script = async (name: string, body: string): Promise<string> => {
      const p = join(dir, name);
      await writeFile(p, `#!/bin/sh\n${body}\n`);
      await chmod(p, 0o755);
      return p;
    };
    expect(await failure(MacHelperClient.start({ helper: await script('dies', 'exit 3') }))).toMatchObject({ code: 'SURFACE_UNREACHABLE', reason: 'helper_crashed' });
    expect(await failure(MacHelperClient.start({ helper: await script('babbles', 'echo "hello there"; exec sleep 5') }))).toMatchObject({ reason: 'protocol_violation' });
    const silent = await script('silent', 'exec sleep 5');
    const t0 = Date.now();
    expect(await failure(MacHelperClient.start({ helper: silent, timeoutMs: 300 }))).toMatchObject({ code: 'TIMEOUT', reason: 'timeout' });
    expect(Date.now() - t0).toBeLessThan(4_000);
  });

  it('without Accessibility and Input Monitoring granted, permissions says so and opening the app is refused by name', async () => {
    const client = await MacHelperClient.start({ helper: 'fake', env: { HANDRAIL_MAC_FAKE_PERMISSIONS: 'none' } });
    try {
      expect(await client.request('permissions', {})).toEqual({ accessibility: false, inputMonitoring: false });
      const e = await failure(client.request('open', { bundleId: 'com.apple.TextEdit' }));
      expect(e).toMatchObject({ code: 'SURFACE_UNREACHABLE', reason: 'permission_missing' });
      expect(e.message).toContain('Accessibility');
      expect(await failure(client.request('tap.start', {}))).toMatchObject({ reason: 'permission_missing', message: expect.stringContaining('Input Monitoring') as string });
    } finally {
      await client.close();
    }
  });

  it('close rejects what is pending and stops the helper; a request after close is refused', async () => {
    const client = await MacHelperClient.start({ helper: 'fake' });
    await client.request('open', { bundleId: 'com.apple.TextEdit' });
    await client.close();
    expect(await failure(client.request('permissions', {}))).toMatchObject({ reason: 'closed' });
    const other = await MacHelperClient.start({ helper: 'fake' });
    expect(await failure(other.request('open', { bundleId: 'com.example.Nothing' }))).toMatchObject({ code: 'SURFACE_UNREACHABLE', reason: 'no_such_app' });
    await other.close();
  });
});
