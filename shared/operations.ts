// The operations table (docs/design/verbs.md, "The operations table"): what each verb takes, which effect
// sticker it gets by default, how the book, the compiler and a resumed authoring session treat it; and for each
// effect sticker, whether replay journals it, how it is undone, and what it tells an MCP client. One table, data:
// the menu, the guard, the card schema, the compiler, the engine and the MCP annotations all read it, so adding a
// verb or a sticker is one row here (tests/unit/operations.test.ts proves every reader agrees with it).
import type { EffectKind } from './schema/capability.ts';
import type { Verb } from './schema/observation.ts';

export interface VerbRow {
  /** `required`: a literal or a blank (set_value, select); `none`: the verb takes no value. */
  value: 'required' | 'none';
  /** Offered as a menu row. `read` is not: the prompt already carries the screen text. */
  menu: boolean;
  /**
   * The effect sticker the guard gives it: a fixed sticker, or `by_risk` — the surface's risk rules by role
   * (a browser link navigates), and otherwise a commit until the owner says otherwise.
   */
  sticker: EffectKind | 'by_risk';
  /**
   * After an authoring host was stopped between doing the action and writing its book line: `always` (doing it
   * again is harmless: typing the same value), `if_navigate` (again only when it was a navigation and the screen
   * visibly did not move), `never` (a press that must not happen twice without someone looking).
   */
  redo: 'always' | 'if_navigate' | 'never';
  /** How the compiler names a step (`enter_member_number`) and says what it does (`Type {value} into {what}`). */
  compile: { prefix: string; intent: string };
  /**
   * The screen may move after it (a press, a key, a hover that reveals): authoring waits for the page to settle
   * before showing the next screen, instead of looking once.
   */
  moves: boolean;
  /** The only values it takes, when the set is closed (`press`: the keys and chords of KEYS). */
  values?: readonly string[];
  /**
   * Offered on every control that takes one of these verbs, without being in the walker's per-role vocabulary: a
   * control's fingerprint hashes that vocabulary, so a verb added to it would void every approved card's targets.
   */
  with?: readonly Verb[];
}

/**
 * The keys `press` takes: one named key or a chord from this documented set, spelt as Playwright's `keyboard.press`
 * spells them (https://playwright.dev/docs/api/class-keyboard#keyboard-press). Enter that submits a form or sends a
 * write is a commit candidate like any press: the guard watches the requests it causes (shared/writes.ts).
 */
export const KEYS = [
  'Enter', 'Escape', 'Tab', 'Shift+Tab', 'Space', 'Backspace', 'Delete',
  'ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight', 'Home', 'End', 'PageUp', 'PageDown',
  'Control+Enter', 'Control+a', 'Meta+Enter',
] as const;

