// A card that returns a table: `handrail replay` of the PLUMBLINE member-shares card gives exactly the shares the bank's store holds (balance and hold status included), and an agent calling it through `handrail serve` gets rows that are valid against the tool's outputSchema.
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { expect, test } from '@playwright/test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { Bank } from '../../demo/plumbline/server.ts';
import { money } from '../../demo/plumbline/pages.ts';
import { contentHash } from '../../runner/approval.ts';
import { LOG_FILE } from '../../runner/evidence.ts';
import { loadCapability } from '../../shared/schema/index.ts';
import { bankScene } from './support/bank.ts';
import { handrail } from './support/cli.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const CARD = 'capabilities/plumbline-member-shares.json';
const PASSWORD = `pw-${randomBytes(6).toString('hex')}`;
const MEMBER = '400118';
let bank: Bank;
let scratch: string;

bankScene({ scratch: 'handrail-rows-', operatorPassword: PASSWORD, reset: true }, (s) => ({ app: bank, scratch } = s));
test.beforeEach(() => {
  // One share held, so the status column is not the same on every row.
  expect(bank.store.postHold(`${MEMBER}-S0005`, 'LEGAL', 'rows test', 'OP1001').kind).toBe('posted');
});

/** The member's shares as the judge reports them from the store, in the card's columns and the screen's words. */
async function judgeRows(member = MEMBER): Promise<Record<string, string>[]> {
  const res = await fetch(`${bank.url}/_judge/shares/${member}`);
  expect(res.status).toBe(200);
  const shares = (await res.json()) as { id: string; type: string; balance_cents: number; hold: string | null }[];
  expect(shares.length).toBeGreaterThan(0);
  return shares.map((s) => ({ share_id: s.id, type: s.type, balance: money(s.balance_cents), status: s.hold ? `HELD ${s.hold}` : 'ACTIVE' }));
}

test('replay returns exactly the rows the store has, a read-only card needing no approval, the password nowhere', async () => {
  const home = await mkdtemp(join(scratch, 'home-'));
  const ran = await handrail(
    ['replay', CARD, '--base-url', bank.url, '--input', 'operator_id=OP1001', '--input', `member_number=${MEMBER}`, '--evidence', join(scratch, 'ev-cli')],
    { ...process.env, HANDRAIL_HOME: home, HANDRAIL_SECRET_PASSWORD: PASSWORD },
  );
  expect(ran.code, ran.stderr).toBe(0);
  const receipt = JSON.parse(ran.stdout) as { word: string; outputs: Record<string, unknown>; rungs: Record<string, string> };
  expect(receipt.word).toBe('SUCCESS');
  // The table is found by its column header's role and name, not by the CSS fallback.
  expect(receipt.rungs['shares_table']).toBe('role_name');
  const expected = await judgeRows();
  expect(receipt.outputs['shares']).toEqual(expected);
  expect(expected.length).toBeGreaterThan(1);
  expect(expected.some((r) => r['status'] === 'HELD LEGAL')).toBe(true);
  expect(ran.stdout + ran.stderr).not.toContain(PASSWORD);
  const log = await readFile(join(scratch, 'ev-cli', LOG_FILE), 'utf8');
  expect(log).toContain('"read_shares"');
  expect(log).not.toContain(PASSWORD);
});

test('a batch (--inputs) writes one JSON line per member, each with that member\'s rows', async () => {
  const csv = join(scratch, 'members.csv');
  await writeFile(csv, 'member_number\n400118\n400226\n');
  const ran = await handrail(
    ['replay', CARD, '--base-url', bank.url, '--input', 'operator_id=OP1001', '--inputs', csv, '--parallel', '1'],
    { ...process.env, HANDRAIL_HOME: await mkdtemp(join(scratch, 'home-')), HANDRAIL_SECRET_PASSWORD: PASSWORD },
  );
  expect(ran.code, ran.stderr).toBe(0);
  const lines = ran.stdout.trim().split('\n').map((l) => JSON.parse(l) as { row: number; word: string; outputs: Record<string, unknown> });
  expect(lines).toHaveLength(2);
  const byRow = [...lines].sort((a, b) => a.row - b.row);
  expect(byRow.map((l) => l.word)).toEqual(['SUCCESS', 'SUCCESS']);
  expect(byRow[0]?.outputs['shares']).toEqual(await judgeRows('400118'));
  expect(byRow[1]?.outputs['shares']).toEqual(await judgeRows('400226'));
});

test('an MCP call returns the rows as structuredContent, valid against the tool\'s outputSchema', async () => {
  const caps = join(scratch, 'capabilities');
  await mkdir(caps, { recursive: true });
  const text = await readFile(join(ROOT, CARD), 'utf8');
  const loaded = loadCapability(text);
  if (!loaded.ok) throw new Error(`${CARD} does not load`);
  const at = '2026-01-01T00:00:00.000Z';
  const raw = JSON.parse(text) as Record<string, unknown>;
  await writeFile(
    join(caps, 'member-shares.json'),
    JSON.stringify({ ...raw, lifecycle: { state: 'approved', reliability: { k: 3, n: 3, at }, approval: { by: 'Test Reviewer', at, content_hash: contentHash(loaded.value) } } }),
  );
  const env: Record<string, string> = {
    PATH: process.env['PATH'] ?? '',
    HOME: process.env['HOME'] ?? scratch,
    HANDRAIL_HOME: await mkdtemp(join(scratch, 'home-')),
    BASE_URL: bank.url,
    HANDRAIL_SECRET_PASSWORD: PASSWORD,
  };
  const transport = new StdioClientTransport({ command: process.execPath, args: [join(ROOT, 'bin/handrail.mjs'), 'serve', caps, '--evidence-dir', join(scratch, 'runs')], env, stderr: 'pipe', cwd: ROOT });
  const client = new Client({ name: 'handrail-rows-e2e', version: '0.0.0' });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === 'plumbline_member_shares');
    const shares = (tool?.outputSchema as unknown as { properties: { outputs: { properties: Record<string, unknown> } } }).properties.outputs.properties['shares'];
    expect(shares).toMatchObject({ type: 'array', items: { type: 'object', additionalProperties: false, required: ['balance', 'share_id', 'status', 'type'] } });
    const result = (await client.callTool({ name: 'plumbline_member_shares', arguments: { operator_id: 'OP1001', member_number: MEMBER } })) as CallToolResult;
    expect(result.isError ?? false).toBe(false);
    const content = result.structuredContent as { word: string; outputs: Record<string, unknown> };
    expect(content.word).toBe('SUCCESS');
    expect(content.outputs['shares']).toEqual(await judgeRows());
    // The same check an MCP client makes, with the SDK's own validator, against the schema the server listed.
    const valid = new AjvJsonSchemaValidator().getValidator(tool?.outputSchema as never)(content);
    expect(valid.errorMessage).toBeUndefined();
    expect(valid.valid).toBe(true);
    // And it can fail: a row with a column the card does not declare is refused by that schema.
    const wrong = { ...content, outputs: { shares: [{ share_id: 'x', type: 't', balance: '0.00', status: 'ACTIVE', owner: 'someone' }] } };
    expect(new AjvJsonSchemaValidator().getValidator(tool?.outputSchema as never)(wrong).valid).toBe(false);
    expect(JSON.stringify(result)).not.toContain(PASSWORD);
  } finally {
    await client.close();
  }
});
