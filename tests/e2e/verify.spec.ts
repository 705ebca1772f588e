// A reviewer verifies the place-hold card on three members against PLUMBLINE in real Chromium, the bank's judge (not the screen) confirming each hold, then signs it; a plate the bank refuses, a judge that says no, or a commit nobody confirmed keeps the card a draft.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect, test } from '@playwright/test';
import { chromium, type Browser } from 'playwright-core';
import { startBank, type Bank } from '../../demo/plumbline/server.ts';
import { approvalStatus } from '../../runner/approval.ts';
import { findChromium } from '../../runner/browser/chromium.ts';
import { BrowserSurface } from '../../runner/browser/surface.ts';
import { approveCommand } from '../../runner/cli/approve.ts';
import { verifyCommand } from '../../runner/cli/verify.ts';
import { urlJudge, commandJudge } from '../../runner/judge.ts';
import { verify } from '../../runner/verify.ts';
import { loadCapability, type Capability } from '../../shared/schema/index.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const PASSWORD = `pw-${randomBytes(6).toString('hex')}`;

let bank: Bank;
let browser: Browser;
let scratch: string;
let draftRaw: Record<string, unknown>;

test.beforeAll(async () => {
  bank = await startBank({ port: 0, operatorPassword: PASSWORD });
  browser = await chromium.launch(findChromium().launchOptions);
  scratch = await mkdtemp(join(tmpdir(), 'handrail-verify-e2e-'));
  const raw = JSON.parse(await readFile(join(ROOT, 'capabilities/plumbline-place-hold.json'), 'utf8')) as Record<string, unknown>;
  draftRaw = { ...raw, lifecycle: { state: 'draft', review_notes: [] } };
});
test.afterAll(async () => {
  await browser?.close();
  await bank?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});
test.beforeEach(() => bank.store.reset());

function load(raw: unknown): Capability {
  const r = loadCapability(raw);
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return r.value;
}

const env = (): Record<string, string> => ({ BASE_URL: bank.url, HANDRAIL_SECRET_PASSWORD: PASSWORD });
const shared = (): Promise<BrowserSurface> => BrowserSurface.launch({ browser });
const fixed = { operator_id: 'OP1001', reason: 'LEGAL' };

test('verify on three members, then approve: the card file says verified 3/3, then approved by name', async () => {
  const file = join(scratch, 'place-hold.json');
  await writeFile(file, JSON.stringify(draftRaw, null, 2));
  let out = '';
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((s: string | Uint8Array) => ((out += String(s)), true)) as typeof process.stdout.write;
  const errWrite = process.stderr.write.bind(process.stderr);
  let err = '';
  process.stderr.write = ((s: string | Uint8Array) => ((err += String(s)), true)) as typeof process.stderr.write;
  const saved = process.env['HANDRAIL_SECRET_PASSWORD'];
  process.env['HANDRAIL_SECRET_PASSWORD'] = PASSWORD;
  let code: number;
  try {
    code = await verifyCommand(file, {
      inputs: join(ROOT, 'tests/fixtures/plates.csv'),
      judge: `${bank.url}/_judge/holds/{{share_id}}`,
      baseUrl: bank.url,
      input: ['operator_id=OP1001'],
      evidence: join(scratch, 'ev'),
    });
  } finally {
    process.stdout.write = write;
    process.stderr.write = errWrite;
    if (saved === undefined) delete process.env['HANDRAIL_SECRET_PASSWORD'];
    else process.env['HANDRAIL_SECRET_PASSWORD'] = saved;
  }
  expect(code, err).toBe(0);
  expect(JSON.parse(out)).toMatchObject({ verified: true, k: 3, n: 3, state: 'verified' });
  expect(err).toMatch(/3\s+OP1001 400445 400445-S0001 GARNISHMENT\s+SUCCESS OK\s+0\/0\s+yes\s+CLEAN/);
  expect(err).not.toContain(PASSWORD);
  for (const share of ['400118-S0005', '400337-S0001', '400445-S0001']) expect(bank.store.holdFor(share)).toMatchObject({ held: true, postPresses: 1 });
  const verified = load(JSON.parse(await readFile(file, 'utf8')));
  expect(verified.lifecycle).toMatchObject({ state: 'verified', reliability: { k: 3, n: 3 } });

  process.stdout.write = (() => true) as typeof process.stdout.write;
  process.stderr.write = (() => true) as typeof process.stderr.write;
  try {
    expect(await approveCommand(file, { by: 'Handrail maintainers' })).toBe(0);
  } finally {
    process.stdout.write = write;
    process.stderr.write = errWrite;
  }
  expect(approvalStatus(load(JSON.parse(await readFile(file, 'utf8'))))).toEqual({ servable: true, state: 'approved', by: 'Handrail maintainers' });
});

test('a plate the bank answers "already held" is not clean: the card stays a draft with k of n recorded', async () => {
  const report = await verify(load(draftRaw), {
    plates: [
      { member_number: '400118', share_id: '400118-S0005' },
      { member_number: '400226', share_id: '400226-S0002' },
    ],
    fixedInputs: fixed,
    judge: urlJudge(`${bank.url}/_judge/holds/{{share_id}}`),
    env: env(),
    surfaceFactory: shared,
    evidenceRoot: join(scratch, 'ev-held'),
  });
  expect(report).toMatchObject({ verified: false, k: 1, n: 2, lifecycle: { state: 'draft', reliability: { k: 1, n: 2 } } });
  expect(report.plates[1]).toMatchObject({ word: 'BUSINESS_OUTCOME', code: 'ALREADY_PROCESSED', clean: false, judge: null });
  expect(report.plates[0]?.plate).not.toHaveProperty('password');
});

test('a judge that says no makes the plate unclean, even when the screen said success', async () => {
  const report = await verify(load(draftRaw), {
    plates: [{ member_number: '400337', share_id: '400337-S0001' }],
    fixedInputs: fixed,
    judge: commandJudge('echo "no such hold in the ledger"; exit 1'),
    env: env(),
    surfaceFactory: shared,
    evidenceRoot: join(scratch, 'ev-no'),
  });
  expect(report.plates[0]).toMatchObject({ word: 'SUCCESS', clean: false, judge: { ok: false } });
  expect(report.plates[0]?.why).toContain('no such hold in the ledger');
  expect(report.verified).toBe(false);
});

test('a commit no owner confirmed keeps the card a draft however clean the plates, and says so', async () => {
  const steps = (draftRaw['steps'] as { id: string; effect: object }[]).map((s) => (s.id === 'post_hold' ? { ...s, effect: { kind: 'commit' } } : s));
  const report = await verify(load({ ...draftRaw, steps }), {
    plates: [{ member_number: '400445', share_id: '400445-S0001' }],
    fixedInputs: fixed,
    judge: urlJudge(`${bank.url}/_judge/holds/{{share_id}}`),
    env: env(),
    surfaceFactory: shared,
    evidenceRoot: join(scratch, 'ev-unconfirmed'),
  });
  expect(report).toMatchObject({ verified: false, k: 1, n: 1, unconfirmed_commits: ['post_hold'], lifecycle: { state: 'draft' } });
  expect(report.summary).toContain('commit step post_hold was never confirmed by an owner');
});
