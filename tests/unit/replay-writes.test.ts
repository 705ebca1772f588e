// A write nobody declared is held in replay: a step that is no commit never gets its write to the app (FAILED UNDECLARED_WRITE, nothing sent, a journal record of its own), while GETs, ignorable endpoints and the commit's own write go out; and a rehearsal runs up to the commit, shows the request it would send, and presses nothing.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Replay } from '../../runner/engine/engine.ts';
import { Journal, readJournal } from '../../runner/engine/journal.ts';
import { Evidence, LOG_FILE } from '../../runner/evidence.ts';
import { intentOf } from '../../runner/intent.ts';
import { Capability, type CapabilityInput } from '../../shared/schema/capability.ts';
import { RunResult } from '../../shared/schema/result.ts';
import { Masker } from '../../shared/secrets.ts';
import { MemorySurface, type MemoryApp } from '../fixtures/memory-surface.ts';

const PASSWORD = 'correct-horse-9';
const SHARE = '400118-S0005';
const INPUTS = { share: SHARE, password: PASSWORD };
const ORIGIN = 'http://memory.test';

/** Sign on → member (a Hold link) → review (F10=Post Hold) → posted. Each test scripts the writes its acts send. */
function desk(): MemoryApp {
  return {
    screens: {
      signon: {
        title: 'Sign On',
        elements: [
          { role: 'textbox', hint: 'Password', secret: true, ancestors: ['form'] },
          { role: 'button', name: 'Sign On', ancestors: ['form'], on: { invoke: 'member' } },
        ],
      },
      member: { title: 'Member', text: `SHARE ${SHARE}`, elements: [{ role: 'link', name: 'Hold', on: { invoke: 'review' } }] },
      review: { title: 'Review Hold', elements: [{ role: 'button', name: 'F10=Post Hold', ancestors: ['form'], on: { invoke: 'posted' } }] },
      posted: { title: 'Hold Posted', furniture: ["heading 'Hold Posted'"], elements: [{ role: 'text', text: 'Hold placed: HX-123456', control: false }] },
    },
  };
}

function cardFor(s: MemorySurface, edit: (c: CapabilityInput) => void = () => undefined): Capability {
  const button = (name: string) => ({ role: 'button', name: { eq: name }, supports: ['invoke' as const], ladder: [{ rung: 'role_name' as const, cost: 100 }], fingerprint: { over: ['role' as const, 'name' as const] } });
  const card: CapabilityInput = {
    schema: 'handrail.capability/v1',
    id: 'place_hold',
    intent: 'Place a hold on a share.',
    surface: 'browser',
    entry: 'memory://signon',
    inputs: { share: { type: 'string' }, password: { type: 'string', secret: true } },
    screens: Object.fromEntries(['signon', 'member', 'review', 'posted'].map((n) => [n, s.screenRecord(n)])),
    targets: {
      password_field: { role: 'textbox', hint: 'Password', supports: ['set_value'], ladder: [{ rung: 'label', cost: 200 }], fingerprint: { over: ['role'] } },
      sign_on: button('Sign On'),
      hold: { ...button('Hold'), role: 'link' },
      post: button('F10=Post Hold'),
    },
    steps: [
      { id: 'enter_password', screen: 'signon', op: { verb: 'set_value', value: '{{input.password}}' }, target: 'password_field', effect: { kind: 'stage' } },
      { id: 'sign_on', screen: 'signon', op: { verb: 'invoke' }, target: 'sign_on', effect: { kind: 'navigate' }, settle: { kind: 'screen_is', screen: 'member', timeout_ms: 200 } },
      { id: 'open_hold', screen: 'member', op: { verb: 'invoke' }, target: 'hold', effect: { kind: 'navigate' }, settle: { kind: 'screen_is', screen: 'review', timeout_ms: 200 } },
      {
        id: 'post_hold',
        screen: 'review',
        op: { verb: 'invoke' },
        target: 'post',
        effect: { kind: 'commit', confirmed_by: { owner: 'dana' } },
        // This desk has one review, no record an input chooses (which record is engine-record.test.ts's business).
        no_record: true,
        settle: { kind: 'screen_in', screens: ['posted'], timeout_ms: 200 },
      },
    ],
    outcomes: { success: { screens: ['posted'] } },
    network: { origins: [ORIGIN], ignore: ['POST /signon'] },
    lifecycle: { state: 'verified' },
  };
  edit(card);
  return Capability.parse(card);
}

