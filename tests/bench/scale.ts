// Benchmark: many runs. The same rows of the PLUMBLINE card replayed by `handrail replay --inputs rows.csv`, once
// with --parallel 1 (sequential) and once with --parallel P, each from a fresh seed and state directory, in the same
// run; prints the wall-time ratio (parallel / sequential; targets in SCALE_TARGETS) and the peak memory of each
// command's process tree (the CLI and its Chromium; PSS, and RSS summed, which counts a shared page once per sharer;
// target ≤ 1.5 GiB). Twice: against the demo bank as it is (it answers at once, so the replay is CPU-bound) and with
// the bank answering every request after HANDRAIL_BENCH_SCALE_LATENCY_MS (default 150 ms, as a real app server does).
// Each leg's CPU is sampled by process kind (tests/bench/cpu.ts): the cores a sequential leg keeps busy set the floor
// of the ratio (cores busy / cores), which the bench prints with the figures.
// N rows: HANDRAIL_BENCH_SCALE_N (default 20, issue 38's figure), P: ..._PARALLEL (4). Run alone: npx tsx tests/bench/scale.ts
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startBank } from '../../demo/plumbline/server.ts';
import { handrail } from '../e2e/support/cli.ts';
import { cores, describeCpu, TreeSampler, type TreeReport } from './cpu.ts';
import { plates } from './mcp.ts';

export interface ScaleLeg {
  parallel: number;
  wallMs: number;
  peakRssMb: number;
  peakPssMb: number;
  words: Record<string, number>;
  cpu: TreeReport;
}

export interface ScaleBench {
  rows: number;
  /** How long the bank waited before every answer (0: the demo as it is). */
  latencyMs: number;
  sequential: ScaleLeg;
  parallel: ScaleLeg;
  ratio: number;
  cores: number;
  /** The 1-minute load average before and after (other tenants take cores the legs then cannot have). */
  load: [number, number];
}

