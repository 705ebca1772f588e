// CPU seconds by process kind and peak memory of a process tree, read from /proc (Linux): where a replay's processor
// time goes — the handrail CLI, the Chromium browser process, its GPU process, its renderers, its other helpers
// (network, storage) — and the app server running inside this benchmark's own process. `cores busy = cpu / wall`
// says whether a run is CPU-bound: work that keeps C cores busy one run at a time cannot run more than K / C times
// faster on K cores, so a parallel/sequential wall-time ratio cannot fall below C / K.
// Used by tests/bench/scale.ts (issue 21, "Speed"); docs/design/profiling.md, "Profiling a replay".
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

export type ProcessKind = 'cli' | 'browser' | 'gpu' | 'renderers' | 'other chromium' | 'app server';
export const KINDS: readonly ProcessKind[] = ['cli', 'browser', 'gpu', 'renderers', 'other chromium', 'app server'];
type TreeKind = Exclude<ProcessKind, 'app server'>;

/** Clock ticks per second of /proc/<pid>/stat's times: USER_HZ, 100 on every Linux Node runs on. */
const HZ = 100;

/** utime + stime (fields 14, 15) and cutime + cstime (16, 17, children waited for) of /proc/<pid>/stat, in seconds. */
export function cpuOfStat(stat: string): { own: number; reaped: number; ppid: number } {
  // The name in parentheses may hold spaces: count fields from the last ')'. rest[0] is field 3, so field n is rest[n - 3].
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const f = (n: number): number => Number(rest[n - 3] ?? 0);
  return { own: (f(14) + f(15)) / HZ, reaped: (f(16) + f(17)) / HZ, ppid: f(4) };
}

/** A process's kind from its command line (Chromium's `--type=renderer`, `--type=gpu-process`…); the root is the CLI. */
export function kindOf(cmdline: string, isRoot: boolean): TreeKind {
  if (isRoot) return 'cli';
  const type = /--type=([a-z-]+)/.exec(cmdline)?.[1];
  if (type === 'renderer') return 'renderers';
  if (type === 'gpu-process') return 'gpu';
  if (type !== undefined) return 'other chromium';
  return /chrom/i.test(cmdline) ? 'browser' : 'cli';
}

