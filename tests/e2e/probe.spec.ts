// A commit left in doubt is settled by the card's read-only probe when the probe is conclusive: a hold that did post
// is answered SUCCESS from the journal without a second press, a hold that did not is pressed once, and an
// inconclusive probe leaves the commit in doubt — each settlement recorded in the journal as the probe's.
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { Browser } from 'playwright-core';
import type { Bank } from '../../demo/plumbline/server.ts';
import { BrowserSurface } from '../../runner/browser/surface.ts';
import { readJournal } from '../../runner/engine/journal.ts';
import { storeIn } from '../../runner/intent.ts';
import { probeFor } from '../../runner/cli/replay.ts';
import { runCapability, type RunRequest } from '../../runner/run.ts';
import type { Capability } from '../../shared/schema/index.ts';
import { SurfaceError, type Surface } from '../../shared/surface.ts';
import { bankScene } from './support/bank.ts';
import { cardAt } from './support/cards.ts';

const CARD = 'capabilities/plumbline-place-hold.json';
const PASSWORD = `pw-${randomBytes(6).toString('hex')}`;
let bank: Bank;
let browser: Browser;
let scratch: string;
let card: Capability;

bankScene({ scratch: 'handrail-probe-', operatorPassword: PASSWORD, reset: true, browser: true }, (s) => ({ app: bank, scratch, browser } = s));
test.beforeAll(async () => {
  card = await cardAt(CARD);
});

const plate = (share: string): Record<string, string> => ({
  operator_id: 'OP1001', password: PASSWORD, member_number: share.slice(0, 6), share_id: share, reason: 'LEGAL',
});

/** A browser whose Post Hold click is lost to a crash: after the click lands (`landed`), or before it. */
function crashingAtPost(landed: boolean): () => Promise<Surface> {
  return async () => {
    const s = await BrowserSurface.launch({ browser });
    const resolve = s.resolve.bind(s);
    const act = s.act.bind(s);
    let armed = false;
    s.resolve = async (t) => {
      armed = t.id === 'post_button';
      return resolve(t);
    };
    s.act = async (ref, op) => {
      if (!armed) return act(ref, op);
      if (landed) await act(ref, op);
      throw new SurfaceError('BROWSER_CRASHED', 'the browser went away during Post Hold');
    };
    return s;
  };
}

async function inDoubt(share: string, home: string, landed: boolean): Promise<void> {
  const r = await run(share, home, { surface: crashingAtPost(landed) });
  expect(r, r.message).toMatchObject({ word: 'UNSAFE_TO_RETRY', code: 'COMMIT_IN_DOUBT' });
}

async function run(share: string, home: string, extra: Partial<RunRequest> = {}) {
  return runCapability({
    card,
    inputs: plate(share),
    env: { BASE_URL: bank.url },
    surface: () => BrowserSurface.launch({ browser }),
    store: storeIn(home),
    evidenceDir: await mkdtemp(join(scratch, 'ev-')),
    settleTimeoutMs: 5_000,
    ...extra,
  });
}

async function withProbe(share: string, probeCard?: Capability) {
  const base = { env: { BASE_URL: bank.url }, surface: () => BrowserSurface.launch({ browser }), settleTimeoutMs: 5_000 };
  const probe = await probeFor(card, CARD, plate(share), base);
  if (!probeCard) return probe;
  const inputs = Object.fromEntries(Object.entries(plate(share)).filter(([k]) => k in probeCard.inputs));
  return { ...probe, card: probeCard, run: () => runCapability({ ...base, card: probeCard, inputs }) };
}

test('a Post Hold that did land is settled as committed by the probe, and answered without a second press', async () => {
  const home = await mkdtemp(join(scratch, 'home-'));
  await inDoubt('400118-S0005', home, true);
  expect(bank.store.holdFor('400118-S0005')).toMatchObject({ held: true, postPresses: 1 });
  // Without --probe the journal answers "in doubt" and presses nothing.
  expect(await run('400118-S0005', home)).toMatchObject({ word: 'UNSAFE_TO_RETRY', code: 'JOURNAL_IN_DOUBT' });
  const r = await run('400118-S0005', home, { probe: await withProbe('400118-S0005') });
  expect(r).toMatchObject({ word: 'SUCCESS', from_journal: true });
  expect(r.message).toMatch(/settled as committed by probe plumbline_hold_status/);
  expect(bank.store.holdFor('400118-S0005').postPresses).toBe(1);
  const journal = await readJournal(r.journal ?? '');
  expect(journal?.records.filter((x) => x.phase === 'settled')).toMatchObject([{ as: 'committed', via: 'probe' }]);
});

test('a Post Hold that never landed is settled as not committed by the probe, then pressed exactly once', async () => {
  const home = await mkdtemp(join(scratch, 'home-'));
  await inDoubt('400445-S0001', home, false);
  expect(bank.store.holdFor('400445-S0001')).toMatchObject({ held: false, postPresses: 0 });
  const r = await run('400445-S0001', home, { probe: await withProbe('400445-S0001') });
  expect(r).toMatchObject({ word: 'SUCCESS', from_journal: false });
  expect(bank.store.holdFor('400445-S0001')).toMatchObject({ held: true, postPresses: 1 });
});

test('an inconclusive probe leaves the commit in doubt and says what the probe saw', async () => {
  const home = await mkdtemp(join(scratch, 'home-'));
  await inDoubt('400118-S0005', home, true);
  // A probe that cannot find the share's row (its patterns name another share) is inconclusive.
  const blind = structuredClone((await withProbe('400118-S0005')).card);
  for (const rule of Object.values(blind.outcomes.business)) rule.text = 'NO SUCH ROW 999999';
  const r = await run('400118-S0005', home, { probe: await withProbe('400118-S0005', blind) });
  expect(r).toMatchObject({ word: 'UNSAFE_TO_RETRY', code: 'JOURNAL_IN_DOUBT' });
  expect(r.message).toMatch(/probe plumbline_hold_status was inconclusive: it ended SUCCESS/);
  expect(bank.store.holdFor('400118-S0005').postPresses).toBe(1);
});
