// The owner's answers reach `handrail author` whole: piped on stdin all at once (one reader for the evening, so
// answers that arrive before their question wait for it) or written beforehand in a file (`--owner-answers`).
// The scripted model drives the real CLI over PLUMBLINE; the judge says whether the hold was placed.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test, expect } from '@playwright/test';
import type { Bank } from '../../demo/plumbline/server.ts';
import { bankScene } from './support/bank.ts';
import { handrail } from './support/cli.ts';

const SCRIPT = fileURLToPath(new URL('../fixtures/author/plumbline-evening.json', import.meta.url));
const PASSWORD = `pw-${Math.random().toString(36).slice(2, 10)}`;

let bank: Bank;
let dir: string;
bankScene({ scratch: 'handrail-owner-', operatorPassword: PASSWORD, each: true }, (s) => ({ app: bank, scratch: dir } = s));

function authorArgs(book: string): string[] {
  return [
    'author', '--url', `${bank.url}/signon`, '--goal', 'Place a LEGAL hold on one share of a PLUMBLINE member',
    '--model', `scripted:${SCRIPT}`, '--owner', 'Dana Reviewer',
    '--input', 'operator_id=OP1001', '--input', 'member_number=400118', '--input', 'share_id=400118-S0001', '--input', 'reason=LEGAL',
    '--secret', 'password', '-o', book,
  ];
}
const env = (): NodeJS.ProcessEnv => ({ ...process.env, HANDRAIL_SECRET_PASSWORD: PASSWORD });

async function held(): Promise<{ held: boolean; postPresses: number }> {
  return (await (await fetch(`${bank.url}/_judge/holds/400118-S0001`)).json()) as { held: boolean; postPresses: number };
}

test('answers piped on stdin all at once are each given to their question', async () => {
  test.setTimeout(120_000);
  const book = join(dir, 'trace.jsonl');
  // Sign On and Review only move; Post Hold is the commit. All three lines arrive before the first question.
  const ran = await handrail(authorArgs(book), env(), undefined, { stdin: 'n\nn\nc\n' });
  expect(ran.stderr).not.toContain(PASSWORD);
  expect(ran.code, ran.stderr.slice(-800)).toBe(0);
  expect(JSON.parse(ran.stdout)).toMatchObject({ ok: true, finished: 'hold_result' });
  expect(await held()).toMatchObject({ held: true, postPresses: 1 });
  const lines = (await readFile(book, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { kind: string; effect?: { kind: string; by: string; owner?: string } });
  const answered = lines.filter((l) => l.kind === 'act' && l.effect?.by === 'owner').map((l) => [l.effect?.kind, l.effect?.owner]);
  expect(answered).toEqual([['navigate', 'Dana Reviewer'], ['navigate', 'Dana Reviewer'], ['commit', 'Dana Reviewer']]);
});

test('answers from a file are read in order, comments skipped; a file that runs out ends the evening saying so', async () => {
  test.setTimeout(120_000);
  const answers = join(dir, 'answers.txt');
  await writeFile(answers, '# the owner, before the evening\nn   \n\nn\n# F10=Post Hold changes the record\nc\n');
  const ran = await handrail([...authorArgs(join(dir, 'a.jsonl')), '--owner-answers', answers], env());
  expect(ran.code, ran.stderr.slice(-800)).toBe(0);
  expect(await held()).toMatchObject({ held: true, postPresses: 1 });

  // Two answers for three questions: the third is never pressed, and the message names where it ran out.
  await fetch(`${bank.url}/_judge/reset`, { method: 'POST' });
  await writeFile(answers, 'n\nn\n');
  const short = await handrail([...authorArgs(join(dir, 'b.jsonl')), '--owner-answers', answers], env());
  expect(short.code).not.toBe(0);
  expect(short.stderr + short.stdout).toContain(`${answers} closed before the owner answered question 3`);
  expect(await held()).toMatchObject({ held: false });
});

test('--owner-answers naming no file is a usage error before anything opens', async () => {
  const ran = await handrail([...authorArgs(join(dir, 'c.jsonl')), '--owner-answers', join(dir, 'missing.txt')], env());
  expect(ran.code).toBe(2);
  expect(ran.stderr).toContain('--owner-answers: no file');
});
