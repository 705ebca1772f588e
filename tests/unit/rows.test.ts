// Rows as outputs: a card that returns a table as rows with named columns loads (and a bad one is refused naming its path), the engine fills the rows over the in-memory surface with secrets masked, and the MCP tool's outputSchema describes exactly those rows.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { showText } from '../../runner/cli/show.ts';
import { receiptOf, receiptSchemaFor, toolSpecFor } from '../../runner/mcp/tools.ts';
import { renderReport } from '../../runner/report.ts';
import { LOG_FILE } from '../../runner/evidence.ts';
import { runCapability } from '../../runner/run.ts';
import { Capability, loadCapability, type CapabilityInput } from '../../shared/schema/index.ts';
import { RunResult } from '../../shared/schema/result.ts';
import { MemorySurface, type MemoryApp } from '../fixtures/memory-surface.ts';

const PASSWORD = 'opensesame-77';

/** A member page with a shares table; one share's status shows the operator's password (a hostile page). */
function desk(statusOfLast = 'ACTIVE'): MemoryApp {
  return {
    screens: {
      member: {
        title: 'Member Detail',
        text: 'MEMBER DETAIL 400118',
        furniture: ["strong 'MEMBER DETAIL'", 'table>row>columnheader'],
        elements: [
          {
            role: 'columnheader',
            name: 'Share ID',
            control: false,
            verbs: ['read_rows'],
            rows: [
              { cells: { 'Share ID': '400118-S0001', Type: 'SAVINGS', Balance: '1,204.17', Status: 'ACTIVE', Action: 'Hold' }, text: '400118-S0001 SAVINGS 1,204.17 ACTIVE Hold' },
              { cells: { 'Share ID': '400118-S0005', Type: 'CHECKING', Balance: '88.00', Status: statusOfLast, Action: 'Hold' }, text: `400118-S0005 CHECKING 88.00 ${statusOfLast} Hold` },
            ],
          },
          { role: 'textbox', hint: 'Password', secret: true },
        ],
      },
    },
  };
}

function sharesCard(surface: MemorySurface): CapabilityInput {
  return {
    schema: 'handrail.capability/v1',
    id: 'member_shares',
    intent: 'List a member\'s shares.',
    surface: 'browser',
    entry: 'memory://member',
    inputs: { password: { type: 'string', secret: true } },
    outputs: {
      shares: {
        kind: 'rows',
        from_step: 'read_shares',
        columns: { share_id: { header: 'Share ID' }, balance: { header: 'Balance' }, status: { header: 'Status' } },
        description: 'The member\'s shares',
      },
    },
    screens: { member: surface.screenRecord('member') },
    targets: {
      password_field: { role: 'textbox', hint: 'Password', supports: ['set_value'], ladder: [{ rung: 'label', cost: 200 }], fingerprint: { over: ['role'] } },
      shares_table: { role: 'columnheader', name: { eq: 'Share ID' }, supports: ['read_rows'], ladder: [{ rung: 'role_name', cost: 100 }], fingerprint: { over: ['role', 'name'] } },
    },
    steps: [
      { id: 'type_password', screen: 'member', op: { verb: 'set_value', value: '{{input.password}}' }, target: 'password_field', effect: { kind: 'stage' } },
      { id: 'read_shares', screen: 'member', op: { verb: 'read_rows' }, target: 'shares_table', effect: { kind: 'read' } },
    ],
    outcomes: { success: { screens: ['member'] } },
    lifecycle: { state: 'draft' },
  };
}

let tmp = '';
let runs = 0;
beforeEach(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'handrail-rows-'));
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

async function run(app: MemoryApp, mutate: (c: CapabilityInput) => void = () => undefined): Promise<RunResult> {
  const surface = new MemorySurface(app);
  const input = sharesCard(surface);
  mutate(input);
  const card = Capability.parse(input);
  return runCapability({ card, inputs: { password: PASSWORD }, env: {}, surface: () => Promise.resolve(surface), evidenceDir: path.join(tmp, `run-${++runs}`), allowUnapproved: true });
}

function refusal(mutate: (c: CapabilityInput) => void): { path: string; message: string }[] {
  const input = sharesCard(new MemorySurface(desk()));
  mutate(input);
  const loaded = loadCapability(JSON.stringify(input));
  if (loaded.ok) throw new Error('the card should have been refused');
  return loaded.issues;
}

describe('a rows output in the card', () => {
  it('loads, and a card whose outputs are strings still loads unchanged', () => {
    const card = Capability.parse(sharesCard(new MemorySurface(desk())));
    expect(card.outputs['shares']).toMatchObject({ kind: 'rows', columns: { share_id: { header: 'Share ID' } } });
  });

  it.each<[string, (c: CapabilityInput) => void, string, RegExp]>([
    ['an unknown kind', (c) => ((c.outputs!['shares'] as { kind: string }).kind = 'table'), 'outputs.shares.kind', /"kind": "rows".*"text"/],
    ['no columns', (c) => ((c.outputs!['shares'] as { columns: object }).columns = {}), 'outputs.shares.columns', /at least one column/],
    ['a column with both header and text', (c) => ((c.outputs!['shares'] as { columns: Record<string, object> }).columns['status'] = { header: 'Status', text: true }), 'outputs.shares.columns.status', /either its "header" or "text"/],
    ['a column with an unknown field', (c) => ((c.outputs!['shares'] as { columns: Record<string, object> }).columns['status'] = { heading: 'Status' }), 'outputs.shares.columns.status', /heading/],
    ['a rows output from a step that is not read_rows', (c) => ((c.outputs!['shares'] as { from_step: string }).from_step = 'type_password'), 'outputs.shares.from_step', /not a read_rows step/],
    ['a regex on a rows output', (c) => ((c.outputs!['shares'] as Record<string, unknown>)['regex'] = 'x'), 'outputs.shares', /regex/],
    ['read_rows on a textbox', (c) => (c.steps[1]!.target = 'password_field'), 'targets.password_field.role', /must be one of table, grid/],
    ['read_rows whose rows no output returns', (c) => (c.outputs = {}), 'steps[1].op.verb', /no output of kind "rows"/],
  ])('refuses %s, naming the path', (_what, mutate, at, message) => {
    const issues = refusal(mutate);
    expect(issues.find((i) => i.path === at), JSON.stringify(issues)).toMatchObject({ message: expect.stringMatching(message) as string });
  });
});

