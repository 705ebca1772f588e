// The journal answers first: a committed, in-doubt, damaged or busy key is answered before any network or browser, and the key is the intent — card, content and the identifying inputs, never a secret.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal } from '../../runner/engine/journal.ts';
import { intentOf, journalFile, leaseFile, stateHome, storeIn, type Store } from '../../runner/intent.ts';
import { Lease } from '../../runner/lease.ts';
import { runCapability, type RunRequest } from '../../runner/run.ts';
import { Capability, loadCapability } from '../../shared/schema/index.ts';

let tmp: string;
let store: Store;
let card: Capability;
let surfaces = 0;
const PASSWORD = 'pw-unit-never-twice';
const inputs = { operator_id: 'OP1001', password: PASSWORD, member_number: '400118', share_id: '400118-S0005', reason: 'LEGAL' };
const values = { operator_id: 'OP1001', member_number: '400118', share_id: '400118-S0005', reason: 'LEGAL', password: PASSWORD };

beforeEach(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'handrail-journal-run-'));
  store = storeIn(path.join(tmp, 'home'));
  const loaded = loadCapability(await fs.readFile('capabilities/plumbline-place-hold.json', 'utf8'));
  if (!loaded.ok) throw new Error('the repo card does not load');
  card = loaded.value;
  surfaces = 0;
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

/** A run against a bank that is not there (port 9): anything that touched the network or a browser would show. */
function run(extra: Partial<RunRequest> = {}): ReturnType<typeof runCapability> {
  return runCapability({
    card,
    inputs,
    env: { BASE_URL: 'http://127.0.0.1:9' },
    surface: () => {
      surfaces++;
      return Promise.reject(new Error('no browser in this test'));
    },
    store,
    evidenceDir: path.join(tmp, 'ev'),
    ...extra,
  });
}

async function journalWith(write: (j: Journal) => Promise<void>, file = journalFile(store, intentOf(card, values).key)): Promise<string> {
  const j = await Journal.open(file, intentOf(card, values));
  await write(j);
  await j.close();
  return file;
}

describe('the journal answers first', () => {
  it('a committed key answers with the original receipt, from the journal, with the bank down and no browser', async () => {
    const original = { word: 'SUCCESS', code: 'OK', retryable: false, message: 'all steps done', card: card.id, run_id: 'run-original', outputs: { confirmation: 'HX-000042' }, llm_calls: 0, classifier_calls: 0, rungs: {}, screen: 'hold_result', steps_done: 11, from_journal: false, evidence: '/runs/run-original', evidence_head: 'abc', duration_ms: 1 };
    await journalWith(async (j) => {
      await j.dispatched('run-original', 'post_hold', 'commit');
      await j.observed('run-original', 'post_hold', 'commit');
      await j.receipt('run-original', original);
    });
    const r = await run();
    expect(r).toMatchObject({ word: 'SUCCESS', from_journal: true, run_id: 'run-original', outputs: { confirmation: 'HX-000042' }, evidence_head: 'abc', key: intentOf(card, values).key });
    expect(surfaces).toBe(0);
  });

  it('a key in doubt answers UNSAFE_TO_RETRY at once, naming the settle command', async () => {
    await journalWith((j) => j.dispatched('run-crashed', 'post_hold', 'commit'));
    const r = await run();
    expect(r).toMatchObject({ word: 'UNSAFE_TO_RETRY', code: 'JOURNAL_IN_DOUBT', retryable: false });
    expect(r.message).toContain(`handrail journal settle ${intentOf(card, values).key}`);
    expect(surfaces).toBe(0);
  });

  it('a damaged journal answers JOURNAL_DAMAGED (UNSAFE_TO_RETRY family) with the line, and the secret nowhere', async () => {
    const file = await journalWith((j) => j.dispatched('run-crashed', 'post_hold', 'commit'));
    await fs.writeFile(file, '');
    const r = await run();
    expect(r).toMatchObject({ word: 'UNSAFE_TO_RETRY', code: 'JOURNAL_DAMAGED', retryable: false, journal: file });
    expect(r.message).toContain('line 1');
    expect(JSON.stringify(r)).not.toContain(PASSWORD);
    expect(surfaces).toBe(0);
  });

  it('a key held by another live process answers BUSY (retryable) without reading the journal', async () => {
    const key = intentOf(card, values).key;
    const held = await Lease.acquire(leaseFile(store, key), { what: 'another run' });
    if (!held.ok) throw new Error('must win');
    try {
      const r = await run({ lockWaitMs: 100 });
      expect(r).toMatchObject({ word: 'BUSY', code: 'BUSY', retryable: true, key });
      await expect(fs.stat(journalFile(store, key))).rejects.toMatchObject({ code: 'ENOENT' });
    } finally {
      await held.lease.release();
    }
    expect(surfaces).toBe(0);
  });

  it('one --journal file answers for one intent: another share is refused, not answered from it', async () => {
    const file = path.join(tmp, 'shared.jsonl');
    await journalWith(async (j) => {
      await j.dispatched('run-1', 'post_hold', 'commit');
      await j.observed('run-1', 'post_hold', 'commit');
    }, file);
    const r = await run({ journalPath: file, inputs: { ...inputs, share_id: '400118-S0001' } });
    expect(r).toMatchObject({ word: 'REFUSED', code: 'JOURNAL_KEY_MISMATCH', from_journal: false });
    expect(surfaces).toBe(0);
  });

  it('a state dir that cannot be written is a typed FAILED receipt, not an exception', async () => {
    const blocker = path.join(tmp, 'not-a-dir');
    await fs.writeFile(blocker, 'x');
    const r = await run({ store: { journals: path.join(blocker, 'journals'), locks: path.join(blocker, 'locks') } });
    expect(r).toMatchObject({ word: 'FAILED', code: 'INTERNAL', retryable: false });
    expect(r.message).toContain('ENOTDIR');
    expect(surfaces).toBe(0);
  });

  it('a key that never started goes on to the reachability check: RECOVERABLE with the bank down, and the lease is let go', async () => {
    const r = await run();
    expect(r).toMatchObject({ word: 'RECOVERABLE', code: 'SURFACE_UNREACHABLE', key: intentOf(card, values).key });
    const again = await Lease.acquire(leaseFile(store, intentOf(card, values).key), { what: 'after' });
    expect(again.ok).toBe(true);
  });
});

