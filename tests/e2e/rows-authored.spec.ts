// Rows authored, not hand-written: a scripted model through the real Anthropic adapter (a fake Messages API) declares a table as a rows output with read_rows — PLUMBLINE's shares compile to the same work as the hand-written card they replace; CASEDESK's open cases of one assignee compile to a card that verifies 3 of 3 against the desk's judge, replays with the judge confirming its rows, and answers SUCCESS with zero rows for an assignee with no case.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { DEMO_PASSWORD, type Desk } from '../../demo/casedesk/server.ts';
import type { Bank } from '../../demo/plumbline/server.ts';
import { approvalStatus } from '../../runner/approval.ts';
import { urlJudge } from '../../runner/judge.ts';
import { runCapability } from '../../runner/run.ts';
import { verify } from '../../runner/verify.ts';
import { AnthropicModel } from '../../runner/author/anthropic.ts';
import { BrowserSurface } from '../../runner/browser/surface.ts';
import type { EveningInput, Owner } from '../../shared/author/ports.ts';
import { parseScript } from '../../shared/author/scripted.ts';
import { Capability, type Capability as Card } from '../../shared/schema/index.ts';
import { startFakeAnthropic } from '../fixtures/fake-anthropic.ts';
import { bankScene } from './support/bank.ts';
import { deskScene } from './support/desk.ts';
import { compiled, eveningInBrowser } from './support/evening.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const API_KEY = 'sk-fake-rows';
const owner: Owner = { ask: () => Promise.resolve({ answer: 'navigate', name: 'Dana Reviewer' }) };

/** Works a task out with a scripted model through the real adapter; returns the compiled card and what the model was sent. */
export async function authorRows(o: { script: string; goal: string; entry: string; inputs: EveningInput[]; id: string; dir: string }): Promise<{ card: Card; bodies: string[] }> {
  const fake = await startFakeAnthropic(parseScript(await readFile(join(ROOT, o.script), 'utf8')), { apiKey: API_KEY });
  try {
    const model = new AnthropicModel({ apiKey: API_KEY, baseURL: fake.url, model: 'claude-fake' });
    const { evening, lines } = await eveningInBrowser(join(o.dir, `${o.id}.jsonl`), { model, owner, goal: o.goal, entry: o.entry, inputs: o.inputs });
    expect(evening, JSON.stringify(evening)).toMatchObject({ ok: true });
    expect(fake.problems).toEqual([]);
    return { card: compiled(lines, { id: o.id }), bodies: fake.bodies };
  } finally {
    await fake.close();
  }
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
let desk: Desk;
let dir: string;
const PASSWORD = `pw-${Math.random().toString(36).slice(2, 10)}`;
bankScene({ operatorPassword: PASSWORD }, (s) => ({ app: bank } = s));
deskScene({ seed: 11, scratch: 'handrail-rows-authored-', reset: false }, (s) => ({ app: desk, scratch: dir } = s));

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

  // Verified again here, from cold, against the bank's judge of share rows (the store, in the screen's words).
  expect(bank.store.postHold('400118-S0005', 'LEGAL', 'rows authored', 'OP1001').kind).toBe('posted');
  const report = await verify(committed, {
    plates: [{ member_number: '400118' }, { member_number: '400226' }, { member_number: '400337' }],
    fixedInputs: { operator_id: 'OP1001' },
    judge: urlJudge(`${bank.url}/_judge/share-rows/{{member_number}}`),
    env: { BASE_URL: bank.url, HANDRAIL_SECRET_PASSWORD: PASSWORD },
    evidenceRoot: join(dir, 'verify-shares'),
  });
  expect(report.plates.map((p) => `${p.plate['member_number']}: ${p.status} ${p.why}`)).toEqual(['400118: clean ', '400226: clean ', '400337: clean ']);
  expect(report.plates[0]?.judge.after).toMatchObject({ rows: expect.arrayContaining([expect.objectContaining({ share_id: '400118-S0005', status: 'HELD LEGAL' })]) as unknown });
});

