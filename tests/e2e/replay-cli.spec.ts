// The `handrail replay` command as CI and operators use it: a commit is never pressed twice across crashes
// and reruns, the exit code follows the word, the secret appears nowhere, and tampered evidence is caught.
import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { Bank } from '../../demo/plumbline/server.ts';
import { EXIT_CODE } from '../../shared/schema/result.ts';
import { bankScene } from './support/bank.ts';
import { handrail, type Ran } from './support/cli.ts';
import { filesUnder } from './support/files.ts';

const PASSWORD = `pw-${randomBytes(6).toString('hex')}`;
let bank: Bank;
let scratch: string;
/** A fresh $HANDRAIL_HOME per test: never the real one, and no test answered from another's journal. */
let home: string;

function cli(args: string[], env: Record<string, string> = {}): Promise<Ran> {
  return handrail(args, { ...process.env, HANDRAIL_HOME: home, HANDRAIL_SECRET_PASSWORD: PASSWORD, ...env });
}

function replayArgs(share: string, member: string, extra: string[] = []): string[] {
  return [
    'replay', 'capabilities/plumbline-place-hold.json', '--base-url', bank.url,
    '--input', 'operator_id=OP1001', '--input', `member_number=${member}`, '--input', `share_id=${share}`,
    '--input', 'reason=LEGAL', ...extra,
  ];
}

bankScene({ scratch: 'handrail-cli-', operatorPassword: PASSWORD, reset: true, home: true }, (s) => ({ app: bank, scratch, home } = s));

async function assertNoSecret(ran: Ran, paths: string[]): Promise<void> {
  expect(ran.stdout.includes(PASSWORD)).toBe(false);
  expect(ran.stderr.includes(PASSWORD)).toBe(false);
  for (const path of paths) {
    const files = await filesUnder(path).catch(() => (existsSync(path) ? [path] : []));
    for (const file of files) {
      expect((await readFile(file)).includes(PASSWORD), file).toBe(false);
    }
  }
}

test('a crash after Post Hold reached the bank is never pressed again: the rerun is UNSAFE_TO_RETRY', async () => {
  const journal = join(scratch, 'crash.journal');
  const ev1 = join(scratch, 'crash-ev1');
  // Killed once the page settled after the press, before `observed`: the press surely reached the bank. (Killed
  // right after the click returned, whether the browser sent the POST before dying with the process is a race.)
  const crashed = await cli(replayArgs('400118-S0005', '400118', ['--journal', journal, '--evidence', ev1]), {
    HANDRAIL_FAILPOINT: 'post_hold:after_settle',
  });
  expect(crashed.signal ?? crashed.code).toBe('SIGKILL');
  expect(bank.store.holdFor('400118-S0005').postPresses).toBe(1);

  const ev2 = join(scratch, 'crash-ev2');
  const rerun = await cli(replayArgs('400118-S0005', '400118', ['--journal', journal, '--evidence', ev2]));
  expect(rerun.code).toBe(EXIT_CODE.UNSAFE_TO_RETRY);
  const receipt = JSON.parse(rerun.stdout) as { word: string; code: string; retryable: boolean };
  expect(receipt).toMatchObject({ word: 'UNSAFE_TO_RETRY', code: 'JOURNAL_IN_DOUBT', retryable: false });
  expect(bank.store.holdFor('400118-S0005').postPresses).toBe(1);
  await assertNoSecret(crashed, [journal, ev1]);
  await assertNoSecret(rerun, [journal, ev2]);
});

test('a crash just before Post Hold is pressed is still in doubt, because dispatch was already written', async () => {
  const journal = join(scratch, 'before.journal');
  const crashed = await cli(replayArgs('400337-S0001', '400337', ['--journal', journal, '--evidence', join(scratch, 'b-ev1')]), {
    HANDRAIL_FAILPOINT: 'post_hold:before_act',
  });
  expect(crashed.signal ?? crashed.code).toBe('SIGKILL');
  // Dispatched was written before the act: the engine cannot know the press did not happen, so it is in doubt.
  const rerun = await cli(replayArgs('400337-S0001', '400337', ['--journal', journal, '--evidence', join(scratch, 'b-ev2')]));
  expect(JSON.parse(rerun.stdout)).toMatchObject({ word: 'UNSAFE_TO_RETRY', code: 'JOURNAL_IN_DOUBT' });
  expect(bank.store.holdFor('400337-S0001').postPresses).toBe(0);
});

