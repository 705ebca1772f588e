// The page's side of the gesture engine (shared/gestures/engine.ts, port.ts): what a gesture is aimed at, and the
// answer to each question the engine asks about a control, in the control's own document. One instance per walker
// (shared/dom/index.ts createInPage): the runner reaches it through the walker bundle, the extension's content script
// in-process, so both surfaces' gestures read a page the same way.
import { hashStrings } from '../hash.ts';
import type { Aim, PageAnswers, PageQuestion } from '../gestures/port.ts';
import type { Control } from '../schema/observation.ts';
import { comboboxField, comboboxFilters, comboboxValue, listOpen, menuItemKeys, notChosen, optionName, optionToPick, revealer, submenuToOpen } from './options.ts';

/** What a look at the document gives (a walk that leaves the walker's refs as they are). */
export interface Look {
  controls: readonly Control[];
  paths: readonly string[];
  text: string;
  said?: readonly string[] | undefined;
}

/** The popups whose levels Escape closes one at a time while the focus is in one (WAI-ARIA APG: menus, listboxes, trees, grids). */
const FOCUS_LISTS = '[role=menu], [role=menubar], [role=listbox], [role=tree], [role=grid]';

/** The focused element, through shadow roots. */
export function deepActive(doc: Document): Element {
  let at: Element | null = doc.activeElement;
  while (at?.shadowRoot?.activeElement) at = at.shadowRoot.activeElement;
  return at ?? doc.body;
}

/** What a person sees change on a screen: its furniture, its controls (with their values), its text and what it says. */
export function screenKey(look: Look): string {
  return hashStrings([JSON.stringify([look.paths, look.controls.map((c) => [c.role, c.name, c.value, c.verbs]), look.text, look.said ?? []])]);
}

export interface GestureAnswers {
  /** The element a gesture on `el` for `value` is aimed at, or why there is none, in words. */
  aimed(el: Element, at: Aim, value: string): Element | string;
  /** The answer to one question about `el` and `value`. */
  answer<Q extends PageQuestion>(el: Element, q: Q, value: string): PageAnswers[Q];
}

export function gestureAnswers(doc: Document, look: () => Look): GestureAnswers {
  /** The menu item the last `submenu` question gave: whose submenu the engine is opening. */
  let opening: Element | null = null;
  const answers = (el: Element, value: string): { [Q in PageQuestion]: () => PageAnswers[Q] } => ({
    listOpen: () => listOpen(el),
    combobox: () => el.getAttribute('role') === 'combobox' || el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement,
    focusInList: () => deepActive(doc).closest(FOCUS_LISTS) !== null,
    shown: () => el.checkVisibility({ visibilityProperty: true }),
    option: () => {
      const o = optionToPick(el, value);
      return typeof o === 'string' ? o : null;
    },
    submenu: () => {
      const next = submenuToOpen(el, value);
      opening = next instanceof Element ? next : null;
      return next instanceof Element ? { item: optionName(next) } : next;
    },
    // Opened when the way no longer stops at that item: another item to open, none left, or a level further down
    // that is not there (which the pick then reports by name).
    submenuOpened: () => {
      const next = submenuToOpen(el, value);
      return next === null || typeof next === 'string' || next !== opening;
    },
    notChosen: () => notChosen(el, value),
    holds: () => comboboxValue(el),
    filters: () => comboboxFilters(el),
    screen: () => screenKey(look()),
    menuItems: () => menuItemKeys(look().controls),
  });
  return {
    aimed(el, at, value) {
      switch (at) {
        case 'target':
          return el;
        case 'row':
          return revealer(el);
        case 'option':
          return optionToPick(el, value);
        case 'submenu': {
          const next = submenuToOpen(el, value);
          return next ?? 'every submenu on the way shows';
        }
        case 'field':
          return comboboxField(el) ?? 'it has no field to type in';
      }
    },
    answer(el, q, value) {
      return answers(el, value)[q]();
    },
  };
}
