// The in-page decisions the browser surfaces make around `choose` and `hover` (docs/design/verbs.md, "The six
// verbs"): which option of a custom combobox or listbox, or which item of a menu button's menu, has a name; whether
// the pick took; and which element hovered reveals a control shown only on hover. Written once: the runner asks them through the walker bundle's InPage API (shared/dom/api.ts),
// the extension's content script calls them in-process (extension/lib/frame.ts).
import type { Control } from '../schema/observation.ts';
import { menuLevels, menuPathValue } from '../menu-path.ts';
import { normalize } from './name.ts';
import { isHiddenForAria, newCache } from './style.ts';
import { isListButton } from './role.ts';

/** An ID reference list attribute's ids (WAI-ARIA 1.2: space-separated). */
function idsIn(el: Element, ...attrs: string[]): string[] {
  return attrs.flatMap((a) => (el.getAttribute(a) ?? '').split(/\s+/)).filter(Boolean);
}

/** The element with this id in `el`'s own tree (a shadow root's ids count), or null; null too once `el` has left its document. */
function byId(el: Element, id: string): HTMLElement | null {
  const root = el.getRootNode() as Partial<Pick<Document, 'getElementById'>>;
  return typeof root.getElementById === 'function' ? root.getElementById(id) : null;
}

/** The ids an element names by `aria-controls` and `aria-owns`. */
function controlledIds(el: Element): string[] {
  return idsIn(el, 'aria-controls', 'aria-owns');
}

/** The roles of a menu's items (WAI-ARIA 1.2 §5.3.2: menuitem, menuitemradio, menuitemcheckbox). */
export const MENU_ITEMS = '[role=menuitem], [role=menuitemradio], [role=menuitemcheckbox]';

/**
 * A menu button (WAI-ARIA APG "Menu Button Pattern"): a button whose `aria-haspopup` is `menu` or `true` (WAI-ARIA
 * 1.2 §6.6: `true` means a menu). `choose` on it opens the menu and activates one item by name.
 */
export function isMenuButton(el: Element): boolean {
  const popup = (el.getAttribute('aria-haspopup') ?? '').trim().toLowerCase();
  return (popup === 'menu' || popup === 'true') && (el.tagName === 'BUTTON' || el.getAttribute('role') === 'button');
}

/** A button that opens a listbox (shared/dom/role.ts): accessible names read it too, so it is written there. */
export { isListButton };

/** What a disclosure menu's items are: its links and buttons (HTML's and ARIA's). */
const DISCLOSED_ITEMS = 'a[href], button, [role=link], [role=button]';

/**
 * The list a disclosure menu button shows, or null when `el` is none (WAI-ARIA APG "Disclosure Navigation Menu";
 * Bootstrap's dropdown as its documentation writes it, which sets only `aria-expanded`): a button that says
 * `aria-expanded` and no `aria-haspopup`, whose disclosed element — the one it names by `aria-controls`, else its next
 * sibling element — is a list (`ul`, `ol`, `menu`, role `list`) holding links or buttons. `choose` on it opens it and
 * clicks the one link or button of that name in the list; an accordion's button (its panel beside its heading, not
 * beside it) or a disclosure of prose is none.
 */
export function disclosedList(el: Element): Element | null {
  if (!(el.tagName === 'BUTTON' || el.getAttribute('role') === 'button') || !el.hasAttribute('aria-expanded')) return null;
  const popup = (el.getAttribute('aria-haspopup') ?? 'false').trim().toLowerCase();
  if (popup !== 'false' && popup !== '') return null;
  const named = idsIn(el, 'aria-controls').map((id) => byId(el, id)).find((p) => p !== null);
  const list = named ?? el.nextElementSibling;
  return list?.matches(DISCLOSED_LISTS) && list.querySelector(DISCLOSED_ITEMS) ? list : null;
}

/** A list a disclosure menu button can show (see `disclosedList`). */
const DISCLOSED_LISTS = 'ul, ol, menu, [role=list]';