export async function benchScale(n = 20, parallel = 4, latencyMs = 0): Promise<ScaleBench> {
  const password = `bench-${randomBytes(4).toString('hex')}`;
  const bank = await startBank({ port: 0, operatorPassword: password, latencyMs });
  const dir = await mkdtemp(join(tmpdir(), 'handrail-bench-scale-'));
  try {
    // One row per share: every row a different intent and a real press.
    const seen = new Set<string>();
    const rows = plates(bank).filter((p) => !seen.has(p['share_id'] ?? '') && seen.add(p['share_id'] ?? '')).slice(0, n);
    if (rows.length < n) throw new Error(`PLUMBLINE has only ${rows.length} shares to hold; HANDRAIL_BENCH_SCALE_N must be at most that`);
    const file = join(dir, 'rows.csv');
    await writeFile(file, ['operator_id,member_number,share_id,reason', ...rows.map((r) => `${r['operator_id']},${r['member_number']},${r['share_id']},${r['reason']}`)].join('\n'));
    const leg = async (p: number): Promise<ScaleLeg> => {
      bank.store.reset();
      let sampler: TreeSampler | undefined;
      const t = performance.now();
      const ran = await handrail(
        ['replay', 'capabilities/plumbline-place-hold.json', '--inputs', file, '--parallel', String(p), '--evidence', join(dir, `runs-${p}`)],
        { ...process.env, HANDRAIL_HOME: join(dir, `home-${p}`), BASE_URL: bank.url, HANDRAIL_SECRET_PASSWORD: password },
        undefined,
        { started: (child) => void (child.pid && (sampler = new TreeSampler(child.pid))) },
      );
      const wallMs = performance.now() - t;
      if (!sampler) throw new Error('the replay command did not start');
      const cpu = sampler.stop();
      const words: Record<string, number> = {};
      for (const line of ran.stdout.trim().split('\n').filter(Boolean)) {
        const w = (JSON.parse(line) as { word: string }).word;
        words[w] = (words[w] ?? 0) + 1;
      }
      if (ran.code !== 0 || words['SUCCESS'] !== n) throw new Error(`--parallel ${p}: exit ${ran.code}, ${JSON.stringify(words)}\n${ran.stderr.slice(-2000)}`);
      return { parallel: p, wallMs, peakRssMb: cpu.peakRssMb, peakPssMb: cpu.peakPssMb, words, cpu };
    };
    const before = loadavg()[0] ?? 0;
    const sequential = await leg(1);
    const par = await leg(parallel);
    return { rows: n, latencyMs, sequential, parallel: par, ratio: par.wallMs / sequential.wallMs, cores: cores(), load: [before, loadavg()[0] ?? 0] };
  } finally {
    await bank.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Issue 38's targets for parallel / sequential: the bank answering at once (CPU-bound), and after a latency. */
export const SCALE_TARGETS = { atOnce: 0.6, latency: 0.4 } as const;

/** The target this leg's ratio is held to. */
export function scaleTarget(b: ScaleBench): number {
  return b.latencyMs > 0 ? SCALE_TARGETS.latency : SCALE_TARGETS.atOnce;
}

/** Issue 38's target for the CPU-seconds of one PLUMBLINE replay, all processes (the sequential leg, bank at once). */
export const CPU_PER_REPLAY_TARGET = 1.2;

export function describeScale(b: ScaleBench): string {
  const gib = (mb: number): string => `${(mb / 1024).toFixed(2)} GiB`;
  const app = b.latencyMs > 0 ? `the bank answering after ${b.latencyMs} ms (latency-bound, like a real app server)` : 'the demo bank answering at once (CPU-bound)';
  // The parallel leg needs its CPU seconds (more per replay than sequential: four contexts contend); on K cores it
  // cannot take less wall time than that CPU / K. As a share of the sequential wall time, that is the ratio's floor.
  const busy = b.sequential.cpu.coresBusy;
  const floor = Math.min(1, b.parallel.cpu.totalS / b.cores / b.sequential.cpu.wallS);
  return (
    `scale (${app}): ${b.rows} replays of the PLUMBLINE card, --parallel ${b.parallel.parallel} ${(b.parallel.wallMs / 1000).toFixed(1)} s vs sequential ${(b.sequential.wallMs / 1000).toFixed(1)} s ` +
    `→ ratio ${b.ratio.toFixed(2)} (target ≤ ${scaleTarget(b)}); peak memory of the process tree (CLI + Chromium), parallel ${gib(b.parallel.peakPssMb)} PSS / ${gib(b.parallel.peakRssMb)} RSS summed, ` +
    `sequential ${gib(b.sequential.peakPssMb)} PSS / ${gib(b.sequential.peakRssMb)} RSS summed (target ≤ 1.5 GiB)\n` +
    `  sequential: ${describeCpu(b.sequential.cpu, b.rows)}\n` +
    `  --parallel ${b.parallel.parallel}: ${describeCpu(b.parallel.cpu, b.rows)}\n` +
    `  why: one replay at a time keeps ${busy.toFixed(2)} of ${b.cores} cores busy; the parallel leg needed ${(b.parallel.cpu.totalS / b.rows).toFixed(2)} CPU-seconds a replay, ` +
    `so even with all ${b.cores} cores to itself it cannot go below ≈ ${floor.toFixed(2)} of the sequential time` +
    `${floor > scaleTarget(b) ? ` — the target of ${scaleTarget(b)} is out of reach here: the work is CPU, not waiting` : ''}; it kept ${b.parallel.cpu.coresBusy.toFixed(2)} cores busy` +
    ` (load average ${b.load[0].toFixed(1)} → ${b.load[1].toFixed(1)}: cores other tenants hold are not there to overlap into)\n`
  );
}

export function scaleFromEnv(env: NodeJS.ProcessEnv = process.env): { n: number; parallel: number; latencyMs: number } {
  return {
    n: Number(env['HANDRAIL_BENCH_SCALE_N'] ?? 20),
    parallel: Number(env['HANDRAIL_BENCH_SCALE_PARALLEL'] ?? 4),
    latencyMs: Number(env['HANDRAIL_BENCH_SCALE_LATENCY_MS'] ?? 150),
  };
}

/** Both legs: the demo bank as it is (CPU-bound), then answering after `latencyMs` (latency-bound). */
export async function benchScaleBoth(n: number, parallel: number, latencyMs: number): Promise<ScaleBench[]> {
  return [await benchScale(n, parallel, 0), ...(latencyMs > 0 ? [await benchScale(n, parallel, latencyMs)] : [])];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { n, parallel, latencyMs } = scaleFromEnv();
  for (const b of await benchScaleBoth(n, parallel, latencyMs)) process.stdout.write(describeScale(b));
}
