// With every system browser hidden, Handrail falls back to the Chromium inside the optional npm package
// @sparticuz/chromium, and the approved PLUMBLINE card still replays to SUCCESS — the bank's judge sees one hold.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { startBank, type Bank } from '../../demo/plumbline/server.ts';
import { findChromium, packagedPackage } from '../../runner/browser/chromium.ts';
import { handrail, type Ran } from './support/cli.ts';

const PASSWORD = `pw-${randomBytes(6).toString('hex')}`;
const HIDDEN = { HANDRAIL_SKIP_SYSTEM_BROWSER: '1' };
let bank: Bank;
let scratch: string;

/** The CLI with the system browser's override taken out of the environment, so the chain is what is tested. */
function cli(args: string[], env: Record<string, string>): Promise<Ran> {
  const base = { ...process.env };
  delete base['HANDRAIL_CHROMIUM'];
  return handrail(args, { ...base, ...env });
}

// The package ships one x64 Linux build; elsewhere this tier does not exist. On Linux x64 a missing package fails.
test.skip(process.platform !== 'linux' || process.arch !== 'x64', 'the packaged Chromium is Linux x64 only');
test.setTimeout(180_000); // the first use unpacks ~200 MB

test.beforeAll(async () => {
  bank = await startBank({ port: 0, operatorPassword: PASSWORD });
  scratch = await mkdtemp(join(tmpdir(), 'handrail-packaged-'));
});
test.afterAll(async () => {
  await bank?.close();
  await rm(scratch, { recursive: true, force: true });
});

test('with system browsers hidden the packaged Chromium is chosen, headless only', () => {
  expect(packagedPackage(), 'the optional dependency @sparticuz/chromium is not installed: run npm install').toBeDefined();
  const choice = findChromium({ ...HIDDEN });
  expect(choice).toMatchObject({ source: 'packaged', headlessOnly: true });
  expect(choice.executablePath).toContain('handrail-chromium-');
});

test('replay on the packaged Chromium: SUCCESS, and the judge confirms exactly one hold', async () => {
  bank.store.reset();
  const home = await mkdtemp(join(scratch, 'home-'));
  const r = await cli(
    [
      'replay', 'capabilities/plumbline-place-hold.json', '--base-url', bank.url,
      '--input', 'operator_id=OP1001', '--input', 'member_number=400118', '--input', 'share_id=400118-S0005',
      '--input', 'reason=LEGAL', '--evidence', join(scratch, 'ev'),
    ],
    { ...HIDDEN, HANDRAIL_HOME: home, HANDRAIL_SECRET_PASSWORD: PASSWORD },
  );
  expect(r.stderr).not.toContain('No Chromium found');
  const receipt = JSON.parse(r.stdout) as { word: string; from_journal: boolean; outputs: Record<string, string> };
  expect(receipt).toMatchObject({ word: 'SUCCESS', from_journal: false });
  expect(r.code).toBe(0);
  const judge = bank.store.holdFor('400118-S0005');
  expect(judge.held).toBe(true);
  expect(judge.postPresses).toBe(1);
  expect(receipt.outputs['confirmation']).toBe(judge.confirmation);
  expect(r.stdout + r.stderr).not.toContain(PASSWORD);
});

test('observe on the packaged Chromium reads the sign-on menu', async () => {
  const r = await cli(['observe', bank.url], { ...HIDDEN });
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("invoke button 'F5=Sign On'");
});