describe('the key is the intent', () => {
  it('differs by share and by reason by default, not by the password, and not by argument order', () => {
    const k = (v: Record<string, string>): string => intentOf(card, v).key;
    expect(k(values)).toMatch(/^plumbline_place_hold\.[0-9a-f]{32}$/);
    expect(k({ ...values, share_id: '400118-S0001' })).not.toBe(k(values));
    expect(k({ ...values, reason: 'OTHER' })).not.toBe(k(values));
    expect(k({ ...values, password: 'another-password' })).toBe(k(values));
    expect(k(Object.fromEntries(Object.entries(values).reverse()))).toBe(k(values));
    expect(intentOf(card, values).identity).not.toHaveProperty('password');
  });

  it('follows the card\'s identity declaration, and a changed card is a new intent', () => {
    const byShare = Capability.parse({ ...card, identity: ['member_number', 'share_id'] });
    expect(intentOf(byShare, { ...values, reason: 'OTHER' }).key).toBe(intentOf(byShare, values).key);
    expect(intentOf(byShare, values).key).not.toBe(intentOf(card, values).key);
  });

  it('the schema refuses an identity naming a secret, an undeclared input, or one twice', () => {
    for (const [identity, why] of [
      [['password'], 'is a secret'],
      [['nonesuch'], 'no input "nonesuch"'],
      [['share_id', 'share_id'], 'listed twice'],
    ] as const) {
      const r = Capability.safeParse({ ...card, identity });
      expect(r.success, why).toBe(false);
      expect(r.error?.issues.map((i) => i.message).join('; '), why).toContain(why);
    }
  });

  it('the state dir is $HANDRAIL_HOME, else XDG_STATE_HOME/handrail, else ~/.local/state/handrail', () => {
    expect(stateHome({ HANDRAIL_HOME: '/srv/hr', XDG_STATE_HOME: '/x' })).toBe('/srv/hr');
    expect(stateHome({ XDG_STATE_HOME: '/x/state', HOME: '/home/u' })).toBe('/x/state/handrail');
    expect(stateHome({ HOME: '/home/u' })).toBe('/home/u/.local/state/handrail');
  });
});