describe('replaying a rows card', () => {
  it('returns the rows by the card\'s column names, in the table\'s order', async () => {
    const r = await run(desk('HELD'));
    expect(r).toMatchObject({ word: 'SUCCESS', code: 'OK' });
    expect(r.outputs['shares']).toEqual([
      { share_id: '400118-S0001', balance: '1,204.17', status: 'ACTIVE' },
      { share_id: '400118-S0005', balance: '88.00', status: 'HELD' },
    ]);
    expect(RunResult.parse(r)).toEqual(r);
  });

  it('shows the rows as a table on the run\'s report page, and the columns in `handrail show`', async () => {
    const r = await run(desk('HELD'));
    const page = await renderReport(r.evidence ?? '');
    expect(page.html).toContain('<h2>Outputs</h2>');
    expect(page.html).toMatch(/<thead><tr><th>share_id<\/th><th>balance<\/th><th>status<\/th><\/tr><\/thead><tbody><tr><td>400118-S0001<\/td>/);
    expect(page.html).toContain('<td>HELD</td>');
    expect(showText(Capability.parse(sharesCard(new MemorySurface(desk()))))).toContain("shares  rows from read_shares, columns share_id ← 'Share ID', balance ← 'Balance', status ← 'Status'");
  });

  it('masks a secret that shows up inside a row', async () => {
    const r = await run(desk(`NOTE ${PASSWORD}`));
    expect(r.word).toBe('SUCCESS');
    expect(JSON.stringify(r)).not.toContain(PASSWORD);
    expect((r.outputs['shares'] as Record<string, string>[])[1]?.['status']).toMatch(/^NOTE (?!opensesame)/);
    const log = await fs.readFile(path.join(r.evidence ?? '', LOG_FILE), 'utf8');
    expect(log).toContain('read_shares');
    expect(log).not.toContain(PASSWORD);
  });

  it('fails OUTPUT_NOT_FOUND naming a column whose header the table does not have', async () => {
    const r = await run(desk(), (c) => ((c.outputs!['shares'] as { columns: Record<string, object> }).columns['owner'] = { header: 'Owner' }));
    expect(r).toMatchObject({ word: 'FAILED', code: 'OUTPUT_NOT_FOUND', at_step: 'read_shares' });
    expect(r.message).toMatch(/"Owner".*"Share ID"/);
  });

  it('reads a list item\'s text for a `text` column, and an empty table as no rows', async () => {
    const app = desk();
    const el = app.screens['member']!.elements[0]!;
    el.rows = [];
    const r = await run(app, (c) => ((c.outputs!['shares'] as { columns: object }).columns = { line: { text: true } }));
    expect(r.outputs['shares']).toEqual([]);
    el.rows = [{ cells: {}, text: 'Buy milk' }];
    const r2 = await run(app, (c) => ((c.outputs!['shares'] as { columns: object }).columns = { line: { text: true } }));
    expect(r2.outputs['shares']).toEqual([{ line: 'Buy milk' }]);
  });

  it('with no rows, still fails OUTPUT_NOT_FOUND when the table lacks a column\'s header, and answers [] when it has them all', async () => {
    const app = desk();
    const el = app.screens['member']!.elements[0]!;
    el.rows = [];
    el.headers = ['Share ID', 'Type', 'Status'];
    const r = await run(app);
    expect(r).toMatchObject({ word: 'FAILED', code: 'OUTPUT_NOT_FOUND' });
    expect(r.message).toMatch(/"Balance"/);
    el.headers = ['Share ID', 'Type', 'Balance', 'Status'];
    const r2 = await run(app);
    expect(r2).toMatchObject({ word: 'SUCCESS' });
    expect(r2.outputs['shares']).toEqual([]);
  });

  it('fails ACTION_FAILED when the target reads no rows (the surface refuses)', async () => {
    const app = desk();
    delete app.screens['member']!.elements[0]!.rows;
    const r = await run(app);
    expect(r).toMatchObject({ word: 'FAILED', code: 'ACTION_FAILED' });
    expect(r.message).toMatch(/read_rows on .*not a table, grid or list/);
  });
});

describe('the MCP tool of a rows card', () => {
  it('declares the rows in its outputSchema, and the receipt of a run is valid against it', async () => {
    const card = Capability.parse(sharesCard(new MemorySurface(desk())));
    const schema = z.toJSONSchema(toolSpecFor(card).outputSchema) as unknown as { properties: { outputs: { properties: Record<string, unknown> } } };
    expect(schema.properties.outputs.properties['shares']).toMatchObject({
      type: 'array',
      items: { type: 'object', required: ['share_id', 'balance', 'status'], additionalProperties: false },
    });
    const r = await run(desk());
    const receipt = receiptOf(r, card);
    expect(receiptSchemaFor(card).safeParse(receipt).success).toBe(true);
    // A row with a column the card does not declare is not a valid receipt of this tool.
    const wrong = { ...receipt, outputs: { shares: [{ share_id: 'x', balance: '1', status: 'A', owner: 'someone' }] } };
    expect(receiptSchemaFor(card).safeParse(wrong).success).toBe(false);
  });
});