/**
 * The disclosure menu button whose list holds the link or button `target` is in, with that link or button: the
 * inverse of `disclosedList`, so a person's click there is recorded as the pick `choose` replays. The list's button is
 * the one naming it by `aria-controls`, else the element just before it.
 */
export function disclosureOf(target: Element): { button: Element; item: Element } | null {
  const item = target.closest(DISCLOSED_ITEMS);
  if (!item) return null;
  for (let list = item.parentElement?.closest(DISCLOSED_LISTS) ?? null; list; list = list.parentElement?.closest(DISCLOSED_LISTS) ?? null) {
    const root = list.getRootNode() as Document | ShadowRoot;
    const naming = list.id ? [...root.querySelectorAll(`[aria-controls~="${CSS.escape(list.id)}"]`)] : [];
    const button = [...naming, list.previousElementSibling].find((b): b is Element => b !== null && disclosedList(b) === list);
    if (button) return { button, item };
  }
  return null;
}

/** The one showing link or button of a disclosure menu's list named `want`, or why there is none to pick. */
function linkToPick(list: Element, want: string): Element | string {
  const named = [...list.querySelectorAll(DISCLOSED_ITEMS)].filter((i) => optionName(i) === want && i.checkVisibility());
  if (named.length === 1) return named[0] as Element;
  return named.length === 0 ? `no link or button named "${want}" in the list it shows` : `${named.length} links or buttons are named "${want}" in its list`;
}

/**
 * The menu a menu button opens, or null while none is found: the one it names by `aria-controls`/`aria-owns` (in its
 * own tree, then the document: a portal at the end of body), else the one labelled by it (`aria-labelledby`, as the
 * APG example labels its menu), else — only while the button says it is expanded — the one menu showing on the
 * page that is no submenu. Two showing is no answer: a menu is never guessed.
 */
export function menuOf(button: Element): Element | null {
  const doc = button.ownerDocument;
  for (const id of controlledIds(button)) {
    const p = byId(button, id) ?? doc.getElementById(id);
    const menu = p?.matches('[role=menu]') ? p : p?.querySelector('[role=menu]');
    if (menu) return menu;
  }
  const menus = [...doc.querySelectorAll('[role=menu]')];
  if (button.id) {
    const labelled = menus.find((m) => idsIn(m, 'aria-labelledby').includes(button.id));
    if (labelled) return labelled;
  }
  if (button.getAttribute('aria-expanded') !== 'true') return null;
  const shown = menus.filter((m) => !m.parentElement?.closest('[role=menu]') && m.checkVisibility());
  return shown.length === 1 ? (shown[0] as Element) : null;
}

/** A menu's own items: not those of a submenu nested inside one of them (each is chosen in its own menu). */
function itemsOf(menu: Element): Element[] {
  return [...menu.querySelectorAll(MENU_ITEMS)].filter((i) => i.parentElement?.closest('[role=menu]') === menu);
}

/** A menu item that opens a submenu (WAI-ARIA 1.2 §6.6 `aria-haspopup` on a menuitem: `menu` or `true`). */
function opensMenu(item: Element): boolean {
  const popup = (item.getAttribute('aria-haspopup') ?? '').trim().toLowerCase();
  return popup === 'menu' || popup === 'true';
}

/**
 * The submenu an item opens, or null: the one it names by `aria-controls`/`aria-owns` (Radix, while open), else one
 * inside it, else one beside it in its list item (WAI-ARIA APG "Navigation Menubar": `li role=none` holds the item
 * and its menu), else the one labelled by it.
 */
