// One base error and one closed set of codes (results across boundaries, exceptions for bugs). Every
// code the product raises or answers with is listed once below with the typed word it means when it ends a run or
// a command on its own; the exit code follows from the word (EXIT_CODE). A caller decides from `code`, never from
// message text, and compares `code`/`name` rather than `instanceof` (extension, page and Node are different realms).
// A refusal travels as data, `{code, path, message}`, which the CLI, the MCP server and the side panel all render.
//
// The engine may give a code a stronger word from what it knows at the time: any failure while a commit is in
// flight is UNSAFE_TO_RETRY / COMMIT_IN_DOUBT, and SURFACE_UNREACHABLE after a step has acted is FAILED
// (docs/design/replay.md, "The truth of the word"). The table is what the code means when nothing more is known.
// This module imports shared/schema/result.ts (and through it capability.ts): an error class in a module those
// import (shared/schema/blanks.ts) cannot extend HandrailError without an import cycle; it keeps its code duck-typed.
import { z } from 'zod';
import { Code, EXIT_CODE, type Word } from './schema/result.ts';

const CODES = {
  // The receipt's own codes (shared/schema/result.ts `Code`): the table must cover every one of them.
  OK: 'SUCCESS',
  INVALID_INPUT: 'REFUSED',
  UNKNOWN_INPUT: 'REFUSED',
  MISSING_INPUT: 'REFUSED',
  MISSING_SECRET: 'REFUSED',
  CARD_INVALID: 'REFUSED',
  NOT_APPROVED: 'REFUSED',
  JOURNAL_IN_DOUBT: 'UNSAFE_TO_RETRY',
  JOURNAL_CORRUPT: 'UNSAFE_TO_RETRY',
  JOURNAL_DAMAGED: 'UNSAFE_TO_RETRY',
  JOURNAL_KEY_MISMATCH: 'REFUSED',
  BUSY: 'BUSY',
  NO_BROWSER: 'REFUSED',
  SURFACE_UNREACHABLE: 'RECOVERABLE',
  SCREEN_MISMATCH: 'FAILED',
  TARGET_NOT_FOUND: 'FAILED',
  AMBIGUOUS: 'FAILED',
  FINGERPRINT_MISMATCH: 'FAILED',
  TIMEOUT: 'FAILED',
  NAVIGATION_FAILED: 'FAILED',
  BROWSER_CRASHED: 'FAILED',
  ACTION_FAILED: 'FAILED',
  OUTPUT_NOT_FOUND: 'FAILED',
  OUTPUT_MISSING_AFTER_COMMIT: 'FAILED',
  UNDECLARED_OUTCOME: 'FAILED',
  OUTCOME_UNDECIDED: 'FAILED',
  EVIDENCE_UNWRITABLE: 'FAILED',
  COMMIT_IN_DOUBT: 'UNSAFE_TO_RETRY',
  CANCELLED: 'RECOVERABLE',
  SHUTTING_DOWN: 'RECOVERABLE',
  // Held before it left (nothing sent; the card is wrong, so not retryable); the engine says UNSAFE_TO_RETRY when
  // one could not be held and reached the app.
  UNDECLARED_WRITE: 'FAILED',
  SECRET_FIELD: 'FAILED',
  // A commit's record was not the one the inputs name on the last look before the press: nothing was pressed.
  WRONG_RECORD: 'FAILED',
  // A person took the app over mid-run: stop; what they did is not known, so not retryable (the engine says
  // UNSAFE_TO_RETRY when a commit was in flight).
  HUMAN_CONTROL: 'FAILED',
  REHEARSED: 'REHEARSED',
  NO_COMMIT: 'REHEARSED',
  INTERNAL: 'FAILED',
  // A surface's "the page moved under the question": the engine reads it as still settling.
  STALE: 'FAILED',
  // The journal (runner/engine/journal.ts).
  JOURNAL_IO: 'FAILED',
  JOURNAL_CLOSED: 'FAILED',
  JOURNAL_RECEIPT_NOT_JSON: 'UNSAFE_TO_RETRY',
  JOURNAL_NOT_IN_DOUBT: 'REFUSED',
  // A shared journal (runner/engine/journal-pg.ts): its lease expired and was taken while this run held the key, so
  // this run may write nothing more — what it dispatched stays in doubt for the next holder.
  JOURNAL_LEASE_LOST: 'UNSAFE_TO_RETRY',
  // HANDRAIL_JOURNAL_URL (runner/journals.ts): a scheme no journal store speaks, a database that cannot be reached,
  // or one whose journal tables were made by a newer handrail.
  JOURNAL_URL_UNSUPPORTED: 'REFUSED',
  JOURNAL_UNREACHABLE: 'RECOVERABLE',
  JOURNAL_SCHEMA_NEWER: 'REFUSED',
  // The evidence log (runner/evidence.ts).
  EVIDENCE_OTHER_RUN: 'REFUSED',
  EVIDENCE_CORRUPT: 'FAILED',
  EVIDENCE_CLOSED: 'FAILED',
  EVIDENCE_SEALED: 'FAILED',
  EVIDENCE_IO: 'FAILED',
  // Authoring (shared/author) and the extension's store.
  OWNER_FAILED: 'FAILED',
  BOOK_BROKEN: 'FAILED',
  NO_SESSION: 'REFUSED',
  BOOK_CONFLICT: 'FAILED',
  BAD_RECORD: 'FAILED',
  // A person's edit of a book (shared/author/book-edit.ts) that cannot be made; nothing was changed.
  NOTHING_TO_UNDO: 'REFUSED',
  NO_SUCH_LINE: 'REFUSED',
  EDIT_REFUSED: 'REFUSED',
  // Commands and their inputs.
  USAGE: 'REFUSED',
  UNBOUND_BLANK: 'REFUSED',
  CAPABILITIES_DIR: 'REFUSED',
  BAD_JUDGE: 'REFUSED',
  FAILPOINT_MALFORMED: 'REFUSED',
  NO_PLATES: 'REFUSED',
  BAD_PLATES: 'REFUSED',
  CARD_UNREADABLE: 'REFUSED',
  NO_EXPECTED_CHANGE: 'REFUSED',
  BAD_CHANGE: 'REFUSED',
  // The masker (shared/secrets.ts): a secret that cannot be masked safely is refused.
  SECRET_TOO_SHORT: 'REFUSED',
  SECRET_NAME_INVALID: 'REFUSED',
  UNKNOWN_SURFACE: 'REFUSED',
  SURFACE_UNAVAILABLE: 'REFUSED',
  // The TN3270 codec (terminal-agent/): a data stream it cannot apply, a key the 3270 keyboard refuses.
  TN3270_PROTOCOL: 'FAILED',
  INPUT_INHIBITED: 'FAILED',
  ENV_NOT_ALLOWED: 'REFUSED',
  NOT_EVIDENCE: 'REFUSED',
  // `replay --trace`: a Playwright trace records typed values as typed, so a card with secret inputs may not record one.
  TRACE_WOULD_RECORD_SECRET: 'REFUSED',
  // handrail.config.json (runner/config.ts): unreadable, not JSON, or not the schema.
  CONFIG_INVALID: 'REFUSED',
  // Leases (runner/lease.ts): a lease file that cannot be read or written.
  LEASE_IO: 'FAILED',
  // Patterns (shared/regex.ts): a pattern refused at load.
  PATTERN_INVALID: 'REFUSED',
  // The model (runner/author/anthropic.ts, extension/lib/anthropic.ts): no key configured.
  MODEL_NOT_CONFIGURED: 'REFUSED',
  MODEL_DEPRECATED: 'REFUSED',
  // The escalation ladder (runner/escalate/): a referee that could not answer is climbed past.
  REFEREE_UNAVAILABLE: 'FAILED',
  // `handrail observe`.
  BAD_URL: 'REFUSED',
  UNREACHABLE: 'RECOVERABLE',
  // `--browser-ws` (runner/browser/remote.ts): no browser server there, or one of another Playwright version.
  BROWSER_UNREACHABLE: 'RECOVERABLE',
  BROWSER_VERSION_MISMATCH: 'REFUSED',
  // `replay --inputs` (runner/batch.ts): a rows file that cannot be run as written.
  BAD_ROWS: 'REFUSED',
} as const satisfies Record<Code, Word> & Record<string, Word>;

