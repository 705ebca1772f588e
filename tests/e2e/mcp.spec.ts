// An AI agent connects to `handrail serve` with the MCP SDK's client and sees one typed tool per approved card — no password on it — places a real hold on PLUMBLINE, gets "already held" as an answer, is refused cleanly for bad arguments or a missing secret, never gets a hold pressed twice, and the HTTP transport wants its token.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { expect, test } from '@playwright/test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Bank } from '../../demo/plumbline/server.ts';
import { contentHash } from '../../runner/approval.ts';
import { Journal } from '../../runner/engine/journal.ts';
import { intentOf } from '../../runner/intent.ts';
import { journalFileFor } from '../../runner/mcp/service.ts';
import type { Receipt } from '../../runner/mcp/tools.ts';
import { loadCapability, type Capability } from '../../shared/schema/index.ts';
import { bankScene } from './support/bank.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const NODE = process.execPath;
// The same command an MCP client configures: `handrail serve <dir>` (bin/handrail.mjs runs the compiled CLI).
const ENTRY = join(ROOT, 'bin/handrail.mjs');
const PASSWORD = `pw-${randomBytes(6).toString('hex')}`;
const TOKEN = `tok-${randomBytes(12).toString('hex')}`;

let bank: Bank;
let scratch: string;
let capsDir: string;

async function cardFromRepo(): Promise<{ raw: Record<string, unknown>; card: Capability }> {
  const text = await readFile(join(ROOT, 'capabilities/plumbline-place-hold.json'), 'utf8');
  const loaded = loadCapability(text);
  if (!loaded.ok) throw new Error('the repo card does not load');
  return { raw: JSON.parse(text) as Record<string, unknown>, card: loaded.value };
}

/** A card file approved for exactly its content (the approval the gate would write). */
function approved(raw: Record<string, unknown>, card: Capability): Record<string, unknown> {
  const at = '2026-01-01T00:00:00.000Z';
  return { ...raw, lifecycle: { state: 'approved', reliability: { k: 3, n: 3, at }, approval: { by: 'Test Reviewer', at, content_hash: contentHash(card) } } };
}

bankScene({ scratch: 'handrail-mcp-', operatorPassword: PASSWORD, reset: true }, (s) => ({ app: bank, scratch } = s));
test.beforeAll(async () => {
  capsDir = join(scratch, 'capabilities');
  await mkdir(capsDir);
  const { raw, card } = await cardFromRepo();
  const good = approved(raw, card);
  await writeFile(join(capsDir, 'place-hold.json'), JSON.stringify(good, null, 2));
  await writeFile(join(capsDir, 'draft.json'), JSON.stringify({ ...raw, id: 'place_hold_draft', lifecycle: { state: 'draft' } }, null, 2));
  // Approved once, then someone edited the intent: the signature no longer covers the card.
  await writeFile(join(capsDir, 'edited.json'), JSON.stringify({ ...good, id: 'place_hold_edited', intent: 'Edited after approval.' }, null, 2));
  await writeFile(join(capsDir, 'broken.json'), JSON.stringify({ ...raw, id: 'broken_card', steps: 'not a list' }, null, 2));
});

interface Served {
  client: Client;
  stderr: () => string;
  protocolErrors: Error[];
  close: () => Promise<void>;
}

async function serve(opts: { secret?: boolean; journalDir?: string; home?: string } = {}): Promise<Served> {
  const env: Record<string, string> = {
    PATH: process.env['PATH'] ?? '',
    HOME: process.env['HOME'] ?? scratch,
    // Each server its own state dir unless a test shares one (a restart): plates repeat across tests.
    HANDRAIL_HOME: opts.home ?? (await mkdtemp(join(scratch, 'home-'))),
    BASE_URL: bank.url,
  };
  if (opts.secret !== false) env['HANDRAIL_SECRET_PASSWORD'] = PASSWORD;
  const args = [ENTRY, 'serve', capsDir, '--evidence-dir', join(scratch, 'runs')];
  if (opts.journalDir) args.push('--journal-dir', opts.journalDir);
  const transport = new StdioClientTransport({ command: NODE, args, env, stderr: 'pipe', cwd: ROOT });
  let err = '';
  transport.stderr?.on('data', (b: Buffer) => (err += b.toString('utf8')));
  const client = new Client({ name: 'handrail-e2e', version: '0.0.0' });
  const protocolErrors: Error[] = [];
  client.onerror = (e): void => {
    protocolErrors.push(e);
  };
  await client.connect(transport);
  return { client, stderr: () => err, protocolErrors, close: () => client.close() };
}

