// Rows authored, not hand-written: a scripted model through the real Anthropic adapter (a fake Messages API) declares PLUMBLINE's shares table as a rows output with read_rows; the book compiles to the same steps, screens, targets and columns as the hand-written card it replaces, and the committed card is that compiled card plus a reviewer's additions, verified and approved.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { startBank, type Bank } from '../../demo/plumbline/server.ts';
import { approvalStatus } from '../../runner/approval.ts';
import { AnthropicModel } from '../../runner/author/anthropic.ts';
import { JsonlBook, readBook } from '../../runner/author/book.ts';
import { selectorsFor } from '../../runner/author/selectors.ts';
import { BrowserSurface } from '../../runner/browser/surface.ts';
import { runEvening } from '../../shared/author/evening.ts';
import type { EveningInput, Owner } from '../../shared/author/ports.ts';
import { parseScript } from '../../shared/author/scripted.ts';
import { compile } from '../../shared/compile/compile.ts';
import { Capability, type Capability as Card } from '../../shared/schema/index.ts';
import { startFakeAnthropic } from '../fixtures/fake-anthropic.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const API_KEY = 'sk-fake-rows';
const owner: Owner = { ask: () => Promise.resolve({ answer: 'navigate', name: 'Dana Reviewer' }) };

/** Works a task out with a scripted model through the real adapter; returns the compiled card and what the model was sent. */
export async function authorRows(o: { script: string; goal: string; entry: string; inputs: EveningInput[]; id: string; dir: string }): Promise<{ card: Card; bodies: string[] }> {
  const fake = await startFakeAnthropic(parseScript(await readFile(join(ROOT, o.script), 'utf8')), { apiKey: API_KEY });
  const bookPath = join(o.dir, `${o.id}.jsonl`);
  const surface = await BrowserSurface.launch();
  const book = await JsonlBook.create(bookPath);
  try {
    const model = new AnthropicModel({ apiKey: API_KEY, baseURL: fake.url, model: 'claude-fake' });
    const evening = await runEvening({ surface, model, owner, book, goal: o.goal, entry: o.entry, inputs: o.inputs, selectorsFor: selectorsFor(surface.page) });
    expect(evening, JSON.stringify(evening)).toMatchObject({ ok: true });
    expect(fake.problems).toEqual([]);
  } finally {
    await book.close();
    await surface.close();
    await fake.close();
  }
  const read = await readBook(bookPath);
  if (!read.ok) throw new Error(JSON.stringify(read.problems));
  const compiled = compile(read.lines, { id: o.id });
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.holes));
  return { card: compiled.card, bodies: fake.bodies };
}

/** What two cards must share to do the same work: each step's screen, verb, value, effect, settle and what its target is. */
function work(card: Card): unknown[] {
  return card.steps.map((s) => {
    const t = card.targets[s.target];
    return { screen: card.screens[s.screen]?.signature, op: s.op, effect: s.effect.kind, settle: s.settle.kind === 'screen_is' ? card.screens[s.settle.screen]?.signature : null, target: { role: t?.role, name: t?.name, hint: t?.hint, scope: t?.scope } };
  });
}

const rowsOutputs = (card: Card): unknown => Object.values(card.outputs).map((o) => (o.kind === 'rows' ? { kind: o.kind, step: card.steps.findIndex((s) => s.id === o.from_step), columns: o.columns } : o));

let bank: Bank;
let dir: string;
const PASSWORD = `pw-${Math.random().toString(36).slice(2, 10)}`;

test.beforeAll(async () => {
  bank = await startBank({ port: 0, operatorPassword: PASSWORD });
  dir = await mkdtemp(join(tmpdir(), 'handrail-rows-authored-'));
});
test.afterAll(async () => {
  await bank?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

test('PLUMBLINE member shares: the authored book compiles to the hand-written card\'s work, and the committed card is it, reviewed, verified and approved', async () => {
  test.setTimeout(120_000);
  const { card, bodies } = await authorRows({
    script: 'tests/fixtures/author/plumbline-shares.json',
    goal: 'List the shares of one PLUMBLINE member with their balance and hold status',
    entry: `${bank.url}/signon`,
    inputs: [
      { name: 'operator_id', value: 'OP1001', secret: false },
      { name: 'password', value: PASSWORD, secret: true },
      { name: 'member_number', value: '400118', secret: false },
    ],
    id: 'plumbline_member_shares',
    dir,
  });
  // The model was told the table is there, by its headers, and never saw the password.
  expect(bodies.some((b) => b.includes("T1: table, columns 'Share ID', 'Type', 'Balance', 'Status', 'Action'"))).toBe(true);
  expect(bodies.some((b) => b.includes(PASSWORD))).toBe(false);
  expect(card.outputs['shares']).toEqual({ kind: 'rows', from_step: 'read_shares', columns: { share_id: { header: 'Share ID' }, type: { header: 'Type' }, balance: { header: 'Balance' }, status: { header: 'Status' } } });

  // Equals the hand-written card in everything a replay does: steps, screens, targets, the rows output.
  const hand = Capability.parse(JSON.parse(await readFile(join(ROOT, 'tests/fixtures/cards/plumbline-member-shares.hand.json'), 'utf8')));
  expect(work(card)).toEqual(work(hand));
  expect(rowsOutputs(card)).toEqual(rowsOutputs(hand));
  // …and supersedes it: the table's target carries a fingerprint the hand-written one lacked.
  expect(card.targets['shares_table']?.fingerprint.value).toMatch(/^[0-9a-f]{16}$/);
  expect(hand.targets['shares_table']?.fingerprint.value).toBeUndefined();

  // The committed card is this compiled card; a reviewer added descriptions, patterns, outcomes and the judge only.
  const committed = Capability.parse(JSON.parse(await readFile(join(ROOT, 'capabilities/plumbline-member-shares.json'), 'utf8')));
  for (const key of ['steps', 'targets', 'screens', 'network', 'surface', 'entry'] as const) expect(committed[key], key).toEqual(card[key]);
  expect({ ...committed.outputs['shares'], description: undefined }).toEqual({ ...card.outputs['shares'], description: undefined });
  expect(committed.judge).toEqual({ rows: { output: 'shares', at: 'rows' } });
  expect(committed.lifecycle).toMatchObject({ state: 'approved', reliability: { k: 3, n: 3 }, approval: { by: 'Handrail maintainers' } });
  expect(approvalStatus(committed).servable).toBe(true);
});
