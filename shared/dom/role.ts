// ARIA roles of elements: explicit (WAI-ARIA 1.2 §5.4 role attribute) or implicit (HTML-AAM §4 "HTML Element
// Role Mappings"), with the choices Chromium makes where the specs leave room, as Playwright's roleUtils.ts does.
import { isFocusableForRole } from './state.ts';
import type { DomCache } from './style.ts';

/** Roles a role attribute may name (WAI-ARIA 1.2 §5.3 "Categorization of Roles", concrete roles only). */
const VALID_ROLES = new Set(
  (
    'alert alertdialog application article banner blockquote button caption cell checkbox code columnheader ' +
    'combobox complementary contentinfo definition deletion dialog directory document emphasis feed figure form ' +
    'generic grid gridcell group heading img insertion link list listbox listitem log main mark marquee math ' +
    'meter menu menubar menuitem menuitemcheckbox menuitemradio navigation none note option paragraph ' +
    'presentation progressbar radio radiogroup region row rowgroup rowheader scrollbar search searchbox ' +
    'separator slider spinbutton status strong subscript superscript switch tab table tablist tabpanel term ' +
    'textbox time timer toolbar tooltip tree treegrid treeitem'
  ).split(' '),
);

/** ARIA 1.2 §6.4 global states and properties: their presence makes role=none/presentation be ignored (§4.6). */
const GLOBAL_ARIA = [
  'aria-atomic', 'aria-busy', 'aria-controls', 'aria-current', 'aria-describedby', 'aria-details',
  'aria-dropeffect', 'aria-flowto', 'aria-grabbed', 'aria-hidden', 'aria-keyshortcuts', 'aria-label',
  'aria-labelledby', 'aria-live', 'aria-owns', 'aria-relevant', 'aria-roledescription',
];

/** Sectioning content: <header>/<footer> inside one are not banner/contentinfo (HTML-AAM §4 header, footer). */
const SECTIONING = 'article:not([role]), aside:not([role]), main:not([role]), nav:not([role]), section:not([role]), ' +
  '[role=article], [role=complementary], [role=main], [role=navigation], [role=region]';

const INPUT_ROLE: Record<string, string> = {
  button: 'button', checkbox: 'checkbox', image: 'button', number: 'spinbutton', radio: 'radio',
  range: 'slider', reset: 'button', submit: 'button', file: 'button',
};

export function explicitRole(el: Element): string | null {
  const attr = el.getAttribute('role');
  if (!attr) return null;
  // A value that is one valid role as it stands (lower case, no whitespace) is its own first token: no split needed.
  if (VALID_ROLES.has(attr)) return attr;
  // §5.4: the first token naming a valid role wins (fallback roles).
  for (const token of attr.toLowerCase().split(/\s+/)) if (VALID_ROLES.has(token)) return token;
  return null;
}

function hasExplicitName(el: Element): boolean {
  return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') || el.hasAttribute('aria-labeledby');
}

/**
 * A button that opens a listbox (`aria-haspopup=listbox`, WAI-ARIA 1.2 §6.6): the "select" of Headless UI's Listbox
 * and Reach UI's ListboxButton. `choose` on it picks an option of its listbox by name, as on a combobox, and the
 * button shows what it holds as its text (shared/dom/options.ts; its name leaves that out: shared/dom/name.ts).
 */
export function isListButton(el: Element): boolean {
  const popup = (el.getAttribute('aria-haspopup') ?? '').trim().toLowerCase();
  return popup === 'listbox' && (el.tagName === 'BUTTON' || el.getAttribute('role') === 'button');
}

/** The summary of its <details> (HTML §4.11.1: the first summary child). HTML-AAM gives it no ARIA role; Chromium
 *  exposes it as a focusable disclosure control and Firefox as a button, which is what the walker offers. */
function isDetailsSummary(el: Element): boolean {
  const p = el.parentElement;
  return !!p && p.tagName.toUpperCase() === 'DETAILS' && p.querySelector(':scope > summary') === el;
}

export function isListBoxSelect(el: Element): boolean {
  const s = el as HTMLSelectElement;
  return s.multiple || s.size > 1;
}

function thRole(el: Element): string | null {
  // HTML-AAM §4 th: scope decides; without it Chromium guesses from neighbouring cells.
  const scope = el.getAttribute('scope');
  if (scope === 'col' || scope === 'colgroup') return 'columnheader';
  if (scope === 'row' || scope === 'rowgroup') return 'rowheader';
  const next = el.nextElementSibling;
  const prev = el.previousElementSibling;
  const row = el.parentElement && el.parentElement.tagName === 'TR' ? el.parentElement : null;
  if (!next && !prev) {
    if (row) {
      const table = row.closest('table');
      if (table && table.rows.length <= 1) return null;
    }
    return 'columnheader';
  }
  const isTh = (e: Element | null) => !!e && e.tagName === 'TH';
  const isDataCell = (e: Element | null) =>
    !!e && e.tagName === 'TD' && (!!(e.textContent || '').trim() || e.children.length > 0);
  if (isTh(next) && isTh(prev)) return 'columnheader';
  if (isDataCell(next) || isDataCell(prev)) return 'rowheader';
  return 'columnheader';
}

