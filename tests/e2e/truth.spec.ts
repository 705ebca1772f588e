// The typed word tells the truth: no SUCCESS the page does not show. A refusal with the success screen's furniture,
// a refusal the card does not know, a commit that changed nothing, a draft, and a page that renders late each end
// in the word that is provably true, with what the page said in the receipt.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { Browser } from 'playwright-core';
import { startBank, type Bank, type BankOptions } from '../../demo/plumbline/server.ts';
import { BrowserSurface } from '../../runner/browser/surface.ts';
import { runCapability, type RunRequest } from '../../runner/run.ts';
import { loadCapability, type Capability, type CapabilityInput } from '../../shared/schema/index.ts';
import { EXIT_CODE } from '../../shared/schema/result.ts';
import { bankScene } from './support/bank.ts';
import { cardAt } from './support/cards.ts';
import { handrail, type Ran } from './support/cli.ts';

const PASSWORD = `pw-${randomBytes(6).toString('hex')}`;

let bank: Bank;
let browser: Browser;
let scratch: string;
let handWritten: Capability;
let authored: Capability;

const load = cardAt;

bankScene({ scratch: 'handrail-truth-', operatorPassword: PASSWORD, reset: true, browser: true }, (s) => ({ app: bank, scratch, browser } = s));
test.beforeAll(async () => {
  handWritten = await load('capabilities/plumbline-place-hold.json');
  authored = await load('capabilities/plumbline-place-hold.authored.json');
});

function plate(member: string, share: string, reason = 'LEGAL'): Record<string, string> {
  return { operator_id: 'OP1001', password: PASSWORD, member_number: member, share_id: share, reason };
}

async function run(card: Capability, inputs: Record<string, string>, extra: Partial<RunRequest> = {}, on: Bank = bank) {
  return runCapability({
    card,
    inputs,
    env: { BASE_URL: on.url },
    surface: () => BrowserSurface.launch({ browser }),
    evidenceDir: await mkdtemp(join(scratch, 'ev-')),
    settleTimeoutMs: 20_000,
    ...extra,
  });
}

