// The person rung through the real `handrail replay --console` against PLUMBLINE's `rewrite` drift: the local
// referee says none of these, a scripted scout (through the real Anthropic adapter and a fake Messages API) wanders
// for its four turns, and the run pauses for a person. The test is that person: it opens the console over HTTP with
// the one-time token from stderr, acts through the menu, and hands back; the run ends with `escalated_to_human`.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import { startBank } from '../../demo/plumbline/server.ts';
import { LOG_FILE } from '../../runner/evidence.ts';
import { Capability } from '../../shared/schema/capability.ts';
import type { RunResult } from '../../shared/schema/result.ts';
import { startFakeAnthropic } from '../fixtures/fake-anthropic.ts';
import { handrail } from './support/cli.ts';

const PASSWORD = `pw-${randomBytes(6).toString('hex')}`;
const KEY = 'sk-test-person';
let scratch: string;
test.beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'handrail-person-'));
});
test.afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

interface ConsoleState {
  menu: { n: number; text: string }[];
  text: string;
  expected: { label: string }[];
  commit_in_flight: boolean;
}

const post = (url: URL, where: string, fields: Record<string, string>, token = url.searchParams.get('t') ?? ''): Promise<Response> =>
  fetch(new URL(where, url), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({ t: token, ...fields }),
  });

/**
 * One replay of the hold on the rewritten bank, with a person at the console playing `person`. The scout's script
 * wanders: four turns of trying to follow a link while a commit is in flight (each refused), never finishing.
 */
async function replayWithPerson(share: string, person: (url: URL) => Promise<void>): Promise<{ receipt: RunResult; log: string; evidence: string; presses: number; stderr: string; scoutProblems: string[] }> {
  const bank = await startBank({ port: 0, operatorPassword: PASSWORD, drift: 'rewrite' });
  const wander = { tool: 'act', match: "link 'Another inquiry'", verb: 'invoke' } as const;
  const fake = await startFakeAnthropic({ turns: [[wander], [wander], [wander], [wander]] }, { apiKey: KEY });
  const box: { driven?: Promise<void> } = {};
  try {
    const evidence = join(scratch, `ev-${share}`);
    const ran = await handrail(
      ['replay', 'capabilities/plumbline-place-hold.json', '--base-url', bank.url, '--evidence', evidence, '--referee', 'local', '--scout', 'claude', '--console', '--console-timeout', '60000',
        '-i', 'operator_id=OP1001', '-i', `member_number=${share.slice(0, 6)}`, '-i', `share_id=${share}`, '-i', 'reason=LEGAL'],
      { ...process.env, HANDRAIL_HOME: join(scratch, `home-${share}`), HANDRAIL_SECRET_PASSWORD: PASSWORD, ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: fake.url },
      undefined,
      { onStderr: (chunk) => {
        const m = /open (http:\/\/127\.0\.0\.1:\d+\/\?t=[\w-]+)/.exec(chunk);
        // A failed script aborts the climb, so the run ends instead of waiting out the console.
        if (m?.[1] && !box.driven) {
          const url = new URL(m[1]);
          box.driven = person(url).catch(async (e: unknown) => {
            await post(url, '/abort', { name: 'the test', reason: 'the script failed' }).catch(() => undefined);
            throw e;
          });
        }
      } },
    );
    expect(box.driven, `no console URL on stderr:\n${ran.stderr}`).toBeDefined();
    await box.driven;
    return {
      receipt: JSON.parse(ran.stdout) as RunResult,
      log: await readFile(join(evidence, LOG_FILE), 'utf8'),
      evidence,
      presses: bank.store.holdFor(share).postPresses,
      stderr: ran.stderr,
      scoutProblems: fake.problems,
    };
  } finally {
    await fake.close();
    await bank.close();
  }
}

