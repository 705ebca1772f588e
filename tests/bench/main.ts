// `npm run bench`: every benchmark, each against a baseline measured in the same run, reported as ratios.
// The machine is shared and noisy, so absolute figures are context; the ratios are the result.
import { benchAuthor, describeAuthor } from './author.ts';
import { benchMcp, describeMcp } from './mcp.ts';
import { benchPgRace, describePgRace } from './pg-race.ts';
import { APPS, benchReplay, describeReplay } from './replay.ts';
import { benchScaleBoth, describeScale, scaleFromEnv } from './scale.ts';
import { benchWalker, WALKER_TARGETS } from './walker.ts';

const runs = Number(process.env['BENCH_RUNS'] ?? 15);

for (const walker of await benchWalker(runs)) {
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
for (const app of APPS) process.stdout.write(describeReplay(await benchReplay(runs, app)));
for (const author of await benchAuthor()) process.stdout.write(describeAuthor(author));
const mcp = await benchMcp(Number(process.env['BENCH_MCP_CALLS'] ?? 100), Number(process.env['BENCH_MCP_POOL'] ?? 4));
process.stdout.write(describeMcp(mcp));
// Two runners racing on one idempotency key through the shared PostgreSQL journal (issue 21): 0 doubles.
process.stdout.write(describePgRace(await benchPgRace(Number(process.env['HANDRAIL_BENCH_PG_N'] ?? 100))));
const scale = scaleFromEnv();
for (const b of await benchScaleBoth(scale.n, scale.parallel, scale.latencyMs)) process.stdout.write(describeScale(b));
