// Many runs as an operator starts them: `replay --inputs rows.csv --parallel 3` holds six shares, each pressed once as
// the judge counts, a repeated row is answered from the journal, and `--browser-ws` runs in a browser server's Chromium.
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { chromium, type BrowserServer } from 'playwright-core';
import { findChromium } from '../../runner/browser/chromium.ts';
import { startBrowser } from '../../runner/browser/remote.ts';
import { EXIT_CODE } from '../../shared/schema/result.ts';
import { bankScene } from './support/bank.ts';
import { handrail, type Ran } from './support/cli.ts';
import { serveChild } from './support/serve.ts';

const PASSWORD = `pw-${randomBytes(6).toString('hex')}`;
const CARD = 'capabilities/plumbline-place-hold.json';
const scene = bankScene({ scratch: 'handrail-scale-', operatorPassword: PASSWORD, reset: true, home: true });

test.describe.configure({ mode: 'serial' });

interface Line {
  row: number;
  word: string;
  code: string;
  from_journal?: boolean;
  run_id: string;
  key?: string;
  outputs: Record<string, string>;
}

function receipts(ran: Ran): Line[] {
  return ran.stdout.trim().split('\n').map((l) => JSON.parse(l) as Line).sort((a, b) => a.row - b.row);
}

async function rowsFile(name: string, shares: string[]): Promise<string> {
  const file = join(scene.scratch, name);
  await writeFile(file, ['member_number,share_id,reason', ...shares.map((s) => `${s.slice(0, 6)},${s},LEGAL`)].join('\n'));
  return file;
}

function batch(rows: string, extra: string[] = [], env: Record<string, string> = {}): Promise<Ran> {
  return handrail(
    ['replay', CARD, '--base-url', scene.app.url, '--input', 'operator_id=OP1001', '--inputs', rows, '--evidence', join(scene.scratch, 'runs'), ...extra],
    { ...process.env, HANDRAIL_HOME: scene.home, HANDRAIL_SECRET_PASSWORD: PASSWORD, ...env },
  );
}

const SIX = ['400118-S0001', '400118-S0005', '400337-S0001', '400445-S0001', '400500-S0001', '400500-S0002'];

test('six rows, three at a time: six receipts SUCCESS, the judge sees each share held by exactly one press', async () => {
  test.setTimeout(240_000);
  const ran = await batch(await rowsFile('six.csv', SIX), ['--parallel', '3']);
  expect(ran.code, ran.stderr).toBe(EXIT_CODE.SUCCESS);
  const lines = receipts(ran);
  expect(lines.map((l) => l.row)).toEqual([1, 2, 3, 4, 5, 6]);
  for (const l of lines) expect(l).toMatchObject({ word: 'SUCCESS', code: 'OK', from_journal: false });
  expect(new Set(lines.map((l) => l.key)).size).toBe(6);
  for (const share of SIX) expect(scene.app.store.holdFor(share)).toMatchObject({ held: true, reason: 'LEGAL', postPresses: 1 });
  // The bar and the table go to stderr; stdout is receipts alone (parsed above); the secret is nowhere.
  expect(ran.stderr).toMatch(/6\/6 runs \(100%\)/);
  expect(ran.stderr).toMatch(/^SUCCESS\s+6\s+\S+\s+\S+$/m);
  expect(ran.stdout + ran.stderr).not.toContain(PASSWORD);
});

test('the same intent twice in one batch is pressed once: the second row is answered from the journal', async () => {
  test.setTimeout(180_000);
  const rows = await rowsFile('twice.csv', ['400118-S0005', '400337-S0001', '400118-S0005']);
  const ran = await batch(rows, ['--parallel', '3']);
  expect(ran.code, ran.stderr).toBe(EXIT_CODE.SUCCESS);
  const [first, other, again] = receipts(ran);
  expect(first).toMatchObject({ word: 'SUCCESS', from_journal: false });
  expect(other).toMatchObject({ word: 'SUCCESS', from_journal: false });
  expect(again).toMatchObject({ word: 'SUCCESS', from_journal: true, run_id: first?.run_id, key: first?.key, outputs: first?.outputs });
  expect(scene.app.store.holdFor('400118-S0005').postPresses).toBe(1);
  expect(ran.stderr).toContain('1 answered from the journal');
});

