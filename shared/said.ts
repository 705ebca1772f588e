// What the app says (docs/ARCHITECTURE.md, "What the app says"): the words of a screen's live regions — a toast, an
// alert, a status line — beside its content, never proof of a record. The compiler keeps what a commit's landing said
// that was new since the press; replay compares what its landing says that is new with that. Pure functions.
import { maskData } from './dom/walk.ts';
import { normalize } from './dom/name.ts';

/** How two sayings are compared: whitespace-normalised, every run of digits as `#` (a case number, a time). */
export function saidKey(words: string): string {
  return maskData(normalize(words));
}

/**
 * What `now` says that `before` (the last look before the press) did not: a region that says the same as before, as
 * many times as it did, is no news of the commit (a "Logged in as …" line left standing). Order kept.
 */
export function newSaid(now: readonly string[], before: readonly string[]): string[] {
  const left = new Map<string, number>();
  for (const s of before) left.set(saidKey(s), (left.get(saidKey(s)) ?? 0) + 1);
  return now.filter((s) => {
    const n = left.get(saidKey(s)) ?? 0;
    if (n === 0) return true;
    left.set(saidKey(s), n - 1);
    return false;
  });
}

/** Whether any of `now` says what one of `then` said (both already filled from the run's inputs). */
export function saysAsBefore(now: readonly string[], then: readonly string[]): boolean {
  const known = new Set(then.map(saidKey));
  return now.some((s) => known.has(saidKey(s)));
}

/** Sayings quoted for a message: `"Saved supplier Acme" and "…"`, or `nothing`. */
export function quoteSaid(said: readonly string[]): string {
  return said.length ? said.map((s) => JSON.stringify(s)).join(' and ') : 'nothing';
}
