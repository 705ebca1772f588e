// One runner of the PostgreSQL race bench (tests/bench/pg-race.ts), in its own process as on its own machine: its own
// Chromium, its own connection to the shared journal (HANDRAIL_JOURNAL_URL), the real card. Each stdin line
// `go <share>` replays the card once for that share (lock wait 0, as two machines racing) and answers one JSON line.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { chromium } from 'playwright-core';
import { findChromium } from '../../runner/browser/chromium.ts';
import { BrowserSurface } from '../../runner/browser/surface.ts';
import { readCard } from '../../runner/cli/replay.ts';
import { openSharedJournal } from '../../runner/journals.ts';
import { runCapability } from '../../runner/run.ts';

const password = process.env['HANDRAIL_SECRET_PASSWORD'] ?? '';
const base = process.env['BASE_URL'] ?? '';
const journals = await openSharedJournal(process.env);
if (!journals) throw new Error('pg-runner needs HANDRAIL_JOURNAL_URL');
const loaded = await readCard(resolve(import.meta.dirname, '../../capabilities/plumbline-place-hold.json'));
if (!loaded.ok) throw new Error(loaded.message);
const browser = await chromium.launch(findChromium().launchOptions);
const evidence = await mkdtemp(join(tmpdir(), 'handrail-pg-runner-'));
process.stdout.write('ready\n');
for await (const line of createInterface({ input: process.stdin })) {
  const [verb, share] = line.trim().split(' ');
  if (verb !== 'go' || !share) continue;
  const t = performance.now();
  const r = await runCapability({
    card: loaded.card,
    inputs: { operator_id: 'OP1001', password, member_number: share.slice(0, 6), share_id: share, reason: 'LEGAL' },
    env: { BASE_URL: base },
    surface: () => BrowserSurface.launch({ browser }),
    evidenceDir: await mkdtemp(join(evidence, 'ev-')),
    journalStore: journals,
    lockWaitMs: 0,
  });
  process.stdout.write(`${JSON.stringify({ word: r.word, code: r.code, from_journal: r.from_journal, ms: performance.now() - t })}\n`);
}
await browser.close();
await journals.close();
