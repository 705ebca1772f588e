// An agent leaning on `handrail serve` through the SDK's client: cancelling, stopping the server, a live tool list, bound inputs, progress, logs and evidence as resources.
// A cancelled call stops before the commit (after it, it finishes and is answered from the journal next time); SIGTERM
// lets a call in flight finish and answers it on stdio and HTTP; a second SIGTERM (or a drain bound of 0) stops it
// before the commit.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { expect, test } from '@playwright/test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  LoggingMessageNotificationSchema,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type LoggingMessageNotification,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import type { Bank } from '../../demo/plumbline/server.ts';
import { contentHash } from '../../runner/approval.ts';
import type { Receipt } from '../../runner/mcp/tools.ts';
import { loadCapability, type Capability } from '../../shared/schema/index.ts';
import { bankScene } from './support/bank.ts';
import { handrail } from './support/cli.ts';
import { HANDRAIL, serveChild, type Child } from './support/serve.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const PASSWORD = `pw-${randomBytes(6).toString('hex')}`;
const TOKEN = `tok-${randomBytes(12).toString('hex')}`;
const TOOL = 'plumbline_place_hold';

let bank: Bank;
let scratch: string;
let capsDir: string;
let raw: Record<string, unknown>;
let card: Capability;

function approved(r: Record<string, unknown>): Record<string, unknown> {
  const loaded = loadCapability(JSON.stringify(r));
  if (!loaded.ok) throw new Error('the card does not load');
  const at = '2026-01-01T00:00:00.000Z';
  return { ...r, lifecycle: { state: 'approved', reliability: { k: 3, n: 3, at }, approval: { by: 'Test Reviewer', at, content_hash: contentHash(loaded.value) } } };
}

// Calls are cancelled or interrupted at a known step (progress), or once the commit is dispatched (a log line).
bankScene({ scratch: 'handrail-mcp-agent-', operatorPassword: PASSWORD, reset: true }, (s) => ({ app: bank, scratch } = s));
test.beforeAll(async () => {
  capsDir = join(scratch, 'capabilities');
  await mkdir(capsDir);
  const text = await readFile(join(ROOT, 'capabilities/plumbline-place-hold.json'), 'utf8');
  const loaded = loadCapability(text);
  if (!loaded.ok) throw new Error('the repo card does not load');
  raw = JSON.parse(text) as Record<string, unknown>;
  card = loaded.value;
  await writeFile(join(capsDir, 'place-hold.json'), JSON.stringify(approved(raw), null, 2));
});

function env(home?: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env['PATH'] ?? '',
    HOME: process.env['HOME'] ?? scratch,
    HANDRAIL_HOME: home ?? join(scratch, `home-${randomBytes(4).toString('hex')}`),
    BASE_URL: bank.url,
    HANDRAIL_SECRET_PASSWORD: PASSWORD,
  };
}

async function serve(extra: string[] = [], dir = capsDir, home?: string): Promise<Child> {
  return serveChild([dir, '--evidence-dir', join(scratch, 'runs'), ...extra], env(home));
}

const plate = (member: string, share: string, reason = 'LEGAL'): Record<string, unknown> => ({ operator_id: 'OP1001', member_number: member, share_id: share, reason });

const receiptOf = (r: CallToolResult): Receipt => r.structuredContent as Receipt;

/** The server's stderr line for a finished run: `run-…: WORD CODE`. */
async function finishedRun(s: Child, word: string, code: string): Promise<string> {
  const re = new RegExp(`(run-\\d{8}T\\d{6}-[0-9a-f]{6}): ${word} ${code}`);
  await expect.poll(() => re.exec(s.stderr())?.[1], { timeout: 30_000, message: s.stderr() }).toBeTruthy();
  return re.exec(s.stderr())?.[1] ?? '';
}

async function readText(client: Client, uri: string): Promise<string> {
  const r = await client.readResource({ uri });
  const c = r.contents[0];
  return c && 'text' in c ? c.text : '';
}

