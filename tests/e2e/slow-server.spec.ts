// A slow server: PLUMBLINE answering every request after 400 ms. Observing a frameset while its frames are still on
// their first empty document used to cancel their navigation in Chromium (the frames stayed blank for good and the
// run ended SCREEN_MISMATCH at sign-on); and a page still loading is not at rest, however long it shows the same thing.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { Bank } from '../../demo/plumbline/server.ts';
import type { RunResult } from '../../shared/schema/result.ts';
import { bankScene } from './support/bank.ts';
import { handrail } from './support/cli.ts';

const PASSWORD = `pw-${randomBytes(6).toString('hex')}`;
let bank: Bank;
let scratch: string;
bankScene({ scratch: 'handrail-slow-', operatorPassword: PASSWORD, latencyMs: 400 }, (s) => ({ app: bank, scratch } = s));

test('a replay against a server that takes 400 ms an answer ends SUCCESS, one press', async () => {
  test.setTimeout(120_000);
  const ran = await handrail(
    ['replay', 'capabilities/plumbline-place-hold.json', '--base-url', bank.url, '--evidence', join(scratch, 'ev'),
      '-i', 'operator_id=OP1001', '-i', 'member_number=400118', '-i', 'share_id=400118-S0005', '-i', 'reason=LEGAL'],
    { ...process.env, HANDRAIL_HOME: join(scratch, 'home'), HANDRAIL_SECRET_PASSWORD: PASSWORD },
  );
  const receipt = JSON.parse(ran.stdout) as RunResult;
  expect(receipt, receipt.message).toMatchObject({ word: 'SUCCESS', code: 'OK' });
  expect(bank.store.holdFor('400118-S0005').postPresses).toBe(1);
});