test('a bad row refuses the whole file before any browser starts, naming row and column', async () => {
  const file = join(scene.scratch, 'bad.csv');
  await writeFile(file, `member_number,share_id,reason\n400118,400118-S0001,LEGAL\n400118,4001,LEGAL\n`);
  const ran = await batch(file, ['--parallel', '2']);
  expect(ran.code).toBe(2);
  expect(ran.stderr).toMatch(/BAD_ROWS: .*row 2 \(line 3\), column 2 \(share_id\)/);
  expect(ran.stdout).toBe('');
  expect(scene.app.store.holdFor('400118-S0001').postPresses).toBe(0);
  // Flags that name one run's files, or --parallel without rows, are usage errors.
  const journal = await batch(file, ['--journal', join(scene.scratch, 'one.jsonl')]);
  expect(journal.code).toBe(2);
  expect(journal.stderr).toContain('with --inputs every row keeps its own journal');
  const noRows = await handrail(['replay', CARD, '--parallel', '2'], { ...process.env, HANDRAIL_HOME: scene.home });
  expect(noRows.code).toBe(2);
  expect(noRows.stderr).toContain('--parallel runs the rows of --inputs');
});

test('SIGTERM drains: rows not started are answered SHUTTING_DOWN and never pressed, the running one finishes', async () => {
  test.setTimeout(180_000);
  const shares = ['400118-S0001', '400337-S0001', '400445-S0001', '400500-S0001'];
  let signalled = false;
  const ran = await handrail(
    ['replay', CARD, '--base-url', scene.app.url, '--input', 'operator_id=OP1001', '--inputs', await rowsFile('drain.csv', shares), '--parallel', '1', '--evidence', join(scene.scratch, 'runs')],
    { ...process.env, HANDRAIL_HOME: scene.home, HANDRAIL_SECRET_PASSWORD: PASSWORD },
    undefined,
    { started: (child) => {
      // The first row's commit has been pressed (the judge counts it): stop now, while that row still runs.
      const poll = setInterval(() => {
        if (scene.app.store.holdFor('400118-S0001').postPresses > 0) {
          clearInterval(poll);
          signalled = true;
          child.kill('SIGTERM');
        }
      }, 20);
      child.once('close', () => clearInterval(poll));
    } },
  );
  expect(signalled).toBe(true);
  expect(ran.signal).toBeNull();
  expect(ran.code).toBe(EXIT_CODE.RECOVERABLE);
  expect(ran.stderr).toContain('SIGTERM: draining');
  const lines = receipts(ran);
  expect(lines.map((l) => l.row)).toEqual([1, 2, 3, 4]);
  expect(lines[0]).toMatchObject({ word: 'SUCCESS' });
  for (const l of lines.slice(1)) expect(l).toMatchObject({ word: 'RECOVERABLE', code: 'SHUTTING_DOWN' });
  expect(scene.app.store.holdFor('400118-S0001').postPresses).toBe(1);
  for (const share of shares.slice(1)) expect(scene.app.store.holdFor(share).postPresses).toBe(0);
});

