// `handrail replay --trace` writes a Playwright trace that `npx playwright show-trace` opens, with every action the
// run took — and every value it typed, as typed: which is why a card with secret inputs refuses `--trace`.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { Bank } from '../../demo/plumbline/server.ts';
import { bankScene } from './support/bank.ts';
import { handrail } from './support/cli.ts';

const PASSWORD = `pw-${randomBytes(6).toString('hex')}`;
let bank: Bank;
let scratch: string;
let viewer: ChildProcess | undefined;

bankScene({ scratch: 'handrail-trace-', operatorPassword: PASSWORD }, (s) => ({ app: bank, scratch } = s));
test.afterAll(() => {
  if (viewer?.pid !== undefined && viewer.exitCode === null) viewer.kill();
});

const inputs = ['--input', 'operator_id=OP1001', '--input', 'member_number=400118', '--input', 'share_id=400118-S0005', '--input', 'reason=LEGAL'];

/** `npx playwright show-trace -h 127.0.0.1 -p 0 FILE` serves the viewer; the URL it prints is what a person's browser opens. */
function showTrace(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['node_modules/@playwright/test/cli.js', 'show-trace', '-h', '127.0.0.1', '-p', '0', file], {
      stdio: ['ignore', 'pipe', 'pipe'],
      // No desktop to open a tab on: the viewer only serves.
      env: { ...process.env, BROWSER: 'none' },
    });
    viewer = child;
    let out = '';
    const timer = setTimeout(() => reject(new Error(`show-trace printed no URL: ${out}`)), 30_000);
    const seen = (d: Buffer): void => {
      out += d.toString();
      const url = /Listening on (http:\/\/127\.0\.0\.1:\d+\S*)/.exec(out)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve(url);
      }
    };
    child.stdout.on('data', seen);
    child.stderr.on('data', seen);
    child.on('error', reject);
  });
}

test('a card without secrets: the trace opens in show-trace with the run\'s actions, typed values included', async ({ browser }) => {
  // The PLUMBLINE card with its password declared an ordinary input: a copy (its approval no longer holds).
  const card = JSON.parse(await readFile('capabilities/plumbline-place-hold.json', 'utf8')) as { inputs: Record<string, { secret?: boolean }> };
  const password = card.inputs['password'];
  if (!password) throw new Error('the card has no password input');
  password.secret = false;
  const file = join(scratch, 'no-secrets.json');
  await writeFile(file, JSON.stringify(card, null, 2));
  const trace = join(scratch, 'run.zip');
  const ran = await handrail(
    ['replay', file, '--allow-unapproved', '--base-url', bank.url, ...inputs, '--input', `password=${PASSWORD}`, '--evidence', join(scratch, 'ev'), '--trace', trace],
    { ...process.env, HANDRAIL_HOME: join(scratch, 'home') },
  );
  expect(ran.code, ran.stderr).toBe(0);
  expect(JSON.parse(ran.stdout)).toMatchObject({ word: 'SUCCESS' });
  expect(ran.stderr).toContain(`trace ${trace} (open it: npx playwright show-trace ${trace})`);
  expect(existsSync(trace)).toBe(true);

  const page = await browser.newPage();
  await page.goto(await showTrace(trace));
  const actions = page.locator('.action-title');
  await expect(actions.filter({ hasText: 'Fill "OP1001"' })).toHaveCount(1);
  // The value a secret would have had is there in plain words: the reason --trace refuses secret cards.
  await expect(actions.filter({ hasText: `Fill "${PASSWORD}"` })).toHaveCount(1);
  expect(await actions.filter({ hasText: /^Click/ }).count()).toBeGreaterThanOrEqual(5);
  await expect(actions.filter({ hasText: 'Select option' })).toHaveCount(1);
  await page.close();
});

test('the PLUMBLINE card (a password secret) refuses --trace before anything runs, and nothing holds the secret', async () => {
  const trace = join(scratch, 'refused.zip');
  const home = join(scratch, 'home-refused');
  const ran = await handrail(['replay', 'capabilities/plumbline-place-hold.json', '--base-url', bank.url, ...inputs, '--evidence', join(scratch, 'ev-refused'), '--trace', trace], {
    ...process.env,
    HANDRAIL_HOME: home,
    HANDRAIL_SECRET_PASSWORD: PASSWORD,
  });
  expect(ran.code).toBe(2);
  expect(ran.stdout).toBe('');
  expect(ran.stderr).toMatch(/^handrail: TRACE_WOULD_RECORD_SECRET: --trace: card plumbline_place_hold has secret input password, and a Playwright trace records typed values/);
  expect(ran.stderr).not.toContain(PASSWORD);
  expect(ran.stderr).not.toMatch(/\n\s+at /);
  // Nothing ran: no trace, no evidence, no journal, and the bank saw no hold.
  expect(existsSync(trace)).toBe(false);
  expect(existsSync(join(scratch, 'ev-refused'))).toBe(false);
  expect(existsSync(home) ? await readdir(home) : []).toEqual([]);
  expect(bank.store.holdFor('400118-S0005')).toMatchObject({ held: true, postPresses: 1 });
});
