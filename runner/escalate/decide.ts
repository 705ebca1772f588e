// What to ask next when the engine cannot name a screen (docs/design/escalation.md, "The escalation ladder"). A pure
// function of recorded facts: the same facts — all of them in the run's evidence — give the same decision, so a
// reviewer can recompute every climb. Cheapest rung first; each rung at most once per screen per run; a
// wall-clock ceiling over the whole climb. While a commit is in flight every rung may still be asked, but none may
// change data: the referee never acts, the scout is seated look-only, and a person may only look and follow what
// navigates (the page as it was is already in the evidence). The control rung — the referee asked which menu row a
// target is — has its own budget: once per target per screen per run (`nextControl`).

/** The rungs above the engine's own naming, cheapest first. */
export const RUNGS = ['referee', 'scout', 'person'] as const;
export type RungName = (typeof RUNGS)[number];

/** How one rung's turn on one screen ended, as the evidence records it. */
export type AttemptOutcome =
  /** It named a screen and the furniture re-check held: the run goes on. */
  | 'named'
  /** It said none of the declared screens (a correct answer; the climb goes on). */
  | 'none'
  /** It was not sure enough (below the acceptance bar, or too close to the next option). */
  | 'unsure'
  /** It named a screen the furniture did not bear out: the verdict was refused. */
  | 'refused'
  /** The backend could not answer (no key, network, malformed answer). */
  | 'unavailable'
  /** A person handed back naming a screen the page contradicts. */
  | 'mismatch'
  /** A person ended the run. */
  | 'aborted'
  /** Nobody answered the console before its timeout. */
  | 'timeout'
  /** The run was told to stop (a signal, the server shutting down) while a rung was asked: nothing further is asked. */
  | 'stopped';

export interface Attempt {
  /** A screen rung, or `control`: the referee asked which menu row a target is. */
  rung: RungName | 'control';
  /** For the control rung: the target it was asked about. */
  target?: string;
  /** The signature of the page it was asked about. */
  screen: string;
  outcome: AttemptOutcome;
}

export interface LadderFacts {
  /** The signature of the page the engine could not name. */
  screen: string;
  /** The rungs this run has on call (configured: `--referee`, `--scout`, `--console`). */
  onCall: readonly RungName[];
  /** Every attempt so far in this run, on any screen, in order. */
  attempts: readonly Attempt[];
  /** Time spent climbing so far in this run, and the ceiling for all of it. */
  elapsedMs: number;
  ceilingMs: number;
  /** A commit was dispatched and its outcome is not yet seen: the caller seats every rung look-only. */
  commitInFlight: boolean;
}

export type Decision =
  | { ask: RungName }
  | { stop: 'none_on_call' | 'exhausted' | 'ceiling' | 'aborted' | 'mismatch' | 'named' | 'stopped' };

export function nextRung(f: LadderFacts): Decision {
  const here = f.attempts.filter((a) => a.screen === f.screen && a.rung !== 'control');
  if (here.some((a) => a.outcome === 'named')) return { stop: 'named' };
  if (f.attempts.some((a) => a.outcome === 'aborted')) return { stop: 'aborted' };
  if (f.attempts.some((a) => a.outcome === 'stopped')) return { stop: 'stopped' };
  // A handback the page contradicts is not a recovery: nothing further is believed about this run's pages.
  if (f.attempts.some((a) => a.outcome === 'mismatch')) return { stop: 'mismatch' };
  if (f.onCall.length === 0) return { stop: 'none_on_call' };
  if (f.elapsedMs >= f.ceilingMs) return { stop: 'ceiling' };
  const tried = new Set(here.map((a) => a.rung));
  for (const rung of RUNGS) {
    if (!f.onCall.includes(rung) || tried.has(rung)) continue;
    return { ask: rung };
  }
  return { stop: 'exhausted' };
}

export interface ControlFacts {
  /** The signature of the page the target was looked for on. */
  screen: string;
  /** The target no rung of its ladder found exactly once. */
  target: string;
  /** Whether a referee that can answer the control question is on call. */
  onCall: boolean;
  attempts: readonly Attempt[];
  elapsedMs: number;
  ceilingMs: number;
}

export type ControlDecision = { ask: 'control' } | { stop: 'none_on_call' | 'asked' | 'ceiling' | 'aborted' | 'mismatch' | 'stopped' };

/** Whether to ask the referee which menu row a target is: once per target per screen per run, under the same ceiling. */
export function nextControl(f: ControlFacts): ControlDecision {
  if (f.attempts.some((a) => a.outcome === 'aborted')) return { stop: 'aborted' };
  if (f.attempts.some((a) => a.outcome === 'stopped')) return { stop: 'stopped' };
  if (f.attempts.some((a) => a.outcome === 'mismatch')) return { stop: 'mismatch' };
  if (!f.onCall) return { stop: 'none_on_call' };
  if (f.elapsedMs >= f.ceilingMs) return { stop: 'ceiling' };
  if (f.attempts.some((a) => a.rung === 'control' && a.target === f.target && a.screen === f.screen)) return { stop: 'asked' };
  return { ask: 'control' };
}
