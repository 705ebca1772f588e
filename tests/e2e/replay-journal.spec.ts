// Never twice, as an operator meets it with real `handrail replay` processes against PLUMBLINE: one press per
// intent when processes race, per share and per the card's identity declaration, a damaged journal presses
// nothing, a committed key answers from the journal with the bank down, and a person settles what is in doubt.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { Bank } from '../../demo/plumbline/server.ts';
import { EXIT_CODE, type RunResult } from '../../shared/schema/result.ts';
import { bankScene } from './support/bank.ts';
import { handrail, type Ran as CliRan } from './support/cli.ts';

const CARD = 'capabilities/plumbline-place-hold.json';
const PASSWORD = `pw-${randomBytes(6).toString('hex')}`;
let bank: Bank;
let scratch: string;
let home: string;

interface Ran extends CliRan {
  receipt: RunResult;
}

function cli(args: string[], env: Record<string, string> = {}): Promise<Omit<Ran, 'receipt'>> {
  return handrail(args, { ...process.env, HANDRAIL_HOME: home, HANDRAIL_SECRET_PASSWORD: PASSWORD, ...env });
}

async function replay(share: string, opts: { reason?: string; card?: string; url?: string; extra?: string[]; env?: Record<string, string> } = {}): Promise<Ran> {
  const member = share.slice(0, 6);
  const ran = await cli(
    [
      'replay', opts.card ?? CARD, '--base-url', opts.url ?? bank.url, '--evidence', await mkdtemp(join(scratch, 'ev-')),
      '--input', 'operator_id=OP1001', '--input', `member_number=${member}`, '--input', `share_id=${share}`,
      '--input', `reason=${opts.reason ?? 'LEGAL'}`, '--settle-timeout', '5000', ...(opts.extra ?? []),
    ],
    opts.env,
  );
  return { ...ran, receipt: (ran.stdout ? JSON.parse(ran.stdout) : {}) as RunResult };
}

// Each test runs several real CLI processes, each with its own Chromium.
test.describe.configure({ timeout: 240_000 });

const presses = (share: string): number => bank.store.holdFor(share).postPresses;

bankScene({ scratch: 'handrail-never-twice-', operatorPassword: PASSWORD, reset: true, home: true }, (s) => ({ app: bank, scratch, home } = s));

test('four processes started together on one intent press Post Hold once; the others are BUSY or answered from the journal', async () => {
  const all = await Promise.all([0, 1, 2, 3].map(() => replay('400118-S0005')));
  const words = all.map((r) => `${r.receipt.word}${r.receipt.from_journal ? '/journal' : ''}`).sort();
  expect(presses('400118-S0005')).toBe(1);
  expect(words.filter((w) => w === 'SUCCESS')).toHaveLength(1);
  for (const w of words) expect(['SUCCESS', 'SUCCESS/journal', 'BUSY']).toContain(w);
  const busy = all.find((r) => r.receipt.word === 'BUSY');
  if (busy) expect(busy).toMatchObject({ code: EXIT_CODE.BUSY, receipt: { retryable: true, code: 'BUSY' } });
  // Every one of them names the same key and journal, on stderr and in the receipt.
  const keys = new Set(all.map((r) => r.receipt.key));
  expect(keys.size).toBe(1);
  for (const r of all) expect(r.stderr).toContain(`key ${r.receipt.key}`);
});

test('a different share is a different intent: two presses, two receipts; the same share twice is one', async () => {
  const a = await replay('400118-S0005');
  const b = await replay('400118-S0001');
  expect([a.receipt.word, b.receipt.word]).toEqual(['SUCCESS', 'SUCCESS']);
  expect(a.receipt.key).not.toBe(b.receipt.key);
  expect(a.receipt.outputs['confirmation']).not.toBe(b.receipt.outputs['confirmation']);
  expect([presses('400118-S0005'), presses('400118-S0001')]).toEqual([1, 1]);
  const again = await replay('400118-S0001');
  expect(again.receipt).toMatchObject({ word: 'SUCCESS', from_journal: true, run_id: b.receipt.run_id, outputs: b.receipt.outputs });
  expect(presses('400118-S0001')).toBe(1);
});

test('same share, other reason: a new intent by default, the same intent when the card declares member + share as its identity', async () => {
  const first = await replay('400337-S0001', { reason: 'LEGAL' });
  const other = await replay('400337-S0001', { reason: 'OTHER' });
  expect(first.receipt.word).toBe('SUCCESS');
  // Default identity (every non-secret input): another reason is another intent, so it goes to the bank, which says already held.
  expect(other.receipt).toMatchObject({ word: 'BUSINESS_OUTCOME', code: 'ALREADY_PROCESSED', from_journal: false });
  expect(presses('400337-S0001')).toBe(2);

  bank.store.reset();
  const raw = JSON.parse(await readFile(CARD, 'utf8')) as Record<string, unknown>;
  const narrowed = join(scratch, 'by-share.json');
  await writeFile(narrowed, JSON.stringify({ ...raw, identity: ['member_number', 'share_id'] }));
  // An edited card is not approved until someone signs it again: run it as one would before signing.
  const a = await replay('400337-S0001', { reason: 'LEGAL', card: narrowed, extra: ['--allow-unapproved'] });
  const b = await replay('400337-S0001', { reason: 'OTHER', card: narrowed, extra: ['--allow-unapproved'] });
  expect(a.receipt.word).toBe('SUCCESS');
  expect(b.receipt).toMatchObject({ word: 'SUCCESS', from_journal: true, key: a.receipt.key, run_id: a.receipt.run_id });
  expect(presses('400337-S0001')).toBe(1);
});

