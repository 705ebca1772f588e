// The walker's name normalizer answers already-normal strings without rewriting them, and every string the same as the full rule (zero-width space and soft hyphen dropped, whitespace runs to one space, trimmed); an attribute counts as absent only when it is ASCII whitespace, as in Chromium.
import { describe, expect, it } from 'vitest';
import { blank, normalize } from '../../shared/dom/name.ts';

/** The rule as accname matching spells it (docs/design/walker.md, "The walker"), without the walker's shortcut. */
function fullRule(s: string): string {
  return s.replace(/[\u200b\u00ad]/g, '').replace(/\s+/g, ' ').trim();
}

/** Every string of length ≤ n over the alphabet, so each pair and triple of neighbours is met at every position. */
function* strings(alphabet: readonly string[], n: number): Generator<string> {
  let level = [''];
  yield '';
  for (let k = 1; k <= n; k++) {
    const next: string[] = [];
    for (const s of level) for (const ch of alphabet) next.push(s + ch);
    yield* next;
    level = next;
  }
}

describe('normalize', () => {
  it('gives what the full rule gives for every short string of letters, spaces, other whitespace and dropped characters', () => {
    // A letter, a space, NBSP, a newline, a tab, BOM, line separator, ideographic space, zero-width space, soft hyphen.
    const alphabet = ['a', ' ', '\u00a0', '\n', '\t', '\ufeff', '\u2028', '\u3000', '\u200b', '\u00ad'];
    let checked = 0;
    for (const s of strings(alphabet, 4)) {
      expect(normalize(s), JSON.stringify(s)).toBe(fullRule(s));
      checked++;
    }
    expect(checked).toBe(11111);
  });

  it('returns a normal string as it is and rewrites the others', () => {
    expect(normalize('Hold 400118-S0001')).toBe('Hold 400118-S0001');
    expect(normalize('  F5=Sign\u00a0On\n')).toBe('F5=Sign On');
    expect(normalize('Re\u00adname\u200b case')).toBe('Rename case');
    expect(normalize(null)).toBe('');
    expect(normalize(undefined)).toBe('');
  });
});

describe('blank', () => {
  it('is true only for nothing and ASCII whitespace: a no-break, em, ideographic or zero-width space is text (Chromium names by it)', () => {
    for (const s of [null, undefined, '', ' ', ' \t\n\v\f\r ']) expect(blank(s), JSON.stringify(s)).toBe(true);
    for (const s of ['\u00a0', '\u2003\u2003', '\u3000', '\u200b', '\u202f', ' a ']) expect(blank(s), JSON.stringify(s)).toBe(false);
    // What such a name becomes: nothing, once normalized.
    expect(normalize('\u00a0\u2003\u3000\u200b')).toBe('');
  });
});