function submenuOf(item: Element): Element | null {
  if (!opensMenu(item)) return null;
  for (const id of controlledIds(item)) {
    const p = byId(item, id) ?? item.ownerDocument.getElementById(id);
    const menu = p?.matches('[role=menu]') ? p : p?.querySelector('[role=menu]');
    if (menu) return menu;
  }
  const inside = item.querySelector('[role=menu]');
  if (inside) return inside;
  const beside = [...(item.parentElement?.children ?? [])].find((e) => e !== item && e.matches('[role=menu]'));
  if (beside) return beside;
  if (!item.id) return null;
  return [...item.ownerDocument.querySelectorAll('[role=menu]')].find((m) => idsIn(m, 'aria-labelledby').includes(item.id)) ?? null;
}

/**
 * The levels a `choose` value names in a menu button's menu (shared/menu-path.ts): one name, unless the value holds
 * the separator and no item of the menu is named by the whole value — then the names from the menu down, level by
 * level. A value that names an item and is also a path whose first level opens a submenu is refused: never a guess.
 */
function levelsOf(menu: Element, want: string): string[] | string {
  const levels = menuLevels(want).map(normalize);
  if (levels.length === 1) return [want];
  const items = itemsOf(menu);
  if (!items.some((i) => optionName(i) === want)) {
    return levels.some((l) => l === '') ? `"${want}" has an empty level` : levels;
  }
  const first = items.some((i) => optionName(i) === levels[0] && opensMenu(i));
  return first ? `"${want}" names an item of the menu and is also a path through the submenu "${levels[0] ?? ''}"` : [want];
}

/** Where a walk down a menu path got: every item of it (the last is the pick), or a parent whose submenu is not showing yet. */
type Reached = { items: Element[]; closed?: Element };

/**
 * Walks the levels from the menu button's menu down: at each level the one item of that name in the menu the level
 * above opened (showing ones only, when `shown`). Why not, in words; or where the walk got.
 */
function walkLevels(button: Element, want: string, shown: boolean): Reached | string {
  let menu = menuOf(button);
  if (!menu) return 'it opened no menu (none it names by aria-controls, none labelled by it, not one showing)';
  const levels = levelsOf(menu, want);
  if (typeof levels === 'string') return levels;
  const items: Element[] = [];
  for (const [i, level] of levels.entries()) {
    const named = itemsOf(menu).filter((x) => optionName(x) === level && (!shown || x.checkVisibility()));
    const where = i === 0 ? 'the menu it opens' : `the submenu of "${levels[i - 1] ?? ''}"`;
    if (named.length !== 1) return named.length === 0 ? `no item named "${level}" in ${where}` : `${named.length} items are named "${level}" in ${i === 0 ? 'its menu' : where}`;
    const item = named[0] as Element;
    items.push(item);
    if (i === levels.length - 1) return { items };
    const sub = submenuOf(item);
    if (!sub) return opensMenu(item) ? { items, closed: item } : `"${level}" in ${where} opens no submenu`;
    if (shown && !sub.checkVisibility()) return { items, closed: item };
    menu = sub;
  }
  return { items };
}

/** The one showing item of the menu button's menu (or of a submenu, by a path) named `want`, or why there is none to pick, in words. */
function itemToPick(button: Element, want: string): Element | string {
  const reached = walkLevels(button, want, true);
  if (typeof reached === 'string') return reached;
  if (reached.closed) return `the submenu of "${optionName(reached.closed)}" is not open`;
  const item = reached.items.at(-1) as Element;
  // Choosing a checkbox item means it ends checked; clicking one that is would uncheck it, a change nobody asked for.
  if (item.getAttribute('role') === 'menuitemcheckbox' && item.getAttribute('aria-checked') === 'true') return `"${want}" is checked already: choosing it would uncheck it`;
  return item;
}

/**
 * For `choose` with a path (docs/design/verbs.md, "The six verbs": submenus): the item whose submenu must be opened
 * next on the way to the pick, or null when there is none (one level, or every submenu on the way showing), or why
 * the way is not there, in words. The surface opens it and asks again.
 */
export function submenuToOpen(el: Element, name: string): Element | string | null {
  const want = normalize(name);
  if (!isMenuButton(el) || menuLevels(want).length === 1) return null;
  const reached = walkLevels(el, want, true);
  if (typeof reached === 'string') return reached;
  return reached.closed ?? null;
}