/** The desk with each act's writes: the sign-on's (ignorable), the commit's own, and any a test adds. */
function scripted(extra: (app: MemoryApp) => void = () => undefined): MemorySurface {
  const app = desk();
  app.screens['signon']!.elements[1]!.writes = { invoke: [`POST ${ORIGIN}/signon`] };
  app.screens['review']!.elements[0]!.writes = { invoke: [`POST ${ORIGIN}/post?share=${SHARE}`] };
  extra(app);
  return new MemorySurface(app, { writes: true });
}

let tmp: string;
let runs = 0;
beforeEach(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'handrail-replay-writes-'));
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

async function replay(s: MemorySurface, card: Capability, journalFile?: string, rehearse = false): Promise<{ result: RunResult; log: string }> {
  const runId = `run-${++runs}`;
  const masker = new Masker([{ name: 'password', value: PASSWORD }]);
  const dir = path.join(tmp, runId);
  const evidence = await Evidence.create(dir, masker, runId);
  const journal = journalFile ? await Journal.open(journalFile, intentOf(card, INPUTS)) : null;
  try {
    const result = await new Replay({ card, inputs: INPUTS, entry: card.entry, runId, masker, evidence, journal, ...(rehearse ? { rehearse } : {}) }, s).run();
    return { result: RunResult.parse(result), log: await fs.readFile(path.join(dir, LOG_FILE), 'utf8') };
  } finally {
    await journal?.close();
    await evidence.close();
  }
}

describe('a write nobody declared is held before it leaves', () => {
  it('a navigation whose page posts: the POST never reaches the app, the run ends FAILED UNDECLARED_WRITE naming method and path, the commit is never pressed', async () => {
    const s = scripted((app) => {
      app.screens['member']!.elements[0]!.writes = { invoke: [`POST ${ORIGIN}/audit?share=${SHARE}&pw=${PASSWORD}`] };
    });
    const journal = path.join(tmp, 'hold.journal');
    const { result, log } = await replay(s, cardFor(s), journal);
    expect(result).toMatchObject({ word: 'FAILED', code: 'UNDECLARED_WRITE', at_step: 'open_hold', retryable: false });
    expect(result.message).toContain('POST /audit');
    expect(result.message).toMatch(/held/);
    expect(result.message).not.toContain(PASSWORD);
    // Nothing of it left: the app saw the sign-on only, and the commit was never pressed.
    expect(s.sent).toEqual([`POST ${ORIGIN}/signon`]);
    expect(s.presses('F10=Post Hold')).toBe(0);
    expect(log).toContain('"undeclared_write"');
    expect(log).toContain('"blocked"');
    expect(log).not.toContain(PASSWORD);
    // The journal keeps a record of its own for it, and the key is not in doubt: nothing left, nothing to settle.
    const read = await readJournal(journal);
    const held = read?.records.filter((r) => r.phase === 'held') ?? [];
    expect(held).toEqual([expect.objectContaining({ phase: 'held', step: 'open_hold', code: 'UNDECLARED_WRITE', writes: [{ method: 'POST', path: '/audit', via: 'request' }] })]);
    expect(JSON.stringify(read?.records)).not.toContain(PASSWORD);
    expect(read?.state.status()).toBe('open');
    // The same call again is not refused as in doubt: it meets the same held write (the card must change).
    const again = await replay(s, cardFor(s), journal);
    expect(again.result).toMatchObject({ word: 'FAILED', code: 'UNDECLARED_WRITE' });
    expect(s.sent).toEqual([`POST ${ORIGIN}/signon`, `POST ${ORIGIN}/signon`]);
  });

  it('a stage that writes is held the same way: only a commit may write', async () => {
    const s = scripted((app) => {
      app.screens['signon']!.elements[0]!.writes = { set_value: [`PUT ${ORIGIN}/draft`] };
    });
    const { result } = await replay(s, cardFor(s));
    expect(result).toMatchObject({ word: 'FAILED', code: 'UNDECLARED_WRITE', at_step: 'enter_password' });
    expect(s.sent).toEqual([]);
  });

  it('GETs, an endpoint the card declares ignorable and the commit\'s own write go out: SUCCESS', async () => {
    const s = scripted((app) => {
      app.screens['member']!.elements[0]!.writes = { invoke: [`GET ${ORIGIN}/review?share=${SHARE}`] };
    });
    const { result } = await replay(s, cardFor(s));
    expect(result).toMatchObject({ word: 'SUCCESS' });
    expect(s.sent).toEqual([`POST ${ORIGIN}/signon`, `GET ${ORIGIN}/review?share=${SHARE}`, `POST ${ORIGIN}/post?share=${SHARE}`]);
  });

  it('a surface that cannot hold writes reports them after they left: UNSAFE_TO_RETRY, and the journal holds the key in doubt', async () => {
    const s = scripted((app) => {
      app.screens['member']!.elements[0]!.writes = { invoke: [`POST ${ORIGIN}/audit`] };
    });
    Object.assign(s, { writesUnheld: true });
    const journal = path.join(tmp, 'unheld.journal');
    const { result } = await replay(s, cardFor(s), journal);
    expect(result).toMatchObject({ word: 'UNSAFE_TO_RETRY', code: 'UNDECLARED_WRITE', at_step: 'open_hold' });
    expect(s.sent).toContain(`POST ${ORIGIN}/audit`);
    expect((await readJournal(journal))?.state.status()).toBe('in_doubt');
  });

  it('a card that declares no network is only watched: its writes are recorded, not held', async () => {
    const s = scripted((app) => {
      app.screens['member']!.elements[0]!.writes = { invoke: [`POST memory://audit`] };
    });
    const { result } = await replay(s, cardFor(s, (c) => delete c.network));
    expect(result).toMatchObject({ word: 'SUCCESS' });
  });
});

