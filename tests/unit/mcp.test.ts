// An agent's view of the MCP server, over the SDK's in-memory linked transports: one typed tool per approved card (secrets never on it, hints from the stickers), and bad calls refused before any browser is opened.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { LiveCatalog, loadCatalog } from '../../runner/mcp/catalog.ts';
import { buildMcpServer } from '../../runner/mcp/server.ts';
import { CallService, callKey } from '../../runner/mcp/service.ts';
import { annotationsFor, bindingProblem, blameInputs, inputSchemaFor, isAnswer, type Receipt } from '../../runner/mcp/tools.ts';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Capability } from '../../shared/schema/index.ts';
import { RunResult } from '../../shared/schema/result.ts';
import { minimalCard } from '../fixtures/cards/minimal.ts';
import { approvedCard, lookupCard } from '../fixtures/mcp/cards.ts';
import { countingService, linkedClient } from '../fixtures/mcp/linked.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

/** The two cards served over an in-memory transport; `bind` is the server's --bind (values the agent is not asked for). */
async function connect(env: Record<string, string> = {}, bind?: Record<string, string>): Promise<{ client: Client; opened: () => number }> {
  const { client, opened } = await connectWithService(env, bind);
  return { client, opened };
}

async function connectWithService(env: Record<string, string> = {}, bind?: Record<string, string>): Promise<{ client: Client; opened: () => number; service: CallService }> {
  const place = Capability.parse(approvedCard());
  const lookup = Capability.parse(approvedCard(lookupCard()));
  // Journals go to a temp state dir, never the real ~/.local/state/handrail.
  const home = await mkdtemp(join(tmpdir(), 'handrail-home-'));
  cleanups.push(() => rm(home, { recursive: true, force: true }));
  const { service, opened } = countingService({ HANDRAIL_HOME: home, ...env });
  const server = buildMcpServer(
    [
      { file: 'place.json', card: place, by: 'Dana Reviewer' },
      { file: 'lookup.json', card: lookup, by: 'Dana Reviewer' },
    ],
    service,
    bind ? { bind } : undefined,
  );
  const { client, close } = await linkedClient(server);
  cleanups.push(async () => {
    await close();
    await service.close();
  });
  return { client, opened, service };
}

describe('the tool schema builder', () => {
  it('puts every public input on the schema, anchored and bounded, and never a secret', () => {
    const json = z.toJSONSchema(inputSchemaFor(Capability.parse(minimalCard())));
    expect(json).toMatchObject({
      type: 'object',
      additionalProperties: false,
      required: ['member_number'],
      properties: { member_number: { type: 'string', pattern: '^(?:\\d{6})$', maxLength: 256 } },
    });
    expect(Object.keys(json.properties ?? {})).toEqual(['member_number']);
  });

  it('anchors the pattern: a value that merely contains a match is refused', () => {
    const schema = inputSchemaFor(Capability.parse(minimalCard()));
    expect(schema.safeParse({ member_number: '400118' }).success).toBe(true);
    expect(schema.safeParse({ member_number: 'x400118x' }).success).toBe(false);
    expect(schema.safeParse({ member_number: '400118', extra: '1' }).success).toBe(false);
  });

  it('reads the hints off the stickers: a commit is destructive and not idempotent; reads only are read-only', () => {
    expect(annotationsFor(Capability.parse(minimalCard()))).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: false });
    expect(annotationsFor(Capability.parse(lookupCard()))).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true });
  });

  it('a lookup that types into a search form is read-only only when its writes are checked in replay (network declared)', () => {
    const typing = lookupCard();
    typing.steps = [
      { id: 'enter_member', screen: 'posted', op: { verb: 'set_value', value: '{{input.member_number}}' }, target: 'password_field', effect: { kind: 'stage' } },
      ...typing.steps,
    ];
    expect(annotationsFor(Capability.parse(typing))).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(annotationsFor(Capability.parse({ ...typing, network: { ignore: ['POST /signon'] } }))).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true });
    // A commit is never read-only, network or not.
    expect(annotationsFor(Capability.parse({ ...minimalCard(), network: { ignore: [] } }))).toMatchObject({ readOnlyHint: false, destructiveHint: true });
  });

  it('the shipped hold-status lookup is read-only over MCP', async () => {
    const card = Capability.parse(JSON.parse(await readFile('capabilities/plumbline-hold-status.json', 'utf8')));
    expect(card.steps.some((s) => s.effect.kind === 'stage')).toBe(true);
    expect(annotationsFor(card)).toMatchObject({ readOnlyHint: true, destructiveHint: false });
  });

  it('calls only SUCCESS, BUSINESS_OUTCOME and a rehearsal\'s REHEARSED answers', () => {
    expect(['SUCCESS', 'BUSINESS_OUTCOME', 'REHEARSED', 'RECOVERABLE', 'UNSAFE_TO_RETRY', 'REFUSED', 'FAILED'].map((word) => isAnswer({ word } as Receipt))).toEqual([
      true, true, true, false, false, false, false,
    ]);
  });

  it('keys the journal by the intent (card and identifying inputs), not by argument order', () => {
    const c = Capability.parse(approvedCard());
    const d = Capability.parse({ ...approvedCard(), id: 'other_card' });
    expect(callKey(c, { member_number: '400001', count: '1' })).toBe(callKey(c, { count: '1', member_number: '400001' }));
    expect(callKey(c, { member_number: '400001' })).not.toBe(callKey(c, { member_number: '400002' }));
    expect(callKey(c, { member_number: '400001' })).not.toBe(callKey(d, { member_number: '400001' }));
  });
});

