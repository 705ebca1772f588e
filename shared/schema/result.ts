// The run result (receipt): a closed set of typed words. Callers decide from the word and code, never from prose.
import { z } from 'zod';
import { RungKind } from './capability.ts';

/** REHEARSED: `--rehearse` ran the card up to its first commit and pressed nothing (the receipt's `rehearsal` says what the press would send). */
export const Word = z.enum(['SUCCESS', 'BUSINESS_OUTCOME', 'RECOVERABLE', 'BUSY', 'UNSAFE_TO_RETRY', 'REFUSED', 'FAILED', 'REHEARSED']);
export type Word = z.infer<typeof Word>;

/** Stable codes. A word says what to do; the code says why. */
export const Code = z.enum([
  'OK',
  // BUSINESS_OUTCOME codes come from the card (e.g. ALREADY_PROCESSED); these are the engine's own.
  'INVALID_INPUT',
  'UNKNOWN_INPUT',
  'MISSING_INPUT',
  'MISSING_SECRET',
  'CARD_INVALID',
  'NOT_APPROVED',
  'JOURNAL_IN_DOUBT',
  'JOURNAL_CORRUPT',
  'JOURNAL_DAMAGED',
  'JOURNAL_KEY_MISMATCH',
  'BUSY',
  'NO_BROWSER',
  'SURFACE_UNREACHABLE',
  /** The card names a surface that is declared but not built yet, or no surface at all (runner/surfaces.ts). */
  'SURFACE_UNAVAILABLE',
  'UNKNOWN_SURFACE',
  'SCREEN_MISMATCH',
  'TARGET_NOT_FOUND',
  'AMBIGUOUS',
  'FINGERPRINT_MISMATCH',
  'TIMEOUT',
  'NAVIGATION_FAILED',
  'BROWSER_CRASHED',
  'ACTION_FAILED',
  'OUTPUT_NOT_FOUND',
  /** As OUTPUT_NOT_FOUND, after a commit this run proved: it landed (do not send it again), only the output is missing. */
  'OUTPUT_MISSING_AFTER_COMMIT',
  'UNDECLARED_OUTCOME',
  /** A declared outcome's text could not be searched to the end of a very long screen, and no commit was pressed. */
  'OUTCOME_UNDECIDED',
  /** The run's evidence could not be written (a full disk): it stopped; UNSAFE_TO_RETRY when a commit may have been pressed. */
  'EVIDENCE_UNWRITABLE',
  'COMMIT_IN_DOUBT',
  /** The caller cancelled (or the server is stopping) before any commit was dispatched: nothing was pressed. */
  'CANCELLED',
  /** The server is stopping and takes no new call: try again on another (or after it restarts). */
  'SHUTTING_DOWN',
  /** A step that is not a commit tried to write to the app (side-effect detection): the card is wrong; held (FAILED) or, when it could not be, sent (UNSAFE_TO_RETRY). */
  'UNDECLARED_WRITE',
  /** A secret would be typed into a field the surface does not report as secret, and the step does not allow it. */
  'SECRET_FIELD',
  /** The screen before a commit did not show the record its inputs name (its precondition): nothing was pressed. */
  'WRONG_RECORD',
  /** A person pressed a key or clicked in the app during the run (the mac surface's event tap): the run stopped and left it to them. */
  'HUMAN_CONTROL',
  /** A rehearsal reached the commit, checked what can be checked before a press, and pressed nothing. */
  'REHEARSED',
  /** A rehearsal of a card with no commit: every step ran (writes held as always); there was nothing to press. */
  'NO_COMMIT',
  'INTERNAL',
]);
export type Code = z.infer<typeof Code>;

/** Exit codes of `handrail replay` (and every command that ends in a run result). */
export const EXIT_CODE: Readonly<Record<Word, number>> = {
  SUCCESS: 0,
  BUSINESS_OUTCOME: 10,
  RECOVERABLE: 11,
  UNSAFE_TO_RETRY: 12,
  REFUSED: 13,
  FAILED: 14,
  BUSY: 15,
  REHEARSED: 16,
};

/** Words a caller may simply try again later: nothing was committed (RECOVERABLE) or another run holds the key (BUSY). */
export const RETRYABLE: ReadonlySet<Word> = new Set(['RECOVERABLE', 'BUSY']);

/**
 * How a target was found: a rung of its ladder, or `control` — no rung found exactly one element, the referee chose
 * a menu row and its fingerprint matched the card's (docs/design/escalation.md, "The escalation ladder").
 */
