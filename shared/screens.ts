// Naming a screen from its furniture: exact by signature (hash of the path set), else similar by Jaccard of the
// path sets at or above 0.85 (a banner added to a seven-path screen still scores 6/7). Ties are never guessed.
import type { FrameObservation, Observation } from './schema/observation.ts';
import { hashStrings } from './hash.ts';

export const SIMILAR_THRESHOLD = 0.85;

/** Prefix for a frame's paths: '' for the top document, 'work>' for the frame named work, 'a>b>' nested. */
export function framePrefix(frame: readonly string[]): string {
  return frame.length ? `${frame.join('>')}>` : '';
}

export function signatureOf(paths: readonly string[]): string {
  return hashStrings([...new Set(paths)].sort());
}

export function combineFrames(frames: readonly FrameObservation[], walkerVersion: string): Observation {
  const all = new Set<string>();
  for (const f of frames) {
    const prefix = framePrefix(f.frame);
    for (const p of f.paths) all.add(prefix + p);
  }
  const paths = [...all].sort();
  const top = frames.find((f) => f.frame.length === 0) ?? frames[0];
  return {
    url: top?.url ?? '',
    frames: [...frames],
    paths,
    signature: hashStrings(paths),
    walker: walkerVersion,
  };
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
}

export interface ScreenMatch {
  label: string;
  how: 'exact' | 'similar';
  score: number;
}

export function nameScreen(obs: Pick<Observation, 'signature' | 'paths'>, screens: readonly KnownScreen[]): ScreenMatch | null {
  const exact = screens.filter((s) => s.signature === obs.signature);
  const exactLabels = new Set(exact.map((s) => s.label));
  if (exactLabels.size === 1 && exact[0]) return { label: exact[0].label, how: 'exact', score: 1 };
  if (exactLabels.size > 1) return null;
  let best: ScreenMatch | null = null;
  let tied = false;
  for (const s of screens) {
    const score = jaccard(obs.paths, s.paths);
    if (score < SIMILAR_THRESHOLD) continue;
    if (!best || score > best.score) {
      best = { label: s.label, how: 'similar', score };
      tied = false;
    } else if (score === best.score && s.label !== best.label) {
      tied = true;
    }
  }
  return tied ? null : best;
}
