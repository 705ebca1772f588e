// An approved card replays against PLUMBLINE in real headless Chromium with no model in the loop, and every
// way a run can end is a typed word with evidence: success, already held, bad password, drift, ambiguity.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { Browser } from 'playwright-core';
import { startBank, type Bank, type BankOptions } from '../../demo/plumbline/server.ts';
import { BrowserSurface } from '../../runner/browser/surface.ts';
import { runCapability, type RunRequest } from '../../runner/run.ts';
import type { Capability } from '../../shared/schema/index.ts';
import { bankScene } from './support/bank.ts';
import { cardAt } from './support/cards.ts';
import { filesUnder } from './support/files.ts';

const CARD = 'capabilities/plumbline-place-hold.json';
const PASSWORD = `pw-${randomBytes(6).toString('hex')}`;

let bank: Bank;
let browser: Browser;
let card: Capability;
let scratch: string;

bankScene({ scratch: 'handrail-replay-', operatorPassword: PASSWORD, reset: true, browser: true }, (s) => ({ app: bank, scratch, browser } = s));
test.beforeAll(async () => {
  card = await cardAt(CARD);
});

function plate(member: string, share: string, reason = 'LEGAL'): Record<string, string> {
  return { operator_id: 'OP1001', password: PASSWORD, member_number: member, share_id: share, reason };
}

async function replay(inputs: Record<string, string>, extra: Partial<RunRequest> = {}) {
  const evidenceDir = await mkdtemp(join(scratch, 'ev-'));
  const result = await runCapability({
    card,
    inputs,
    env: { BASE_URL: bank.url },
    surface: () => BrowserSurface.launch({ browser }),
    evidenceDir,
    settleTimeoutMs: 5_000,
    ...extra,
  });
  return result;
}

/** A surface whose pages matching `glob` arrive rewritten: the application drifted under the card. */
function rewriting(glob: string, rewrite: (html: string) => string): NonNullable<RunRequest['surface']> {
  return async () => {
    const s = await BrowserSurface.launch({ browser });
    await s.page.route(glob, async (route) => {
      const res = await route.fetch();
      await route.fulfill({ response: res, body: rewrite(await res.text()) });
    });
    return s;
  };
}

/** One replay of 400118-S0005 against a bank of its own (drifted or slow); the bank is stopped afterwards. */
async function onOtherBank(opts: BankOptions, settleTimeoutMs?: number) {
  const other = await startBank({ port: 0, operatorPassword: PASSWORD, ...opts });
  try {
    const evidenceDir = await mkdtemp(join(scratch, 'ev-'));
    const r = await runCapability({
      card,
      inputs: plate('400118', '400118-S0005'),
      env: { BASE_URL: other.url },
      surface: () => BrowserSurface.launch({ browser }),
      evidenceDir,
      ...(settleTimeoutMs ? { settleTimeoutMs } : {}),
    });
    const shares = other.store.sharesOf('400118').map((s) => ({ id: s.id, ...other.store.holdFor(s.id) }));
    return { r, evidenceDir, judge: other.store.holdFor('400118-S0005'), shares };
  } finally {
    await other.close();
  }
}

