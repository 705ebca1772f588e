// The extension offers what the runner offers on real web apps: tables and div grids read as rows, recorded as the runner's book step and replayed by the runner.
import { test, expect } from '@playwright/test';
import { BrowserSurface } from '../../runner/browser/surface.ts';
import { runCapability } from '../../runner/run.ts';
import { compile } from '../../shared/compile/compile.ts';
import { parseScript } from '../../shared/author/scripted.ts';
import { startFakeAnthropic } from '../fixtures/fake-anthropic.ts';
import { serveFixtures, type FixtureServer } from '../fixtures/server.ts';
import { exportBook, launchWithExtension, openPanel, parseBook, saveModelSettings, startSession, type Loaded } from '../fixtures/extension/harness.ts';

const API_KEY = `sk-fake-${Math.random().toString(36).slice(2, 10)}`;

/** An unnamed table (read through its first column header, as a card targets it) and a named grid of divs. */
const LEDGER = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Ledger</title></head><body>
<h1>Ledger</h1>
<table>
  <thead><tr><th>Account</th><th>Balance</th></tr></thead>
  <tbody><tr><td>A-1</td><td>10.00</td></tr><tr><td>A-2</td><td>25.50</td></tr><tr><td>A-3</td><td>0.75</td></tr></tbody>
</table>
<div role="grid" aria-label="Open cases">
  <div role="row"><span role="columnheader">Case</span><span role="columnheader">Owner</span></div>
  <div role="row"><span role="gridcell">C-101</span><span role="gridcell">Ada</span></div>
  <div role="row"><span role="gridcell">C-102</span><span role="gridcell">Grace</span></div>
</div>
</body></html>`;

let server: FixtureServer;
let ext: Loaded;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  server = await serveFixtures({
    '/ledger': LEDGER,
  });
  ext = await launchWithExtension();
});
test.afterAll(async () => {
  await ext?.close();
  await server?.close();
});

test('model mode: read_rows offers a table and a div grid as the runner does; the book has the runner\'s read_rows steps and the card replays them', async () => {
  test.setTimeout(120_000);
  const script = parseScript(
    JSON.stringify({
      turns: [
        [
          { tool: 'assert_screen', label: 'ledger', title: 'Ledger' },
          { tool: 'read_rows', table: 'T2', output: 'accounts', columns: { account: 'Account', balance: 'Balance' } },
          { tool: 'read_rows', table: 'T1', output: 'cases', columns: { case_id: 'Case', owner: 'Owner' } },
          { tool: 'finish', label: 'ledger' },
        ],
      ],
    }),
  );
  const fake = await startFakeAnthropic(script, { apiKey: API_KEY });
  try {
    const page = await ext.context.newPage();
    await page.goto(`${server.url}/ledger`);
    const panel = await openPanel(ext, `${server.url}/ledger`);
    await saveModelSettings(panel, { key: API_KEY, baseURL: fake.url, model: 'claude-fake' });
    await startSession(panel, { mode: 'model', goal: 'List the accounts and the open cases', owner: 'Dana Reviewer', inputs: [] });
    await expect(panel.getByTestId('phase')).toHaveText('finished', { timeout: 30_000 });
    expect(fake.problems).toEqual([]);
    // The model was shown both, as the runner shows them (shared/author/rows.ts).
    const first = JSON.parse(fake.bodies[0] ?? '{}') as { messages: Array<{ content: Array<{ text?: string }> }> };
    const prompt = first.messages[0]?.content[0]?.text ?? '';
    expect(/Rows \(read_rows\):\n([^]*?)\nText:/.exec(prompt)?.[1]).toBe("T1: grid 'Open cases', columns 'Case', 'Owner'; 2 rows\nT2: table, columns 'Account', 'Balance'; 3 rows");

    const jsonl = await exportBook(panel);
    const reads = parseBook(jsonl).flatMap((l) => (l.kind === 'act' && l.verb === 'read_rows' ? [{ role: l.control.role, name: l.control.name, rows: l.rows }] : []));
    expect(reads).toEqual([
      { role: 'columnheader', name: 'Account', rows: { output: 'accounts', columns: { account: { header: 'Account' }, balance: { header: 'Balance' } }, headers: ['Account', 'Balance'], count: 3 } },
      { role: 'grid', name: 'Open cases', rows: { output: 'cases', columns: { case_id: { header: 'Case' }, owner: { header: 'Owner' } }, headers: ['Case', 'Owner'], count: 2 } },
    ]);
    const compiled = compile(parseBook(jsonl), { id: 'ledger_rows' });
    if (!compiled.ok) throw new Error(`holes: ${JSON.stringify(compiled.holes)}`);
    const result = await runCapability({
      card: compiled.card,
      inputs: {},
      env: { BASE_URL: server.url },
      surface: () => BrowserSurface.launch(),
      allowUnapproved: true,
      evidenceDir: test.info().outputPath('evidence-rows'),
    });
    expect(result).toMatchObject({ word: 'SUCCESS', llm_calls: 0 });
    expect(result.outputs).toEqual({
      accounts: [
        { account: 'A-1', balance: '10.00' },
        { account: 'A-2', balance: '25.50' },
        { account: 'A-3', balance: '0.75' },
      ],
      cases: [
        { case_id: 'C-101', owner: 'Ada' },
        { case_id: 'C-102', owner: 'Grace' },
      ],
    });
    await page.close();
    await panel.close();
  } finally {
    await fake.close();
  }
});