/**
 * After a pick in a menu: null when it took, else why not. A radio or checkbox item still on the page must be checked
 * (`aria-checked=true`); a plain item (or one the page removed with its menu) must have closed the menu.
 */
function notPicked(button: Element, want: string): string | null {
  const reached = menuOf(button) ? walkLevels(button, want, false) : null;
  const item = reached && typeof reached !== 'string' && !reached.closed ? reached.items.at(-1) : undefined;
  if (item && item.getAttribute('role') !== 'menuitem') {
    return item.getAttribute('aria-checked') === 'true' ? null : `"${want}" is not checked after choosing it`;
  }
  const menu = menuOf(button);
  // A button the pick took away (the item removed its row) says nothing any more; its menu, if still there, does.
  const open = (button.isConnected && button.getAttribute('aria-expanded') === 'true') || (menu?.isConnected === true && menu.checkVisibility());
  return open ? `the menu is still open after choosing "${want}"` : null;
}

/**
 * The menu items showing on a screen (WAI-ARIA 1.2 §5.3.2: roles menuitem, menuitemcheckbox, menuitemradio), each as
 * its role, name and containers, to tell a menu a right-click opened from one already there (docs/design/verbs.md,
 * "The six verbs": context_menu). Both browser surfaces compare these before and after.
 */
export function menuItemKeys(controls: readonly Control[]): string[] {
  return controls.filter((c) => c.role.startsWith('menuitem')).map(popupKey);
}

/** The options showing on a screen (WAI-ARIA 1.2 §5.3.2 `option`), keyed as `menuItemKeys` keys items: to tell a list a press opened. */
export function optionKeys(controls: readonly Control[]): string[] {
  return controls.filter((c) => c.role === 'option').map(popupKey);
}

function popupKey(c: Control): string {
  return `${c.role} ${c.name} ${c.ancestors.join('>')}`;
}

/** Whether the list or menu `el` picks from is open already, so `choose` does not click it shut: a listbox always is. */
export function listOpen(el: Element): boolean {
  if (el.getAttribute('role') === 'listbox' || el.getAttribute('aria-expanded') === 'true') return true;
  // A menu button that does not say (the APG Menu Button pattern makes aria-expanded optional): its menu shows. A
  // `choose` that clicked it then would shut the menu it means to pick in.
  return !el.hasAttribute('aria-expanded') && isMenuButton(el) && menuOf(el)?.checkVisibility() === true;
}

/**
 * The options of a custom combobox or listbox (WAI-ARIA APG "Combobox Pattern" and "Listbox Pattern"): `[role=option]`
 * in the element itself and in the popups it names by `aria-controls`/`aria-owns`, looked up in its own tree, so a
 * shadow root's ids count; each once, in the order met.
 */
export function optionsOf(el: Element): Element[] {
  const popups = [el, ...controlledIds(el).map((id) => byId(el, id)).filter((p): p is HTMLElement => p !== null)];
  return [...new Set(popups.flatMap((p) => [...p.querySelectorAll('[role=option]')]))];
}

/**
 * An option's name as a card spells it: its `aria-label`, else its text, whitespace folded (shared/dom/name.ts
 * normalize). A menu item's text leaves out a submenu inside it (its items are the submenu's, not its name).
 */
export function optionName(option: Element): string {
  const label = option.getAttribute('aria-label');
  if (label !== null || !option.querySelector('[role=menu]')) return normalize(label ?? option.textContent);
  const own = option.cloneNode(true) as Element;
  for (const sub of own.querySelectorAll('[role=menu]')) sub.remove();
  return normalize(own.textContent);
}

/**
 * The one option of the combobox or listbox `el` named `name` (whitespace folded) — or, for a menu button, the one
 * item of its menu — or why there is none to pick, in words for the person reading the failure: no option has that
 * name, or several do (a pick is never a guess).
 */