test('a crash right after the click returned is in doubt whether or not the POST left the browser, and never pressed again', async () => {
  const journal = join(scratch, 'race.journal');
  const crashed = await cli(replayArgs('400337-S0001', '400337', ['--journal', journal, '--evidence', join(scratch, 'r-ev1')]), {
    HANDRAIL_FAILPOINT: 'post_hold:after_act',
  });
  expect(crashed.signal ?? crashed.code).toBe('SIGKILL');
  // The browser dies with the process: the POST may or may not have left it. Either way, at most one press…
  // (A second's grace for one in flight; no later test here uses this share, so one landing later still harms none.)
  await new Promise((r) => setTimeout(r, 1_000));
  const pressed = bank.store.holdFor('400337-S0001').postPresses;
  expect(pressed).toBeLessThanOrEqual(1);
  // …and the rerun cannot know which, so it presses nothing.
  const rerun = await cli(replayArgs('400337-S0001', '400337', ['--journal', journal, '--evidence', join(scratch, 'r-ev2')]));
  expect(JSON.parse(rerun.stdout)).toMatchObject({ word: 'UNSAFE_TO_RETRY', code: 'JOURNAL_IN_DOUBT' });
  expect(bank.store.holdFor('400337-S0001').postPresses).toBe(pressed);
});

test('a rerun with the journal of a finished run returns the recorded receipt without pressing again', async () => {
  const journal = join(scratch, 'done.journal');
  const first = await cli(replayArgs('400445-S0001', '400445', ['--journal', journal, '--evidence', join(scratch, 'd-ev1')]));
  expect(first.code).toBe(EXIT_CODE.SUCCESS);
  const receipt = JSON.parse(first.stdout) as { run_id: string; outputs: { confirmation: string } };
  const again = await cli(replayArgs('400445-S0001', '400445', ['--journal', journal, '--evidence', join(scratch, 'd-ev2')]));
  expect(again.code).toBe(EXIT_CODE.SUCCESS);
  const second = JSON.parse(again.stdout) as { run_id: string; from_journal: boolean; outputs: { confirmation: string } };
  expect(second).toMatchObject({ run_id: receipt.run_id, from_journal: true, outputs: receipt.outputs });
  expect(bank.store.holdFor('400445-S0001').postPresses).toBe(1);
  const lines = (await readFile(journal, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { phase: string; step?: string });
  expect(lines.filter((l) => l.step === 'post_hold').map((l) => l.phase)).toEqual(['dispatched', 'observed']);
});

test('exit codes follow the word, progress goes to stderr, and the receipt alone to stdout', async () => {
  // Six real CLI processes, two of them with a Chromium each: give a loaded machine room.
  test.setTimeout(180_000);
  const ok = await cli(replayArgs('400118-S0001', '400118', ['--evidence', join(scratch, 'x-ev1')]));
  expect(ok.code).toBe(0);
  expect(JSON.parse(ok.stdout)).toMatchObject({ word: 'SUCCESS' });
  expect(ok.stderr).toMatch(/step 10\/11 post_hold: screen hold_review · rung role_name · invoke \(commit\)/);
  const held = await cli(replayArgs('400226-S0002', '400226', ['--evidence', join(scratch, 'x-ev2')]));
  expect(held.code).toBe(EXIT_CODE.BUSINESS_OUTCOME);
  const refused = await cli(replayArgs('400226-S0002', '40022', []));
  expect(refused.code).toBe(EXIT_CODE.REFUSED);
  expect(JSON.parse(refused.stdout)).toMatchObject({ word: 'REFUSED', code: 'INVALID_INPUT' });
  const badCard = await cli(['replay', 'package.json', '--base-url', bank.url]);
  expect(badCard.code).toBe(EXIT_CODE.REFUSED);
  expect(badCard.stderr).toContain('schema: ');
  expect(badCard.stderr).not.toMatch(/\n\s+at /);
  const usage = await cli(['replay', 'capabilities/plumbline-place-hold.json', '--input', 'nonsense']);
  expect(usage.code).toBe(2);
  expect(usage.stderr).toContain('--input expects name=value');
  await assertNoSecret(ok, [join(scratch, 'x-ev1')]);
  await assertNoSecret(held, [join(scratch, 'x-ev2')]);
});

test('evidence verify passes an intact log and names the line where one byte was flipped', async () => {
  const dir = join(scratch, 'tamper-ev');
  const run = await cli(replayArgs('400118-S0005', '400118', ['--evidence', dir]));
  expect(run.code).toBe(0);
  const intact = await cli(['evidence', 'verify', dir]);
  expect(intact.code).toBe(0);
  expect(intact.stdout).toMatch(/^intact: \d+ lines/);
  const log = join(dir, 'evidence.jsonl');
  const original = await readFile(log, 'utf8');
  const lines = original.split('\n');
  for (const k of [1, 4, lines.length - 1]) {
    const mutated = [...lines];
    const line = mutated[k - 1] ?? '';
    const at = line.indexOf('"kind"') + 2;
    mutated[k - 1] = `${line.slice(0, at)}${line[at] === 'k' ? 'K' : 'k'}${line.slice(at + 1)}`;
    await writeFile(log, mutated.join('\n'));
    const verdict = await cli(['evidence', 'verify', dir]);
    expect(verdict.code, `flip in line ${k}`).toBe(1);
    expect(verdict.stdout).toContain(`line ${k}:`);
  }
  await writeFile(log, original);
  expect((await cli(['evidence', 'verify', dir])).code).toBe(0);
});
