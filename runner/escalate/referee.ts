// The referee (rung 1): a closed question — which of these declared screens is this page, or none of these — with
// a probability per option. Nothing it says is believed on its word: a verdict is accepted only when it is sure
// (≥ 0.80) and clearly ahead of the next option (margin ≥ 0.20), and then only if the chosen screen's stored
// furniture overlaps the page (Jaccard ≥ 0.5) and no other declared screen's overlaps it more. Words on a page can steer a model; furniture cannot be talked into
// anything (docs/design/escalation.md, "The escalation ladder").
import type { ScopeLink } from '../../shared/schema/observation.ts';
import { jaccard } from '../../shared/screens.ts';

/** The option that says the page is none of the declared screens. */
export const NONE = 'none_of_these';
export const ACCEPT_AT = 0.8;
export const MARGIN = 0.2;
export const RECHECK_OVERLAP = 0.5;

export interface ScreenOption {
  label: string;
  title: string;
  /** The furniture paths the card stored for this screen. */
  paths: readonly string[];
  /** The stable words and paths that must show for this screen to be named (capability `marks`). */
  marks?: { paths: readonly string[]; text: readonly string[] } | undefined;
}

export interface RefereeQuestion {
  /** The screens the run was hoping for, in the card's order. */
  options: readonly ScreenOption[];
  page: { paths: readonly string[]; text: string };
}

export interface Verdict {
  /** Which backend answered (`local`, `claude`). */
  backend: string;
  /** A probability per option label and NONE; they sum to 1 (± rounding). */
  probabilities: Readonly<Record<string, number>>;
}

/** A backend behind the referee port. It raises when it cannot answer; the engine then climbs past it. */
export interface Referee {
  readonly name: string;
  /** What answers: a model (its calls count in the receipt's `llm_calls`) or a classifier (`classifier_calls`). */
  readonly kind: 'model' | 'classifier';
  /** How many times it was asked (the receipt's `classifier_calls` or `llm_calls`). */
  readonly calls: number;
  ask(q: RefereeQuestion): Promise<Verdict>;
  /**
   * The control rung: which row of the current menu is the card's target, or none of these. Keys are `row_<n>` and
   * NONE. Optional: a backend without it is not asked.
   */
  askControl?(q: ControlQuestion): Promise<Verdict>;
}

/** The control rung's question: the target as the card recorded it, and the rows of the menu showing now. */
export interface ControlQuestion {
  target: { id: string; role: string; name?: string | undefined; hint?: string | undefined; scope: readonly ScopeLink[] };
  rows: readonly { n: number; text: string; role: string; name: string; hint?: string | undefined; scope: readonly ScopeLink[] }[];
}

/** The answer-sheet key of a menu row. */
export const rowKey = (n: number): string => `row_${n}`;

export type ControlJudgement =
  | { kind: 'chosen'; row: number; confidence: number; margin: number }
  | { kind: 'none'; confidence: number }
  | { kind: 'unsure'; best: string; confidence: number; margin: number };

export type Judgement =
  | { kind: 'named'; label: string; confidence: number; overlap: number }
  | { kind: 'none'; confidence: number }
  | { kind: 'unsure'; best: string; confidence: number; margin: number }
  /** The furniture did not bear it out: below the overlap floor, or another declared screen fits the page better. */
  | { kind: 'refused'; label: string; confidence: number; overlap: number; better?: string };

/** The acceptance bar over the options asked about: the best one, how sure, how far ahead; `sure` when it clears the bar. */
function bar(v: Verdict, known: ReadonlySet<string>): { label: string; confidence: number; margin: number; sure: boolean } {
  const ranked = Object.entries(v.probabilities)
    .filter(([label, p]) => known.has(label) && Number.isFinite(p) && p >= 0)
    .sort((a, b) => b[1] - a[1]);
  const [best, second] = ranked;
  if (!best) return { label: NONE, confidence: 0, margin: 0, sure: false };
  const [label, confidence] = best;
  const margin = confidence - (second?.[1] ?? 0);
  return { label, confidence, margin, sure: confidence >= ACCEPT_AT && margin >= MARGIN };
}

/**
 * The control rung's verdict through the same bar. A chosen row is still only a proposal: the engine believes it
 * only when the row's control has the fingerprint the card recorded for the target.
 */
export function judgeControl(v: Verdict, q: ControlQuestion): ControlJudgement {
  const { label, confidence, margin, sure } = bar(v, new Set([NONE, ...q.rows.map((r) => rowKey(r.n))]));
  if (!sure) return { kind: 'unsure', best: label, confidence, margin };
  if (label === NONE) return { kind: 'none', confidence };
  return { kind: 'chosen', row: Number(label.slice('row_'.length)), confidence, margin };
}

/** What the engine makes of a verdict: the acceptance bar, then the furniture re-check. */
export function judge(v: Verdict, q: RefereeQuestion): Judgement {
  const { label, confidence, margin, sure } = bar(v, new Set([NONE, ...q.options.map((o) => o.label)]));
  if (!sure) return { kind: 'unsure', best: label, confidence, margin };
  if (label === NONE) return { kind: 'none', confidence };
  const overlaps = new Map(q.options.map((o) => [o.label, jaccard(o.paths, q.page.paths)]));
  const overlap = overlaps.get(label) ?? 0;
  if (overlap < RECHECK_OVERLAP) return { kind: 'refused', label, confidence, overlap };
  // A frameset's shell can make two screens overlap by half: the chosen one must also fit no worse than any other.
  const better = [...overlaps].find(([other, o]) => other !== label && o > overlap);
  if (better) return { kind: 'refused', label, confidence, overlap, better: better[0] };
  return { kind: 'named', label, confidence, overlap };
}
