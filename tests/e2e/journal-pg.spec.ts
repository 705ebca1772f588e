// Never twice across machines: runners and MCP servers that share nothing but one PostgreSQL journal
// (HANDRAIL_JOURNAL_URL; each with its own HANDRAIL_HOME, as on separate machines) race on one intent against
// PLUMBLINE, and the bank's own counter sees Post Hold pressed once; a crash between dispatched and observed is in
// doubt for every machine until a person settles it in the database.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect, test } from '@playwright/test';
import { startBank, type Bank } from '../../demo/plumbline/server.ts';
import type { RunResult } from '../../shared/schema/result.ts';
import { NO_POSTGRES, postgresBin, startPostgres, type Postgres } from '../fixtures/postgres.ts';
import { handrail } from './support/cli.ts';
import { serveChild, type Child } from './support/serve.ts';

const CARD = 'capabilities/plumbline-place-hold.json';
const PASSWORD = `pw-${randomBytes(6).toString('hex')}`;
const HAVE_PG = postgresBin() !== null;
let bank: Bank;
let cluster: Postgres;
let scratch: string;
let url: string;

test.describe.configure({ timeout: 240_000 });
test.skip(!HAVE_PG, NO_POSTGRES);

test.beforeAll(async () => {
  bank = await startBank({ port: 0, operatorPassword: PASSWORD });
  scratch = await mkdtemp(join(tmpdir(), 'handrail-pg-e2e-'));
  cluster = await startPostgres();
});
test.afterAll(async () => {
  await bank?.close();
  await cluster?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});
test.beforeEach(async () => {
  bank.store.reset();
  url = await cluster.newDatabase();
});

const presses = (share: string): number => bank.store.holdFor(share).postPresses;
/** What one machine has of its own: a state directory nobody else sees. */
const machine = async (): Promise<NodeJS.ProcessEnv> => ({
  ...process.env,
  HANDRAIL_HOME: await mkdtemp(join(scratch, 'machine-')),
  HANDRAIL_SECRET_PASSWORD: PASSWORD,
  HANDRAIL_JOURNAL_URL: url,
});

async function replay(env: NodeJS.ProcessEnv, share: string): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string; receipt: RunResult }> {
  const ran = await handrail(
    [
      'replay', CARD, '--base-url', bank.url, '--evidence', await mkdtemp(join(scratch, 'ev-')),
      '--input', 'operator_id=OP1001', '--input', `member_number=${share.slice(0, 6)}`, '--input', `share_id=${share}`,
      '--input', 'reason=LEGAL', '--settle-timeout', '5000',
    ],
    env,
  );
  return { ...ran, receipt: (ran.stdout ? JSON.parse(ran.stdout) : {}) as RunResult };
}

const word = (r: { word: string; from_journal?: boolean }): string => `${r.word}${r.from_journal ? '/journal' : ''}`;

test('two runners on two machines race on one intent: Post Hold is pressed once, the other is BUSY or answered from the journal', async () => {
  const [a, b] = [await machine(), await machine()];
  const both = await Promise.all([replay(a, '400118-S0005'), replay(b, '400118-S0005')]);
  const words = both.map((r) => word(r.receipt)).sort();
  expect(presses('400118-S0005')).toBe(1);
  expect(words.filter((w) => w === 'SUCCESS')).toHaveLength(1);
  for (const w of words) expect(['SUCCESS', 'SUCCESS/journal', 'BUSY']).toContain(w);
  const winner = both.find((r) => r.receipt.word === 'SUCCESS' && !r.receipt.from_journal)?.receipt;
  expect(winner?.journal).toBe(`postgres://127.0.0.1:${cluster.port}/${new URL(url).pathname.slice(1)}`);
  // A third machine asks again later: the first receipt, from the database, nothing pressed.
  const later = await replay(await machine(), '400118-S0005');
  expect(later.receipt).toMatchObject({ word: 'SUCCESS', from_journal: true, run_id: winner?.run_id, outputs: winner?.outputs });
  expect(presses('400118-S0005')).toBe(1);
  for (const r of [...both, later]) expect(`${r.stderr}${JSON.stringify(r.receipt)}`).not.toContain(cluster.password);
});