describe('the MCP server over linked in-memory transports', () => {
  it('lists one tool per approved card with the typed schema, the receipt schema and the hints', async () => {
    const { client } = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['demo_lookup', 'demo_place_hold', 'demo_place_hold-rehearse']);
    const place = tools.find((t) => t.name === 'demo_place_hold');
    expect(place?.inputSchema).toMatchObject({ additionalProperties: false, properties: { member_number: { pattern: '^(?:\\d{6})$' } } });
    expect(Object.keys(place?.inputSchema.properties ?? {})).toEqual(['member_number']);
    expect(place?.annotations).toMatchObject({ destructiveHint: true, readOnlyHint: false, idempotentHint: false });
    expect(place?.outputSchema?.required).toEqual(expect.arrayContaining(['word', 'code', 'retryable', 'run_id', 'evidence']));
    const lookup = tools.find((t) => t.name === 'demo_lookup');
    expect(lookup?.inputSchema.properties?.['count']).toMatchObject({ type: 'integer' });
    expect(lookup?.annotations).toMatchObject({ readOnlyHint: true });
  });

  it('offers a card that commits a rehearsal tool: the same inputs, read-only, and its call asks the run to rehearse', async () => {
    const { client, service } = await connectWithService();
    const { tools } = await client.listTools();
    const rehearse = tools.find((t) => t.name === 'demo_place_hold-rehearse');
    const place = tools.find((t) => t.name === 'demo_place_hold');
    expect(rehearse?.inputSchema).toEqual(place?.inputSchema);
    expect(rehearse?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true });
    expect(rehearse?.description).toMatch(/Nothing is pressed/);
    const asked: unknown[] = [];
    vi.spyOn(service, 'call').mockImplementation((card, _inputs, opts) => {
      asked.push(opts?.rehearse);
      return Promise.resolve(
        RunResult.parse({
          word: 'REHEARSED', code: 'REHEARSED', retryable: false, message: 'rehearsed', card: card.id, run_id: 'run-20261207T000000-abcdef', outputs: {},
          llm_calls: 0, classifier_calls: 0, rungs: {}, screen: 'review', steps_done: 2, evidence: null, duration_ms: 1, at_step: 'post',
          rehearsal: { step: 'post', checked: ['screen', 'target'], derived: 'form', request: { method: 'POST', url: 'http://127.0.0.1/post', fields: [{ name: 'member', value: '400118', secret: false }] } },
        }),
      );
    });
    const result = (await client.callTool({ name: 'demo_place_hold-rehearse', arguments: { member_number: '400118' } })) as CallToolResult;
    expect(asked).toEqual([true]);
    expect(result.isError).toBe(false);
    expect(result.structuredContent).toMatchObject({ word: 'REHEARSED', rehearsal: { derived: 'form', request: { method: 'POST' } } });
    // The card's own tool is no rehearsal.
    await client.callTool({ name: 'demo_place_hold', arguments: { member_number: '400118' } });
    expect(asked).toEqual([true, undefined]);
  });

  it.each([
    ['a wrong type', { member_number: 400118 }],
    ['an unknown field', { member_number: '400118', password: 'x' }],
    ['a pattern violation', { member_number: '40011' }],
    ['a missing field', {}],
    ['a 1 MB string', { member_number: '4'.repeat(1024 * 1024) }],
  ])('refuses %s as a tool error without opening a surface', async (_what, args) => {
    const { client, opened } = await connect({ HANDRAIL_SECRET_PASSWORD: 'pw' });
    const result = (await client.callTool({ name: 'demo_place_hold', arguments: args })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('Input validation error');
    expect(opened()).toBe(0);
  });

  it('answers a missing secret with REFUSED naming the variable, before any surface', async () => {
    const { client, opened } = await connect({ BASE_URL: 'http://127.0.0.1:9' });
    const result = (await client.callTool({ name: 'demo_place_hold', arguments: { member_number: '400118' } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ word: 'REFUSED', code: 'MISSING_SECRET', retryable: false });
    expect((result.structuredContent as Receipt).message).toContain('HANDRAIL_SECRET_PASSWORD');
    expect(opened()).toBe(0);
  });
  it('answers a secret too short to mask with a typed REFUSED, not an exception, and no surface', async () => {
    const { client, opened } = await connect({ HANDRAIL_SECRET_PASSWORD: 'pw' });
    const result = (await client.callTool({ name: 'demo_place_hold', arguments: { member_number: '400118' } })) as CallToolResult;
    expect(result.structuredContent).toMatchObject({ word: 'REFUSED', code: 'INVALID_INPUT' });
    expect(JSON.stringify(result)).not.toContain('"pw"');
    expect(opened()).toBe(0);
  });
});

