// Benchmark: this checkout's replay against another checkout's (a base commit exported with `git archive`),
// interleaved in one browser on one demo app. On a shared machine the floor moves more from one minute to the next
// than a cut moves the replay, so what a change did is read from pairs run side by side: the medians, the paired
// ratio and, with HANDRAIL_PROFILE=1, both per-phase tables (docs/design/profiling.md, "Profiling a replay").
// Run: git archive <rev> | tar -x -C /tmp/base && ln -s "$PWD/node_modules" /tmp/base/node_modules
//      npx tsx tests/bench/replay-ab.ts /tmp/base [pairs] [plumbline|casedesk]
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { findChromium } from '../../runner/browser/chromium.ts';
import { BrowserSurface } from '../../runner/browser/surface.ts';
import { readCard } from '../../runner/cli/replay.ts';
import { phasesFromEnv, type Phases } from '../../runner/profile.ts';
import { runCapability } from '../../runner/run.ts';
import { APPS, appUnderBench, type AppName } from './replay.ts';
import { median } from './stats.ts';

/** One side of the pairs: a checkout's runCapability and browser surface, and where its phases go. */
interface Side {
  name: string;
  run: typeof runCapability;
  launch: (browser: Browser) => Promise<BrowserSurface>;
  profile: Phases | undefined;
  ms: number[];
}

/** The other checkout's modules, loaded from its own files (its own copies of everything they import). */
async function checkout(dir: string): Promise<Side> {
  const at = (rel: string): string => pathToFileURL(join(dir, rel)).href;
  for (const rel of ['runner/run.ts', 'runner/browser/surface.ts', 'runner/profile.ts', 'node_modules']) {
    if (!existsSync(join(dir, rel))) throw new Error(`${dir} is not a handrail checkout with its node_modules: ${rel} is missing`);
  }
  const run = (await import(at('runner/run.ts'))) as { runCapability: typeof runCapability };
  const surface = (await import(at('runner/browser/surface.ts'))) as { BrowserSurface: typeof BrowserSurface };
  const profile = (await import(at('runner/profile.ts'))) as { phasesFromEnv: typeof phasesFromEnv };
  return {
    name: `base (${dir})`,
    run: run.runCapability,
    launch: (browser) => surface.BrowserSurface.launch({ browser }),
    profile: profile.phasesFromEnv(process.env),
    ms: [],
  };
}

async function main(): Promise<void> {
  const [dirArg, pairsArg, appArg] = process.argv.slice(2);
  if (!dirArg) throw new Error('usage: replay-ab.ts <other checkout> [pairs] [plumbline|casedesk]');
  const pairs = Number(pairsArg ?? 10);
  const which = (appArg ?? 'plumbline') as AppName;
  if (!APPS.includes(which)) throw new Error(`unknown app ${which}: the replay bench knows ${APPS.join(', ')}`);
  const base = await checkout(resolve(dirArg));
  const here: Side = { name: 'this checkout', run: runCapability, launch: (browser) => BrowserSurface.launch({ browser }), profile: phasesFromEnv(process.env), ms: [] };
  const app = await appUnderBench(which);
  const browser = await chromium.launch(findChromium().launchOptions);
  const dir = await mkdtemp(join(tmpdir(), 'handrail-bench-ab-'));
  try {
    const loaded = await readCard(app.card);
    if (!loaded.ok) throw new Error(loaded.message);
    let n = 0;
    const once = async (side: Side, timed: boolean): Promise<void> => {
      app.reset();
      const t = performance.now();
      const r = await side.run({
        card: loaded.card,
        inputs: app.inputs(n++),
        env: { BASE_URL: app.url },
        surface: () => side.launch(browser),
        evidenceDir: await mkdtemp(join(dir, 'ev-')),
        journalPath: join(dir, `${randomBytes(4).toString('hex')}.journal`),
        ...(timed && side.profile ? { profile: side.profile } : {}),
      });
      if (r.word !== 'SUCCESS') throw new Error(`${side.name}: the replay of ${loaded.card.id} ended ${r.word} ${r.code}: ${r.message}`);
      if (timed) side.ms.push(performance.now() - t);
    };
    // Warm-up, one of each (walker bundle builds, first contexts), then pairs in alternating order.
    await once(here, false);
    await once(base, false);
    for (let i = 0; i < pairs; i++) for (const side of i % 2 === 0 ? [here, base] : [base, here]) await once(side, true);
    const paired = here.ms.map((ms, i) => ms / (base.ms[i] ?? ms));
    process.stdout.write(
      `replay A/B (${which}, ${pairs} interleaved pairs): this checkout median ${median(here.ms).toFixed(0)} ms, ` +
        `base median ${median(base.ms).toFixed(0)} ms; paired ratio median ${median(paired).toFixed(3)} ` +
        `(${Math.min(...paired).toFixed(2)}–${Math.max(...paired).toFixed(2)})\n`,
    );
    for (const side of [here, base]) if (side.profile) process.stderr.write(`--- ${side.name}\n${side.profile.table()}\n`);
  } finally {
    await browser.close();
    await app.close();
    await rm(dir, { recursive: true, force: true });
  }
}

try {
  await main();
} catch (e) {
  process.stderr.write(`replay-ab: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
}