test('a person follows a link through the console and hands back a screen the page contradicts: refused as a mismatch, escalated_to_human', async () => {
  const seen: Record<string, number> = {};
  let state: ConsoleState | null = null;
  const { receipt, log, presses, stderr, scoutProblems } = await replayWithPerson('400118-S0001', async (url) => {
    seen['no token'] = (await fetch(new URL('/', url))).status;
    seen['no token, handing back'] = (await post(url, '/handback', { name: 'Mallory', label: 'hold_result' }, '')).status;
    seen['page'] = (await fetch(url)).status;
    state = (await (await fetch(new URL(`/state.json?t=${url.searchParams.get('t') ?? ''}`, url))).json()) as ConsoleState;
    const back = state.menu.find((r) => r.text.includes("link 'Back to member'"));
    if (!back) throw new Error(`no Back to member row: ${state.menu.map((r) => r.text).join(' / ')}`);
    expect(await (await post(url, '/act', { name: 'Ada Clerk', row: String(back.n), verb: 'invoke' })).json()).toMatchObject({ ok: true });
    expect(await (await post(url, '/handback', { name: 'Ada Clerk', label: 'hold_result' })).json()).toMatchObject({ ok: true });
  });
  expect(seen).toEqual({ 'no token': 403, 'no token, handing back': 403, page: 200 });
  const shown = state as ConsoleState | null;
  expect(shown?.commit_in_flight).toBe(true);
  expect(shown?.text).toContain('Transaction Acknowledgement');
  expect(shown?.expected.map((o) => o.label)).toEqual(expect.arrayContaining(['hold_result', 'hold_refused']));
  // The page after the person's step is the member screen exactly: "hold_result" is contradicted, nothing recovers.
  expect(receipt).toMatchObject({ word: 'UNSAFE_TO_RETRY', code: 'COMMIT_IN_DOUBT', escalated_to_human: true, classifier_calls: 1, llm_calls: 4 });
  expect(log).toContain('"judgement":{"kind":"mismatch","showing":"member"');
  expect(log).toMatch(/"kind":"human_step".*"actor":"human","by":"Ada Clerk".*link 'Back to member'.*"effect":"navigate"/);
  expect(log).toMatch(/refused act: .*a commit is in flight/);
  expect(presses).toBe(1);
  expect(scoutProblems).toEqual([]);
  // The token is on stderr for the person, never in the evidence; the password is nowhere.
  const token = /\?t=([\w-]+)/.exec(stderr)?.[1] ?? 'missing';
  expect(log).not.toContain(token);
  expect(log).not.toContain(PASSWORD);
});

test('a person in Chromium hands back by keyboard alone: the page passes axe; escalated_to_human, not believed without marks, and proposed as a repair', async ({ page }) => {
  const { receipt, log, evidence, presses } = await replayWithPerson('400118-S0005', async (url) => {
    await page.goto(url.href);
    await expect(page.getByRole('heading', { level: 1 })).toContainText('Run paused at step post_hold');
    await expect(page.getByRole('img', { name: 'Screenshot of the page the run is on' })).toBeVisible();
    expect((await new AxeBuilder({ page }).analyze()).violations.map((v) => `${v.id}: ${v.help}`)).toEqual([]);
    // Keyboard only: focus the handback's select, choose, type a name, Enter submits the form.
    await page.getByLabel('The page is').focus();
    await page.keyboard.press('End');
    await page.keyboard.press('Home');
    await expect(page.getByLabel('The page is')).toHaveValue('hold_result');
    await page.keyboard.press('Tab');
    await expect(page.locator('#name-back')).toBeFocused();
    await page.keyboard.type('Bea Reviewer');
    await page.keyboard.press('Enter');
    await expect(page.getByRole('status')).toContainText('handed back as hold_result');
  });
  expect(receipt).toMatchObject({ word: 'UNSAFE_TO_RETRY', code: 'COMMIT_IN_DOUBT', escalated_to_human: true });
  expect(log).toContain('"judgement":{"kind":"unproven","label":"hold_result"');
  expect(log).toMatch(/"kind":"baton".*"to":"PAUSED"/);
  expect(log).toMatch(/"kind":"screenshot".*"name":"person-before"/);
  expect(log).toMatch(/"kind":"text".*"name":"person-after"/);
  const proposed = Capability.parse(JSON.parse(await readFile(`${evidence}.proposed.json`, 'utf8')));
  expect(proposed.lifecycle.state).toBe('draft');
  expect(proposed.lifecycle.review_notes.join('\n')).toMatch(/person Bea Reviewer named screen hold_result after step post_hold, but .*marks did not show/);
  expect(presses).toBe(1);
});