async function evidenceLines(dir: string | null): Promise<{ kind: string; data: Record<string, unknown> }[]> {
  const text = await readFile(join(dir ?? '', 'evidence.jsonl'), 'utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { kind: string; data: Record<string, unknown> });
}

test.describe('a refusal is never read as success', () => {
  test('a compiled card that only knows the result screen does not take "HOLD NOT POSTED" for it', async () => {
    const r = await run(authored, plate('400226', '400226-S0002'), { allowUnapproved: true });
    expect(r).toMatchObject({ word: 'UNSAFE_TO_RETRY', code: 'COMMIT_IN_DOUBT', at_step: 'post_hold', retryable: false });
    expect(r.page_text).toContain('HOLD NOT POSTED: SHARE ALREADY HELD (LEGAL)');
    // The bank refused: the seeded hold is untouched, and the commit was pressed exactly once.
    expect(bank.store.holdFor('400226-S0002')).toMatchObject({ held: true, reason: 'LEGAL', confirmation: 'HX-226002', postPresses: 1 });
  });

  test('without marks, a screen after a commit is named only by its exact signature', async () => {
    const bare = structuredClone(authored);
    for (const s of Object.values(bare.screens)) delete s.marks;
    const r = await run(bare, plate('400226', '400226-S0002'), { allowUnapproved: true });
    expect(r.word).toBe('UNSAFE_TO_RETRY');
    expect(r.code).toBe('COMMIT_IN_DOUBT');
  });

  test('a refusal the card does not know ends in doubt as soon as the page rests, saying what the page said', async () => {
    // 400539-S0001 is held for FRAUD_REVIEW; the card only knows the LEGAL refusal.
    const r = await run(handWritten, plate('400539', '400539-S0001'));
    expect(r).toMatchObject({ word: 'UNSAFE_TO_RETRY', code: 'COMMIT_IN_DOUBT', at_step: 'post_hold' });
    expect(r.page_text).toContain('HOLD NOT POSTED: SHARE ALREADY HELD (FRAUD_REVIEW)');
    // It did not wait out the 20 s settle deadline: a page at rest on an unknown screen is reported at once.
    expect(r.duration_ms).toBeLessThan(15_000);
    const unknown = (await evidenceLines(r.evidence)).find((l) => l.kind === 'screen_unrecognised');
    expect(unknown?.data['step']).toBe('post_hold');
    expect(unknown?.data['paths']).toContain("work>strong 'HOLD NOT POSTED: SHARE ALREADY HELD (FRAUD_REVIEW)'");
    expect(bank.store.holdFor('400539-S0001')).toMatchObject({ reason: 'FRAUD_REVIEW', postPresses: 1 });
  });

  test('the refusal the card declares is still its business outcome, and a fresh share still succeeds', async () => {
    const held = await run(handWritten, plate('400226', '400226-S0002'));
    expect(held).toMatchObject({ word: 'BUSINESS_OUTCOME', code: 'ALREADY_PROCESSED' });
    expect(held.page_text).toContain('ALREADY HELD (LEGAL)');
    const fresh = await run(handWritten, plate('400118', '400118-S0005'));
    expect(fresh).toMatchObject({ word: 'SUCCESS', screen: 'hold_result' });
    expect(fresh.page_text).toBeUndefined();
    expect(bank.store.holdFor('400118-S0005')).toMatchObject({ held: true, postPresses: 1 });
  });
});

/** An "add note" card for the notes desk, built from the live screen: type the note, press F6=Add Note. */
async function notesCard(on: Bank, post: boolean): Promise<CapabilityInput> {
  const surface = await BrowserSurface.launch({ browser });
  let obs;
  try {
    await surface.open(`${on.url}/notes?m=400118`);
    obs = await surface.observe();
  } finally {
    await surface.close();
  }
  return {
    schema: 'handrail.capability/v1',
    id: 'plumbline_add_note',
    intent: 'Add a note to a member on the notes desk',
    surface: 'browser',
    entry: '{{env.BASE_URL}}/notes?m={{input.member_number}}',
    inputs: { member_number: { type: 'string', pattern: '\\d{6}' }, note: { type: 'string', max_length: 60 } },
    screens: { notes: { title: 'Member Notes', signature: obs.signature, paths: obs.paths } },
    targets: {
      note_field: { role: 'textbox', hint: 'New Note', supports: ['set_value', 'read'], ladder: [{ rung: 'label', cost: 200 }], fingerprint: { over: ['role'] } },
      add_button: { role: 'button', name: { eq: 'F6=Add Note' }, supports: ['invoke'], ladder: [{ rung: 'role_name', cost: 100 }], fingerprint: { over: ['role', 'name'] } },
    },
    steps: [
      { id: 'type_note', screen: 'notes', op: { verb: 'set_value', value: '{{input.note}}' }, target: 'note_field', effect: { kind: 'stage' } },
      {
        id: 'add_note',
        screen: 'notes',
        op: { verb: 'invoke' },
        target: 'add_button',
        effect: { kind: 'commit', confirmed_by: { owner: 'Test Owner' } },
        // The notes page names its member ("MEMBER 400118"): the record is proven before the press.
        pre: [{ kind: 'text', contains: 'MEMBER {{input.member_number}}' }],
        settle: { kind: 'screen_is', screen: 'notes' },
        expect: { screen_in: ['notes'] },
        ...(post ? { post: [{ kind: 'text', contains: '{{input.note}}' }] } : {}),
      },
    ],
    outcomes: { success: { screens: ['notes'] } },
    lifecycle: { state: 'draft' },
  };
}

test.describe('a commit must show its effect', () => {
  let notesBank: Bank;
  test.afterEach(async () => {
    await notesBank?.close();
  });

  async function notesRun(opts: BankOptions, post = true) {
    notesBank = await startBank({ port: 0, ...opts });
    const loaded = loadCapability(await notesCard(notesBank, post));
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
    const note = `CALLED ${randomBytes(3).toString('hex').toUpperCase()}`;
    const r = await run(loaded.value, { member_number: '400118', note }, { allowUnapproved: true, settleTimeoutMs: 5_000 }, notesBank);
    return { r, note, judge: notesBank.store.notesFor('400118') };
  }

  test('a commit that lands where it started needs a postcondition, or the card does not load', async () => {
    notesBank = await startBank({ port: 0 });
    const loaded = loadCapability(await notesCard(notesBank, false));
    expect(loaded.ok).toBe(false);
    if (!loaded.ok) {
      expect(loaded.issues.map((i) => `${i.path}: ${i.message}`).join('\n')).toMatch(/steps\[1\]\.post: commit step "add_note" can end on the screen it started on/);
    }
  });

  test('typing a note on a page that wants Enter changes nothing: in doubt, not SUCCESS', async () => {
    const { r, judge } = await notesRun({ notesButton: 'inert' });
    expect(r).toMatchObject({ word: 'UNSAFE_TO_RETRY', code: 'COMMIT_IN_DOUBT', at_step: 'add_note' });
    expect(r.message).toContain('shows no sign of its effect');
    expect(judge.count).toBe(0);
  });

  test('a note that was added shows, so the same card succeeds, and the counters are read from the ports', async () => {
    const model = { calls: 2 };
    notesBank = await startBank({ port: 0, notesButton: 'submit' });
    const loaded = loadCapability(await notesCard(notesBank, true));
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
    const note = `CALLED ${randomBytes(3).toString('hex').toUpperCase()}`;
    const r = await run(
      loaded.value,
      { member_number: '400118', note },
      { allowUnapproved: true, settleTimeoutMs: 5_000, model, classifier: { calls: 1 } },
      notesBank,
    );
    expect(r).toMatchObject({ word: 'SUCCESS', unapproved: true, llm_calls: 2, classifier_calls: 1 });
    // Every evidence line of a run without an approval says so, the closing seal included.
    const lines = await evidenceLines(r.evidence);
    expect(lines.length).toBeGreaterThan(3);
    for (const l of lines) expect(l.data['unapproved'], l.kind).toBe(true);
    expect(notesBank.store.notesFor('400118')).toMatchObject({ notes: [note], submits: 1 });
  });
});

test.describe('only approved cards commit', () => {
  test('a draft that commits is refused before a browser starts, naming its state', async () => {
    let launched = false;
    const r = await runCapability({
      card: authored,
      inputs: plate('400118', '400118-S0005'),
      env: { BASE_URL: bank.url },
      surface: () => {
        launched = true;
        return BrowserSurface.launch({ browser });
      },
    });
    expect(r).toMatchObject({ word: 'REFUSED', code: 'NOT_APPROVED' });
    expect(r.message).toMatch(/draft/);
    expect(launched).toBe(false);
    expect(bank.store.holdFor('400118-S0005').postPresses).toBe(0);
  });

  test('handrail replay refuses a draft with exit 13 and runs it with --allow-unapproved, saying so', async () => {
    const args = [
      'replay', 'capabilities/plumbline-place-hold.authored.json', '--base-url', bank.url,
      '--input', 'operator_id=OP1001', '--input', 'member_number=400118', '--input', 'share_id=400118-S0005', '--input', 'reason=LEGAL',
      '--evidence', join(scratch, `cli-${randomBytes(3).toString('hex')}`),
    ];
    const refused = await cli(args);
    expect(refused.code).toBe(EXIT_CODE.REFUSED);
    expect(JSON.parse(refused.stdout)).toMatchObject({ word: 'REFUSED', code: 'NOT_APPROVED' });
    const ran = await cli([...args.slice(0, -2), '--evidence', join(scratch, `cli-${randomBytes(3).toString('hex')}`), '--allow-unapproved']);
    expect(ran.code).toBe(EXIT_CODE.SUCCESS);
    expect(JSON.parse(ran.stdout)).toMatchObject({ word: 'SUCCESS', unapproved: true });
    expect(ran.stderr).toContain('without an approval');
  });
});

function cli(args: string[]): Promise<Ran> {
  return handrail(args, { ...process.env, HANDRAIL_SECRET_PASSWORD: PASSWORD });
}

test.describe('the first screen waits like every other', () => {
  let server: Server;
  let url: string;
  const LATE_PAGE = `<!doctype html><html><head><title>Late App</title></head><body><div id="app"></div>
<script>setTimeout(() => { document.getElementById('app').innerHTML =
  '<h1>Find a member</h1><form><label>Member <input name="m"></label> <button type="button">Search</button></form>'; }, 600);</script>
</body></html>`;

  test.beforeAll(async () => {
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(LATE_PAGE);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  test.afterAll(async () => {
    await new Promise<void>((r) => server.close(() => r()));
  });

  test('a single-page app that renders after load is found at step 1, every time', async () => {
    // Record the rendered screen once.
    const s = await BrowserSurface.launch({ browser });
    let obs;
    try {
      await s.open(url);
      for (let i = 0; i < 50; i++) {
        obs = await s.observe();
        if (obs.paths.some((p) => p.includes('Find a member'))) break;
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      await s.close();
    }
    expect(obs?.paths.some((p) => p.includes('Find a member'))).toBe(true);
    const loaded = loadCapability({
      schema: 'handrail.capability/v1',
      id: 'late_search',
      intent: 'Type a member number into a page that renders late',
      surface: 'browser',
      entry: url,
      inputs: { member: { type: 'string' } },
      screens: { find: { title: 'Find a member', signature: obs?.signature ?? '', paths: obs?.paths ?? [] } },
      targets: {
        member: { role: 'textbox', name: { eq: 'Member' }, supports: ['set_value', 'read'], ladder: [{ rung: 'role_name', cost: 100 }], fingerprint: { over: ['role'] } },
      },
      steps: [{ id: 'type_member', screen: 'find', op: { verb: 'set_value', value: '{{input.member}}' }, target: 'member', effect: { kind: 'stage' } }],
      outcomes: { success: { screens: ['find'] } },
      lifecycle: { state: 'draft' },
    });
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
    for (let i = 0; i < 4; i++) {
      const r = await runCapability({
        card: loaded.value,
        inputs: { member: '400118' },
        env: {},
        surface: () => BrowserSurface.launch({ browser }),
        evidenceDir: await mkdtemp(join(scratch, 'late-')),
        settleTimeoutMs: 5_000,
      });
      expect(r, `run ${i + 1}: ${JSON.stringify(r)}`).toMatchObject({ word: 'SUCCESS', steps_done: 1 });
    }
  });
});