test('a call cancelled before the commit stops: nothing is posted, its evidence is sealed, and the same call later runs afresh', async () => {
  const s = await serve();
  try {
    const abort = new AbortController();
    const seen: Progress[] = [];
    const call = s.client.callTool({ name: TOOL, arguments: plate('400118', '400118-S0005') }, undefined, {
      signal: abort.signal,
      onprogress: (p) => {
        seen.push(p);
        // Signed on, not yet at the hold form: the commit is seven steps away.
        if (p.progress >= 3) abort.abort('the agent changed its mind');
      },
    });
    await expect(call).rejects.toThrow();
    const runId = await finishedRun(s, 'RECOVERABLE', 'CANCELLED');
    expect(bank.store.holdFor('400118-S0005').postPresses).toBe(0);
    // The evidence is closed: the run's last lines are its end and the seal.
    const log = await readText(s.client, `handrail://runs/${runId}/log`);
    const kinds = log.trim().split('\n').map((l) => (JSON.parse(l) as { kind: string }).kind);
    expect(kinds.slice(-2)).toEqual(['run_end', 'seal']);
    expect(log).toContain('"code":"CANCELLED"');
    // Nothing was pressed, so nothing is in doubt: the identical call runs and posts once.
    const again = (await s.client.callTool({ name: TOOL, arguments: plate('400118', '400118-S0005') })) as CallToolResult;
    expect(receiptOf(again)).toMatchObject({ word: 'SUCCESS', from_journal: false });
    expect(bank.store.holdFor('400118-S0005').postPresses).toBe(1);
  } finally {
    await s.close();
  }
});

test('a call cancelled after its commit was dispatched finishes; the next identical call gets that receipt from the journal', async () => {
  const s = await serve();
  try {
    const abort = new AbortController();
    const notes: LoggingMessageNotification['params'][] = [];
    s.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      notes.push(n.params);
      if (String(n.params.data).includes('dispatched')) abort.abort('too late');
    });
    const call = s.client.callTool({ name: TOOL, arguments: plate('400337', '400337-S0001') }, undefined, { signal: abort.signal });
    await expect(call).rejects.toThrow();
    expect(notes.some((n) => n.level === 'notice' && String(n.data).includes('commit post_hold dispatched'))).toBe(true);
    const runId = await finishedRun(s, 'SUCCESS', 'OK');
    expect(bank.store.holdFor('400337-S0001')).toMatchObject({ held: true, postPresses: 1 });
    const again = receiptOf((await s.client.callTool({ name: TOOL, arguments: plate('400337', '400337-S0001') })) as CallToolResult);
    expect(again).toMatchObject({ word: 'SUCCESS', from_journal: true, run_id: runId });
    expect(again.outputs['confirmation']).toBe(bank.store.holdFor('400337-S0001').confirmation);
    expect(bank.store.holdFor('400337-S0001').postPresses).toBe(1);
  } finally {
    await s.close();
  }
});

test('SIGTERM over stdio: the call in flight finishes and is answered, a new call is refused as retryable, the server exits 0', async () => {
  const s = await serve();
  try {
    let signalled = false;
    const call = s.client.callTool({ name: TOOL, arguments: plate('400337', '400337-S0001') }, undefined, {
      onprogress: (p) => {
        if (p.progress >= 2 && !signalled) {
          signalled = true;
          s.child.kill('SIGTERM');
        }
      },
    });
    await expect.poll(() => s.stderr(), { timeout: 30_000 }).toContain('taking no new call');
    const late = receiptOf((await s.client.callTool({ name: TOOL, arguments: plate('400445', '400445-S0001') })) as CallToolResult);
    expect(late).toMatchObject({ word: 'RECOVERABLE', code: 'SHUTTING_DOWN', retryable: true });
    const r = (await call) as CallToolResult;
    expect(receiptOf(r)).toMatchObject({ word: 'SUCCESS', code: 'OK' });
    expect(bank.store.holdFor('400337-S0001')).toMatchObject({ held: true, postPresses: 1 });
    expect(bank.store.holdFor('400445-S0001').postPresses).toBe(0);
    expect(await s.exited).toEqual({ code: 0, signal: null });
    expect(s.stderr()).toContain('handrail serve: stopped');
  } finally {
    await s.close();
  }
});

test('a second SIGTERM does not wait: the call stops before its commit, is answered CANCELLED, and nothing is posted', async () => {
  const s = await serve();
  try {
    let signalled = false;
    const call = s.client.callTool({ name: TOOL, arguments: plate('400118', '400118-S0001') }, undefined, {
      onprogress: (p) => {
        if (p.progress >= 2 && !signalled) {
          signalled = true;
          s.child.kill('SIGTERM');
          setTimeout(() => s.child.kill('SIGTERM'), 50);
        }
      },
    });
    const r = (await call) as CallToolResult;
    expect(r.isError).toBe(true);
    expect(receiptOf(r)).toMatchObject({ word: 'RECOVERABLE', code: 'CANCELLED', retryable: true });
    expect(bank.store.holdFor('400118-S0001').postPresses).toBe(0);
    expect(await s.exited).toEqual({ code: 0, signal: null });
  } finally {
    await s.close();
  }
});