export function optionToPick(el: Element, name: string): Element | string {
  const want = normalize(name);
  if (isMenuButton(el)) return itemToPick(el, want);
  const disclosed = disclosedList(el);
  if (disclosed) return linkToPick(disclosed, want);
  const named = optionsOf(el).filter((o) => optionName(o) === want);
  if (named.length === 1) return named[0] as Element;
  return named.length === 0 ? `no option named "${want}" in the list it opens` : `${named.length} options are named "${want}"`;
}

/** A popup inside a combobox: its options' text and fields are the list's, not what the combobox holds. */
const POPUP_INSIDE = '[role=listbox], [role=option], [role=menu], [role=tree], [role=grid], [role=dialog]';

/**
 * What a combobox holds, one rule for the walker's `value` and for the check after a pick (docs/design/verbs.md,
 * "The six verbs", "choose"): a field its value; one that wraps a field (the ARIA 1.1 pattern) that field's value; anything else
 * (MUI's Select, React Aria's Select, the APG select-only combobox) the text it shows, leaving out a popup list
 * inside it and what is hidden from the accessibility tree (React Aria's button holds its value and an
 * `aria-hidden` arrow: "High ▾" is not what it holds). A hidden form field is not what a person sees (it often holds
 * an id for the server), and a field inside the popup is an option's. Null for a secret field: its value never
 * leaves the page.
 */
export function comboboxValue(el: Element): string | null {
  const field = comboboxField(el);
  if (field) return field.type === 'password' ? null : field.value;
  return normalize(shownText(el));
}

/**
 * The text field of a combobox: itself when it is one, else the first field inside it that is not in its popup and
 * not a hidden form field (the ARIA 1.1 pattern wraps one); null for one that holds none (a select-only combobox).
 */
export function comboboxField(el: Element): HTMLInputElement | HTMLTextAreaElement | null {
  if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) return el;
  for (const f of el.querySelectorAll('input:not([type=hidden]), textarea')) {
    const popup = f.parentElement?.closest(POPUP_INSIDE);
    if (popup && el.contains(popup)) continue;
    return f as HTMLInputElement | HTMLTextAreaElement;
  }
  return null;
}

/**
 * Whether a combobox filters its list by what is typed in it (WAI-ARIA 1.2 §6.6 `aria-autocomplete`: `list` or
 * `both`, on it or on its field), with a field a person can type in. Its options may come only once words are typed
 * (a search box asking its server), so `choose` types the option's name there (shared/gestures/engine.ts).
 */
export function comboboxFilters(el: Element): boolean {
  const field = comboboxField(el);
  if (!field || field.readOnly || field.disabled || (field instanceof HTMLInputElement && field.type === 'password')) return false;
  const says = (x: Element): boolean => ['list', 'both'].includes((x.getAttribute('aria-autocomplete') ?? '').trim().toLowerCase());
  return says(el) || says(field);
}

/** The text of `el`'s subtree without the popups inside it and what is hidden from the accessibility tree. */
function shownText(el: Element): string {
  const cache = newCache();
  const texts: string[] = [];
  const visit = (n: Node): void => {
    for (const k of n.childNodes) {
      if (k.nodeType === Node.TEXT_NODE) texts.push(k.textContent ?? '');
      else if (k instanceof Element && !k.matches(POPUP_INSIDE) && !isHiddenForAria(cache, k)) visit(k);
    }
  };
  visit(el);
  return texts.join('');
}

/** What a combobox or listbox shows as chosen: a listbox its selected option's text, a combobox what it holds. */
function comboShows(el: Element): string {
  if (el.getAttribute('role') === 'listbox') return normalize(el.querySelector('[role=option][aria-selected=true]')?.textContent);
  return normalize(comboboxValue(el) ?? '');
}

/**
 * After a pick: null when the combobox or listbox `el` shows `name` as chosen (a menu button: the item took), else
 * what it shows instead, in words.
 */
