// The gesture engine's input port (docs/design/verbs.md, "One gesture engine"): what a backend must do for the
// procedures in shared/gestures/engine.ts — point at a thing and hover, click or press a key there, type, ask the
// page a closed question about the control, and wait for the page to change. Playwright (runner/browser/gestures.ts)
// and chrome.debugger with the content script (extension/lib/gestures.ts) are its two backends; the page answers
// every question with shared/dom/gesture-answers.ts, so the two cannot read a page differently.
import { z } from 'zod';
import type { Key } from '../keys.ts';

/**
 * What a gesture is aimed at, for one control and one `choose` value: the control itself (`target`); the nearest
 * shown element that reveals it (`row`, shared/dom/options.ts revealer); the one option or menu item named by the
 * value (`option`); the menu item whose submenu is to be opened next on the way to it (`submenu`); the text field a
 * combobox filters by (`field`: itself, or the input inside it).
 */
export const Aim = z.enum(['target', 'row', 'option', 'submenu', 'field']);
export type Aim = z.infer<typeof Aim>;

/** The page's answer to each question, about the control and the `choose` value (shared/dom/gesture-answers.ts). */
export const PageAnswers = z.strictObject({
  /** The list or menu it picks from is open already (shared/dom/options.ts listOpen). */
  listOpen: z.boolean(),
  /** It is a combobox or a text field: Down Arrow opens its list, Escape on it closes that. */
  combobox: z.boolean(),
  /** The focus is in a menu, menubar, listbox, tree or grid: Escape there closes the level that holds it. */
  focusInList: z.boolean(),
  /** It shows (after a hover of its row). */
  shown: z.boolean(),
  /** Null when the one option (or item) named by the value is there to pick; else why not, in words. */
  option: z.string().nullable(),
  /** The item whose submenu is to be opened next (its name), null when none is left, or why the way is not there. */
  submenu: z.union([z.strictObject({ item: z.string() }), z.string()]).nullable(),
  /** The submenu of the item the last `submenu` question gave has opened: the way no longer stops there. */
  submenuOpened: z.boolean(),
  /** Null when the control shows the value as chosen (a menu: the item took), else what it shows instead. */
  notChosen: z.string().nullable(),
  /** What it holds (shared/dom/options.ts comboboxValue): a field's text; null for a secret field. */
  holds: z.string().nullable(),
  /** It filters its list by what is typed in it (WAI-ARIA `aria-autocomplete` list or both, or a field that is one). */
  filters: z.boolean(),
  /** What the document shows, as a key: two keys differ when a person would see the screen change. */
  screen: z.string(),
  /** The menu items showing in the document (shared/dom/options.ts menuItemKeys). */
  menuItems: z.array(z.string()),
});
export type PageAnswers = z.infer<typeof PageAnswers>;
export type PageQuestion = keyof PageAnswers;
export const PageQuestion = z.enum(Object.keys(PageAnswers.shape) as [PageQuestion, ...PageQuestion[]]);

/** A press: how many clicks (a double-click is two, numbered), and which button. */
export interface Press {
  count?: 1 | 2;
  button?: 'right';
  /** A click that only tidies up (closing a list): not waited for while what it aims at is covered. */
  tidy?: boolean;
}

/**
 * One backend's input for one control and one value. Every method that acts may throw a SurfaceError
 * (shared/surface.ts): STALE when the document went away, ACTION_FAILED when the thing aimed at is not there.
 */
export interface GestureInput {
  /** The pointer moved onto the thing aimed at. */
  hover(at: Aim): Promise<void>;
  /** A press of the pointer on it, where it is drawn (the pointer moves there first). */
  click(at: Aim, how?: Press): Promise<void>;
  /** A key pressed: on the thing aimed at (focused first), or where the focus is when no aim is given. */
  key(key: Key, at?: Aim): Promise<void>;
  /** The words typed into the control's field (`field`), replacing what it held, as a person types them. */
  type(text: string): Promise<void>;
  /** The page's answer to one question about the control and the value. */
  ask<Q extends PageQuestion>(q: Q): Promise<PageAnswers[Q]>;
  /** Resolves when the control's document changes, or after `ms` at the latest. */
  changed(ms: number): Promise<void>;
}
