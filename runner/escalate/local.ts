// The `local` referee: no network and no model weights. It scores the page against each declared screen from
// what the card stored — the furniture paths and the marks (stable words and paths) — and turns the scores into
// probabilities over the screens and "none of these". A screen with marks is only a candidate when every mark
// shows: a refusal and a success can share all their furniture, and only the words tell them apart, so a page whose
// marks are missing is, for this referee, none of these (a scout that can read may still name it).
//
// The constants are set by hand so that the engine's own tiers line up: an exact match scores ≈ 1, the similar
// tier's floor (Jaccard 0.85) ≈ 0.9, and half the furniture ≈ 0. They are not fitted to data yet.
import { jaccard, marksShow } from '../../shared/screens.ts';
import { NONE, type Referee, type RefereeQuestion, type ScreenOption, type Verdict } from './referee.ts';

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

export class LocalReferee implements Referee {
  readonly name = 'local';
  readonly kind = 'classifier' as const;
  #calls = 0;

  get calls(): number {
    return this.#calls;
  }

  ask(q: RefereeQuestion): Promise<Verdict> {
    this.#calls++;
    // Each screen's chance that the page is it; "none" is the chance that it is none of them.
    const like = q.options.map((o) => [o.label, logistic(fitOf(o, q.page))] as const);
    const none = like.reduce((p, [, l]) => p * (1 - l), 1);
    const total = none + like.reduce((s, [, l]) => s + l, 0);
    const probabilities: Record<string, number> = { [NONE]: none / total };
    for (const [label, l] of like) probabilities[label] = l / total;
    return Promise.resolve({ backend: this.name, probabilities });
  }
}
