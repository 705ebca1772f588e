// `npm run bench`: every benchmark, each against a baseline measured in the same run, reported as ratios.
// The machine is shared and noisy, so absolute figures are context; the ratios are the result. It ends with one table:
// every figure of issue 38 with its target, met or not met (tests/bench/figures.ts).
import { benchAuthor, describeAuthor } from './author.ts';
import { atMost, describeFigures } from './figures.ts';
import { benchMcp, describeMcp } from './mcp.ts';
import { benchPgRace, describePgRace } from './pg-race.ts';
import { APPS, benchReplay, describeReplay, type AppName } from './replay.ts';
import { benchScaleBoth, CPU_PER_REPLAY_TARGET, describeScale, SCALE_TARGETS, scaleFromEnv } from './scale.ts';
import { benchWalker, WALKER_TARGETS } from './walker.ts';

const runs = Number(process.env['BENCH_RUNS'] ?? 15);

/** One bench; one that throws (a run the loaded machine timed out) is said on stderr and its figures are not measured. */
async function section<T>(name: string, bench: () => Promise<T>): Promise<T | undefined> {
  try {
    return await bench();
  } catch (e) {
    process.exitCode = 1;
    process.stderr.write(`bench ${name} failed: ${e instanceof Error ? e.message : String(e)}\n`);
    return undefined;
  }
}

const walkers = (await section('walker', () => benchWalker(runs))) ?? [];
for (const walker of walkers) {
  const target = walker.page === 'generated' ? WALKER_TARGETS[walker.size] : undefined;
  const what = walker.page === 'generated' ? 'a generated page' : `CASEDESK's list of ${walker.size} cases`;
  process.stdout.write(
    `walker: observe ${what}, ${walker.elements} elements (${walker.controls} controls): ` +
      `median ${walker.walkerMedianMs.toFixed(1)} ms vs CDP Accessibility.getFullAXTree ${walker.cdpMedianMs.toFixed(1)} ms ` +
      `→ ratio ${walker.ratio.toFixed(3)} (target ≤ ${target ?? '-'})\n`,
  );
}
// Replay against a plain Playwright script of the same clicks, bare and with the same screenshots, on both demo apps
// (issue 14).
const replays = new Map<AppName, number>();
for (const app of APPS) {
  const b = await section(`replay ${app}`, () => benchReplay(runs, app));
  if (!b) continue;
  replays.set(app, b.ratio);
  process.stdout.write(describeReplay(b));
}
for (const author of (await section('author', () => benchAuthor())) ?? []) process.stdout.write(describeAuthor(author));
const mcp = await section('mcp', () => benchMcp(Number(process.env['BENCH_MCP_CALLS'] ?? 100), Number(process.env['BENCH_MCP_POOL'] ?? 4)));
if (mcp) process.stdout.write(describeMcp(mcp));
// Two runners racing on one idempotency key through the shared PostgreSQL journal (issue 21): 0 doubles.
const race = await section('pg race', () => benchPgRace(Number(process.env['HANDRAIL_BENCH_PG_N'] ?? 100)));
if (race) process.stdout.write(describePgRace(race));
const scale = scaleFromEnv();
const scales = (await section('scale', () => benchScaleBoth(scale.n, scale.parallel, scale.latencyMs))) ?? [];
for (const b of scales) process.stdout.write(describeScale(b));

const atOnce = scales.find((b) => b.latencyMs === 0);
const late = scales.find((b) => b.latencyMs > 0);
const walker5k = walkers.find((w) => w.page === 'generated' && w.size === 5000);
process.stdout.write(
  describeFigures([
    atMost('replay ÷ bare Playwright (no pictures), PLUMBLINE / CASEDESK', [replays.get('plumbline'), replays.get('casedesk')], [1.15, 1.15]),
    atMost('walker ÷ CDP getFullAXTree, 5k elements', [walker5k?.ratio], [WALKER_TARGETS[5000] ?? 0], 3),
    atMost('MCP per-call overhead beyond the replay, warm: median / p95', [mcp?.overheadMedianMs, mcp?.overheadP95Ms], [50, 150], 0, ' ms'),
    // All processes, sampled (tests/bench/cpu.ts: the kernel's count of reaped children misses Chromium's zygotes).
    atMost('CPU-seconds per PLUMBLINE replay, all processes (sampled)', [atOnce ? atOnce.sequential.cpu.totalS / atOnce.rows : undefined], [CPU_PER_REPLAY_TARGET]),
    atMost(
      `${scale.n} rows --parallel ${scale.parallel} ÷ sequential, bank at once / after ${scale.latencyMs} ms`,
      [atOnce?.ratio, late?.ratio],
      [SCALE_TARGETS.atOnce, SCALE_TARGETS.latency],
    ),
  ]),
);
