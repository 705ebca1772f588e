// Card regular expressions (an input's `pattern`, an outcome's `text`, an output's `regex`) are written by
// people and may be hostile: a backtracking engine takes exponential time on `(a+)+$`. They are compiled and
// run with RE2's linear-time algorithm (re2js, a pure-JS port, so the same check runs in Node, the extension
// worker and pages). RE2 has no backreferences or lookaround; a card that needs them is refused at load.
import { RE2JS } from 're2js';

/** A card pattern may be at most this long: RE2 programs grow with the pattern, and nobody reviews a longer one. */
export const MAX_PATTERN_LENGTH = 1_000;

/**
 * RE2 is linear in the text, with a constant that grows with the compiled program: a card pattern whose program is
 * larger than this is refused (`HX-(\d{6})` is 13, `(.*a){20}` is 102, `.{0,1000}` is 2002).
 */
export const MAX_PROGRAM_SIZE = 300;

/**
 * How much of a screen's text (the application's, and unbounded) a card regex looks at. `test` (an outcome's text:
 * is the refusal there?) runs RE2's DFA with its literal prefilter, milliseconds a megabyte here, and sees at most
 * MAX_TEST_TEXT characters, fewer for a large program (TEST_BUDGET / program size). `exec` (captures, for outputs) runs
 * the slower NFA and sees at most MAX_MATCH_TEXT, fewer by MATCH_BUDGET / program size (~0.3 s at worst on this
 * machine; `HX-(\d{6})`, 13 instructions, sees the first 76,000 characters). A text longer than a matcher's window
 * that has no match in it is not known to lack one: `covers` says so, and the engine then says it cannot tell
 * (docs/design/replay.md, "A declared text on a long screen").
 */
export const MAX_TEST_TEXT = 2_000_000;
export const TEST_BUDGET = 200_000_000;
export const MAX_MATCH_TEXT = 100_000;
export const MATCH_BUDGET = 1_000_000;

/** The subset of RegExp the engine and the inputs use. `exec` returns the match and its groups, or null. */
export interface SafeMatcher {
  readonly source: string;
  /** RE2's measure of the compiled program: matching costs about this much per character. */
  readonly programSize: number;
  /** How many characters of a text `test` searches (its head). */
  readonly testWindow: number;
  test(text: string): boolean;
  /** Whether `test` searched all of `text`: when not, a false answer means "not in the head", not "absent". */
  covers(text: string): boolean;
  exec(text: string): [string, ...(string | undefined)[]] | null;
}

/** Duck-typed like HandrailError (its code is in shared/errors.ts): the card schema imports this module, and errors.ts imports the schema. */
export class PatternError extends Error {
  override readonly name = 'PatternError';
  readonly code = 'PATTERN_INVALID';
}

/** A short quote of a pattern for an error message: never the whole of a hostile string. */
export function quotePattern(pattern: string, max = 60): string {
  return JSON.stringify(pattern.length > max ? `${pattern.slice(0, max)}…` : pattern);
}

/**
 * Compile `pattern` for linear-time matching (search semantics, like `RegExp#test`/`exec` without flags).
 * `full` anchors it to the whole text (an input's pattern). Throws PatternError naming what is wrong.
 */
export function compileSafe(pattern: string, opts: { full?: boolean } = {}): SafeMatcher {
  const key = `${opts.full ? 'F' : 'S'}${pattern}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const made = compile(pattern, Boolean(opts.full));
  // The engine asks on every settle poll; a small cache keeps that to one compile per pattern.
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value ?? '');
  cache.set(key, made);
  return made;
}

const CACHE_SIZE = 256;
const cache = new Map<string, SafeMatcher>();

/**
 * A pattern at run time may be longer than a card's (outcome texts take input blanks, filled with escaped values),
 * so only this hard cap applies there; the card's own pattern is held to MAX_PATTERN_LENGTH and MAX_PROGRAM_SIZE at load.
 */
const HARD_MAX_PATTERN = 20_000;

function compile(pattern: string, full: boolean): SafeMatcher {
  if (pattern.length > HARD_MAX_PATTERN) {
    throw new PatternError(`the pattern is ${pattern.length} characters long; at most ${HARD_MAX_PATTERN} allowed`);
  }
  let re: RE2JS;
  try {
    re = RE2JS.compile(full ? `^(?:${pattern})$` : pattern);
  } catch (e) {
    // re2js says what it could not parse (`missing closing )`, `invalid escape sequence: \1`); keep it short.
    const why = (e as Error).message.replace(/^error parsing regexp:\s*/, '').slice(0, 120);
    throw new PatternError(`not a valid regular expression (linear-time RE2 syntax: no backreferences or lookaround): ${why}`);
  }
  // `test` runs RE2's DFA; `exec` needs captures, which RE2 computes with a slower NFA: it gets the smaller window.
  const execLimit = Math.min(MAX_MATCH_TEXT, Math.floor(MATCH_BUDGET / Math.max(1, re.programSize())));
  // Never less than the 100,000 characters every pattern was searched in before (a long filled-in value makes a large
  // program). A pattern that may anchor at the end is not tried on a cut text (`$` would match at the cut): on a text
  // longer than the window it finds nothing, and `covers` says the text was not searched to its end.
  const testWindow = Math.max(MAX_MATCH_TEXT, Math.min(MAX_TEST_TEXT, Math.floor(TEST_BUDGET / Math.max(1, re.programSize()))));
  const anchorsAtEnd = /\$|\\z/.test(pattern);
  const upTo = (text: string, n: number): string => (text.length > n ? text.slice(0, n) : text);
  return {
    source: pattern,
    programSize: re.programSize(),
    testWindow,
    test: (text) => (text.length > testWindow && anchorsAtEnd ? false : re.test(upTo(text, testWindow))),
    covers: (text) => text.length <= testWindow,
    exec: (text) => {
      const t = upTo(text, execLimit);
      return re.test(t) ? (re.exec(t) as [string, ...(string | undefined)[]] | null) : null;
    },
  };
}

/** The problem with a card's pattern (as written, blanks and all), or null: it compiles, and is small enough. */
export function patternProblem(pattern: string): string | null {
  if (pattern.length > MAX_PATTERN_LENGTH) return `the pattern is ${pattern.length} characters long; at most ${MAX_PATTERN_LENGTH} allowed`;
  let m: SafeMatcher;
  try {
    m = compileSafe(pattern);
  } catch (e) {
    if (e instanceof PatternError) return e.message;
    throw e;
  }
  return m.programSize > MAX_PROGRAM_SIZE
    ? `the pattern compiles to ${m.programSize} instructions; at most ${MAX_PROGRAM_SIZE} allowed (simplify its repetitions)`
    : null;
}
