// Naming a screen from its furniture: exact by signature (hash of the path set), else similar by Jaccard of the
// path sets at or above 0.85 (a banner added to a seven-path screen still scores 6/7). Ties are never guessed.
import type { Observation, Part } from './schema/observation.ts';
import { hashStrings } from './hash.ts';

export const SIMILAR_THRESHOLD = 0.85;

/** Prefix for a part's paths: '' for the top part, 'work>' for the browser frame named work, 'a>b>' nested. */
export function partPrefix(part: readonly string[]): string {
  return part.length ? `${part.join('>')}>` : '';
}

export function signatureOf(paths: readonly string[]): string {
  return hashStrings([...new Set(paths)].sort());
}

/** One screen from its parts; the top part's locus stands for the whole (docs/ARCHITECTURE.md, "A neutral observation"). */
export function combineParts(parts: readonly Part[], observerVersion: string): Observation {
  const all = new Set<string>();
  for (const p of parts) {
    const prefix = partPrefix(p.part);
    for (const path of p.paths) all.add(prefix + path);
  }
  const paths = [...all].sort();
  const top = parts.find((p) => p.part.length === 0) ?? parts[0];
  return {
    locus: { ...(top?.locus ?? {}) },
    parts: [...parts],
    paths,
    signature: hashStrings(paths),
    ...(parts.some((p) => p.busy) ? { busy: true as const } : {}),
    observer: observerVersion,
  };
}

/** The screen's text part by part, each under a line naming the part and its locus: for evidence and `observe`. */
export function screenDump(obs: Pick<Observation, 'parts'>): string {
  return obs.parts.map((p) => `--- ${p.part.join(' > ') || '(top)'} ${Object.values(p.locus).filter(Boolean).join(' · ')}\n${p.text}`).join('\n');
}

/** All the screen's visible text, part after part. */
export function screenWords(obs: Pick<Observation, 'parts'>): string {
  return obs.parts.map((p) => p.text).join('\n');
}

/** |A ∩ B| / |A ∪ B| over sets of paths; two empty sets are identical (1). */
export function jaccard(a: readonly string[], b: readonly string[]): number {
  const A = new Set(a);
  const B = new Set(b);
  if (A.size === 0 && B.size === 0) return 1;
  let inter = 0;
  for (const x of A) if (B.has(x)) inter++;
  return inter / (A.size + B.size - inter);
}

export interface KnownScreen {
  label: string;
  signature: string;
  paths: readonly string[];
  /** Paths and stable words that must all be present for this screen to be named (see capability `Marks`). */
  marks?: { paths: readonly string[]; text: readonly string[] } | undefined;
  /**
   * A screen that can follow a commit: the similar tier may name it only when it carries marks and all are
   * present. A refusal with the same furniture as the success screen must never read as success.
   */
  afterCommit?: boolean;
}

export interface ScreenMatch {
  label: string;
  how: 'exact' | 'similar';
  score: number;
}

/** What the screen namer reads of a page: its furniture and, for text marks, its visible text. */
export interface Seen {
  signature: string;
  paths: readonly string[];
  text?: string;
}

function marksPresent(seen: Seen, s: KnownScreen, pathSet: ReadonlySet<string>): boolean {
  return marksShow(s.marks, pathSet, seen.text ?? '');
}

/** Whether every mark (path and stable word) shows on a page; no marks: nothing to show. */
export function marksShow(marks: KnownScreen['marks'], pathSet: ReadonlySet<string>, text: string): boolean {
  if (!marks) return true;
  return marks.paths.every((p) => pathSet.has(p)) && marks.text.every((t) => text.includes(t));
}

function hasMarks(s: KnownScreen): boolean {
  return !!s.marks && s.marks.paths.length + s.marks.text.length > 0;
}

/**
 * Whether a page may be called this screen on anyone's word but the namer's own (an escalation rung's): any screen
 * may, except one that can follow a commit — that needs marks, all of them showing, because a refusal can share a
 * success page's furniture and only the marks tell them apart. A model's say-so proves no effect.
 */
export function provable(seen: Seen, s: KnownScreen): boolean {
  if (!s.afterCommit) return true;
  return hasMarks(s) && marksPresent(seen, s, new Set(seen.paths));
}

/**
 * Names the screen showing: exact when its signature is a declared screen's (and that screen's marks hold),
 * else similar when exactly one declared screen scores Jaccard >= 0.85 and passes its marks. A screen that can
 * follow a commit needs marks to be named by the similar tier. Two candidates are never guessed between.
 */
export function nameScreen(seen: Seen, screens: readonly KnownScreen[]): ScreenMatch | null {
  const pathSet = new Set(seen.paths);
  const exact = screens.filter((s) => s.signature === seen.signature && marksPresent(seen, s, pathSet));
  const exactLabels = new Set(exact.map((s) => s.label));
  if (exactLabels.size === 1 && exact[0]) return { label: exact[0].label, how: 'exact', score: 1 };
  if (exactLabels.size > 1) return null;
  const candidates = new Map<string, number>();
  for (const s of screens) {
    const score = jaccard(seen.paths, s.paths);
    if (score < SIMILAR_THRESHOLD) continue;
    if (s.afterCommit && !hasMarks(s)) continue;
    if (!marksPresent(seen, s, pathSet)) continue;
    candidates.set(s.label, Math.max(score, candidates.get(s.label) ?? 0));
  }
  if (candidates.size !== 1) return null;
  const [label, score] = [...candidates.entries()][0] as [string, number];
  return { label, how: 'similar', score };
}

/**
 * Whether a screen is already labelled, and as what: the one answer the authoring guard and the compiler both
 * use, so a screen the guard calls labelled (exactly or as similar) is the screen the compiler calls labelled.
 * `labelled` are the screens named so far, as the label lines recorded them (no marks: marks are the card's).
 */
export function labelledAs(seen: Seen, labelled: readonly KnownScreen[]): string | null {
  return nameScreen(seen, labelled)?.label ?? null;
}