describe('a rehearsal runs up to the first commit and presses nothing', () => {
  /** The commit's form as the page holds it: the share, and the operator's password carried along. */
  const form = (app: MemoryApp): void => {
    app.screens['review']!.elements[0]!.submits = {
      method: 'post',
      url: `${ORIGIN}/post`,
      fields: [
        { name: 'share', value: SHARE, secret: false },
        { name: 'pwd', value: PASSWORD, secret: true },
        { name: 'echo', value: `again ${PASSWORD}`, secret: false },
      ],
    };
  };

  it('REHEARSED with the request the commit would send, secrets masked; the commit is not pressed, its write not sent, the journal not touched', async () => {
    const s = scripted(form);
    const journal = path.join(tmp, 'rehearsed.journal');
    const { result, log } = await replay(s, cardFor(s), journal, true);
    expect(result).toMatchObject({ word: 'REHEARSED', code: 'REHEARSED', at_step: 'post_hold', retryable: false });
    expect(result.rehearsal).toEqual({
      step: 'post_hold',
      checked: ['screen', 'target'],
      derived: 'form',
      request: {
        method: 'POST',
        url: `${ORIGIN}/post`,
        fields: [
          { name: 'share', value: SHARE, secret: false },
          { name: 'pwd', value: '[secret:pwd]', secret: true },
          { name: 'echo', value: 'again [secret:password]', secret: true },
        ],
      },
    });
    expect(result.message).toContain(`would send POST ${ORIGIN}/post`);
    expect(s.presses('F10=Post Hold')).toBe(0);
    expect(s.sent).toEqual([`POST ${ORIGIN}/signon`]);
    expect(JSON.stringify(result)).not.toContain(PASSWORD);
    expect(log).toContain('"rehearsal"');
    expect(log).not.toContain(PASSWORD);
    // Not a stage, not a commit, nothing: the journal a real run would open is as it was (created empty by the test).
    const read = await readJournal(journal);
    expect(read?.records.map((r) => r.phase)).toEqual(['header']);
    // A real run after it presses, once.
    const real = await replay(s, cardFor(s), journal);
    expect(real.result).toMatchObject({ word: 'SUCCESS' });
    expect(s.presses('F10=Post Hold')).toBe(1);
  });

  it('a stage that writes is held in a rehearsal too, and the rehearsal ends on it, not at the commit', async () => {
    const s = scripted((app) => {
      form(app);
      app.screens['member']!.elements[0]!.writes = { invoke: [`POST ${ORIGIN}/audit`] };
    });
    const { result } = await replay(s, cardFor(s), undefined, true);
    expect(result).toMatchObject({ word: 'FAILED', code: 'UNDECLARED_WRITE', at_step: 'open_hold' });
    expect(result.rehearsal).toBeUndefined();
    expect(s.sent).toEqual([`POST ${ORIGIN}/signon`]);
  });

  it('a surface that cannot tell what a press sends says so: REHEARSED, derived none, still nothing pressed', async () => {
    const s = scripted();
    const { result } = await replay(s, cardFor(s), undefined, true);
    expect(result).toMatchObject({ word: 'REHEARSED', rehearsal: { derived: 'none', request: null, note: 'it submits no form' } });
    expect(s.presses('F10=Post Hold')).toBe(0);
  });

  it('a card without a commit runs every step and ends REHEARSED NO_COMMIT', async () => {
    const s = scripted();
    const card = cardFor(s, (c) => {
      c.steps = c.steps.slice(0, 3);
      c.outcomes = { success: { screens: ['review'] } };
    });
    const { result } = await replay(s, card, undefined, true);
    expect(result).toMatchObject({ word: 'REHEARSED', code: 'NO_COMMIT' });
  });
});
