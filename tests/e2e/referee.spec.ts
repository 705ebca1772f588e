// The escalation ladder's first rung against PLUMBLINE's drift switches, through the real `handrail replay`:
// a banner needs no referee (the similar tier names it, no calls); a reworded result is "none of these" to the local
// referee (its marks are gone), so the commit stays in doubt with one classifier call and the verdict in evidence.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { startBank, type Bank, type Drift } from '../../demo/plumbline/server.ts';
import { LOG_FILE } from '../../runner/evidence.ts';
import type { RunResult } from '../../shared/schema/result.ts';
import { handrail } from './support/cli.ts';
import { startFakeAnthropic } from '../fixtures/fake-anthropic.ts';

const PASSWORD = `pw-${randomBytes(6).toString('hex')}`;
let scratch: string;
test.beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'handrail-referee-'));
});
test.afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

async function replayOn(drift: Drift, share: string, extra: string[] = [], env: Record<string, string> = {}): Promise<{ receipt: RunResult; log: string; presses: number }> {
  const bank: Bank = await startBank({ port: 0, operatorPassword: PASSWORD, drift });
  try {
    const evidence = join(scratch, `ev-${drift}-${share}-${extra.length}`);
    const ran = await handrail(
      ['replay', 'capabilities/plumbline-place-hold.json', '--base-url', bank.url, '--evidence', evidence, '--referee', 'local',
        '-i', 'operator_id=OP1001', '-i', `member_number=${share.slice(0, 6)}`, '-i', `share_id=${share}`, '-i', 'reason=LEGAL', ...extra],
      { ...process.env, HANDRAIL_HOME: join(scratch, `home-${drift}-${share}`), HANDRAIL_SECRET_PASSWORD: PASSWORD, ...env },
    );
    const receipt = JSON.parse(ran.stdout) as RunResult;
    return { receipt, log: await readFile(join(evidence, LOG_FILE), 'utf8'), presses: bank.store.holdFor(share).postPresses };
  } finally {
    await bank.close();
  }
}

test('a banner: named by the similar tier, the referee never asked', async () => {
  const { receipt, log, presses } = await replayOn('banner', '400118-S0005');
  expect(receipt).toMatchObject({ word: 'SUCCESS', classifier_calls: 0, llm_calls: 0 });
  expect(log).not.toContain('"kind":"referee"');
  expect(presses).toBe(1);
});

test('a reworded result: none of these to the local referee, the commit in doubt, one classifier call on the record', async () => {
  const { receipt, log, presses } = await replayOn('reword', '400118-S0001');
  expect(receipt).toMatchObject({ word: 'UNSAFE_TO_RETRY', code: 'COMMIT_IN_DOUBT', classifier_calls: 1, llm_calls: 0 });
  expect(receipt.page_text).toContain('HOLD ACCEPTED REF');
  const verdicts = log.split('\n').filter((l) => l.includes('"kind":"referee"'));
  expect(verdicts).toHaveLength(1);
  expect(verdicts[0]).toContain('"judgement":{"kind":"none"');
  expect(presses).toBe(1);
});

test('a reworded result with a scout on call: a scripted model through the real adapter names Hold Result in one turn, and is not believed without the marks', async () => {
  const fake = await startFakeAnthropic({ turns: [[{ tool: 'finish', label: 'hold_result' }]] }, { apiKey: 'sk-test-scout' });
  try {
    const { receipt, log, presses } = await replayOn('reword', '400337-S0001', ['--scout', 'claude'], { ANTHROPIC_API_KEY: 'sk-test-scout', ANTHROPIC_BASE_URL: fake.url });
    // A success and a refusal share this furniture: a model's word proves no hold. In doubt, with a proposal.
    expect(receipt).toMatchObject({ word: 'UNSAFE_TO_RETRY', code: 'COMMIT_IN_DOUBT', classifier_calls: 1, llm_calls: 1 });
    expect(log).toContain('"judgement":{"kind":"unproven","label":"hold_result"');
    expect(presses).toBe(1);
    // The scout was seated look-only (a commit was in flight) and never saw the password.
    expect(fake.bodies.join('')).toContain('do not act at all');
    expect(fake.bodies.join('')).not.toContain(PASSWORD);
    expect(fake.problems).toEqual([]);
  } finally {
    await fake.close();
  }
});