test('with the bank down, a committed key answers SUCCESS from the journal without touching the network', async () => {
  const first = await replay('400445-S0001');
  expect(first.receipt.word).toBe('SUCCESS');
  const down = await replay('400445-S0001', { url: 'http://127.0.0.1:9' });
  expect(down.code).toBe(EXIT_CODE.SUCCESS);
  expect(down.receipt).toMatchObject({ word: 'SUCCESS', from_journal: true, run_id: first.receipt.run_id, evidence: first.receipt.evidence });
  expect(down.stderr).not.toMatch(/open http|starting|SURFACE_UNREACHABLE/);
  // A fresh key against the dead bank is the old RECOVERABLE: nothing was pressed.
  const fresh = await replay('400118-S0005', { url: 'http://127.0.0.1:9' });
  expect(fresh.receipt).toMatchObject({ word: 'RECOVERABLE', code: 'SURFACE_UNREACHABLE' });
});

test('a crash after Post Hold with its dispatched line deleted is JOURNAL_DAMAGED naming the line, and presses nothing', async () => {
  const crashed = await replay('400118-S0005', { env: { HANDRAIL_FAILPOINT: 'post_hold:after_settle' } });
  expect(crashed.signal ?? crashed.code).toBe('SIGKILL');
  expect(presses('400118-S0005')).toBe(1);
  const listed = await cli(['journal', 'list']);
  const [key, status] = listed.stdout.trim().split('\t');
  expect(status).toBe('in_doubt');
  const file = join(home, 'journals', `${key}.jsonl`);
  const lines = (await readFile(file, 'utf8')).split('\n');
  const dispatched = lines.findIndex((l) => l.includes('"dispatched"') && l.includes('post_hold'));
  await writeFile(file, lines.filter((_, i) => i !== dispatched).join('\n'));
  const rerun = await replay('400118-S0005');
  expect(rerun.code).toBe(EXIT_CODE.UNSAFE_TO_RETRY);
  expect(rerun.receipt).toMatchObject({ word: 'UNSAFE_TO_RETRY', code: 'JOURNAL_DAMAGED', retryable: false, key });
  expect(rerun.receipt.message).toContain(`line ${dispatched + 1}`);
  expect(presses('400118-S0005')).toBe(1);
});

test('settle: in doubt until a person decides; not-committed lets the next run press, committed answers from the journal', async () => {
  // Killed before the press: in doubt, though nothing reached the bank.
  const before = await replay('400337-S0001', { env: { HANDRAIL_FAILPOINT: 'post_hold:before_act' } });
  expect(before.signal ?? before.code).toBe('SIGKILL');
  const doubt = await replay('400337-S0001');
  expect(doubt.receipt).toMatchObject({ word: 'UNSAFE_TO_RETRY', code: 'JOURNAL_IN_DOUBT' });
  const key = doubt.receipt.key ?? '';
  const settled = await cli(['journal', 'settle', key, '--as', 'not-committed', '--by', 'Pat Operator', '--note', 'no hold on the share in the core system']);
  expect(settled.code).toBe(0);
  const pressed = await replay('400337-S0001');
  expect(pressed.receipt).toMatchObject({ word: 'SUCCESS', from_journal: false });
  expect(presses('400337-S0001')).toBe(1);

  // Killed after the press: a person finds the hold and settles it committed.
  const after = await replay('400445-S0001', { env: { HANDRAIL_FAILPOINT: 'post_hold:after_settle' } });
  expect(after.signal ?? after.code).toBe('SIGKILL');
  const key2 = (await replay('400445-S0001')).receipt.key ?? '';
  expect((await cli(['journal', 'settle', key2, '--as', 'committed', '--by', 'Pat Operator', '--note', 'hold is on the share'])).code).toBe(0);
  const answered = await replay('400445-S0001');
  expect(answered.receipt).toMatchObject({ word: 'SUCCESS', from_journal: true });
  expect(answered.receipt.message).toContain('settled as committed by Pat Operator');
  expect(presses('400445-S0001')).toBe(1);
  const shown = await cli(['journal', 'show', key2]);
  expect(shown.stdout).toMatch(/settled committed post_hold by Pat Operator via person: hold is on the share/);
  expect(shown.stdout).toContain('status: committed');
  // Nothing left to settle: a usage error, not a second record.
  expect((await cli(['journal', 'settle', key2, '--as', 'committed', '--by', 'P', '--note', 'again'])).code).toBe(2);
});
