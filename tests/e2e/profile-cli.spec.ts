// `HANDRAIL_PROFILE=1 handrail replay` tells an operator where a real replay's time went, phase by phase, on stderr; without it nothing is printed and the receipt is the same.
import { randomBytes } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { Bank } from '../../demo/plumbline/server.ts';
import { bankScene } from './support/bank.ts';
import { handrail, type Ran } from './support/cli.ts';

const PASSWORD = `pw-${randomBytes(6).toString('hex')}`;
let bank: Bank;
let scratch: string;

bankScene({ scratch: 'handrail-profile-', operatorPassword: PASSWORD }, (s) => ({ app: bank, scratch } = s));

function replay(extra: string[], env: Record<string, string>): Promise<Ran> {
  return handrail(
    ['replay', 'capabilities/plumbline-place-hold.json', '--base-url', bank.url, '--input', 'operator_id=OP1001', '--input', 'reason=LEGAL', ...extra],
    { ...process.env, HANDRAIL_PROFILE: '', HANDRAIL_SECRET_PASSWORD: PASSWORD, ...env },
  );
}

/** The table's row for one phase: calls per run and milliseconds per run. */
function row(stderr: string, phase: string): { calls: number; ms: number } | null {
  const m = new RegExp(`^${phase.replace(/[()+]/g, '\\$&')}\\s+(\\d+\\.\\d)\\s+(\\d+\\.\\d)\\s`, 'm').exec(stderr);
  return m ? { calls: Number(m[1]), ms: Number(m[2]) } : null;
}

test('one profiled replay prints every phase of its 11 steps; an unprofiled one prints no table', async () => {
  bank.store.reset();
  const plain = await replay(['--input', 'member_number=400118', '--input', 'share_id=400118-S0005'], { HANDRAIL_HOME: await mkdtemp(join(scratch, 'home-')) });
  expect(plain.code).toBe(0);
  expect(plain.stderr).not.toContain('profile:');
  bank.store.reset();
  const profiled = await replay(['--input', 'member_number=400118', '--input', 'share_id=400118-S0005'], {
    HANDRAIL_HOME: await mkdtemp(join(scratch, 'home-')),
    HANDRAIL_PROFILE: '1',
  });
  expect(profiled.code).toBe(0);
  expect(JSON.parse(profiled.stdout)).toMatchObject({ word: 'SUCCESS' });
  expect(profiled.stderr).toMatch(/^profile: 1 run\(s\), \d+ ms wall per run/m);
  // The card has 11 steps, 5 of them stages or the commit: each acts once, each journalled one writes two fsynced lines.
  expect(row(profiled.stderr, 'act')?.calls).toBe(11);
  expect(row(profiled.stderr, 'resolve (find + fingerprint)')?.calls).toBe(11);
  expect(row(profiled.stderr, 'journal: dispatched (fsync)')?.calls).toBe(5);
  // Only the commit's `observed` is waited for; a stage's is written behind the next `dispatched` (docs/design/profiling.md, "Profiling a replay").
  expect(row(profiled.stderr, 'journal: observed (fsync)')?.calls).toBe(1);
  expect(row(profiled.stderr, 'observe')?.calls).toBeGreaterThanOrEqual(12);
  expect(row(profiled.stderr, 'run: surface open (browser context)')?.calls).toBe(1);
  expect(row(profiled.stderr, 'screenshot: capture')?.ms).toBeGreaterThan(0);
  expect(profiled.stderr).not.toContain(PASSWORD);
});

test('a profiled batch prints one table over all its rows', async () => {
  bank.store.reset();
  const rows = join(scratch, 'rows.csv');
  await writeFile(rows, 'member_number,share_id\n400118,400118-S0001\n400337,400337-S0001\n');
  const ran = await replay(['--inputs', rows, '--parallel', '2', '--evidence', join(scratch, 'runs')], {
    HANDRAIL_HOME: await mkdtemp(join(scratch, 'home-')),
    HANDRAIL_PROFILE: '1',
  });
  expect(ran.code).toBe(0);
  expect(ran.stderr.match(/^profile: /gm)).toHaveLength(1);
  expect(ran.stderr).toMatch(/^profile: 2 run\(s\)/m);
  // Per run: each row acts 11 times.
  expect(row(ran.stderr, 'act')?.calls).toBe(11);
});