test('a run answered through the shared journal is found by its id and anchored by its receipt on another machine', async () => {
  const ran = await replay(await machine(), '400118-S0005');
  expect(ran.receipt).toMatchObject({ word: 'SUCCESS' });
  // Another machine (its own empty HANDRAIL_HOME) knows the run only through the database.
  const other = await machine();
  const report = await handrail(['report', ran.receipt.run_id, '-o', join(scratch, `report-${ran.receipt.run_id}.html`)], other);
  expect(report.code, report.stderr).toBe(0);
  expect(report.stderr).toContain('SUCCESS · evidence intact');
  expect(report.stderr).not.toContain('unanchored');
  expect(report.stderr).not.toContain(cluster.password);
  // Without the database the same id is unknown there: the anchor came from the shared journal.
  const alone = await handrail(['report', ran.receipt.run_id], { ...other, HANDRAIL_JOURNAL_URL: '' });
  expect(alone.code).not.toBe(0);
  expect(alone.stderr).toContain('neither an evidence directory nor a run id');
});

test('two MCP servers behind one load balancer share the journal: the same call to both at once presses once', async () => {
  const servers: Child[] = [];
  try {
    for (let i = 0; i < 2; i++) servers.push(await serveChild(['capabilities', '--evidence-dir', join(scratch, `runs-${i}`)], { ...(await machine()), BASE_URL: bank.url }));
    const args = { operator_id: 'OP1001', member_number: '400337', share_id: '400337-S0001', reason: 'LEGAL' };
    const call = async (s: Child): Promise<RunResult> => ((await s.client.callTool({ name: 'plumbline_place_hold', arguments: args })) as CallToolResult).structuredContent as RunResult;
    const answers = await Promise.all(servers.map(call));
    const words = answers.map(word).sort();
    expect(presses('400337-S0001')).toBe(1);
    expect(words.filter((w) => w === 'SUCCESS')).toHaveLength(1);
    for (const w of words) expect(['SUCCESS', 'SUCCESS/journal', 'BUSY']).toContain(w);
    // Whichever server the balancer picks next answers from the shared journal.
    const winner = answers.find((r) => r.word === 'SUCCESS' && !r.from_journal);
    for (const s of servers) expect(await call(s)).toMatchObject({ word: 'SUCCESS', from_journal: true, run_id: winner?.run_id });
    expect(presses('400337-S0001')).toBe(1);
    for (const s of servers) expect(s.stderr()).toContain(`journals in postgres://127.0.0.1:${cluster.port}/`);
  } finally {
    await Promise.all(servers.map((s) => s.close()));
  }
});

test('a crash between dispatched and observed is in doubt on every machine until a person settles it in the database', async () => {
  const a = await machine();
  const crashed = await replay({ ...a, HANDRAIL_FAILPOINT: 'post_hold:after_act' }, '400445-S0001');
  expect(crashed.signal ?? crashed.code).toBe('SIGKILL');
  // The browser dies with the process: the POST may or may not have left it (on a loaded machine it often has not).
  // A second's grace for one in flight; either way at most one press, and the journal cannot know which.
  await new Promise((r) => setTimeout(r, 1_000));
  const pressed = presses('400445-S0001');
  expect(pressed).toBeLessThanOrEqual(1);
  const b = await machine();
  const retried = await replay(b, '400445-S0001');
  expect(retried.receipt).toMatchObject({ word: 'UNSAFE_TO_RETRY', code: 'JOURNAL_IN_DOUBT', retryable: false });
  expect(presses('400445-S0001')).toBe(pressed);
  const key = retried.receipt.key as string;
  const settled = await handrail(['journal', 'settle', key, '--as', 'committed', '--by', 'Pat Operator', '--note', 'the hold is on the share'], b);
  expect(settled.code).toBe(0);
  const after = await replay(await machine(), '400445-S0001');
  expect(after.receipt).toMatchObject({ word: 'SUCCESS', from_journal: true });
  expect(after.receipt.message).toContain('settled as committed by Pat Operator');
  expect(presses('400445-S0001')).toBe(pressed);
});
