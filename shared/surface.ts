// The Surface port: the six verbs through which the engine and the authoring loop reach any application.
// A browser, a 3270 terminal and a macOS app each implement it; the engine never sees the app itself.
import { HandrailError } from './errors.ts';
import type { Rung, RungKind, ScopeLink, Verb, Observation, Control, FingerprintField, SurfaceRow } from './schema/index.ts';
import type { SurfaceErrorCode, SurfaceName } from './surfaces.ts';
import type { SeenWrite, WriteGate, WriteScope } from './writes.ts';

export type { EvidenceKind, SurfaceErrorCode } from './surfaces.ts';

/** A target with every blank filled: what a surface can look for. */
export interface BoundTarget {
  id: string;
  role: string;
  name?: string;
  hint?: string;
  supports: Verb[];
  scope: ScopeLink[];
  ladder: Rung[];
  fingerprint: { over: FingerprintField[]; value?: string | undefined };
}

export interface RungAttempt {
  rung: RungKind;
  /** How many elements the rung found: 1 wins, 2+ is ambiguous, 0 tries the next rung. */
  count: number;
}

export type Resolution =
  | { ok: true; ref: string; rung: RungKind; control: Control | null; attempts: RungAttempt[] }
  | {
      ok: false;
      code: 'TARGET_NOT_FOUND' | 'AMBIGUOUS' | 'FINGERPRINT_MISMATCH';
      attempts: RungAttempt[];
      detail: string;
    };

export interface Operation {
  verb: Verb;
  value?: string;
  /** The value holds a secret: the surface masks this field in every screenshot from now on. */
  secret?: boolean;
}

/** What `act` did. `read` carries the element's text and `read_rows` its rows; nothing else carries data back. */
export interface ActResult {
  read?: string;
  rows?: SurfaceRow[];
  /** With `rows`: the column headers the table or grid has (none for a list). */
  headers?: string[];
}

/** A question `evaluate` answers once. The engine polls; the surface never waits on its own. */
export type Query = { kind: 'observe' } | { kind: 'text_present'; text: string };

export type Answer = { kind: 'observe'; observation: Observation } | { kind: 'text_present'; present: boolean };


/**
 * Where a menu item is reached from (docs/design/authoring.md, "A menu opened and picked in"): the menu button
 * whose menu holds it (its ref, in the observation the item's ref came from), the `choose` value that picks it (its
 * name, or a path through submenus: shared/menu-path.ts), and whether it opens a submenu itself.
 */
/**
 * What pressing a control would send, found without sending it (a rehearsal, docs/design/replay.md, "Rehearsal"):
 * read off the form it submits (`form`: nothing pressed), or caught from a press with every request stopped before it
 * left (`press`: the page is spent, the caller throws it away); `none` when neither can be done, saying why. Field
 * values are as the page holds them: the caller masks them.
 */
export type RehearsedPress =
  | { derived: 'form' | 'press'; request: { method: string; url: string; fields: { name: string; value: string; secret: boolean }[] } | null; note?: string }
  | { derived: 'none'; request: null; note: string };

export interface MenuPick {
  button: string;
  /** The button's accessible name: how it is known when the open menu hides it (a modal menu: Radix, MUI). */
  name: string;
  value: string;
  opens: boolean;
}

/** A typed failure from a surface: the engine turns its code into a run result word. */
export class SurfaceError extends HandrailError<SurfaceErrorCode> {
  override readonly name = 'SurfaceError';
  /** `code` is one of the words the surface declares (shared/surfaces.ts, `errors`). */
  constructor(code: SurfaceErrorCode, message: string) {
    super(code, message);
  }
}

export interface Surface {
  /** Which declared surface this is (shared/surfaces.ts): the guard reads its risk rules, the book's start line names it. */
  readonly kind: SurfaceName;
  /**
   * The version of this surface's observer (the browser's DOM walker): observations carry it and fingerprints hash
   * it, so an observer whose rules changed fails a fingerprint loudly instead of matching by accident.
   */
  readonly observer: string;
  open(entry: string): Promise<void>;
  observe(): Promise<Observation>;
  resolve(target: BoundTarget): Promise<Resolution>;
  act(ref: string, op: Operation): Promise<ActResult>;
  evaluate(query: Query): Promise<Answer>;
  evidence(kind: 'screenshot'): Promise<Uint8Array>;
  evidence(kind: 'text'): Promise<string>;
  close(): Promise<void>;
  /**
   * Waits until no document of the surface is on its way (a navigation requested, loading, or committed and not yet
   * parsed), for at most `ms`: true when none is, false when the bound ran out. The engine asks before each look
   * while settling, so it does not look at a page between two documents; it decides when the engine looks, never
   * what a look says (docs/design/replay.md, "Settling"). Optional: a surface without it is looked at on the poll's
   * schedule alone.
   */
  loaded?(ms: number): Promise<boolean>;
  /**
   * Waits `ms` by the page's own clock (a timer set in each of its documents): what the page set a timer for sooner
   * — a search box's debounce — has run by then, however late a loaded machine runs the page's timers (HTML §8.6:
   * timers run in the order they are due). Authoring's settle takes a screen as unchanged only after it
   * (docs/design/replay.md, "Settling"). Optional: a surface without it is judged by the wall clock alone.
   */
  quiet?(ms: number): Promise<void>;
  /**
   * How many writes (requests other than GET/HEAD/OPTIONS) the page has out to the application and not yet answered.
   * A commit (its screen, its postconditions) is read only off a look with none out before or after it: a success screen
   * drawn while the app's write is unanswered may be replaced by its refusal (docs/design/replay.md, "Settling").
   * With `since` (ms since the epoch), only writes sent at or after it count: one the page sent before the press (a
   * stream opened on load) is not the press's. Optional: a surface without it (a terminal, whose host answers before
   * it redraws) is taken as having none.
   */
  writesOut?(since?: number): number;
  /**
   * The menu item behind `ref` (of the latest observation): where it is reached from, or null when it is in no one
   * menu button's menu. The guard asks it to write a model's press on a menu button and then on an item of its menu
   * as the one `choose` step replay does. Optional: without it, each press is its own step.
   */
  menuPick?(ref: string): Promise<MenuPick | null>;
  /** How many fields holding a secret the last screenshot masked (0 or absent: none). The evidence records it. */
  readonly maskedLastShot?: number;
  /**
   * Side-effect detection (shared/writes.ts): from now on, record the writes to `scope` that the page sends. With a
   * `gate`, a surface that can hold a request asks the gate before it leaves and stops it on false; one it cannot
   * hold (a WebSocket message) is recorded `unasked`. Optional: a surface without it reports no writes.
   */
  watchWrites?(scope: WriteScope, gate?: WriteGate): Promise<void>;
  /**
   * The request pressing `ref` would send, without letting it reach the application (a rehearsal). Optional: a
   * surface without it cannot tell (the rehearsal says so).
   */
  rehearse?(ref: string): Promise<RehearsedPress>;
  /** The writes recorded since `watchWrites`, in the order sent; recording stops. */
  takeWrites?(): Promise<SeenWrite[]>;
  /**
   * The surface sees writes but can hold none (the Chrome extension's chrome.webRequest, docs/design/writes.md,
   * "Writes"): each write it reports left `unasked`, so the guard asks about buttons before the press instead.
   */
  readonly writesUnheld?: boolean;
}
