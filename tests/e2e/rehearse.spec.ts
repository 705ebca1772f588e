// A reviewer rehearses before approving: `handrail replay --rehearse` on the PLUMBLINE card signs on, walks to the review screen, checks the commit and shows the request Post Hold would send (method, URL, fields), presses nothing (the judge counts 0), writes nothing to the journal, and a real replay right after it posts the hold once; a commit that is no form submission is pressed with every request stopped, and the server receives nothing.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createServer } from 'node:http';
import { expect, test } from '@playwright/test';
import { BrowserSurface } from '../../runner/browser/surface.ts';
import type { Bank } from '../../demo/plumbline/server.ts';
import { EXIT_CODE, type RunResult } from '../../shared/schema/result.ts';
import { bankScene } from './support/bank.ts';
import { handrail, type Ran } from './support/cli.ts';
import { filesUnder } from './support/files.ts';

const PASSWORD = `pw-${randomBytes(6).toString('hex')}`;
let bank: Bank;
let scratch: string;
let home: string;

bankScene({ scratch: 'handrail-rehearse-', operatorPassword: PASSWORD, reset: true, home: true }, (s) => ({ app: bank, scratch, home } = s));

function cli(args: string[]): Promise<Ran> {
  return handrail(args, { ...process.env, HANDRAIL_HOME: home, HANDRAIL_SECRET_PASSWORD: PASSWORD });
}

const args = (extra: string[]): string[] => [
  'replay', 'capabilities/plumbline-place-hold.json', '--base-url', bank.url,
  '--input', 'operator_id=OP1001', '--input', 'member_number=400118', '--input', 'share_id=400118-S0005', '--input', 'reason=LEGAL',
  ...extra,
];

test('--rehearse shows the commit\'s request and presses nothing; a real replay after it posts the hold once', async () => {
  const journal = join(scratch, 'hold.journal');
  const evidence = join(scratch, 'rehearsal-ev');
  const ran = await cli(args(['--rehearse', '--journal', journal, '--evidence', evidence]));
  expect(ran.code, ran.stderr).toBe(EXIT_CODE.REHEARSED);
  const receipt = JSON.parse(ran.stdout) as RunResult;
  expect(receipt).toMatchObject({ word: 'REHEARSED', code: 'REHEARSED', at_step: 'post_hold', retryable: false, screen: 'hold_review' });
  expect(receipt.rehearsal).toEqual({
    step: 'post_hold',
    checked: ['screen', 'target', 'fingerprint'],
    derived: 'form',
    request: {
      method: 'POST',
      url: `${bank.url}/post`,
      fields: [
        { name: 'share', value: '400118-S0005', secret: false },
        { name: 'reason', value: 'LEGAL', secret: false },
        { name: 'note', value: '', secret: false },
      ],
    },
  });
  expect(ran.stderr).toContain(`rehearsal: commit post_hold (screen, target, fingerprint checked) would send POST ${bank.url}/post (read off its form, nothing pressed)`);
  expect(ran.stderr).toContain('  share = 400118-S0005');
  // Nothing pressed; the operator's password (typed at sign-on) appears nowhere.
  expect(bank.store.holdFor('400118-S0005')).toMatchObject({ held: false, postPresses: 0 });
  expect(`${ran.stdout}${ran.stderr}`).not.toContain(PASSWORD);
  for (const file of await filesUnder(evidence)) expect((await readFile(file)).includes(PASSWORD), file).toBe(false);
  // The journal was read, never written: no key claimed, nothing dispatched, nothing in doubt.
  expect(existsSync(journal)).toBe(false);

  const real = await cli(args(['--journal', journal, '--evidence', join(scratch, 'real-ev')]));
  expect(real.code, real.stderr).toBe(EXIT_CODE.SUCCESS);
  expect(bank.store.holdFor('400118-S0005')).toMatchObject({ held: true, reason: 'LEGAL', postPresses: 1 });

  // Rehearsed again once it is done, it answers as a real run would: from the journal, pressing nothing.
  const after = await cli(args(['--rehearse', '--journal', journal, '--evidence', join(scratch, 'after-ev')]));
  expect(JSON.parse(after.stdout)).toMatchObject({ word: 'SUCCESS', from_journal: true });
  expect(bank.store.holdFor('400118-S0005').postPresses).toBe(1);
});

test('a commit that is no form submission is pressed with every request stopped: the request is shown, the server receives none', async () => {
  let received = 0;
  const page = `<!doctype html><title>desk</title>
<button onclick="fetch('/api/hold', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ share: '400118-S0005', pin: document.getElementById('pin').value }) })">Post Hold</button>
<input id="pin" type="password" value="${PASSWORD}">`;
  const server = createServer((req, res) => {
    if (req.method !== 'GET') received++;
    res.writeHead(200, { 'content-type': 'text/html' }).end(page);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  const surface = await BrowserSurface.launch();
  try {
    await surface.open(`http://127.0.0.1:${port}/desk`);
    const button = (await surface.observe()).parts.flatMap((p) => p.controls).find((c) => c.role === 'button' && c.name === 'Post Hold');
    if (!button) throw new Error('no Post Hold button');
    const rehearsed = await surface.rehearse(button.ref);
    expect(rehearsed).toEqual({
      derived: 'press',
      request: { method: 'POST', url: `http://127.0.0.1:${port}/api/hold`, fields: [{ name: 'share', value: '400118-S0005', secret: false }, { name: 'pin', value: PASSWORD, secret: true }] },
    });
    // The password field's value is marked secret (the engine masks it in the receipt); nothing reached the server.
    expect(received).toBe(0);
  } finally {
    await surface.close();
    await new Promise<void>((r) => server.close(() => r()));
  }
});