/**
 * Who holds a run (the `baton` evidence lines): the engine, nobody while it waits for a person at the console, or
 * that person (docs/design/escalation.md, "The escalation ladder").
 */
export const Baton = z.enum(['RUNNING', 'PAUSED', 'HUMAN_CONTROL']);
export type Baton = z.infer<typeof Baton>;

export const ResolvedBy = z.enum([...RungKind.options, 'control']);
export type ResolvedBy = z.infer<typeof ResolvedBy>;

/** A rows output's value: one record per row, the card's column names to cell text (docs/design/capability.md, "Rows as outputs"). */
export const RowsValue = z.array(z.record(z.string(), z.string()));
export type RowsValue = z.infer<typeof RowsValue>;

/** An output's value: a string (a text output) or rows (a rows output). Outputs that are strings stay strings. */
export const OutputValue = z.union([z.string(), RowsValue]);
export type OutputValue = z.infer<typeof OutputValue>;

/** One field of the request a commit would send; a password field's value and every secret input's are masked. */
export const RehearsedField = z.strictObject({ name: z.string(), value: z.string(), secret: z.boolean() });

/**
 * What a rehearsal found at the commit (docs/design/replay.md, "Rehearsal"): the checks made before the press, and the
 * request the press would send — read off the form the control submits (`form`: nothing pressed), or caught from a
 * press with every request stopped before it left (`press`: the browser context is then thrown away), or not known
 * (`none`: the surface cannot tell without pressing, `note` says why).
 */
export const Rehearsal = z.strictObject({
  step: z.string(),
  checked: z.array(z.enum(['screen', 'target', 'fingerprint'])),
  derived: z.enum(['form', 'press', 'none']),
  request: z
    .strictObject({
      method: z.string(),
      url: z.string(),
      fields: z.array(RehearsedField),
    })
    .nullable(),
  note: z.string().optional(),
});
export type Rehearsal = z.infer<typeof Rehearsal>;

export const RunResult = z
  .strictObject({
    word: Word,
    /** An engine code from `Code`, or for BUSINESS_OUTCOME / declared failures the card's own code. */
    code: z.string().regex(/^[A-Z][A-Z0-9_]*$/),
    retryable: z.boolean(),
    message: z.string(),
    card: z.string(),
    run_id: z.string(),
    /** The declared outcome's name, when the final screen matched one. */
    outcome: z.string().optional(),
    outputs: z.record(z.string(), OutputValue),
    llm_calls: z.number().int().nonnegative(),
    classifier_calls: z.number().int().nonnegative(),
    /** The rung each target resolved on, by target id: drift shows up as a rung change. */
    rungs: z.record(z.string(), ResolvedBy),
    /** The step the run stopped at, when it did not finish. */
    at_step: z.string().optional(),
    /** The screen label showing at the end, or null when no declared screen matched. */
    screen: z.string().nullable(),
    steps_done: z.number().int().nonnegative(),
    /** True when the receipt was returned from the journal instead of pressing the commit again. */
    from_journal: z.boolean().default(false),
    evidence: z.string().nullable(),
    /** The hash of the evidence log's sealed closing line: the anchor `handrail evidence verify --head` checks. */
    evidence_head: z.string().nullable().optional(),
    /** The idempotency key of the intent this run carried out (card, content hash, identifying inputs). */
    key: z.string().optional(),
    /** Which journal answered for the key: its file, or `postgres://host:port/database` (HANDRAIL_JOURNAL_URL, never its password). */
    journal: z.string().optional(),
    /** The page text of the last screen when the word is not SUCCESS (masked, capped), so a caller reads what the page said. */
    page_text: z.string().optional(),
    /** True when the card was run without an approval bound to its content (`--allow-unapproved`). */
    unapproved: z.boolean().optional(),
    /** True when the run climbed to the person rung: someone at the console was asked (whatever they answered). */
    escalated_to_human: z.boolean().optional(),
    /** A rehearsal's findings at the commit (word REHEARSED): nothing was pressed. */
    rehearsal: Rehearsal.optional(),
    duration_ms: z.number().nonnegative(),
  })
  .refine((r) => r.retryable === RETRYABLE.has(r.word), {
    message: 'only RECOVERABLE and BUSY are retryable',
    path: ['retryable'],
  });
export type RunResult = z.infer<typeof RunResult>;