const plate = (member: string, share: string, reason = 'LEGAL'): Record<string, unknown> => ({
  operator_id: 'OP1001',
  member_number: member,
  share_id: share,
  reason,
});

async function call(s: Served, args: Record<string, unknown>): Promise<{ result: CallToolResult; receipt: Receipt | undefined }> {
  const result = (await s.client.callTool({ name: 'plumbline_place_hold', arguments: args })) as CallToolResult;
  return { result, receipt: result.structuredContent as Receipt | undefined };
}

test('the menu shows exactly the approved card, typed, with no password, and says why the others are off it', async () => {
  const s = await serve();
  try {
    const { tools } = await s.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['plumbline_place_hold', 'plumbline_place_hold-rehearse']);
    const tool = tools[0];
    const schema = tool?.inputSchema as unknown as { properties: Record<string, Record<string, unknown>>; required: string[]; additionalProperties: boolean };
    expect(Object.keys(schema.properties).sort()).toEqual(['member_number', 'operator_id', 'reason', 'share_id']);
    expect(schema.properties['password']).toBeUndefined();
    expect(JSON.stringify(tool?.inputSchema)).not.toMatch(/password/i);
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required.sort()).toEqual(['member_number', 'operator_id', 'reason', 'share_id']);
    expect(schema.properties['member_number']).toMatchObject({ type: 'string', pattern: '^(?:\\d{6})$', maxLength: 256 });
    expect(schema.properties['operator_id']).toMatchObject({ pattern: '^(?:OP\\d{4})$', maxLength: 8 });
    expect(schema.properties['reason']?.['enum']).toEqual(['LEGAL', 'FRAUD_REVIEW', 'GARNISHMENT', 'DECEASED', 'OTHER']);
    expect(tool?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: false });
    expect(tool?.description).toContain('Place a hold on one share');
    expect(tool?.description).toContain('ALREADY_PROCESSED');
    expect(Object.keys((tool?.outputSchema as { properties: object }).properties)).toEqual(
      expect.arrayContaining(['word', 'code', 'outcome', 'outputs', 'retryable', 'run_id', 'evidence']),
    );
    const err = s.stderr();
    expect(err).toMatch(/draft\.json: draft/);
    expect(err).toMatch(/edited\.json: edited_after_approval/);
    expect(err).toMatch(/broken\.json: schema_error: not a valid capability:\s+steps: expected array/);
    expect(s.protocolErrors).toEqual([]);
  } finally {
    await s.close();
  }
});

test('an agent rehearses first: the rehearsal tool shows the request Post Hold would send and presses nothing; the call then posts once', async () => {
  const s = await serve();
  try {
    const rehearsed = (await s.client.callTool({ name: 'plumbline_place_hold-rehearse', arguments: plate('400337', '400337-S0001') })) as CallToolResult;
    expect(rehearsed.isError).toBe(false);
    expect(rehearsed.structuredContent).toMatchObject({
      word: 'REHEARSED',
      rehearsal: { step: 'post_hold', derived: 'form', request: { method: 'POST', url: `${bank.url}/post`, fields: expect.arrayContaining([{ name: 'share', value: '400337-S0001', secret: false }]) as unknown } },
    });
    expect(JSON.stringify(rehearsed)).not.toContain(PASSWORD);
    expect(bank.store.holdFor('400337-S0001').postPresses).toBe(0);
    const real = await call(s, plate('400337', '400337-S0001'));
    expect(real.receipt).toMatchObject({ word: 'SUCCESS', from_journal: false });
    expect(bank.store.holdFor('400337-S0001').postPresses).toBe(1);
  } finally {
    await s.close();
  }
});