export type ErrorCode = keyof typeof CODES;
export const ErrorCode = z.enum(Object.keys(CODES) as [ErrorCode, ...ErrorCode[]]);

/** The typed word a code means on its own. */
export function wordOf(code: ErrorCode): Word {
  return CODES[code];
}

/** The exit code a command ends with for this code: the word's (EXIT_CODE), so one code always exits one way. */
export function exitCodeOf(code: ErrorCode): number {
  return EXIT_CODE[CODES[code]];
}

/** A refusal as data: which code, where (a dotted path into what was refused: `inputs.member_number`, a file, or ''), why. */
export const Refusal = z.strictObject({ code: ErrorCode, path: z.string(), message: z.string() });
export type Refusal = z.infer<typeof Refusal>;

/** A refusal as the one line a person reads, in the CLI, the MCP server and the side panel alike: code, message, where. */
export function refusalLine(r: { code: string; message: string; path?: string | undefined }): string {
  return `${r.code}: ${r.message}${r.path && !r.message.includes(r.path) ? ` (at ${r.path})` : ''}`;
}

/** The base of every error the product raises on purpose. Subclasses narrow `C` to their own codes and set `name`. */
export class HandrailError<C extends ErrorCode = ErrorCode> extends Error {
  override readonly name: string = 'HandrailError';
  constructor(
    readonly code: C,
    message: string,
    /** Where the problem is, for a refusal (see Refusal). */
    readonly path = '',
  ) {
    super(message);
  }

  get word(): Word {
    return wordOf(this.code);
  }

  refusal(): Refusal {
    return { code: this.code, path: this.path, message: this.message };
  }
}

/** The code of any thrown value that carries one of the closed codes, from any realm (no `instanceof`). */
export function errorCodeOf(e: unknown): ErrorCode | undefined {
  const code = typeof e === 'object' && e !== null ? (e as { code?: unknown }).code : undefined;
  return typeof code === 'string' && Object.hasOwn(CODES, code) ? (code as ErrorCode) : undefined;
}

/** Any thrown value as a refusal: its own code and path when it has them, INTERNAL otherwise (a bug). */
export function refusalOf(e: unknown): Refusal {
  const message = e instanceof Error ? e.message : String(e);
  const path = typeof e === 'object' && e !== null && typeof (e as { path?: unknown }).path === 'string' ? (e as { path: string }).path : '';
  return { code: errorCodeOf(e) ?? 'INTERNAL', path, message };
}
