// A write nobody declared is held in replay: a step that is no commit never gets its write to the app (FAILED UNDECLARED_WRITE, nothing sent, a journal record of its own), while GETs, ignorable endpoints and the commit's own write go out.
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

async function replay(s: MemorySurface, card: Capability, journalFile?: string): Promise<{ result: RunResult; log: string }> {
  const runId = `run-${++runs}`;
  const masker = new Masker([{ name: 'password', value: PASSWORD }]);
  const dir = path.join(tmp, runId);
  const evidence = await Evidence.create(dir, masker, runId);
  const journal = journalFile ? await Journal.open(journalFile, intentOf(card, INPUTS)) : null;
  try {
    const result = await new Replay({ card, inputs: INPUTS, entry: card.entry, runId, masker, evidence, journal }, s).run();
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