describe('the menu', () => {
  it('serves only cards approved for their content and says why every other card is off', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'handrail-catalog-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const good = approvedCard();
    await writeFile(join(dir, 'a-approved.json'), JSON.stringify(good));
    await writeFile(join(dir, 'b-draft.json'), JSON.stringify({ ...minimalCard(), id: 'b', lifecycle: { state: 'draft' } }));
    await writeFile(join(dir, 'c-verified.json'), JSON.stringify({ ...minimalCard(), id: 'c' }));
    await writeFile(join(dir, 'd-edited.json'), JSON.stringify({ ...good, intent: 'Changed after approval.' }));
    await writeFile(join(dir, 'e-broken.json'), JSON.stringify({ ...minimalCard(), steps: [{ id: 'x' }] }));
    await writeFile(join(dir, 'f-twin.json'), JSON.stringify(good));
    await writeFile(join(dir, 'capability.schema.json'), '{}');
    const catalog = await loadCatalog(dir);
    expect(catalog.served.map((s) => s.card.id)).toEqual(['demo_place_hold']);
    expect(catalog.off.map((o) => [o.file.slice(dir.length + 1), o.why])).toEqual([
      ['b-draft.json', 'draft'],
      ['c-verified.json', 'verified'],
      ['d-edited.json', 'edited_after_approval'],
      ['e-broken.json', 'schema_error'],
      ['f-twin.json', 'duplicate_id'],
    ]);
    expect(catalog.off.find((o) => o.why === 'schema_error')?.reason).toMatch(/steps\[0\]\.screen/);
  });
});

describe('calls at once', () => {
  async function harness(concurrency: number): Promise<{ service: CallService; gates: (() => void)[]; max: () => number }> {
    // The engine checks the entry answers before it opens a surface: a tiny local server answers.
    const http = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    const dir = await mkdtemp(join(tmpdir(), 'handrail-calls-'));
    cleanups.push(async () => {
      await new Promise<void>((r) => http.close(() => r()));
      await rm(dir, { recursive: true, force: true });
    });
    const gates: (() => void)[] = [];
    let inflight = 0;
    let max = 0;
    const service = new CallService({
      env: { BASE_URL: `http://127.0.0.1:${(http.address() as AddressInfo).port}`, HANDRAIL_SECRET_PASSWORD: 'pw-unit' },
      concurrency,
      journalDir: join(dir, 'journals'),
      evidenceDir: join(dir, 'runs'),
      log: () => undefined,
      // Each "browser" stays open until the test lets it go, then fails: what matters is how many are open at once.
      surfaceFactory: () => {
        inflight++;
        max = Math.max(max, inflight);
        return new Promise((_resolve, reject) =>
          gates.push(() => {
            inflight--;
            reject(new Error('let go by the test'));
          }),
        );
      },
    });
    return { service, gates, max: () => max };
  }

  it('runs different records side by side, but never more than the limit', async () => {
    const { service, gates, max } = await harness(2);
    const card = Capability.parse(approvedCard());
    const calls = ['400001', '400002', '400003', '400004'].map((m) => service.call(card, { member_number: m }));
    await vi.waitFor(() => expect(gates.length).toBe(2));
    gates.splice(0).forEach((g) => g());
    await vi.waitFor(() => expect(gates.length).toBe(2));
    gates.splice(0).forEach((g) => g());
    const results = await Promise.all(calls);
    expect(max()).toBe(2);
    expect(results.map((r) => r.code)).toEqual(['BROWSER_CRASHED', 'BROWSER_CRASHED', 'BROWSER_CRASHED', 'BROWSER_CRASHED']);
  });

  it('runs two calls for the same record one after the other, even with slots free', async () => {
    const { service, gates, max } = await harness(4);
    const card = Capability.parse(approvedCard());
    const calls = [service.call(card, { member_number: '400001' }), service.call(card, { member_number: '400001' })];
    await vi.waitFor(() => expect(gates.length).toBe(1));
    gates.splice(0).forEach((g) => g());
    await vi.waitFor(() => expect(gates.length).toBe(1));
    gates.splice(0).forEach((g) => g());
    await Promise.all(calls);
    expect(max()).toBe(1);
  });
});