test('SIGTERM over HTTP: the call in flight is answered on its stream, new connections are refused, the server exits 0', async () => {
  const child = spawn(process.execPath, [HANDRAIL, 'serve', capsDir, '--http', '0', '--evidence-dir', join(scratch, 'runs')], {
    cwd: ROOT,
    env: { ...env(), HANDRAIL_MCP_TOKEN: TOKEN },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (b: Buffer) => (err += b.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.once('close', (code, signal) => r({ code, signal })));
  try {
    await expect.poll(() => /Streamable HTTP at (\S+)/.exec(err)?.[1], { timeout: 30_000 }).toBeTruthy();
    const url = /Streamable HTTP at (\S+)/.exec(err)?.[1] ?? '';
    const client = new Client({ name: 'handrail-e2e-http', version: '0.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
    let signalled = false;
    const steps: number[] = [];
    const call = client.callTool({ name: TOOL, arguments: plate('400526', '400526-S0001') }, undefined, {
      onprogress: (p) => {
        steps.push(p.progress);
        if (p.progress >= 2 && !signalled) {
          signalled = true;
          child.kill('SIGTERM');
        }
      },
    });
    await expect.poll(() => err, { timeout: 30_000 }).toContain('taking no new call');
    await expect(fetch(url, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` }, body: '{}' })).rejects.toThrow();
    const r = (await call) as CallToolResult;
    expect(receiptOf(r)).toMatchObject({ word: 'SUCCESS', code: 'OK' });
    expect(steps).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(bank.store.holdFor('400526-S0001')).toMatchObject({ held: true, postPresses: 1 });
    expect(await exited).toEqual({ code: 0, signal: null });
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    await exited;
  }
});

/** `handrail serve --http 0` as a child, with an SDK client connected over Streamable HTTP. */
async function serveHttp(dir = capsDir, extra: string[] = []): Promise<{ client: Client; url: string; err: () => string; child: ReturnType<typeof spawn>; exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }> }> {
  const child = spawn(process.execPath, [HANDRAIL, 'serve', dir, '--http', '0', '--evidence-dir', join(scratch, 'runs'), ...extra], {
    cwd: ROOT,
    env: { ...env(), HANDRAIL_MCP_TOKEN: TOKEN },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr?.on('data', (b: Buffer) => (err += b.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.once('close', (code, signal) => r({ code, signal })));
  await expect.poll(() => /Streamable HTTP at (\S+)/.exec(err)?.[1], { timeout: 30_000 }).toBeTruthy();
  const url = /Streamable HTTP at (\S+)/.exec(err)?.[1] ?? '';
  const client = new Client({ name: 'handrail-e2e-http', version: '0.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
  return { client, url, err: () => err, child, exited };
}

test('over HTTP too, a cancelled call stops before the commit, and a folder change is announced to the session', async () => {
  const dir = join(scratch, `http-live-${randomBytes(3).toString('hex')}`);
  await mkdir(dir);
  await writeFile(join(dir, 'place-hold.json'), JSON.stringify(approved(raw), null, 2));
  const h = await serveHttp(dir);
  try {
    const abort = new AbortController();
    const call = h.client.callTool({ name: TOOL, arguments: plate('400445', '400445-S0001') }, undefined, {
      signal: abort.signal,
      onprogress: (p) => {
        if (p.progress >= 3) abort.abort('the agent changed its mind');
      },
    });
    await expect(call).rejects.toThrow();
    await expect.poll(() => h.err(), { timeout: 30_000 }).toMatch(/run-\S+: RECOVERABLE CANCELLED/);
    expect(bank.store.holdFor('400445-S0001').postPresses).toBe(0);

    expect(h.client.getServerCapabilities()?.tools?.listChanged).toBe(true);
    let changes = 0;
    h.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes++;
    });
    await unlink(join(dir, 'place-hold.json'));
    await expect.poll(() => changes, { timeout: 10_000 }).toBeGreaterThan(0);
    expect((await h.client.listTools()).tools).toEqual([]);
    await h.client.close();
  } finally {
    h.child.kill('SIGTERM');
    await h.exited;
  }
});

test('over HTTP with --drain-ms 0, SIGTERM waits for nothing: the call stops before its commit, is answered CANCELLED, exit 0', async () => {
  const h = await serveHttp(capsDir, ['--drain-ms', '0']);
  try {
    let signalled = false;
    const call = h.client.callTool({ name: TOOL, arguments: plate('400118', '400118-S0001') }, undefined, {
      onprogress: (p) => {
        if (p.progress >= 2 && !signalled) {
          signalled = true;
          h.child.kill('SIGTERM');
        }
      },
    });
    const r = (await call) as CallToolResult;
    expect(r.isError).toBe(true);
    expect(receiptOf(r)).toMatchObject({ word: 'RECOVERABLE', code: 'CANCELLED', retryable: true });
    expect(bank.store.holdFor('400118-S0001').postPresses).toBe(0);
    expect(await h.exited).toEqual({ code: 0, signal: null });
  } finally {
    if (h.child.exitCode === null) h.child.kill('SIGKILL');
    await h.exited;
  }
});

test('the tool list follows the folder: added, edited (withdrawn until re-approved), re-approved and deleted cards, each announced', async () => {
  const dir = join(scratch, `live-${randomBytes(3).toString('hex')}`);
  await mkdir(dir);
  await writeFile(join(dir, 'draft.json'), JSON.stringify({ ...raw, lifecycle: { state: 'draft' } }, null, 2));
  const s = await serve([], dir);
  try {
    expect(s.client.getServerCapabilities()?.tools?.listChanged).toBe(true);
    let changes = 0;
    s.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes++;
    });
    const names = async (): Promise<string[]> => (await s.client.listTools()).tools.map((t) => t.name);
    const changed = async (after: number): Promise<void> => {
      await expect.poll(() => changes, { timeout: 10_000 }).toBeGreaterThan(after);
    };
    expect(await names()).toEqual([]);

    let n = changes;
    await writeFile(join(dir, 'place-hold.json'), JSON.stringify(approved(raw), null, 2));
    await changed(n);
    expect(await names()).toEqual([TOOL, `${TOOL}-rehearse`]);

    n = changes;
    const edited = { ...raw, intent: 'Place a hold, edited after approval.' };
    await writeFile(join(dir, 'place-hold.json'), JSON.stringify({ ...approved(raw), intent: edited.intent }, null, 2));
    await changed(n);
    expect(await names()).toEqual([]);
    expect(s.stderr()).toMatch(/place-hold\.json: edited_after_approval/);

    n = changes;
    await writeFile(join(dir, 'place-hold.json'), JSON.stringify(approved(edited), null, 2));
    await changed(n);
    const tools = (await s.client.listTools()).tools;
    expect(tools.map((t) => t.name)).toEqual([TOOL, `${TOOL}-rehearse`]);
    expect(tools[0]?.description).toContain('edited after approval');

    n = changes;
    await unlink(join(dir, 'place-hold.json'));
    await changed(n);
    expect(await names()).toEqual([]);
  } finally {
    await s.close();
  }
});

test('--bind operator_id=OP1001: the agent is not asked for it, cannot pass it, and the hold is posted under it', async () => {
  const s = await serve(['--bind', 'operator_id=OP1001']);
  try {
    const { tools } = await s.client.listTools();
    const props = Object.keys((tools[0]?.inputSchema.properties ?? {}) as object).sort();
    expect(props).toEqual(['member_number', 'reason', 'share_id']);
    const ok = (await s.client.callTool({ name: TOOL, arguments: { member_number: '400445', share_id: '400445-S0001', reason: 'LEGAL' } })) as CallToolResult;
    expect(receiptOf(ok)).toMatchObject({ word: 'SUCCESS' });
    expect(bank.store.holdFor('400445-S0001').postPresses).toBe(1);
    const smuggled = (await s.client.callTool({ name: TOOL, arguments: plate('400445', '400445-S0002') })) as CallToolResult;
    expect(smuggled.isError).toBe(true);
    expect(JSON.stringify(smuggled.content)).toMatch(/Input validation error/);
  } finally {
    await s.close();
  }
  const bad: [string[], RegExp][] = [
    [['--bind', 'operator_id=NOPE'], /--bind operator_id: does not match the pattern/],
    [['--bind', 'operator'], /--bind #1 expects NAME=VALUE/],
    [['--bind', 'opertor_id=OP1001'], /no served card has an input called opertor_id \(inputs: .*operator_id/],
    [['--bind', 'password=hunter22'], /password is a secret input/],
  ];
  for (const [args, want] of bad) {
    const r = await handrail(['serve', capsDir, ...args], env());
    expect(r.code, args.join(' ')).toBe(2);
    expect(r.stderr).toMatch(want);
    expect(r.stderr).not.toContain('hunter22');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  }
});

test('handrail.config.json binds inputs for the server too, with --bind flags added to them; a bad binding in the file is refused', async () => {
  const file = join(scratch, 'serve.config.json');
  await writeFile(file, JSON.stringify({ bind: { operator_id: 'OP1001', reason: 'LEGAL' } }));
  const s = await serve(['--config', file, '--bind', 'reason=GARNISHMENT']);
  try {
    const { tools } = await s.client.listTools();
    const props = Object.keys((tools[0]?.inputSchema.properties ?? {}) as object).sort();
    expect(props).toEqual(['member_number', 'share_id']);
  } finally {
    await s.close();
  }
  await writeFile(file, JSON.stringify({ bind: { operator_id: 'NOPE' } }));
  const bad = await handrail(['serve', capsDir, '--config', file], env());
  expect(bad.code).toBe(2);
  expect(bad.stderr).toMatch(/operator_id: does not match the pattern/);
});

test('progress per step, log lines at the level the client sets, and the evidence as resources', async () => {
  const s = await serve();
  try {
    const notes: LoggingMessageNotification['params'][] = [];
    s.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      notes.push(n.params);
    });
    await s.client.setLoggingLevel('info');
    const seen: Progress[] = [];
    const r = (await s.client.callTool({ name: TOOL, arguments: plate('400118', '400118-S0005') }, undefined, { onprogress: (p) => seen.push(p) })) as CallToolResult;
    const receipt = receiptOf(r);
    expect(receipt, receipt.message).toMatchObject({ word: 'SUCCESS', from_journal: false });
    expect(receipt.idempotency_key).toMatch(/^plumbline_place_hold\.[0-9a-f]{32}$/);
    expect(receipt.duration_ms).toBeGreaterThan(0);
    expect(seen.map((p) => [p.progress, p.total])).toEqual(card.steps.map((_, i) => [i + 1, card.steps.length]));
    expect(seen[9]?.message).toBe('step 10 of 11: post_hold on screen hold_review');
    expect(notes.some((n) => n.level === 'info' && String(n.data).includes('step 1/11 enter_operator'))).toBe(true);
    expect(JSON.stringify(notes)).not.toContain(PASSWORD);

    // The evidence: linked from the result, read through resources/read.
    const links = r.content.filter((c) => c.type === 'resource_link');
    expect(links.map((l) => l.uri)).toEqual([receipt.evidence?.log, receipt.evidence?.report]);
    const log = await readText(s.client, receipt.evidence?.log ?? '');
    const last = JSON.parse(log.trim().split('\n').pop() ?? '{}') as { kind: string; data: { head?: string } };
    expect(last.kind).toBe('seal');
    expect(receipt.evidence?.head).toMatch(/^[0-9a-f]{64}$/);
    const html = await readText(s.client, receipt.evidence?.report ?? '');
    expect(html).toContain('<!doctype html>');
    expect(html).toContain('SUCCESS');
    expect(html).not.toContain(PASSWORD);
    await expect(s.client.readResource({ uri: 'handrail://runs/..%2F..%2Fetc/log' })).rejects.toThrow(/names no run/);
    await expect(s.client.readResource({ uri: 'handrail://runs/../../etc/passwd/log' })).rejects.toThrow(/not found/);
    await expect(s.client.readResource({ uri: 'handrail://runs/run-20260101T000000-abcdef/log' })).rejects.toThrow(/no evidence/);

    // With the level at warning, a successful call sends no log line at all.
    await s.client.setLoggingLevel('warning');
    const before = notes.length;
    await s.client.callTool({ name: TOOL, arguments: plate('400118', '400118-S0005') });
    expect(notes.length).toBe(before);

    // A member the bank does not have: the answer names the input, not the selector.
    const nobody = (await s.client.callTool({ name: TOOL, arguments: plate('999999', '999999-S0001') })) as CallToolResult;
    expect(nobody.isError).toBe(true);
    expect(receiptOf(nobody).message).toMatch(/member_number "999999"/);
  } finally {
    await s.close();
  }
});
