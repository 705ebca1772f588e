// The `local` referee: no network and no model weights. It scores the page against each declared screen from
// what the card stored — the furniture paths and the marks (stable words and paths) — and turns the scores into
// probabilities over the screens and "none of these". A screen with marks is only a candidate when every mark
// shows: a refusal and a success can share all their furniture, and only the words tell them apart, so a page whose
// marks are missing is, for this referee, none of these (a scout that can read may still name it).
//
// The control rung's question (which menu row is this target) is answered the same way: each row's fit is its
// similarity to the target as recorded — the same role, then the label's words, weighed by the scope (row, form,
// region) it sits in — and fits become probabilities through the same curve. The engine believes a chosen row only when its
// control's fingerprint matches the card's.
//
// The constants are set by hand so that the engine's own tiers line up: an exact match scores ≈ 1, the similar
// tier's floor (Jaccard 0.85) ≈ 0.9, and half the furniture ≈ 0. They are not fitted to data yet.
import { jaccard, marksShow } from '../../shared/screens.ts';
import { NONE, rowKey, type ControlQuestion, type Referee, type RefereeQuestion, type ScreenOption, type Verdict } from './referee.ts';

/** Where the logistic curve crosses one half, and how steep it is. */
const MIDPOINT = 0.7;
const STEEPNESS = 18;
/** A screen whose marks are missing keeps only this share of its furniture score. */
const MARKS_MISSING = 0.3;

const logistic = (x: number): number => 1 / (1 + Math.exp(-STEEPNESS * (x - MIDPOINT)));

/** How well the page fits one declared screen, in [0, 1]. */
export function fitOf(option: ScreenOption, page: RefereeQuestion['page']): number {
  const furniture = jaccard(option.paths, page.paths);
  const marks = option.marks;
  if (!marks || (marks.paths.length === 0 && marks.text.length === 0)) return furniture;
  return marksShow(marks, new Set(page.paths), page.text) ? furniture : furniture * MARKS_MISSING;
}

/** A label's words, lower-cased: what two spellings of one control's label share. */
const words = (s: string): string[] => s.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);

/** What a row keeps of its label's fit when none of the target's scope (its row, form, region) holds it. */
const SCOPE_FLOOR = 0.4;

/**
 * How well one menu row fits the target the card recorded, in [0, 1]: nothing without the same role; then the
 * label's words, scaled by how much of the target's recorded scope the row sits in — two rows both labelled "Hold"
 * are told apart only by their row, so a row outside the target's scope keeps little of its label's fit.
 */
export function controlFitOf(target: ControlQuestion['target'], row: ControlQuestion['rows'][number]): number {
  if (row.role !== target.role) return 0;
  const want = target.name || target.hint || '';
  const have = row.name || row.hint || '';
  const label = want === have ? 1 : jaccard(words(want), words(have));
  const link = (l: { role: string; name: string }): string => `${l.role} ${l.name}`;
  const mine = new Set(row.scope.map(link));
  const scope = target.scope.length === 0 ? 1 : target.scope.filter((l) => mine.has(link(l))).length / target.scope.length;
  return label * (SCOPE_FLOOR + (1 - SCOPE_FLOOR) * scope);
}

/** Fits → probabilities: each option's chance through the curve, "none" the chance that it is none of them. */
function probabilitiesOf(fits: readonly (readonly [string, number])[]): Record<string, number> {
  const like = fits.map(([label, fit]) => [label, logistic(fit)] as const);
  const none = like.reduce((p, [, l]) => p * (1 - l), 1);
  const total = none + like.reduce((s, [, l]) => s + l, 0);
  const probabilities: Record<string, number> = { [NONE]: none / total };
  for (const [label, l] of like) probabilities[label] = l / total;
  return probabilities;
}

export class LocalReferee implements Referee {
  readonly name = 'local';
  readonly kind = 'classifier' as const;
  #calls = 0;

  get calls(): number {
    return this.#calls;
  }

  ask(q: RefereeQuestion): Promise<Verdict> {
    this.#calls++;
    return Promise.resolve({ backend: this.name, probabilities: probabilitiesOf(q.options.map((o) => [o.label, fitOf(o, q.page)])) });
  }

  askControl(q: ControlQuestion): Promise<Verdict> {
    this.#calls++;
    return Promise.resolve({ backend: this.name, probabilities: probabilitiesOf(q.rows.map((r) => [rowKey(r.n), controlFitOf(q.target, r)])) });
  }
}
