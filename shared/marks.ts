// Distinguishing marks for the screens that can follow a commit (docs/design/replay.md, "Naming a screen").
// A refusal page often has the success page's furniture with other words: the similar tier alone would read it
// as success. The compiler stores, for each such screen, the paths that tell it apart from every other declared
// screen; the engine names it only when all of them are present. Pure functions of the card's data.
import { outcomeScreensOf, type Capability, type Marks } from './schema/capability.ts';
import { spellsValue, type PublicValues } from './screens.ts';

/**
 * Screens that can show after a commit: where a commit step lands (its settle and expect lists, or the screen it
 * started on when it declares none), the screens of every step after the first commit, and the success screens
 * of a card that commits at all.
 */
export function afterCommitScreens(card: Pick<Capability, 'steps' | 'outcomes'>): Set<string> {
  const out = new Set<string>();
  const first = card.steps.findIndex((s) => s.effect.kind === 'commit');
  if (first < 0) return out;
  for (const s of card.steps.slice(first)) {
    if (s.effect.kind === 'commit') {
      const landing = outcomeScreensOf(s);
      for (const l of landing.length ? landing : [s.screen]) out.add(l);
    }
  }
  for (const s of card.steps.slice(first + 1)) out.add(s.screen);
  for (const l of card.outcomes.success.screens) out.add(l);
  return out;
}

/**
 * The structural marks of `label`: every path of it that at least one other declared screen lacks. Requiring all
 * of them means the page has everything that tells this screen apart from each other one. Empty when the screen's
 * structure is contained in every other screen's: then only an exact signature (or text marks) can name it. A path
 * that spells one of the evening's `values` is never a mark: it is the authored record (a saved page's title listed
 * in a sidebar), which a run for another record does not show, so as a mark it would keep that run's screen unnamed.
 */
export function structuralMarks(label: string, screens: Readonly<Record<string, { paths: readonly string[] }>>, values: PublicValues = {}): string[] {
  const own = screens[label]?.paths ?? [];
  const others = Object.entries(screens)
    .filter(([l]) => l !== label)
    .map(([, s]) => new Set(s.paths));
  return [...new Set(own)].filter((p) => others.some((o) => !o.has(p)) && !spellsValue(p, values)).sort();
}

/**
 * Marks for every after-commit screen of a card that has none yet; other screens are left as they are. `values`: the
 * evening's non-secret inputs, when known (the compiler), whose spellings are never marks.
 */
export function proposeMarks(card: Pick<Capability, 'steps' | 'outcomes' | 'screens'>, values: PublicValues = {}): Record<string, Marks> {
  const out: Record<string, Marks> = {};
  for (const label of [...afterCommitScreens(card)].sort()) {
    const existing = card.screens[label]?.marks;
    if (existing) {
      out[label] = existing;
      continue;
    }
    const paths = structuralMarks(label, card.screens, values);
    if (paths.length) out[label] = { paths, text: [] };
  }
  return out;
}