test.describe('a remote browser', () => {
  let server: BrowserServer;
  test.beforeAll(async () => {
    server = await chromium.launchServer({ ...findChromium().launchOptions, host: '127.0.0.1', headless: true });
  });
  test.afterAll(async () => {
    await server?.close();
  });

  test('--browser-ws runs one replay and a batch in the server\'s browser (no local Chromium to launch)', async () => {
    test.setTimeout(180_000);
    // A local launch would fail: HANDRAIL_CHROMIUM names no file. Success means the server's browser ran the card.
    const noLocal = { HANDRAIL_CHROMIUM: join(scene.scratch, 'no-such-chromium') };
    const one = await handrail(
      ['replay', CARD, '--base-url', scene.app.url, '--input', 'operator_id=OP1001', '--input', 'member_number=400445', '--input', 'share_id=400445-S0001', '--input', 'reason=LEGAL', '--evidence', join(scene.scratch, 'remote-one'), '--browser-ws', server.wsEndpoint()],
      { ...process.env, HANDRAIL_HOME: scene.home, HANDRAIL_SECRET_PASSWORD: PASSWORD, ...noLocal },
    );
    expect(one.code, one.stderr).toBe(EXIT_CODE.SUCCESS);
    const rows = await batch(await rowsFile('remote.csv', ['400118-S0001', '400337-S0001']), ['--parallel', '2', '--browser-ws', server.wsEndpoint()], noLocal);
    expect(rows.code, rows.stderr).toBe(EXIT_CODE.SUCCESS);
    expect(receipts(rows).map((l) => l.word)).toEqual(['SUCCESS', 'SUCCESS']);
    for (const share of ['400445-S0001', '400118-S0001', '400337-S0001']) expect(scene.app.store.holdFor(share).postPresses).toBe(1);
    // The control: without --browser-ws the same environment has no browser.
    const local = await batch(await rowsFile('local.csv', ['400500-S0003']), [], noLocal);
    expect(local.code).toBe(2);
    expect(local.stderr).toContain('NO_BROWSER');
  });

  test('serve --browser-ws answers an MCP call in the server\'s browser', async () => {
    test.setTimeout(120_000);
    const s = await serveChild(['capabilities', '--evidence-dir', join(scene.scratch, 'serve-runs'), '--browser-ws', server.wsEndpoint()], {
      ...process.env,
      HANDRAIL_HOME: scene.home,
      BASE_URL: scene.app.url,
      HANDRAIL_SECRET_PASSWORD: PASSWORD,
      HANDRAIL_CHROMIUM: join(scene.scratch, 'no-such-chromium'),
    });
    try {
      const r = await s.client.callTool({ name: 'plumbline_place_hold', arguments: { operator_id: 'OP1001', member_number: '400445', share_id: '400445-S0001', reason: 'LEGAL' } });
      expect(r.structuredContent, s.stderr()).toMatchObject({ word: 'SUCCESS', code: 'OK' });
      expect(scene.app.store.holdFor('400445-S0001').postPresses).toBe(1);
      expect(s.stderr()).toContain('connecting to the browser server at ws://127.0.0.1:');
    } finally {
      await s.close();
    }
  });

  test('a server of another Playwright version is refused by code, before any run', async () => {
    const old = await startBrowser({ wsEndpoint: server.wsEndpoint(), headers: { 'User-Agent': 'Playwright/1.10.0 (x64; test) node/20' } }).then(
      () => null,
      (e: unknown) => e as { code: string; message: string },
    );
    expect(old?.code).toBe('BROWSER_VERSION_MISMATCH');
    expect(old?.message).toMatch(/speaks Playwright [\d.]+, this handrail 1\.10/);
  });
});

test('an unreachable browser server is BROWSER_UNREACHABLE for replay and serve, and nothing is pressed', async () => {
  const ran = await batch(await rowsFile('dead.csv', ['400118-S0001']), ['--browser-ws', 'ws://127.0.0.1:9/nobody?token=abc123']);
  expect(ran.code).toBe(2);
  expect(ran.stderr).toMatch(/BROWSER_UNREACHABLE: cannot reach a Playwright browser server at ws:\/\/127\.0\.0\.1:9\/nobody/);
  expect(ran.stderr).not.toContain('abc123');
  expect(scene.app.store.holdFor('400118-S0001').postPresses).toBe(0);
  const served = await handrail(['serve', 'capabilities', '--browser-ws', 'ws://127.0.0.1:9/'], { ...process.env, HANDRAIL_HOME: scene.home });
  expect(served.code).toBe(2);
  expect(served.stderr).toContain('BROWSER_UNREACHABLE');
});