test('a call places a real hold (the judge confirms), and "already held" is an answer, not retryable', async () => {
  const s = await serve();
  try {
    const first = await call(s, plate('400118', '400118-S0005'));
    expect(first.result.isError).toBe(false);
    expect(first.receipt).toMatchObject({ word: 'SUCCESS', code: 'OK', retryable: false, from_journal: false });
    const confirmation = first.receipt?.outputs['confirmation'];
    expect(confirmation).toMatch(/^HX-\d{6}$/);
    expect(bank.store.holdFor('400118-S0005')).toEqual({ held: true, reason: 'LEGAL', confirmation, postPresses: 1 });
    // The evidence is named as MCP resources, never as a path on the server.
    expect(first.receipt?.evidence).toMatchObject({ log: `handrail://runs/${first.receipt?.run_id}/log`, head: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(JSON.stringify(first.receipt)).not.toContain(scratch);
    // The receipt is for deciding, not reading screens: no screen text, no screenshot.
    expect(Object.keys(first.receipt ?? {})).not.toEqual(expect.arrayContaining(['screen']));
    expect(first.result.content.map((c) => c.type)).toEqual(['text', 'resource_link', 'resource_link']);
    expect(JSON.stringify(first.result)).not.toContain(PASSWORD);

    const held = await call(s, plate('400226', '400226-S0002', 'FRAUD_REVIEW'));
    expect(held.result.isError).toBe(false);
    expect(held.receipt).toMatchObject({ word: 'BUSINESS_OUTCOME', code: 'ALREADY_PROCESSED', outcome: 'already_held', retryable: false });
    expect(s.protocolErrors).toEqual([]);
  } finally {
    await s.close();
  }
});

test('malformed arguments and a missing secret are refused before any browser starts', async () => {
  const s = await serve({ secret: false });
  try {
    const bad: [string, Record<string, unknown>][] = [
      ['wrong type', { ...plate('400118', '400118-S0001'), member_number: 400118 }],
      ['unknown field', { ...plate('400118', '400118-S0001'), password: 'smuggled' }],
      ['pattern violation', plate('4001180', '400118-S0001')],
      ['a 1 MB string', { ...plate('400118', '400118-S0001'), share_id: 'x'.repeat(1024 * 1024) }],
    ];
    for (const [what, args] of bad) {
      const { result } = await call(s, args);
      expect(result.isError, what).toBe(true);
      expect(JSON.stringify(result.content), what).toMatch(/Input validation error/);
    }
    const missing = await call(s, plate('400118', '400118-S0001'));
    expect(missing.result.isError).toBe(true);
    expect(missing.receipt).toMatchObject({ word: 'REFUSED', code: 'MISSING_SECRET', retryable: false });
    expect(missing.receipt?.message).toContain('HANDRAIL_SECRET_PASSWORD');
    expect(s.stderr()).not.toContain('starting the shared Chromium');
    expect(bank.store.holdFor('400118-S0001').postPresses).toBe(0);
  } finally {
    await s.close();
  }
});

test('two identical calls at once press Post Hold once; the second is answered from the journal', async () => {
  const s = await serve();
  try {
    const [a, b] = await Promise.all([call(s, plate('400337', '400337-S0001')), call(s, plate('400337', '400337-S0001'))]);
    expect([a.receipt?.word, b.receipt?.word]).toEqual(['SUCCESS', 'SUCCESS']);
    expect([a.receipt?.from_journal, b.receipt?.from_journal].sort()).toEqual([false, true]);
    expect(a.receipt?.outputs['confirmation']).toBe(b.receipt?.outputs['confirmation']);
    expect(bank.store.holdFor('400337-S0001').postPresses).toBe(1);
    // Different records run side by side, each pressed once.
    const [c, d] = await Promise.all([call(s, plate('400445', '400445-S0001')), call(s, plate('400118', '400118-S0001'))]);
    expect([c.receipt?.word, d.receipt?.word]).toEqual(['SUCCESS', 'SUCCESS']);
    expect([bank.store.holdFor('400445-S0001').postPresses, bank.store.holdFor('400118-S0001').postPresses]).toEqual([1, 1]);
  } finally {
    await s.close();
  }
});

test('a server stopped and started again between two identical calls presses once: the journal outlives the server', async () => {
  const args = plate('400118', '400118-S0005', 'GARNISHMENT');
  const home = join(scratch, 'restart-home');
  const first = await serve({ home });
  let receipt: Receipt | undefined;
  try {
    receipt = (await call(first, args)).receipt;
    expect(receipt).toMatchObject({ word: 'SUCCESS', from_journal: false });
    expect(first.stderr()).toContain(join(home, 'journals'));
  } finally {
    await first.close();
  }
  const second = await serve({ home });
  try {
    const again = (await call(second, args)).receipt;
    expect(again).toMatchObject({ word: 'SUCCESS', from_journal: true, run_id: receipt?.run_id });
    expect(again?.outputs).toEqual(receipt?.outputs);
    expect(bank.store.holdFor('400118-S0005').postPresses).toBe(1);
  } finally {
    await second.close();
  }
});

test('after a crash mid-commit, a retried call is answered UNSAFE_TO_RETRY and nothing is pressed', async () => {
  const journalDir = join(scratch, 'journals');
  const args = plate('400445', '400445-S0001');
  // What a server killed between "dispatched" and "observed" leaves in its journal.
  const { card } = await cardFromRepo();
  const served = loadCapability(await readFile(join(capsDir, 'place-hold.json'), 'utf8'));
  if (!served.ok) throw new Error('the served card does not load');
  const values = Object.fromEntries(Object.entries(args).map(([k, v]) => [k, String(v)]));
  const file = journalFileFor(journalDir, served.value, values);
  expect(card.id).toBe(served.value.id);
  const j = await Journal.open(file, intentOf(served.value, values));
  await j.dispatched('run-crashed', 'post_hold', 'commit');
  await j.close();
  const s = await serve({ journalDir });
  try {
    const { result, receipt } = await call(s, args);
    expect(result.isError).toBe(true);
    expect(receipt).toMatchObject({ word: 'UNSAFE_TO_RETRY', code: 'JOURNAL_IN_DOUBT', retryable: false });
    expect(bank.store.holdFor('400445-S0001').postPresses).toBe(0);
  } finally {
    await s.close();
  }
});

test('nothing but JSON-RPC on stdout, even through a full call', async () => {
  const child = spawn(NODE, [ENTRY, 'serve', capsDir, '--evidence-dir', join(scratch, 'runs')], {
    cwd: ROOT,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? scratch, HANDRAIL_HOME: join(scratch, 'home'), BASE_URL: bank.url, HANDRAIL_SECRET_PASSWORD: PASSWORD },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString('utf8')));
  child.stderr.resume();
  const lines = (): string[] => out.split('\n').filter((l) => l !== '');
  const send = (msg: object): boolean => child.stdin.write(`${JSON.stringify(msg)}\n`);
  const waitFor = async (id: number): Promise<void> => {
    await expect.poll(() => lines().some((l) => (JSON.parse(l) as { id?: number }).id === id), { timeout: 30_000 }).toBe(true);
  };
  try {
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } });
    await waitFor(1);
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'plumbline_place_hold', arguments: plate('400337', '400337-S0001', 'OTHER') } });
    await waitFor(3);
    await waitFor(2);
    for (const l of lines()) expect(JSON.parse(l)).toMatchObject({ jsonrpc: '2.0' });
    expect(bank.store.holdFor('400337-S0001')).toMatchObject({ held: true, postPresses: 1 });
  } finally {
    child.stdin.end();
    await new Promise((r) => child.once('exit', r));
  }
});

