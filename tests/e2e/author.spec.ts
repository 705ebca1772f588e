// The whole evening: a model (scripted, through the real Anthropic adapter to a fake API) works out a PLUMBLINE
// hold once; the book compiles to the golden card, which verifies on three members with the judge, is approved
// by name, and replays for a fourth member with no model, every target found on its first-choice rung.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test, expect } from '@playwright/test';
import type { Bank } from '../../demo/plumbline/server.ts';
import { BrowserSurface } from '../../runner/browser/surface.ts';
import { AnthropicModel } from '../../runner/author/anthropic.ts';
import { JsonlBook, readBook } from '../../runner/author/book.ts';
import { selectorsFor } from '../../runner/author/selectors.ts';
import { approvalStatus } from '../../runner/approval.ts';
import { approve } from '../../runner/cli/approve.ts';
import { urlJudge } from '../../runner/judge.ts';
import { runCapability } from '../../runner/run.ts';
import { verify } from '../../runner/verify.ts';
import { runEvening } from '../../shared/author/evening.ts';
import type { Owner } from '../../shared/author/ports.ts';
import { parseScript } from '../../shared/author/scripted.ts';
import { cardBytes, compile } from '../../shared/compile/compile.ts';
import { startFakeAnthropic, type FakeAnthropic } from '../fixtures/fake-anthropic.ts';
import { GOLDEN as GOLDEN_FILES } from '../tools/golden.ts';
import { bankScene } from './support/bank.ts';

const GOLDEN = GOLDEN_FILES.authoredCard;

const SCRIPT = fileURLToPath(new URL('../fixtures/author/plumbline-evening.json', import.meta.url));
const PASSWORD = `pw-${Math.random().toString(36).slice(2, 10)}`;
const API_KEY = 'sk-fake-e2e';

let bank: Bank;
let fake: FakeAnthropic;
let dir: string;

bankScene({ scratch: 'handrail-author-', operatorPassword: PASSWORD }, (s) => ({ app: bank, scratch: dir } = s));
test.beforeAll(async () => {
  fake = await startFakeAnthropic(parseScript(await readFile(SCRIPT, 'utf8')), { apiKey: API_KEY });
});
test.afterAll(async () => {
  await fake.close();
});

/** The owner answers as a clerk would: only F10=Post Hold changes anything that matters. */
const owner: Owner & { asked: string[] } = {
  asked: [],
  ask(q) {
    this.asked.push(q.control);
    return Promise.resolve({ answer: q.control.includes('F10=Post Hold') ? 'commit' : 'navigate', name: 'Dana Reviewer' });
  },
};

