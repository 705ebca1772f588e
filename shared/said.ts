// What the app says (docs/design/replay.md, "What the app says"): the words of a screen's live regions — a toast, an
// alert, a status line — beside its content, never proof of a record. The compiler keeps what a commit's landing said
// that was new since the press; replay compares what its landing says that is new with that. Pure functions.
import { maskData } from './dom/walk.ts';
import { normalize } from './dom/name.ts';
import { BLANK_RE } from './schema/blanks.ts';

/** How two sayings are compared: whitespace-normalised, every run of digits as `#` (a case number, a time). */
export function saidKey(words: string): string {
  return maskData(normalize(words));
}

/**
 * A saying as a card keeps it: every run of digits outside its blanks as `#`, as paths keep data (a case number, a
 * time), so the card is the same whichever record the evening made and holds no record's number.
 */
export function saidTemplate(words: string): string {
  const blank = new RegExp(BLANK_RE.source, 'g');
  let out = '';
  let at = 0;
  for (const m of words.matchAll(blank)) {
    out += maskData(words.slice(at, m.index)) + m[0];
    at = m.index + m[0].length;
  }
  return out + maskData(words.slice(at));
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
