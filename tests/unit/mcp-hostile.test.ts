// A hostile or careless MCP caller gets a tool error that names the field — never a JSON-RPC internal error, never a
// silently dropped argument, never an echoed value — and no browser starts.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { buildMcpServer } from '../../runner/mcp/server.ts';
import { Capability } from '../../shared/schema/index.ts';
import { approvedCard } from '../fixtures/mcp/cards.ts';
import { countingService, linkedClient } from '../fixtures/mcp/linked.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function connect(): Promise<{ client: Client; opened: () => number }> {
  const { service, opened } = countingService({ HANDRAIL_SECRET_PASSWORD: 'hunter-22-zz', BASE_URL: 'http://127.0.0.1:9' });
  const server = buildMcpServer([{ file: 'place.json', card: Capability.parse(approvedCard()), by: 'Dana Reviewer' }], service);
  const { client, close } = await linkedClient(server);
  cleanups.push(async () => {
    await close();
    await service.close();
  });
  return { client, opened };
}

/** Sends tools/call with raw params, as a hostile client would (the SDK client would not let us). */
async function rawCall(client: Client, params: unknown): Promise<CallToolResult> {
  return (await client.request({ method: 'tools/call', params: params as Record<string, unknown> }, CallToolResultSchema)) as CallToolResult;
}

const SECRETISH = 'hunter-22-zz';

describe('malformed and hostile tool calls', () => {
  it.each([
    ['__proto__ as an argument name', JSON.parse(`{"member_number": "400118", "__proto__": {"x": "${SECRETISH}"}}`) as unknown, '__proto__'],
    ['constructor as an argument name', { member_number: '400118', constructor: SECRETISH }, 'constructor'],
    ['a misspelt secret name (passwrd)', { member_number: '400118', passwrd: SECRETISH }, 'passwrd'],
  ])('refuses %s before any browser, naming it and never echoing the value', async (_what, args, name) => {
    const { client, opened } = await connect();
    const result = await rawCall(client, { name: 'demo_place_hold', arguments: args });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result)).toContain(name);
    expect(JSON.stringify(result)).not.toContain(SECRETISH);
    expect(opened()).toBe(0);
  });

  it.each([
    ['an array', ['400118']],
    ['a string', '400118'],
    ['a number', 7],
    ['null', null],
  ])('answers %s as arguments with a tool error naming "arguments", not JSON-RPC -32603', async (_what, args) => {
    const { client, opened } = await connect();
    const result = await rawCall(client, { name: 'demo_place_hold', arguments: args });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('arguments');
    expect(opened()).toBe(0);
  });

  it('names the field of a wrong type and does not echo a huge value', async () => {
    const { client, opened } = await connect();
    const result = await rawCall(client, { name: 'demo_place_hold', arguments: { member_number: 'x'.repeat(1_000_000) } });
    expect(result.isError).toBe(true);
    const text = JSON.stringify(result);
    expect(text).toContain('member_number');
    expect(text.length).toBeLessThan(5_000);
    expect(opened()).toBe(0);
  });
});