test.describe('replay', () => {
  for (const [member, share, reason] of [
    ['400118', '400118-S0005', 'LEGAL'],
    ['400337', '400337-S0001', 'FRAUD_REVIEW'],
    ['400445', '400445-S0001', 'GARNISHMENT'],
  ] as const) {
    test(`posts a hold on ${share} and the judge confirms it`, async () => {
      const r = await replay(plate(member, share, reason));
      expect(r.word, r.message).toBe('SUCCESS');
      expect(r.llm_calls).toBe(0);
      expect(r.classifier_calls).toBe(0);
      expect(r.steps_done).toBe(11);
      expect(r.outputs['confirmation']).toMatch(/^HX-\d{6}$/);
      const judge = bank.store.holdFor(share);
      expect(judge).toMatchObject({ held: true, reason, confirmation: r.outputs['confirmation'], postPresses: 1 });
      // Every target reported the rung that found it; on an undrifted bank that is the first choice.
      for (const [id, t] of Object.entries(card.targets)) expect(r.rungs[id], id).toBe(t.ladder[0]?.rung);
    });
  }

  test('a bank whose Hold link opens another share\'s form: FAILED WRONG_RECORD before F10, and the judge counts no press', async () => {
    const { r, judge, shares } = await onOtherBank({ drift: 'wrong_share' }, 5_000);
    expect(r, r.message).toMatchObject({ word: 'FAILED', code: 'WRONG_RECORD', at_step: 'post_hold', screen: 'hold_review', retryable: false });
    expect(r.message).toContain('400118-S0005');
    expect(judge).toMatchObject({ held: false, postPresses: 0 });
    // No share of the member was pressed: not the one named, not the one the bank opened instead.
    expect(shares.length).toBeGreaterThan(1);
    expect(shares.map((s) => [s.id, s.postPresses])).toEqual(shares.map((s) => [s.id, 0]));
  });

  test('an already-held share is a business outcome, not a failure, and not retryable', async () => {
    const r = await replay(plate('400226', '400226-S0002'));
    expect(r).toMatchObject({ word: 'BUSINESS_OUTCOME', code: 'ALREADY_PROCESSED', outcome: 'already_held', retryable: false });
    expect(r.outputs).toEqual({});
    expect(bank.store.holdFor('400226-S0002')).toMatchObject({ held: true, reason: 'LEGAL', postPresses: 1 });
  });

  test('a wrong password ends on the sign-on screen with a typed failure', async () => {
    const r = await replay({ ...plate('400118', '400118-S0005'), password: 'not-the-password' });
    expect(r).toMatchObject({ word: 'FAILED', code: 'AUTH_REJECTED', at_step: 'sign_on', screen: 'signon', retryable: false });
    expect(bank.store.holdFor('400118-S0005').postPresses).toBe(0);
  });

  test('a renamed button fails naming the target and the rungs it tried', async () => {
    const r = await replay(plate('400118', '400118-S0005'), {
      surface: rewriting('**/review', (html) => html.replaceAll('F10=Post Hold', 'F10=Submit Hold')),
    });
    expect(r).toMatchObject({ word: 'FAILED', code: 'TARGET_NOT_FOUND', at_step: 'post_hold' });
    expect(r.message).toContain('post_button');
    expect(r.message).toContain('role_name=0');
    expect(r.message).toContain('css=0');
    expect(bank.store.holdFor('400118-S0005').postPresses).toBe(0);
  });

  test('two Hold links in the same row are ambiguous and stop the run', async () => {
    const r = await replay(plate('400118', '400118-S0005'), {
      surface: rewriting('**/member?*', (html) =>
        html.replace(/(<a href="\/hold\?share=400118-S0005">Hold<\/a>)/, '$1 <a href="/hold?share=400118-S0001">Hold</a>')),
    });
    expect(r).toMatchObject({ word: 'FAILED', code: 'AMBIGUOUS', at_step: 'open_hold' });
    expect(r.message).toContain('hold_link');
  });

  test('a banner on the sign-on page is still the sign-on screen (similar furniture), and the run succeeds', async () => {
    const { r, evidenceDir } = await onOtherBank({ drift: 'banner' });
    expect(r.word, r.message).toBe('SUCCESS');
    const log = await readFile(join(evidenceDir, 'evidence.jsonl'), 'utf8');
    expect(log).toMatch(/"kind":"screen".*"label":"signon","how":"similar"/);
  });

  test('a relabelled field is found on a dearer rung, and the rung change shows the drift', async () => {
    const r = await replay(plate('400118', '400118-S0005'), {
      surface: rewriting('**/hold?*', (html) => html.replace('<td>Reason</td>', '<td>Hold Reason</td>')),
    });
    expect(r.word, r.message).toBe('SUCCESS');
    expect(r.rungs['reason_list']).toBe('css');
    expect(r.rungs['post_button']).toBe('role_name');
  });

  test('a reworded result line after the commit leaves it in doubt when no escalation is on call', async () => {
    const { r, judge } = await onOtherBank({ drift: 'reword' }, 1_500);
    // The reworded page is as close to "posted" as to "already held": naming it would be a guess.
    expect(r).toMatchObject({ word: 'UNSAFE_TO_RETRY', code: 'COMMIT_IN_DOUBT', at_step: 'post_hold' });
    expect(judge.postPresses).toBe(1);
  });

  test('a result page rewritten past recognition after the commit is unsafe to retry', async () => {
    const { r, judge } = await onOtherBank({ drift: 'rewrite' }, 1_500);
    expect(r).toMatchObject({ word: 'UNSAFE_TO_RETRY', code: 'COMMIT_IN_DOUBT', at_step: 'post_hold', retryable: false });
    expect(judge.postPresses).toBe(1);
  });

  test('a page that never settles is a typed timeout with the evidence kept', async () => {
    const { r } = await onOtherBank({ latencyMs: 1_500 }, 300);
    expect(r).toMatchObject({ word: 'FAILED', code: 'TIMEOUT' });
    expect(['sign_on', 'search']).toContain(r.at_step);
    const files = await filesUnder(r.evidence ?? '');
    expect(files.some((f) => f.endsWith('.png'))).toBe(true);
    expect(files.some((f) => f.includes('/text/'))).toBe(true);
  });

  test('a browser that dies mid-run ends in a typed word, not an exception', async () => {
    const r = await replay(plate('400118', '400118-S0005'), {
      surface: async () => {
        const s = await BrowserSurface.launch({ browser });
        const act = s.act.bind(s);
        s.act = async (ref, op) => {
          if (op.value === '400118') await s.page.close();
          return act(ref, op);
        };
        return s;
      },
    });
    expect(r.word).toBe('FAILED');
    expect(['BROWSER_CRASHED', 'ACTION_FAILED']).toContain(r.code);
    expect(r.at_step ?? 'enter_member').toBe('enter_member');
  });

  test('a dead server is refused before a browser starts, and is retryable', async () => {
    let launched = false;
    const dead = await startBank({ port: 0 });
    const url = dead.url;
    await dead.close();
    const r = await runCapability({
      card,
      inputs: plate('400118', '400118-S0005'),
      env: { BASE_URL: url },
      surface: async () => {
        launched = true;
        return BrowserSurface.launch({ browser });
      },
    });
    expect(r).toMatchObject({ word: 'RECOVERABLE', code: 'SURFACE_UNREACHABLE', retryable: true, evidence: null });
    expect(launched).toBe(false);
  });

  test('bad inputs are refused before a browser starts', async () => {
    let launched = false;
    const never = async () => {
      launched = true;
      return BrowserSurface.launch({ browser });
    };
    const run = (inputs: Record<string, string>, env: Record<string, string> = { BASE_URL: bank.url }) =>
      runCapability({ card, inputs, env, surface: never });
    const unknown = await run({ ...plate('400118', '400118-S0005'), colour: 'blue' });
    expect(unknown).toMatchObject({ word: 'REFUSED', code: 'UNKNOWN_INPUT' });
    expect(unknown.message).toContain('colour');
    const pattern = await run(plate('4001189', '400118-S0005'));
    expect(pattern).toMatchObject({ word: 'REFUSED', code: 'INVALID_INPUT' });
    expect(pattern.message).toContain('member_number');
    const { password: _omit, ...noSecret } = plate('400118', '400118-S0005');
    const missing = await run(noSecret);
    expect(missing).toMatchObject({ word: 'REFUSED', code: 'MISSING_SECRET' });
    expect(missing.message).toContain('HANDRAIL_SECRET_PASSWORD');
    const badEnum = await run({ ...plate('400118', '400118-S0005'), reason: 'BECAUSE' });
    expect(badEnum).toMatchObject({ word: 'REFUSED', code: 'INVALID_INPUT' });
    const noBase = await run(plate('400118', '400118-S0005'), {});
    expect(noBase).toMatchObject({ word: 'REFUSED', code: 'MISSING_INPUT' });
    expect(launched).toBe(false);
  });

  test('a secret given in the environment is used and never written', async () => {
    const { password: _omit, ...inputs } = plate('400337', '400337-S0001');
    const r = await runCapability({
      card,
      inputs,
      env: { BASE_URL: bank.url, HANDRAIL_SECRET_PASSWORD: PASSWORD },
      surface: () => BrowserSurface.launch({ browser }),
      evidenceDir: await mkdtemp(join(scratch, 'ev-')),
    });
    expect(r.word, r.message).toBe('SUCCESS');
    for (const file of await filesUnder(r.evidence ?? '')) {
      expect((await readFile(file)).includes(PASSWORD), file).toBe(false);
    }
  });
});