export function notChosen(el: Element, name: string): string | null {
  const want = normalize(name);
  if (isMenuButton(el)) return notPicked(el, want);
  // A disclosure menu's pick took when it closed its list, as a menu's plain item closes its menu.
  const disclosed = disclosedList(el);
  if (disclosed) return el.getAttribute('aria-expanded') === 'true' && disclosed.checkVisibility() ? `the list is still open after choosing "${want}"` : null;
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
 * The walk's controls with `choose` offered on each menu button, each button that opens a listbox (not a combobox's
 * own popup button) and each disclosure menu button (docs/design/verbs.md, "The six verbs": choose), in `offers`
 * beside its role's vocabulary, which a fingerprint hashes: no approved card's target moves. A button shown only on
 * hover is hovered first, as any such control.
 */
export function offerMenuButtons(walked: ReadonlyArray<{ el: Element; control: Control }>): void {
  for (const { el, control } of walked) {
    if (control.role !== 'button' || control.verbs.includes('hover') || !(isMenuButton(el) || (isListButton(el) && !opensCombobox(el)) || disclosedList(el))) continue;
    control.offers = [...(control.offers ?? []), 'choose'];
  }
}

/**
 * Whether the list button `el` is a combobox's own popup button (WAI-ARIA APG "Combobox Pattern": the optional
 * button beside the field that opens its listbox; React Aria's ComboBox "Show suggestions"): a combobox shares its
 * parent. The combobox is the picker, offered `choose` and showing the pick; the button shows an arrow, so a pick
 * made through it took and was still reported failed.
 */
function opensCombobox(el: Element): boolean {
  return [...(el.parentElement?.querySelectorAll('[role=combobox]') ?? [])].some((c) => c !== el);
}

/** Of the elements that say they open a popup (`aria-haspopup`) in `item`'s tree and the document, those `is` keeps. */
function popupOpeners(item: Element, is: (el: Element) => boolean): Element[] {
  const root = item.getRootNode() as Document | ShadowRoot;
  return [...new Set([...root.querySelectorAll('[aria-haspopup]'), ...item.ownerDocument.querySelectorAll('[aria-haspopup]')])].filter(is);
}

/** Of several elements that open one menu (each row's "…"), the one that says it opened it, and only if exactly one does. */
function theOpenOne(owners: readonly Element[]): Element | null {
  if (owners.length <= 1) return owners[0] ?? null;
  const open = owners.filter((b) => b.getAttribute('aria-expanded') === 'true');
  return open.length === 1 ? (open[0] as Element) : null;
}

/**
 * The menu button an item of its menu belongs to, or null: the control a person's pick in a menu is recorded on.
 * The menu buttons of the item's tree and the document whose menu (`menuOf`) is the item's own menu.
 */
export function menuButtonOf(item: Element): Element | null {
  const menu = item.closest('[role=menu]');
  return menu ? theOpenOne(popupOpeners(item, (b) => isMenuButton(b) && menuOf(b) === menu)) : null;
}

/**
 * Where a menu item is reached from (docs/design/verbs.md, "The six verbs": submenus): the menu button whose menu
 * holds it, or holds the submenu item that opens its submenu, up any number of levels; the `choose` value that picks
 * it (its name, or the path of names down to it, shared/menu-path.ts); whether it opens a submenu itself. Null when
 * no one menu button is found. Each level's owner is decided as `menuButtonOf` decides the button's.
 */
export function menuPathOf(item: Element): { button: Element; value: string; opens: boolean } | null {
  const levels = [optionName(item)];
  let menu = item.closest('[role=menu]');
  for (let depth = 0; menu && depth < 8; depth++) {
    const sub = menu;
    const parent = theOpenOne(popupOpeners(item, (p) => p !== item && p.matches(MENU_ITEMS) && submenuOf(p) === sub));
    if (!parent) break;
    levels.unshift(optionName(parent));
    menu = parent.closest('[role=menu]');
  }
  const top = menu;
  const button = top ? theOpenOne(popupOpeners(item, (b) => isMenuButton(b) && menuOf(b) === top)) : null;
  return button ? { button, value: menuPathValue(levels), opens: opensMenu(item) } : null;
}