test('over HTTP, a request without the bearer token is refused, and one with it lists the tool and posts a hold', async () => {
  const child = spawn(NODE, [ENTRY, 'serve', capsDir, '--http', '0', '--evidence-dir', join(scratch, 'runs')], {
    cwd: ROOT,
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? scratch,
      HANDRAIL_HOME: join(scratch, 'http-home'),
      BASE_URL: bank.url,
      HANDRAIL_MCP_TOKEN: TOKEN,
      HANDRAIL_SECRET_PASSWORD: PASSWORD,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  let out = '';
  child.stderr.on('data', (b: Buffer) => (err += b.toString('utf8')));
  child.stdout.on('data', (b: Buffer) => (out += b.toString('utf8')));
  try {
    await expect.poll(() => /Streamable HTTP at (\S+)/.exec(err)?.[1], { timeout: 30_000 }).toBeTruthy();
    const url = /Streamable HTTP at (\S+)/.exec(err)?.[1] ?? '';
    expect(err).not.toContain(TOKEN);
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '0' } } };
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const none = await fetch(url, { method: 'POST', headers, body: JSON.stringify(init) });
    expect(none.status).toBe(401);
    const wrong = await fetch(url, { method: 'POST', headers: { ...headers, authorization: 'Bearer nope' }, body: JSON.stringify(init) });
    expect(wrong.status).toBe(401);
    // A page on another origin is refused even with the token (DNS rebinding, a hostile tab): 403 before any MCP code.
    const foreign = await fetch(url, { method: 'POST', headers: { ...headers, authorization: `Bearer ${TOKEN}`, origin: 'https://evil.example' }, body: JSON.stringify(init) });
    expect(foreign.status).toBe(403);

    const client = new Client({ name: 'handrail-e2e-http', version: '0.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['plumbline_place_hold', 'plumbline_place_hold-rehearse']);
    // A real call over HTTP posts a hold the judge confirms.
    const result = (await client.callTool({
      name: 'plumbline_place_hold',
      arguments: { operator_id: 'OP1001', member_number: '400526', share_id: '400526-S0001', reason: 'LEGAL' },
    })) as CallToolResult;
    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent).toMatchObject({ word: 'SUCCESS', retryable: false });
    expect(bank.store.holdFor('400526-S0001')).toMatchObject({ held: true, postPresses: 1 });
    await client.close();
    expect(out).toBe('');
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
});
