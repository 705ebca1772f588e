// Where a replay's time goes, phase by phase (docs/design/profiling.md, "Profiling a replay"). `HANDRAIL_PROFILE=1` on
// `handrail replay` hands one `Phases` to every run; the engine and `runner/run.ts` time their phases into it, and
// the CLI prints the table on stderr at the end. Without it no `Phases` exists and every timed call is the call
// itself: the engine's `timed` checks for the object and nothing else.

/** The environment variable that turns the per-phase table on (`1`). */
export const PROFILE_ENV = 'HANDRAIL_PROFILE';

interface Tally {
  calls: number;
  ms: number;
}

export class Phases {
  readonly #tally = new Map<string, Tally>();
  #runs = 0;
  #runMs = 0;

  /** Times one phase of a run; a phase may be timed many times and its calls and milliseconds add up. */
  async time<T>(phase: string, fn: () => Promise<T>): Promise<T> {
    const t = performance.now();
    try {
      return await fn();
    } finally {
      this.add(phase, performance.now() - t);
    }
  }

  /** Times a synchronous phase (naming a screen: CPU in Node). */
  timeSync<T>(phase: string, fn: () => T): T {
    const t = performance.now();
    try {
      return fn();
    } finally {
      this.add(phase, performance.now() - t);
    }
  }

  add(phase: string, ms: number): void {
    const t = this.#tally.get(phase) ?? { calls: 0, ms: 0 };
    t.calls++;
    t.ms += ms;
    this.#tally.set(phase, t);
  }

  /** One whole run, wall time from the request to the receipt: the denominator of every share. */
  run(ms: number): void {
    this.#runs++;
    this.#runMs += ms;
  }

  get runs(): number {
    return this.#runs;
  }

  /** The phases in the order first timed, with their totals. */
  entries(): { phase: string; calls: number; ms: number }[] {
    return [...this.#tally].map(([phase, t]) => ({ phase, calls: t.calls, ms: t.ms }));
  }

  /**
   * The table for people: per phase its calls and milliseconds per run and its share of the run's wall time.
   * Phases can overlap (a screenshot is taken while the next target resolves), so the shares need not add to 100 %.
   */
  table(): string {
    const runs = Math.max(1, this.#runs);
    const wall = this.#runMs / runs;
    const rows = this.entries().map((e) => [
      e.phase,
      (e.calls / runs).toFixed(1),
      (e.ms / runs).toFixed(1),
      (e.ms / Math.max(1, e.calls)).toFixed(1),
      wall > 0 ? `${((100 * e.ms) / runs / wall).toFixed(1)} %` : '-',
    ]);
    const head = ['phase', 'calls/run', 'ms/run', 'ms/call', 'share'];
    const all = [head, ...rows];
    const width = head.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
    const line = (r: string[]): string => r.map((c, i) => (i === 0 ? c.padEnd(width[i] ?? 0) : c.padStart(width[i] ?? 0))).join('  ');
    return [
      `profile: ${this.#runs} run(s), ${wall.toFixed(0)} ms wall per run (phases may overlap; shares are of the wall time)`,
      line(head),
      ...rows.map(line),
    ].join('\n');
  }
}

/** A `Phases` when the environment asks for one (`HANDRAIL_PROFILE=1`), else undefined: no cost when off. */
export function phasesFromEnv(env: Readonly<Record<string, string | undefined>>): Phases | undefined {
  return env[PROFILE_ENV] === '1' ? new Phases() : undefined;
}
