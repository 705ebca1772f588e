// Two in-page decisions the browser surfaces make around `choose` and `hover` (docs/ARCHITECTURE.md, "The six
// verbs"): which option of a custom combobox or listbox has a name, and which element hovered reveals a control
// shown only on hover. Written once: the runner asks them through the walker bundle's InPage API (shared/dom/api.ts),
// the extension's content script calls them in-process (extension/lib/frame.ts).
import { normalize } from './name.ts';

/** The ids an element names by `aria-controls` and `aria-owns` (WAI-ARIA 1.2: ID reference lists, space-separated). */
function controlledIds(el: Element): string[] {
  return `${el.getAttribute('aria-controls') ?? ''} ${el.getAttribute('aria-owns') ?? ''}`.split(/\s+/).filter(Boolean);
}

/**
 * The options of a custom combobox or listbox (WAI-ARIA APG "Combobox Pattern" and "Listbox Pattern"): `[role=option]`
 * in the element itself and in the popups it names by `aria-controls`/`aria-owns`, looked up in its own tree, so a
 * shadow root's ids count; each once, in the order met.
 */
export function optionsOf(el: Element): Element[] {
  const root = el.getRootNode() as Document | ShadowRoot;
  const popups = [el, ...controlledIds(el).map((id) => root.getElementById(id)).filter((p): p is HTMLElement => p !== null)];
  return [...new Set(popups.flatMap((p) => [...p.querySelectorAll('[role=option]')]))];
}

/** An option's name as a card spells it: its `aria-label`, else its text, whitespace folded (shared/dom/name.ts normalize). */
export function optionName(option: Element): string {
  return normalize(option.getAttribute('aria-label') ?? option.textContent);
}

/**
 * The one option of the combobox or listbox `el` named `name` (whitespace folded), or why there is none to pick, in
 * words for the person reading the failure: no option has that name, or several do (a pick is never a guess).
 */
export function optionToPick(el: Element, name: string): Element | string {
  const want = normalize(name);
  const named = optionsOf(el).filter((o) => optionName(o) === want);
  if (named.length === 1) return named[0] as Element;
  return named.length === 0 ? `no option named "${want}" in the list it opens` : `${named.length} options are named "${want}"`;
}

/** What a combobox shows as chosen: a listbox its selected option's text, a field its value, anything else its text. */
function comboShows(el: Element): string {
  if (el.getAttribute('role') === 'listbox') return normalize(el.querySelector('[role=option][aria-selected=true]')?.textContent);
  return normalize(el instanceof HTMLInputElement ? el.value : el.textContent);
}

/** After a pick: null when the combobox or listbox `el` shows `name` as chosen, else what it shows instead, in words. */
export function notChosen(el: Element, name: string): string | null {
  const want = normalize(name);
  const shows = comboShows(el);
  return shows === want ? null : `the combobox shows "${shows.slice(0, 60)}" after choosing "${want}"`;
}

/**
 * The combobox or listbox an option belongs to, or null: the control a person's pick is recorded on. Its listbox,
 * or the element in the option's tree that names that listbox by `aria-controls`/`aria-owns` (the combobox).
 */
export function comboOf(option: Element): Element | null {
  const list = option.closest('[role=listbox]');
  const root = option.getRootNode() as Document | ShadowRoot;
  if (list?.id) {
    const byId = [...root.querySelectorAll('[aria-controls], [aria-owns]')].find((c) => controlledIds(c).includes(list.id));
    if (byId) return byId;
  }
  return list;
}

/**
 * What to hover to reveal `el` (shared/dom/style.ts isRevealable: hidden only until its row is hovered): the nearest
 * element at or above it, crossing shadow roots to their hosts, that is laid out and visible (CSSOM View
 * `checkVisibility`); `el` itself when none is.
 */
export function revealer(el: Element): Element {
  for (let x: Element | null = el; x; ) {
    if (x.checkVisibility({ visibilityProperty: true })) return x;
    x = x.parentElement ?? ((x.getRootNode() as ShadowRoot).host || null);
  }
  return el;
}