export const VERBS: Readonly<Record<Verb, VerbRow>> = {
  invoke: { value: 'none', menu: true, sticker: 'by_risk', redo: 'if_navigate', moves: true, compile: { prefix: 'press', intent: 'Press {what}' } },
  set_value: { value: 'required', menu: true, sticker: 'stage', redo: 'always', moves: false, compile: { prefix: 'enter', intent: 'Type {value} into {what}' } },
  select: { value: 'required', menu: true, sticker: 'stage', redo: 'always', moves: false, compile: { prefix: 'choose', intent: 'Choose {value} in {what}' } },
  toggle: { value: 'none', menu: true, sticker: 'stage', redo: 'never', moves: false, compile: { prefix: 'toggle', intent: 'Toggle {what}' } },
  read: { value: 'none', menu: false, sticker: 'read', redo: 'always', moves: false, compile: { prefix: 'read', intent: 'Read {what}' } },
  // A key on a named control: Enter in a field may submit or save, so it is stickered like a press.
  press: { value: 'required', menu: true, sticker: 'by_risk', redo: 'never', moves: true, values: KEYS, with: ['set_value', 'choose'], compile: { prefix: 'key', intent: 'Press {value} in {what}' } },
  // Hovering writes nothing; it reveals the control it names (a row's icon action), which the next step uses.
  hover: { value: 'none', menu: true, sticker: 'navigate', redo: 'always', moves: true, compile: { prefix: 'reveal', intent: 'Hover to reveal {what}' } },
  // Offered only where the page listens for a double-click (Control.offers, shared/dom/gestures.ts); it must change
  // the screen (an editor appears), else it fails by name. What it does is the page's: stickered like a press.
  double_click: { value: 'none', menu: true, sticker: 'by_risk', redo: 'never', moves: true, compile: { prefix: 'double_click', intent: 'Double-click {what}' } },
  // A custom ARIA combobox or listbox: open it, pick the option by its name, check the value it shows.
  choose: { value: 'required', menu: true, sticker: 'stage', redo: 'always', moves: true, compile: { prefix: 'pick', intent: 'Pick {value} in {what}' } },
  // A table, grid or list read as rows for a `rows` output: like `read`, not a menu row (the prompt carries the text).
  read_rows: { value: 'none', menu: false, sticker: 'read', redo: 'always', moves: false, compile: { prefix: 'list', intent: 'Read the rows of {what}' } },
  // A right-click that succeeds only when a menu appears (its items are then the next screen's controls); offered
  // only where the page listens for `contextmenu`. Opening a menu writes nothing, as a hover reveals.
  context_menu: { value: 'none', menu: true, sticker: 'navigate', redo: 'always', moves: true, compile: { prefix: 'open_menu', intent: 'Right-click {what} to open its menu' } },
};

export interface EffectRow {
  /** Replay writes `dispatched` (fsync) before acting and `observed` after (the journal rule). */
  journalled: boolean;
  /** Changes something in the application (an MCP tool whose card has one is not `readOnlyHint`; runner/mcp/tools.ts
   * lets a staged value through when the card's writes are checked). */
  changes: boolean;
  /** Cannot be taken back by the run itself (MCP `destructiveHint`; not `idempotentHint`). */
  destructive: boolean;
  /** How it is undone, for the people who review a card. */
  undo: string;
}

export const EFFECTS: Readonly<Record<EffectKind, EffectRow>> = {
  read: { journalled: false, changes: false, destructive: false, undo: 'nothing to undo' },
  navigate: { journalled: false, changes: false, destructive: false, undo: 'nothing changed: go back' },
  stage: { journalled: true, changes: true, destructive: false, undo: 'overwritten by the next run, or left unposted' },
  commit: { journalled: true, changes: true, destructive: true, undo: 'not by replay: a compensating capability or a person' },
};

/** Steps whose effect changes something are journalled; redoing the others is harmless. */
export const JOURNALLED: ReadonlySet<EffectKind> = new Set(
  (Object.keys(EFFECTS) as EffectKind[]).filter((k) => EFFECTS[k].journalled),
);

export function takesValue(verb: Verb): boolean {
  return VERBS[verb].value === 'required';
}

/**
 * Every verb a control takes: the walker's vocabulary for its role, the verbs the table offers with those, and the
 * gestures the page was seen listening for on it (`offered`: Control.offers, outside the fingerprinted vocabulary).
 */
export function verbsOf(listed: readonly Verb[], offered: readonly Verb[] = []): Verb[] {
  const extra = (Object.keys(VERBS) as Verb[]).filter((v) => !listed.includes(v) && VERBS[v].with?.some((w) => listed.includes(w)));
  return [...new Set([...listed, ...extra, ...offered])];
}

/** Why a literal value is not one the verb takes (its closed set), or null when it is. Blanks are checked when filled. */
export function outsideValues(verb: Verb, value: string): string | null {
  const allowed = VERBS[verb].values;
  if (!allowed || allowed.includes(value)) return null;
  return `${verb} takes one of ${allowed.join(', ')}; not "${value.slice(0, 40)}"`;
}

/** The compiler's one-line description of a step: the verb's intent with its blanks filled. */
export function intentText(verb: Verb, what: string, value: string | undefined): string {
  // A function replacer: a value such as `$&` is typed text, not a replacement pattern.
  return VERBS[verb].compile.intent.replace('{what}', () => what).replace('{value}', () => value ?? '');
}