/**
 * `cell.closest('table')`, read off the parents where the cell sits where the HTML parser puts it (a <tr> of a
 * <table>, or of its <tbody>/<thead>/<tfoot>): neither the row nor the section is a table, so the table is the
 * nearest one. Anywhere else (a script-built tree), the selector is asked.
 */
function tableOfCell(cell: Element): Element | null {
  const row = cell.parentElement;
  if (row && row.tagName === 'TR') {
    const up = row.parentElement;
    if (up && up.tagName === 'TABLE') return up;
    const section = up ? up.tagName : '';
    if (up && (section === 'TBODY' || section === 'THEAD' || section === 'TFOOT')) {
      const table = up.parentElement;
      if (table && table.tagName === 'TABLE') return table;
    }
  }
  return cell.closest('table');
}

/** A tag name as HTML-AAM's tables spell it, upper case. An HTML element's `tagName` in an HTML document is upper
 *  case already (DOM §4.9 "HTML-uppercased qualified name"), so `toUpperCase()` runs only for a name holding a
 *  character it could change (an SVG element, a custom element, a document that is not HTML): the same string either
 *  way (docs/design/walker.md, "The walker"). */
export function upper(tag: string): string {
  return MAY_CHANGE.test(tag) ? tag.toUpperCase() : tag;
}

/** Any character but those `toUpperCase()` leaves as they are and a tag name commonly holds. */
const MAY_CHANGE = /[^A-Z0-9]/;

function upperTag(el: Element): string {
  return upper(el.tagName);
}

/** HTML-AAM §4 roles that follow from the tag alone. */
const ROLE_OF_TAG = new Map<string, string>([
  ['ARTICLE', 'article'], ['ASIDE', 'complementary'], ['BLOCKQUOTE', 'blockquote'], ['BUTTON', 'button'],
  ['CAPTION', 'caption'], ['CODE', 'code'], ['DATALIST', 'listbox'], ['DD', 'definition'], ['DEL', 'deletion'],
  ['DETAILS', 'group'], ['DFN', 'term'], ['DIALOG', 'dialog'], ['DT', 'term'], ['EM', 'emphasis'], ['FIELDSET', 'group'],
  ['FIGURE', 'figure'], ['H1', 'heading'], ['H2', 'heading'], ['H3', 'heading'], ['H4', 'heading'], ['H5', 'heading'],
  ['H6', 'heading'], ['HR', 'separator'], ['HTML', 'document'], ['INS', 'insertion'], ['LI', 'listitem'], ['MAIN', 'main'],
  ['MARK', 'mark'], ['MATH', 'math'], ['MENU', 'list'], ['OL', 'list'], ['UL', 'list'], ['METER', 'meter'],
  ['NAV', 'navigation'], ['OPTGROUP', 'group'], ['OPTION', 'option'], ['OUTPUT', 'status'], ['P', 'paragraph'],
  ['PROGRESS', 'progressbar'], ['SEARCH', 'search'], ['STRONG', 'strong'], ['SUB', 'subscript'], ['SUP', 'superscript'],
  ['SVG', 'img'], ['TABLE', 'table'], ['TBODY', 'rowgroup'], ['THEAD', 'rowgroup'], ['TFOOT', 'rowgroup'],
  ['TEXTAREA', 'textbox'], ['TIME', 'time'], ['TR', 'row'],
]);

/** HTML-AAM §4 roles that depend on the element's attributes or place; any other tag has no implicit role. */
const ROLE_BY_RULE = new Map<string, (el: Element) => string | null>([
  ['A', linkRole],
  ['AREA', linkRole],
  ['FOOTER', (el) => (el.closest(SECTIONING) ? null : 'contentinfo')],
  // HTML-AAM: <form> and <section> are landmarks only when they have an accessible name (author-supplied).
  ['FORM', (el) => (hasExplicitName(el) ? 'form' : null)],
  ['HEADER', (el) => (el.closest(SECTIONING) ? null : 'banner')],
  ['IMG', (el) => {
    // HTML-AAM img: alt="" with nothing else to expose is presentational.
    const bare = el.getAttribute('alt') === '' && !el.getAttribute('title') &&
      !GLOBAL_ARIA.some((a) => el.hasAttribute(a)) && !hasTabIndex(el);
    return bare ? 'presentation' : 'img';
  }],
  ['INPUT', (el) => {
    const input = el as HTMLInputElement;
    const type = input.type.toLowerCase();
    if (['email', 'search', 'tel', 'text', 'url', ''].includes(type)) {
      // HTML-AAM: a text input with a list= pointing at a <datalist> is a combobox.
      const listId = el.getAttribute('list');
      const list = listId ? el.ownerDocument.getElementById(listId) : null;
      if (list && list.tagName === 'DATALIST') return 'combobox';
      return type === 'search' ? 'searchbox' : 'textbox';
    }
    if (type === 'hidden') return null;
    // password, date, color... have no ARIA role of their own; Chromium exposes them as textbox.
    return INPUT_ROLE[type] ?? 'textbox';
  }],
  ['SECTION', (el) => (hasExplicitName(el) ? 'region' : null)],
  ['SELECT', (el) => (isListBoxSelect(el) ? 'listbox' : 'combobox')],
  ['SUMMARY', (el) => (isDetailsSummary(el) ? 'button' : null)],
  ['TD', (el) => {
    const table = tableOfCell(el);
    const r = table ? explicitRole(table) : null;
    return r === 'grid' || r === 'treegrid' ? 'gridcell' : 'cell';
  }],
  ['TH', thRole],
]);

