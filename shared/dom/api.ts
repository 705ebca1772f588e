// The in-page API the walker bundle installs as `globalThis.__handrail`, shared by the runner and the extension.
import type { RungKind } from '../schema/capability.ts';
import type { Control, ScopeLink, SurfaceRows } from '../schema/observation.ts';
import type { MenuPick } from '../surface.ts';
import type { Aim, PageAnswers, PageQuestion } from '../gestures/port.ts';

/** Rungs the page itself can answer: the browser's declared rung kinds. `label` matches `hint`; `text` and `css` read `value`. */
export type FindRung = RungKind;

export interface FindQuery {
  rung: FindRung;
  role?: string;
  name?: string;
  /** The hint (label rung, falls back to `name`), the text to contain (text rung) or the selector (css rung). */
  value?: string;
  /** In-frame links only (row, group, table, form, dialog, region), outermost first. */
  scope: ScopeLink[];
  /** The target is hovered to reveal it: an element hidden only until hovered counts (shared/dom/style.ts isRevealable). */
  reveal?: boolean;
  /**
   * The target takes a gesture the page listens for (double_click, context_menu): one of role `text` is then found
   * among the text the walk offers for a gesture (shared/dom/gestures.ts), and only there. Without it a target of
   * role `text` (a result line that is read) is found by the ordinary rungs, with no gesture walk.
   */
  gesture?: boolean;
}

export interface DocumentObservation {
  url: string;
  title: string;
  /** Refs 'c0', 'c1', … in document order; scope WITHOUT the frame link. */
  controls: Control[];
  paths: string[];
  /** The document's visible text without what its live regions say. */
  text: string;
  /** What its visible live regions say, one string per region (shared/schema/observation.ts Part.said); absent: silence. */
  said?: string[] | undefined;
  /** Its rows by key with their text (shared/schema/observation.ts Part.rows); absent: none. */
  rows?: Array<{ key: string; text: string }> | undefined;
  /** Still loading (`document.readyState` not complete: a frame or resource pending) or showing a busy region or a progress bar. */
  busy: boolean;
  /**
   * A finite animation or transition is running (a list fading out, a dialog sliding in): what shows is on its way
   * to somewhere. Infinite ones (a spinner) do not count. Authoring's settle waits a while for it to end.
   */
  moving?: true | undefined;
}

export interface InPage {
  version: string;
  observe(): DocumentObservation;
  /** The form `observeWire` answers in (shared/dom/wire.ts WIRE_VERSION). */
  wireVersion: string;
  /** `observe()` in the compact wire form, as JSON: what the runner carries out of the page (shared/dom/wire.ts). */
  observeWire(): string;
  /** The element of a ref from the latest observe() or any find() in this document. */
  element(ref: string): Element | null;
  /** Refs of every match, in document order (a ref already given by observe() is reused). */
  find(q: FindQuery): string[];
  /** Visible text of an element, or the value of a field ('' for a password). */
  textOf(ref: string): string;
  /** The rows of the table, grid or list behind a ref (shared/dom/rows.ts readRows); null when it is gone or is none. */
  rowsOf(ref: string): SurfaceRows | null;
  /** CSS selectors derived from the element of a ref (shared/dom/selectors.ts); [] when it is gone. */
  selectors(ref: string): string[];
  /** The one option of the combobox or listbox `el` (or item of the menu button `el`'s menu) named `name`, or why none is picked (shared/dom/options.ts). */
  optionToPick(el: Element, name: string): Element | string;
  /** After a `choose`: null when the combobox or listbox `el` shows `name`, else what it shows (shared/dom/options.ts). */
  notChosen(el: Element, name: string): string | null;
  /** Whether the list or menu `el` picks from is open already, so `choose` does not click it shut (shared/dom/options.ts). */
  listOpen(el: Element): boolean;
  /** What to hover to reveal `el`, shown only on hover: its nearest shown ancestor (shared/dom/options.ts). */
  revealer(el: Element): Element;
  /** Where a click on `el` lands: itself, its label when it is drawn as nothing, null when nothing can be clicked (shared/dom/options.ts). */
  clickTarget(el: Element): Element | null;
  /** For `choose` by a path: the item whose submenu must be opened next, null when none, or why not (shared/dom/options.ts). */
  submenuToOpen(el: Element, name: string): Element | string | null;
  /** The element a gesture on `el` is aimed at for `value`, or why none (shared/dom/gesture-answers.ts). */
  aimed(el: Element, at: Aim, value: string): Element | string;
  /** The page's answer to one of the gesture engine's questions about `el` and `value` (shared/dom/gesture-answers.ts). */
  gestureAnswer<Q extends PageQuestion>(el: Element, q: Q, value: string): PageAnswers[Q];
  /**
   * The menu item behind a ref: the ref of the menu button it is reached from, the `choose` value that picks it (a
   * path through submenus), and whether it opens a submenu; null when it is in no one menu button's menu (options.ts menuPathOf).
   */
  menuPick(ref: string): MenuPick | null;
}

export const GLOBAL_NAME = '__handrail';
