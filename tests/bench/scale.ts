// Benchmark: many runs. The same rows of the PLUMBLINE card replayed by `handrail replay --inputs rows.csv`, once
// with --parallel 1 (sequential) and once with --parallel P, each from a fresh seed and state directory, in the same
// run; prints the wall-time ratio (parallel / sequential; target ≤ 0.5 on 2 cores) and the peak memory of each
// command's process tree (the CLI and its Chromium; PSS, and RSS summed, which counts a shared page once per sharer;
// target ≤ 1.5 GiB). N rows: HANDRAIL_BENCH_SCALE_N (default 100), P: ..._PARALLEL (4).
// Run alone: npx tsx tests/bench/scale.ts
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startBank } from '../../demo/plumbline/server.ts';
import { handrail } from '../e2e/support/cli.ts';
import { plates } from './mcp.ts';

export interface ScaleLeg {
  parallel: number;
  wallMs: number;
  peakRssMb: number;
  peakPssMb: number;
  words: Record<string, number>;
}

export interface ScaleBench {
  rows: number;
  sequential: ScaleLeg;
  parallel: ScaleLeg;
  ratio: number;
}

interface TreeMemory {
  /** Resident set sizes summed: pages shared between Chromium's processes are counted once in each (an overstatement). */
  rssMb: number;
  /** Proportional set sizes summed (smaps_rollup): each shared page split between its sharers, so the sum is the tree's. */
  pssMb: number;
}

/** The memory of a process and all its descendants, in MiB, from /proc (zeros where there is no /proc). */
async function treeMemory(root: number): Promise<TreeMemory> {
  const parent = new Map<number, number>();
  for (const name of await readdir('/proc').catch(() => [])) {
    if (!/^\d+$/.test(name)) continue;
    const status = await readFile(`/proc/${name}/status`, 'utf8').catch(() => '');
    parent.set(Number(name), Number(/PPid:\s+(\d+)/.exec(status)?.[1] ?? NaN));
  }
  const inTree = (pid: number): boolean => {
    for (let p: number | undefined = pid; p !== undefined && p > 1; p = parent.get(p)) if (p === root) return true;
    return false;
  };
  let rss = 0;
  let pss = 0;
  for (const pid of [...parent.keys()].filter(inTree)) {
    const rollup = await readFile(`/proc/${pid}/smaps_rollup`, 'utf8').catch(() => '');
    rss += Number(/^Rss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
    pss += Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
  }
  return { rssMb: rss / 1024, pssMb: pss / 1024 };
}

export async function benchScale(n = 100, parallel = 4): Promise<ScaleBench> {
  const password = `bench-${randomBytes(4).toString('hex')}`;
  const bank = await startBank({ port: 0, operatorPassword: password });
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
      const peak = { rss: 0, pss: 0 };
      let sampler: NodeJS.Timeout | undefined;
      const t = performance.now();
      const ran = await handrail(
        ['replay', 'capabilities/plumbline-place-hold.json', '--inputs', file, '--parallel', String(p), '--evidence', join(dir, `runs-${p}`)],
        { ...process.env, HANDRAIL_HOME: join(dir, `home-${p}`), BASE_URL: bank.url, HANDRAIL_SECRET_PASSWORD: password },
        undefined,
        { started: (child) => {
          sampler = setInterval(() => {
            if (child.pid) {
              void treeMemory(child.pid).then((m) => {
                peak.rss = Math.max(peak.rss, m.rssMb);
                peak.pss = Math.max(peak.pss, m.pssMb);
              });
            }
          }, 250);
        } },
      );
      const wallMs = performance.now() - t;
      clearInterval(sampler);
      const words: Record<string, number> = {};
      for (const line of ran.stdout.trim().split('\n').filter(Boolean)) {
        const w = (JSON.parse(line) as { word: string }).word;
        words[w] = (words[w] ?? 0) + 1;
      }
      if (ran.code !== 0 || words['SUCCESS'] !== n) throw new Error(`--parallel ${p}: exit ${ran.code}, ${JSON.stringify(words)}\n${ran.stderr.slice(-2000)}`);
      return { parallel: p, wallMs, peakRssMb: peak.rss, peakPssMb: peak.pss, words };
    };
    const sequential = await leg(1);
    const par = await leg(parallel);
    return { rows: n, sequential, parallel: par, ratio: par.wallMs / sequential.wallMs };
  } finally {
    await bank.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export function describeScale(b: ScaleBench): string {
  const gib = (mb: number): string => `${(mb / 1024).toFixed(2)} GiB`;
  return (
    `scale: ${b.rows} replays of the PLUMBLINE card, --parallel ${b.parallel.parallel} ${(b.parallel.wallMs / 1000).toFixed(1)} s vs sequential ${(b.sequential.wallMs / 1000).toFixed(1)} s ` +
    `→ ratio ${b.ratio.toFixed(2)} (target ≤ 0.5 on 2 cores); peak memory of the process tree (CLI + Chromium), parallel ${gib(b.parallel.peakPssMb)} PSS / ${gib(b.parallel.peakRssMb)} RSS summed, ` +
    `sequential ${gib(b.sequential.peakPssMb)} PSS / ${gib(b.sequential.peakRssMb)} RSS summed (target ≤ 1.5 GiB)\n`
  );
}

export function scaleFromEnv(env: NodeJS.ProcessEnv = process.env): { n: number; parallel: number } {
  return { n: Number(env['HANDRAIL_BENCH_SCALE_N'] ?? 100), parallel: Number(env['HANDRAIL_BENCH_SCALE_PARALLEL'] ?? 4) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { n, parallel } = scaleFromEnv();
  process.stdout.write(describeScale(await benchScale(n, parallel)));
}