function linkRole(el: Element): string | null {
  return el.hasAttribute('href') ? 'link' : null;
}

/** The role HTML-AAM §4 maps the element's tag to, given its upper-case tag name (`upperTag`). A lookup in two
 *  tables rather than a switch over sixty strings, which V8 compares one after another (docs/design/walker.md, "The walker"). */
function implicitRoleOfTag(el: Element, tag: string): string | null {
  const role = ROLE_OF_TAG.get(tag);
  if (role !== undefined) return role;
  const rule = ROLE_BY_RULE.get(tag);
  return rule ? rule(el) : null;
}

/** ARIA 1.2 §5.4 "Presentational Roles Conflict Resolution" / required owned elements: a <td> of a
 *  role=presentation <tr> (and so on up to the table) inherits presentation. */
const PRESENTATION_PARENTS = new Map<string, string[]>([
  ['DD', ['DL', 'DIV']], ['DIV', ['DL']], ['DT', ['DL', 'DIV']], ['LI', ['OL', 'UL']], ['TBODY', ['TABLE']], ['TD', ['TR']],
  ['TFOOT', ['TABLE']], ['TH', ['TR']], ['THEAD', ['TABLE']], ['TR', ['THEAD', 'TBODY', 'TFOOT', 'TABLE']],
]);

function implicitRole(c: DomCache, el: Element, tag: string): string | null {
  const role = implicitRoleOfTag(el, tag);
  if (!role) return null;
  const parent = requiredParent(el, tag);
  return (parent && presentationFrom(c, parent)) || role;
}

/** The parent `el` is a required owned element of (a <td>'s <tr>, a <tr>'s table section), or null. */
function requiredParent(el: Element, tag: string): Element | null {
  const parents = PRESENTATION_PARENTS.get(tag);
  if (!parents) return null;
  const parent = el.parentElement;
  return parent && parents.includes(upperTag(parent)) ? parent : null;
}

/** The presentational role `p` passes down to its required owned elements ('' for none): its own, else the one its
 *  own required parent passes down. Kept per walk, so the cells of a row ask the row and its table once. */
function presentationFrom(c: DomCache, p: Element): string {
  const known = c.presentation.get(p);
  if (known !== undefined) return known;
  const pr = explicitRole(p);
  let out = '';
  if ((pr === 'none' || pr === 'presentation') && !presentationConflict(p, pr)) out = pr;
  else {
    const up = requiredParent(p, upperTag(p));
    if (up) out = presentationFrom(c, up);
  }
  c.presentation.set(p, out);
  return out;
}

function hasTabIndex(el: Element): boolean {
  return !Number.isNaN(Number(String(el.getAttribute('tabindex'))));
}

/** ARIA 1.2 §4.6: role=none/presentation is ignored on a focusable element or one with a global ARIA attribute. */
function presentationConflict(el: Element, role: string | null): boolean {
  const r = role ?? '';
  const global = GLOBAL_ARIA.some((a) => {
    if ((a === 'aria-label' || a === 'aria-labelledby') && NAME_PROHIBITED.has(r)) return false;
    if (a === 'aria-roledescription' && r === 'generic') return false;
    return el.hasAttribute(a);
  });
  return global || isFocusableForRole(el, hasTabIndex(el));
}

/** Roles on which aria-label/aria-labelledby are prohibited (WAI-ARIA 1.2 §6.6 "Prohibited" per role). */
const NAME_PROHIBITED = new Set([
  'caption', 'code', 'deletion', 'emphasis', 'generic', 'insertion', 'paragraph', 'presentation', 'strong',
  'subscript', 'superscript',
]);

/** The element's role; `tag` is its `upperTag`, when the caller has read it already. */
export function roleOf(c: DomCache, el: Element, tag?: string): string {
  const cached = c.role.get(el);
  if (cached !== undefined) return cached;
  const up = tag ?? upperTag(el);
  let role = explicitRole(el);
  if (role === 'none' || role === 'presentation') {
    const implicit = implicitRole(c, el, up);
    if (presentationConflict(el, implicit)) role = implicit;
  } else if (!role) {
    role = implicitRole(c, el, up);
  }
  const out = role ?? '';
  c.role.set(el, out);
  return out;
}