function read(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** Whether the kernel lists a thread's children (CONFIG_PROC_CHILDREN); else the tree is found by scanning /proc. */
const LISTS_CHILDREN = existsSync(`/proc/${process.pid}/task/${process.pid}/children`);

function childrenOf(pid: number, scan: () => Map<number, number>): number[] {
  if (!LISTS_CHILDREN) return [...scan()].filter(([, ppid]) => ppid === pid).map(([p]) => p);
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  return tasks.flatMap((t) => read(`/proc/${pid}/task/${t}/children`).trim().split(/\s+/).filter(Boolean).map(Number));
}

/** CPU this process has been told its ended children used (they and everything they waited for), in seconds. */
function reapedBySelf(): number {
  return cpuOfStat(read(`/proc/${process.pid}/stat`)).reaped;
}

export interface TreeReport {
  wallS: number;
  /** CPU seconds per kind over the window, from samples: a process that ended counts up to its last sample. */
  seconds: Record<ProcessKind, number>;
  /**
   * The kernel's count of this process's waited-for children once the root has exited (cutime + cstime): every
   * process whose parent waited for it, all the way down. Null while the root still runs. Not the tree's CPU: Chromium's
   * browser process ends without waiting for its zygotes, which init then reaps, so their CPU and that of every
   * renderer they reaped never reach it (a replay: 8.2 of 13.9 CPU-s; tests/unit/profile.test.ts proves both with a
   * known load). A floor under the samples, no check on them.
   */
  reapedS: number | null;
  /** The tree's CPU from the samples (each process up to its last sample): the count to trust. */
  sampledS: number;
  /** Every kind together (the exact tree total where known), the app server included. */
  totalS: number;
  /** totalS / wallS: how many cores the work kept busy on average. */
  coresBusy: number;
  /** The same without the app server (on a real deployment it runs elsewhere). */
  coresBusyWithoutApp: number;
  processes: number;
  /** The tree's peak memory: PSS summed (its real footprint) and RSS summed (a shared page once per sharer), MiB. */
  peakPssMb: number;
  peakRssMb: number;
  /** The sampler's own CPU, taken off the app server's. */
  samplerS: number;
}

/**
 * Samples a process tree (the spawned CLI and everything under it) every `everyMs`: CPU per process kind, and its
 * memory. This process's own CPU minus the sampler's is the app server's (the bench serves the app in-process). Start
 * it when the child is spawned; `stop()` after the child has exited gives the exact tree total too.
 */
export class TreeSampler {
  /**
   * Per process seen: its kind, its own CPU at the last sample (kept after it ends) and at the first sample (`from`):
   * a process already running when sampling starts counts only what it uses after, not since it started; one born
   * later counts from 0.
   */
  readonly #last = new Map<number, { kind: TreeKind; own: number; from: number }>();
  readonly #startedAt = performance.now();
  readonly #selfAtStart = process.cpuUsage();
  readonly #reapedAtStart = reapedBySelf();
  #samplerUs = 0;
  #ticks = 0;
  #peakPss = 0;
  #peakRss = 0;
  #timer: NodeJS.Timeout | undefined;
  #report: TreeReport | undefined;

  constructor(
    private readonly root: number,
    everyMs = 250,
    /**
     * Memory is sampled every this many ticks (2 s): reading smaps_rollup walks every mapping of a process, ≈ 11 ms per
     * Chromium process here, so sampling it every 250 ms as this bench once did took ≈ 0.45 of a core from the runs.
     */
    private readonly memoryEvery = 8,
  ) {
    this.sample();
    this.#timer = setInterval(() => this.sample(), everyMs);
  }

  /** One synchronous look at the tree: synchronous, so its own CPU can be measured and taken off the app server's. */
  sample(): void {
    const before = process.cpuUsage();
    let table: Map<number, number> | undefined;
    const scan = (): Map<number, number> => {
      if (!table) {
        table = new Map();
        for (const name of readdirSync('/proc')) if (/^\d+$/.test(name)) table.set(Number(name), cpuOfStat(read(`/proc/${name}/stat`)).ppid);
      }
      return table;
    };
    const first = this.#ticks === 0;
    const memory = this.#ticks++ % this.memoryEvery === 0;
    let pss = 0;
    let rss = 0;
    const seen = new Set<number>();
    const walk = (pid: number): void => {
      if (seen.has(pid)) return;
      seen.add(pid);
      const stat = read(`/proc/${pid}/stat`);
      if (!stat) return;
      const own = cpuOfStat(stat).own;
      const had = this.#last.get(pid);
      // Read again each time: a renderer forked by Chromium's zygote carries the zygote's command line until it
      // rewrites its own, so the first look would count every renderer as the zygote ('other chromium').
      // A zombie's command line is empty: it keeps the kind it had.
      const cmdline = read(`/proc/${pid}/cmdline`).replaceAll('\0', ' ');
      const kind = had && !cmdline ? had.kind : kindOf(cmdline, pid === this.root);
      this.#last.set(pid, { kind, own, from: had?.from ?? (first ? own : 0) });
      if (memory) {
        const rollup = read(`/proc/${pid}/smaps_rollup`);
        rss += Number(/^Rss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
        pss += Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
      }
      for (const c of childrenOf(pid, scan)) walk(c);
    };
    walk(this.root);
    if (memory) {
      this.#peakPss = Math.max(this.#peakPss, pss / 1024);
      this.#peakRss = Math.max(this.#peakRss, rss / 1024);
    }
    const used = process.cpuUsage(before);
    this.#samplerUs += used.user + used.system;
  }

  /** Ends sampling and reports; call it once the root has exited, so the exact total is known. Idempotent. */
  stop(rootExited = true): TreeReport {
    if (this.#report) return this.#report;
    if (this.#timer) clearInterval(this.#timer);
    const wallS = (performance.now() - this.#startedAt) / 1000;
    const self = process.cpuUsage(this.#selfAtStart);
    const seconds = Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<ProcessKind, number>;
    for (const s of this.#last.values()) seconds[s.kind] += s.own - s.from;
    seconds['app server'] = Math.max(0, self.user + self.system - this.#samplerUs) / 1e6;
    const sampledTree = KINDS.filter((k) => k !== 'app server').reduce((a, k) => a + seconds[k], 0);
    const reapedS = rootExited ? reapedBySelf() - this.#reapedAtStart : null;
    const tree = Math.max(sampledTree, reapedS ?? 0);
    const totalS = tree + seconds['app server'];
    this.#report = {
      wallS,
      seconds,
      reapedS,
      sampledS: sampledTree,
      totalS,
      coresBusy: wallS > 0 ? totalS / wallS : 0,
      coresBusyWithoutApp: wallS > 0 ? tree / wallS : 0,
      processes: this.#last.size,
      peakPssMb: this.#peakPss,
      peakRssMb: this.#peakRss,
      samplerS: this.#samplerUs / 1e6,
    };
    return this.#report;
  }
}

/** The cores this machine has (what the parallel leg can use at most). */
export function cores(): number {
  return availableParallelism();
}

/** "CPU-seconds per replay by process: cli X, browser Y, gpu Z, renderers W, …, app server V; cores busy = cpu/wall". */
export function describeCpu(r: TreeReport, replays: number): string {
  const per = (s: number): string => (s / Math.max(1, replays)).toFixed(2);
  const unattributed =
    r.reapedS === null ? '' : ` (the tree: ${per(r.sampledS)} sampled; the kernel's count of waited-for children, ${per(r.reapedS)}, misses Chromium's zygotes and their renderers)`;
  return (
    `CPU-seconds per replay by process: ${KINDS.map((k) => `${k} ${per(r.seconds[k])}`).join(', ')}${unattributed} ` +
    `(total ${per(r.totalS)}); cores busy = cpu/wall = ${r.totalS.toFixed(1)} s / ${r.wallS.toFixed(1)} s = ${r.coresBusy.toFixed(2)} ` +
    `(${r.coresBusyWithoutApp.toFixed(2)} without the app server; the sampler itself took ${r.samplerS.toFixed(1)} s)`
  );
}