/** The open cases the desk's judge holds for an assignee: the truth, from the store, never the screen. */
async function openCases(assignee: string): Promise<unknown[]> {
  const res = await fetch(`${desk.url}/_judge/open-cases?assignee=${encodeURIComponent(assignee)}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { rows: unknown[] }).rows;
}

test('CASEDESK open cases: authored with read_rows, verified 3 of 3 against the judge, replayed with the judge confirming the rows; no case is SUCCESS with zero rows', async ({ browser }) => {
  test.setTimeout(240_000);
  desk.store.reset();
  const { card } = await authorRows({
    script: 'tests/fixtures/author/casedesk-open-cases.json',
    goal: 'List the open CASEDESK cases of one assignee',
    entry: `${desk.url}/find`,
    inputs: [
      { name: 'user', value: 'clerk', secret: false },
      { name: 'password', value: DEMO_PASSWORD, secret: true },
      { name: 'assignee', value: 'Unassigned', secret: false },
    ],
    id: 'casedesk_open_cases',
    dir,
  });
  expect(card.outputs['cases']).toEqual({ kind: 'rows', from_step: 'read_cases', columns: { id: { header: 'ID' }, title: { header: 'Title' }, assignee: { header: 'Assignee' }, status: { header: 'Status' } } });
  expect(card.targets['cases_table']).toMatchObject({ role: 'table', name: { eq: 'Open cases' }, ladder: [{ rung: 'role_name' }] });

  // The committed card is this compiled card plus a reviewer's words and the judge; approved after 3 of 3.
  const committed = Capability.parse(JSON.parse(await readFile(join(ROOT, 'capabilities/casedesk-open-cases.json'), 'utf8')));
  for (const key of ['steps', 'targets', 'screens', 'network', 'surface', 'entry', 'outcomes'] as const) expect(committed[key], key).toEqual(card[key]);
  expect(committed.lifecycle).toMatchObject({ state: 'approved', reliability: { k: 3, n: 3 }, approval: { by: 'Handrail maintainers' } });
  expect(approvalStatus(committed).servable).toBe(true);

  // Verified again here, from cold, against the judge: two assignees with cases and one whose only case is closed.
  const env = { BASE_URL: desk.url, HANDRAIL_SECRET_PASSWORD: DEMO_PASSWORD };
  const report = await verify(committed, {
    plates: [{ assignee: 'Unassigned' }, { assignee: 'Ada Okafor' }, { assignee: 'Chidi Eze' }],
    fixedInputs: { user: 'clerk' },
    judge: urlJudge(`${desk.url}/_judge/open-cases?assignee={{assignee}}`),
    env,
    evidenceRoot: join(dir, 'verify-cases'),
  });
  expect(report.plates.map((p) => `${p.plate['assignee']}: ${p.status} ${p.why}`)).toEqual(['Unassigned: clean ', 'Ada Okafor: clean ', 'Chidi Eze: clean ']);
  expect(report).toMatchObject({ verified: true, k: 3, n: 3 });

  // Replayed after the desk changed: the rows follow the record, as the judge confirms.
  expect(desk.store.assign('C-1003', 'Ada Okafor').ok).toBe(true);
  const run = async (assignee: string) =>
    runCapability({ card: committed, requireApproved: true, inputs: { user: 'clerk', password: DEMO_PASSWORD, assignee }, env, surface: () => BrowserSurface.launch({ browser }), evidenceDir: join(dir, `run-${assignee.replace(/\W/g, '_')}`) });
  const ada = await run('Ada Okafor');
  expect(ada).toMatchObject({ word: 'SUCCESS', code: 'OK' });
  expect(ada.outputs['cases']).toEqual(await openCases('Ada Okafor'));
  expect((ada.outputs['cases'] as { id: string }[]).map((r) => r.id)).toEqual(['C-1002', 'C-1003']);
  expect(ada.rungs['cases_table']).toBe('role_name');

  // The negative case: an assignee with no case is SUCCESS with zero rows (the judge holds none); no error word.
  const nobody = await run('Eun-ji Park');
  expect(await openCases('Eun-ji Park')).toEqual([]);
  expect(nobody).toMatchObject({ word: 'SUCCESS', code: 'OK', outputs: { cases: [] } });
});
