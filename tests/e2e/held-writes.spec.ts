// A write nobody declared never reaches the bank: on PLUMBLINE's `stray` drift the member page posts to /audit (a script's fetch and a beacon) as it loads, and `handrail replay` holds both during the navigate step that lands there — FAILED UNDECLARED_WRITE, the bank counts 0 received, Post Hold is never pressed — while Sign On's and Review's declared form posts pass.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { Bank } from '../../demo/plumbline/server.ts';
import { EXIT_CODE } from '../../shared/schema/result.ts';
import { bankScene } from './support/bank.ts';
import { handrail, type Ran } from './support/cli.ts';

const PASSWORD = `pw-${randomBytes(6).toString('hex')}`;
let bank: Bank;
let scratch: string;
let home: string;

bankScene({ scratch: 'handrail-held-', operatorPassword: PASSWORD, reset: true, home: true, drift: 'stray' }, (s) => ({ app: bank, scratch, home } = s));

function cli(args: string[]): Promise<Ran> {
  return handrail(args, { ...process.env, HANDRAIL_HOME: home, HANDRAIL_SECRET_PASSWORD: PASSWORD });
}

const audits = async (): Promise<number> => ((await (await fetch(`${bank.url}/_judge/audit`)).json()) as { received: number }).received;

test('the stray page really posts when nothing holds it (the bank counts what a browser sends)', async ({ page }) => {
  await page.goto(`${bank.url}/signon`);
  await page.locator('input[name=opid]').fill('OP1001');
  await page.locator('input[name=pwd]').fill(PASSWORD);
  await page.locator('input[type=submit]').click();
  await page.waitForURL(/\/desk/);
  await page.goto(`${bank.url}/member?m=400118`);
  await expect.poll(audits).toBe(2);
});

test('replay holds the member page\'s fetch and beacon: FAILED UNDECLARED_WRITE, the bank counts 0, nothing pressed', async () => {
  const evidence = join(scratch, 'ev');
  const journal = join(scratch, 'stray.journal');
  const ran = await cli([
    'replay', 'capabilities/plumbline-place-hold.json', '--base-url', bank.url,
    '--input', 'operator_id=OP1001', '--input', 'member_number=400118', '--input', 'share_id=400118-S0005', '--input', 'reason=LEGAL',
    '--journal', journal, '--evidence', evidence,
  ]);
  expect(ran.code, ran.stderr).toBe(EXIT_CODE.FAILED);
  const receipt = JSON.parse(ran.stdout) as { word: string; code: string; retryable: boolean; at_step: string; message: string };
  expect(receipt).toMatchObject({ word: 'FAILED', code: 'UNDECLARED_WRITE', retryable: false, at_step: 'open_member' });
  expect(receipt.message).toContain('POST /audit');
  expect(receipt.message).toContain('POST /audit (beacon)');
  expect(receipt.message).toContain('nothing was sent');
  // The sign-on got through (the run reached the member page), the audit posts did not, and no hold was pressed.
  expect(await audits()).toBe(0);
  expect(bank.store.holdFor('400118-S0005')).toMatchObject({ held: false, postPresses: 0 });
  const log = await readFile(join(evidence, 'evidence.jsonl'), 'utf8');
  expect(log).toContain('"undeclared_write"');
  expect(log).toContain('"blocked"');
  expect(`${ran.stdout}${ran.stderr}${log}`).not.toContain(PASSWORD);
  // Its own journal record; the key is not in doubt.
  const lines = (await readFile(journal, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { phase: string; step?: string; effect?: string });
  expect(lines.filter((l) => l.phase === 'held')).toEqual([expect.objectContaining({ step: 'open_member', code: 'UNDECLARED_WRITE' })]);
  expect(lines.some((l) => l.phase === 'dispatched' && l.effect === 'commit')).toBe(false);
  const show = await cli(['journal', 'show', journal]);
  expect(show.stdout).toMatch(/held UNDECLARED_WRITE open_member: POST \/audit/);
});