test('the PLUMBLINE evening is authored, compiles to the golden card, verifies on three members, is approved, and replays for a fourth', async ({ browser }) => {
  test.setTimeout(120_000);
  const bookPath = join(dir, 'trace.jsonl');
  const model = new AnthropicModel({ apiKey: API_KEY, baseURL: fake.url, model: 'claude-fake' });
  const surface = await BrowserSurface.launch({ browser });
  const book = await JsonlBook.create(bookPath);
  let evening;
  try {
    evening = await runEvening({
      surface,
      model,
      owner,
      book,
      goal: 'Place a LEGAL hold on one share of a PLUMBLINE member',
      entry: `${bank.url}/signon`,
      inputs: [
        { name: 'operator_id', value: 'OP1001', secret: false },
        { name: 'password', value: PASSWORD, secret: true },
        { name: 'member_number', value: '400118', secret: false },
        { name: 'share_id', value: '400118-S0001', secret: false },
        { name: 'reason', value: 'LEGAL', secret: false },
      ],
      selectorsFor: selectorsFor(surface.page),
    });
  } finally {
    await book.close();
    await surface.close();
  }

  // The evening finished, through the real adapter, with well-formed requests and several calls in one message.
  expect(evening).toMatchObject({ ok: true, finished: 'hold_result' });
  expect(fake.problems).toEqual([]);
  expect(Math.max(...fake.callsPerAnswer)).toBeGreaterThanOrEqual(3);
  // Asked about the buttons that send a write, each held until the answer; F5=Search only reads (a GET) and is not.
  expect(owner.asked).toEqual([
    "button 'F5=Sign On'",
    "button 'F8=Review'",
    "button 'F10=Post Hold'",
  ]);
  // The hold really was placed (the judge asks the record store, never the screen).
  expect(await (await fetch(`${bank.url}/_judge/holds/400118-S0001`)).json()).toMatchObject({ held: true, reason: 'LEGAL', postPresses: 1 });
  // No secret reached the model or the book.
  expect(fake.bodies.some((b) => b.includes(PASSWORD))).toBe(false);
  const bookText = await readFile(bookPath, 'utf8');
  expect(bookText.includes(PASSWORD)).toBe(false);

  // The book compiles, deterministically, to the golden card.
  const read = await readBook(bookPath);
  if (!read.ok) throw new Error(JSON.stringify(read.problems));
  expect(read.lines.at(-1)).toMatchObject({ kind: 'end', outcome: 'finished' });
  const compiled = compile(read.lines, { id: 'plumbline_place_hold' });
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.holes));
  const bytes = cardBytes(compiled.card);
  const again = compile(read.lines, { id: 'plumbline_place_hold' });
  expect(again.ok && cardBytes(again.card)).toBe(bytes);
  // The live evening's book compiles to the same golden card as the stored book (`npm run golden:update` rewrites it).
  expect(bytes).toBe(await readFile(GOLDEN, 'utf8'));
  const card = compiled.card;
  expect(card.lifecycle.state).toBe('draft');
  expect(card.steps.find((s) => s.effect.kind === 'commit')?.effect.confirmed_by).toEqual({ owner: 'Dana Reviewer' });
  expect(card.targets['member_number_link']?.name).toEqual({ eq: '{{input.member_number}}' });
  expect(card.targets['hold_link']?.scope).toContainEqual({ role: 'row', name: '{{input.share_id}}' });

  // The tasting: three plates from cold, each confirmed by the judge (the record store, never the screen).
  const report = await verify(card, {
    plates: [
      { member_number: '400118', share_id: '400118-S0005', reason: 'LEGAL' },
      { member_number: '400337', share_id: '400337-S0001', reason: 'FRAUD_REVIEW' },
      { member_number: '400445', share_id: '400445-S0001', reason: 'GARNISHMENT' },
    ],
    fixedInputs: { operator_id: 'OP1001' },
    judge: urlJudge(`${bank.url}/_judge/holds/{{input.share_id}}`),
    // A compiled draft declares no expected change; the reviewer gives it to verify (the hand-written card carries it).
    change: { before: { held: false }, after: { held: true, reason: '{{reason}}' } },
    env: { BASE_URL: bank.url, HANDRAIL_SECRET_PASSWORD: PASSWORD },
    surfaceFactory: () => BrowserSurface.launch({ browser }),
    evidenceRoot: join(dir, 'verify'),
  });
  expect(report, JSON.stringify(report.plates)).toMatchObject({ verified: true, k: 3, n: 3 });
  const verifiedCard = { ...card, lifecycle: report.lifecycle };
  // A person signs it; the signature is bound to the content.
  const signed = approve(verifiedCard, 'Riley Approver');
  if (!signed.ok) throw new Error(signed.reason);
  const approved = { ...verifiedCard, lifecycle: signed.lifecycle };
  expect(approvalStatus(approved)).toMatchObject({ servable: true, by: 'Riley Approver' });

  // The approved card replays SUCCESS for a fourth member with no model, each target on its first-choice rung.
  const result = await runCapability({
    card: approved,
    requireApproved: true,
    inputs: { operator_id: 'OP1001', password: PASSWORD, member_number: '400513', share_id: '400513-S0002', reason: 'LEGAL' },
    env: { BASE_URL: bank.url },
    surface: () => BrowserSurface.launch({ browser }),
    evidenceDir: join(dir, 'evidence'),
  });
  expect(result).toMatchObject({ word: 'SUCCESS', llm_calls: 0, classifier_calls: 0 });
  expect(await (await fetch(`${bank.url}/_judge/holds/400513-S0002`)).json()).toMatchObject({ held: true, reason: 'LEGAL', postPresses: 1 });
  const firstChoice = Object.fromEntries(Object.entries(card.targets).map(([id, t]) => [id, t.ladder[0]?.rung]));
  expect(result.rungs).toEqual(firstChoice);
});