describe('inputs the server binds', () => {
  it('are off the schema (so an agent passing one is refused as unknown), like secrets', () => {
    const card = Capability.parse(approvedCard(lookupCard()));
    const schema = inputSchemaFor(card, { count: '3' });
    expect(Object.keys(z.toJSONSchema(schema).properties ?? {})).toEqual(['member_number']);
    expect(schema.safeParse({ member_number: '400118', count: 3 }).success).toBe(false);
  });

  it('reach only the cards that declare them: another card\'s call is not refused for an unknown input', async () => {
    const { client } = await connect({ HANDRAIL_SECRET_PASSWORD: 'pw-unit-long' }, { count: '3' });
    const { tools } = await client.listTools();
    expect(Object.keys(tools.find((t) => t.name === 'demo_lookup')?.inputSchema.properties ?? {})).toEqual(['member_number']);
    const r = (await client.callTool({ name: 'demo_place_hold', arguments: { member_number: '400118' } })) as CallToolResult;
    // Past input validation (no UNKNOWN_INPUT for `count`): stopped only by the entry's missing BASE_URL.
    expect(r.structuredContent).toMatchObject({ word: 'REFUSED', code: 'MISSING_INPUT' });
  });

  it('must fit the input they fill, and can never be a secret', () => {
    const card = Capability.parse(approvedCard());
    expect(bindingProblem(card, 'member_number', '400118')).toBeNull();
    expect(bindingProblem(card, 'member_number', '40011x')).toMatch(/--bind member_number: does not match the pattern/);
    expect(bindingProblem(card, 'password', 'hunter-22')).toMatch(/secret input/);
  });
});

describe('an answer in the caller\'s words', () => {
  it('names the input the page did not have, with its value, instead of the selector', () => {
    const card = Capability.parse(approvedCard());
    const step = card.steps.find((s) => card.targets[s.target]?.name?.eq.includes('{{input.member_number}}'));
    expect(step).toBeDefined();
    const said = blameInputs(card, { word: 'FAILED', code: 'TARGET_NOT_FOUND', at_step: step?.id, message: 'target member_link: no rung found it' }, { member_number: '999999' });
    expect(said).toMatch(/did not accept member_number "999999"/);
    expect(said).toContain('no rung found it');
    // Other words are left alone: a business outcome or a commit in doubt says what it says.
    expect(blameInputs(card, { word: 'UNSAFE_TO_RETRY', code: 'COMMIT_IN_DOUBT', at_step: step?.id, message: 'x' })).toBeNull();
  });
});

describe('the live catalog', () => {
  it('follows the folder and tells a connected client the tool list changed; a stateless server says it will not', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'handrail-live-'));
    const home = await mkdtemp(join(tmpdir(), 'handrail-home-'));
    const live = await LiveCatalog.open(dir, { settleMs: 20 });
    const service = new CallService({ env: { HANDRAIL_HOME: home }, log: () => undefined });
    const server = buildMcpServer(live, service, { follow: true });
    const { client, close } = await linkedClient(server);
    cleanups.push(async () => {
      await close();
      live.close();
      await service.close();
      await rm(dir, { recursive: true, force: true });
      await rm(home, { recursive: true, force: true });
    });
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes++;
    });
    expect(client.getServerCapabilities()?.tools?.listChanged).toBe(true);
    expect((await client.listTools()).tools).toEqual([]);
    await writeFile(join(dir, 'place.json'), JSON.stringify(approvedCard()));
    await vi.waitFor(() => expect(changes).toBe(1), { timeout: 5_000 });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['demo_place_hold', 'demo_place_hold-rehearse']);
    // Edited after approval: the content hash no longer matches, so the tool is withdrawn.
    await writeFile(join(dir, 'place.json'), JSON.stringify({ ...approvedCard(), intent: 'Edited.' }));
    await vi.waitFor(() => expect(changes).toBe(2), { timeout: 5_000 });
    expect((await client.listTools()).tools).toEqual([]);

    const { client: other, close: closeOther } = await linkedClient(buildMcpServer(live.served, service));
    cleanups.push(closeOther);
    expect(other.getServerCapabilities()?.tools?.listChanged).toBe(false);
  });
});