/**
 * Where an option is reached from when a control opened its list (docs/design/authoring.md, "A menu opened and picked in":
 * lists): the list button (`isListButton`) or combobox that names its listbox (`comboOf`, as a clerk's pick is
 * recorded), the `choose` value (the option's name, whole: a list has no submenus), and the listbox, whose name names
 * the control when an open modal list hides it (MUI's Select labels both by one label). Null for an option of a listbox
 * shown on the page (no control opened it), and of one that takes several (`aria-multiselectable`, WAI-ARIA 1.2 §6.6):
 * a press on a chosen option unchooses it, and `choose` names one option to see chosen.
 */
export function listPathOf(option: Element): { button: Element; value: string; list: Element | null } | null {
  if (!option.matches('[role=option]')) return null;
  const list = option.closest('[role=listbox]');
  if (list?.getAttribute('aria-multiselectable') === 'true') return null;
  const opener = comboOf(option);
  if (!opener || !(isListButton(opener) || opener.getAttribute('role') === 'combobox')) return null;
  return { button: opener, value: optionName(option), list };
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

/**
 * Where a click on `el` lands: `el`, unless it is drawn as nothing — it, or an ancestor clipping it (`overflow` not
 * visible), is a box of at most 1×1 px: the "visually hidden" control kept for screen readers (React Aria's Switch and
 * Checkbox inputs under a drawn one, its Modal's "Dismiss" button; Bootstrap's `.visually-hidden`) that no pointer can
 * reach — or no pointer reaches it (`pointer-events: none`). Then a form control's first label that is laid out and
 * holds no other control (a click in its middle could land on that one), which is what a person clicks and which activates it
 * (HTML §4.10.4 "The label element": activation behaviour); with none, null: no point to click, the control is to be
 * activated as assistive technology activates it (its default action, a `click()`; HTML §6.4.3 "activation").
 */
export function clickTarget(el: Element): Element | null {
  if (!drawnAsNothing(el) && !unpointable(el)) return el;
  const labels = 'labels' in el ? [...((el as HTMLInputElement).labels ?? [])] : [];
  return labels.find((l) => l.checkVisibility() && l.getBoundingClientRect().width > 1 && !holdsAnotherControl(l, el)) ?? null;
}

/**
 * Whether no pointer reaches `el` itself: `pointer-events: none` (Bootstrap's `.btn-check`, a full-size input clipped
 * to nothing under its drawn label), where a person clicks the label instead.
 */
function unpointable(el: Element): boolean {
  return el.ownerDocument.defaultView?.getComputedStyle(el).pointerEvents === 'none';
}

/** Interactive content (HTML §3.2.5.2.7) a label may hold beside its control, where a click in its middle can land. */
const INTERACTIVE = 'a[href], button, input:not([type=hidden]), select, textarea, [role=button], [role=link], [role=checkbox], [role=switch], [role=combobox], [tabindex]:not([tabindex="-1"])';

/** Whether `label` holds a control other than `el` (and not inside it): clicked, it might activate that one. */
function holdsAnotherControl(label: Element, el: Element): boolean {
  return [...label.querySelectorAll(INTERACTIVE)].some((x) => x !== el && !el.contains(x) && !x.contains(el));
}

/** Whether `el` or an ancestor that clips it has a box of at most 1×1 px (CSSOM View getBoundingClientRect). */
function drawnAsNothing(el: Element): boolean {
  for (let x: Element | null = el; x; x = x.parentElement) {
    const box = x.getBoundingClientRect();
    if (box.width > 1 || box.height > 1) continue;
    if (x === el) return true;
    const view = x.ownerDocument.defaultView;
    if (view && view.getComputedStyle(x).overflow !== 'visible') return true;
  }
  return false;
}
