// One pass over one document: controls (role, name, hint, verbs, scope, ancestors), structural paths and text.
// Computed style is read only for candidates (controls and furniture), never for every element.
import type { Control, ScopeLink, Verb } from '../schema/observation.ts';
import { activeModal } from './modal.ts';
import { comboboxValue } from './options.ts';
import { accessibleName, normalize } from './name.ts';
import { isListButton, roleOf, upper } from './role.ts';
import { LANDMARK_ROLES, SCOPE_LINK_OF } from './scopes.ts';
import { isHeaderRow, newRowCache, plainText, rowKey, rowKind, rowText, tableRows, type RowCache } from './rows.ts';
import type { WalkAt } from './gestures.ts';
import { ariaDisabledBelow, isDisabled } from './state.ts';
import { isHiddenForAria, isIgnoredName, isIgnoredTag, isRevealable, liftedCache, newCache, shownByPointer, styleOf, type DomCache } from './style.ts';

/** The closed vocabulary per role (docs/design/verbs.md, "The six verbs"); a role missing here is not a control. */
export const VERBS_BY_ROLE: Readonly<Record<string, readonly Verb[]>> = {
  link: ['invoke'],
  button: ['invoke'],
  menuitem: ['invoke'],
  tab: ['invoke'],
  // An option of a custom listbox and a tree item are chosen by clicking them (a native <select>'s options are
  // not controls: they are the select's `options`).
  option: ['invoke'],
  treeitem: ['invoke'],
  slider: ['set_value', 'read'],
  textbox: ['set_value', 'read'],
  searchbox: ['set_value', 'read'],
  spinbutton: ['set_value', 'read'],
  combobox: ['select', 'read'],
  listbox: ['select', 'read'],
  checkbox: ['toggle', 'read'],
  radio: ['toggle', 'read'],
  switch: ['toggle', 'read'],
  menuitemcheckbox: ['toggle', 'read'],
  menuitemradio: ['toggle', 'read'],
};

/** Roles of structural ancestors kept for fingerprints and path chains. Cells are left out on purpose: their
 *  nesting depth varies with layout, not with what the control is. */
const STRUCTURAL = new Set([
  'table', 'grid', 'treegrid', 'row', 'group', 'radiogroup', 'form', 'dialog', 'alertdialog', 'list',
  'navigation', 'main', 'banner', 'contentinfo', 'complementary', 'region', 'search', 'menu', 'menubar',
  'tablist', 'toolbar', 'tree',
]);

/** Container roles that become a scope link (and a path) when they carry a name: every link's roles but landmarks'. */
const SCOPE_ROLE: Readonly<Record<string, ScopeLink['role']>> = Object.fromEntries(Object.entries(SCOPE_LINK_OF).filter(([, link]) => link !== 'landmark'));

/**
 * Landmarks (WAI-ARIA 1.2 §5.3.4 "Landmark Roles") and dialogs scope what is inside them even unnamed: a header's
 * "Log in" and a dialog's "Log in" are different targets. A landmark without a name is named by its role. Neither
 * adds a path: the screen's furniture, and so its signature, is what it was without these links.
 */
function unnamedScope(role: string): ScopeLink | null {
  if (LANDMARK_ROLES.has(role)) return { role: 'landmark', name: role };
  if (role === 'dialog' || role === 'alertdialog') return { role: 'dialog', name: '' };
  return null;
}

/** Subtrees never descended: their content is not page structure (options are read from the select). */
const OPAQUE = new Set(['SELECT', 'TEXTAREA', 'DATALIST', 'OPTION', 'SVG', 'svg']);

export interface WalkedControl {
  el: Element;
  /** `ref` is '' here: the caller numbers the controls. It comes first so the caller fills it in place, and the
   *  control's keys keep the order an observation has always had (docs/design/walker.md, "The walker"). */
  control: Control;
}

export interface Walked {
  controls: WalkedControl[];
  paths: string[];
  /** The document's visible text without what its live regions say. */
  text: string;
  /** What its visible live regions say, one string per region, in document order (empty: silence). */
  said: string[];
  /** Its records' rows (a data table's, an ARIA row, a list item; outside live regions) that have a key, with their text, in document order. */
  rows: Array<{ key: string; text: string }>;
  title: string;
  url: string;
  /** Every element the walk entered that hosts an open shadow root, in any tree. */
  shadowHosts: Element[];
  /** Elements the walk did not enter (with their subtrees): hidden, ignored or opaque content, a host's light
   *  children, a filled slot's fallback. With `shadowHosts` they let the busy check reach every shadow root without
   *  a second pass over the document (shared/dom/index.ts isBusy). */
  unwalked: Element[];
}

interface Ctx {
  ancestors: string[];
  /** `ancestors` joined as a path's prefix ('table>row>'), made once where the chain grows, not once per path. */
  chain: string;
  scope: ScopeLink[];
  /** Nearest row (shared/dom/rows.ts), for the row scope link. */
  row: Element | null;
  /** Under `inert` or outside the active modal dialog: nothing here is offered or is furniture (shared/dom/modal.ts). */
  blocked: boolean;
  /** Inside a body row of a data table (one with header cells): text there is data, not furniture. */
  dataRow: boolean;
  dataTable: boolean;
  /** Inside a live region (`liveRegion`): its words are what the app says, not the page's content. */
  region: boolean;
}

/** Roles whose content is announced as it changes (WAI-ARIA 1.2 §6.3.3 "Live Region Roles"; marquee and timer are off by default). */
const LIVE_ROLES = new Set(['alert', 'status', 'log']);

/**
 * Whether `el` is a live region (WAI-ARIA 1.2 §6.3.3, §6.6 aria-live): role alert, status or log — `<output>` is
 * status by HTML-AAM, the result of a user's action — or aria-live polite or assertive. What such a region says is the
 * app speaking about what happened (a toast, a refusal), not the record the page shows (docs/design/replay.md, "What
 * the app says").
 */
export function isLiveRegion(el: Element, role: string): boolean {
  if (LIVE_ROLES.has(role)) return true;
  const live = (el.getAttribute('aria-live') || '').trim().toLowerCase();
  return live === 'polite' || live === 'assertive';
}

/**
 * `text` without each of `said`, one occurrence each: the first that stands as whole words (a block region's text is
 * set off by spaces once normalised), else the first anywhere (an inline region run into its neighbour). Two equal
 * strings are the same words wherever they stand, so taking out another occurrence than the region's leaves the same
 * content. Whitespace is normalised again where a region was taken out.
 */
export function withoutSaid(text: string, said: readonly string[]): string {
  let out = text;
  for (const words of said) {
    let at = -1;
    for (let from = out.indexOf(words); from >= 0; from = out.indexOf(words, from + 1)) {
      const end = from + words.length;
      if ((from === 0 || out[from - 1] === ' ') && (end === out.length || out[end] === ' ')) {
        at = from;
        break;
      }
    }
    if (at < 0) at = out.indexOf(words);
    if (at >= 0) out = `${out.slice(0, at)} ${out.slice(at + words.length)}`;
  }
  return out === text ? text : normalize(out);
}

/**
 * The name a control shown only on hover will have once shown. accname 1.2 §4.3.2 step 2A skips hidden nodes, so a
 * visibility:hidden button has no name while hidden: the name is computed in a cache of its own where the subtree's
 * hover-lifted hiding is lifted, as the hover will lift it. Given the walk's cache, that cache shares the walk's
 * answers that no lift changes (shared/dom/style.ts liftedCache).
 */
export function revealedName(el: Element, walk?: DomCache): string {
  const c = walk ? liftedCache(walk) : newCache();
  const lift = (e: Element): void => {
    if (isRevealable(c, e)) c.hidden.set(e, false);
    for (let ch = e.firstElementChild; ch; ch = ch.nextElementSibling) lift(ch);
  };
  lift(el);
  return accessibleName(c, el);
}

/** Data masked out of path labels: every run of digits becomes `#` (member numbers, confirmations, dates). */
export function maskData(s: string): string {
  return s.replace(/\d+/g, '#');
}

function isDataTable(table: Element): boolean {
  const r = (table.getAttribute('role') || '').toLowerCase();
  if (r === 'grid' || r === 'treegrid') return true;
  for (const tr of tableRows(table)) {
    for (let ch = tr.firstElementChild; ch; ch = ch.nextElementSibling) if (ch.tagName === 'TH') return true;
  }
  return false;
}

function stripLabel(s: string): string {
  return s.replace(/[\s:*]+$/, '').trim();
}

function cellText(cell: Element): string {
  return stripLabel(plainText(cell));
}

/**
 * The visual label a sighted user reads when the accessible name is empty: the nearest non-empty table cell
 * to the left in the same row, else the header cell above in the same column, else the text right before the
 * control in its parent. Chromium names such inputs '' (no <label>, accname §4.3.2 has no adjacency rule),
 * so this never replaces the name: it goes into `hint`.
 */
export function hintOf(el: Element): string {
  const cell = el.closest('td, th');
  const row = cell?.parentElement;
  if (cell && row && row.tagName === 'TR') {
    for (let left = cell.previousElementSibling; left; left = left.previousElementSibling) {
      const t = cellText(left);
      if (t) return t;
    }
    const table = row.closest('table');
    if (table) {
      const col = columnOf(cell);
      for (const tr of tableRows(table)) {
        if (tr === row) break;
        if (!isHeaderRow(tr)) continue;
        const head = cellAtColumn(tr, col);
        const t = head ? cellText(head) : '';
        if (t) return t;
      }
    }
  }
  let text = '';
  for (let n = el.previousSibling; n; n = n.previousSibling) {
    if (n.nodeType === 3) text = (n.nodeValue || '') + text;
    else if (n.nodeType === 1) {
      const e = n as Element;
      if (e.tagName === 'BR' || e.matches('input, select, textarea, button, table, div, p')) break;
      text = plainText(e) + text;
    }
    if (normalize(text)) break;
  }
  return stripLabel(normalize(text));
}

function columnOf(cell: Element): number {
  let col = 0;
  for (let c = cell.previousElementSibling; c; c = c.previousElementSibling) col += (c as HTMLTableCellElement).colSpan || 1;
  return col;
}

function cellAtColumn(tr: Element, col: number): Element | null {
  let at = 0;
  for (let c = tr.firstElementChild; c; c = c.nextElementSibling) {
    const span = (c as HTMLTableCellElement).colSpan || 1;
    if (col >= at && col < at + span) return c;
    at += span;
  }
  return null;
}

/**
 * Whether the field hides what is typed into it: a password input, or a field styled not to display its text
 * (`-webkit-text-security`, the non-standard property browsers honour). Secrets may be typed only into these.
 */
function isSecretField(c: DomCache, el: Element, tag: string): boolean {
  if (tag === 'INPUT' && (el as HTMLInputElement).type === 'password') return true;
  // The walk's cached computed style (shared/dom/style.ts): a live declaration, so the same answer as a fresh one.
  const security = (styleOf(c, el) as (CSSStyleDeclaration & { webkitTextSecurity?: string }) | undefined)?.webkitTextSecurity;
  return security !== undefined && security !== '' && security !== 'none';
}

function controlValue(el: Element, role: string, tag: string): { value?: string; options?: string[] } {
  if (tag === 'INPUT' || tag === 'TEXTAREA') {
    const input = el as HTMLInputElement;
    if (input.type === 'checkbox' || input.type === 'radio') {
      return { value: input.indeterminate ? 'mixed' : input.checked ? 'checked' : 'unchecked' };
    }
    // A password's value is a secret: it never leaves the page (docs/design/evidence.md, "Evidence": secrets never written).
    if (input.type === 'password') return {};
    if (role === 'button') return {};
    return { value: input.value };
  }
  if (tag === 'SELECT') {
    const sel = el as HTMLSelectElement;
    const options = [...sel.options].map((o) => normalize(o.label || o.text));
    return { value: [...sel.selectedOptions].map((o) => normalize(o.label || o.text)).join(', '), options };
  }
  if (role === 'checkbox' || role === 'radio' || role === 'switch' || role === 'menuitemcheckbox' || role === 'menuitemradio') {
    const v = (el.getAttribute('aria-checked') || '').toLowerCase();
    return { value: v === 'true' ? 'checked' : v === 'mixed' ? 'mixed' : 'unchecked' };
  }
  if (role === 'slider' || role === 'spinbutton') {
    // WAI-ARIA 1.2 §6.6 aria-valuetext: the human-readable value wins over the number.
    const v = el.getAttribute('aria-valuetext') ?? el.getAttribute('aria-valuenow');
    return v === null ? {} : { value: normalize(v) };
  }
  if (role === 'textbox' || role === 'searchbox') return { value: normalize(el.textContent) };
  // A combobox that is not a field: the value the check after a pick reads too (shared/dom/options.ts).
  if (role === 'combobox') {
    const value = comboboxValue(el);
    return value === null ? {} : { value };
  }
  // A button that opens a listbox shows what it holds as its text, as such a combobox does; its name leaves that out
  // when it labels itself (shared/dom/name.ts), so this is where the model and the owner see it.
  if (role === 'button' && isListButton(el)) return { value: normalize(comboboxValue(el) ?? '') };
  return {};
}

/** Roles that can be selected (WAI-ARIA 1.2 §6.6 aria-selected: gridcell, option, row, tab; treeitem inherits it). */
const SELECTABLE = new Set(['option', 'tab', 'treeitem', 'gridcell', 'row']);

/**
 * Expanded and selected states (WAI-ARIA 1.2 §6.6 aria-expanded, aria-selected). A <summary> is expanded when its
 * <details> is open (HTML §4.11.1). Absent when the control does not carry the state.
 */
function controlState(el: Element, role: string, tag: string): { expanded?: boolean; selected?: boolean } {
  const out: { expanded?: boolean; selected?: boolean } = {};
  const expanded = (el.getAttribute('aria-expanded') || '').toLowerCase();
  if (expanded === 'true' || expanded === 'false') out.expanded = expanded === 'true';
  else if (tag === 'SUMMARY' && el.parentElement?.tagName === 'DETAILS') out.expanded = (el.parentElement as HTMLDetailsElement).open;
  if (SELECTABLE.has(role)) {
    const selected = (el.getAttribute('aria-selected') || '').toLowerCase();
    if (selected === 'true' || selected === 'false' || role === 'option' || role === 'tab') out.selected = selected === 'true';
  }
  return out;
}

function chainRole(tag: string, role: string): string | null {
  if (STRUCTURAL.has(role)) return role;
  switch (tag) {
    // Layout tables (role=presentation) and unnamed forms have no ARIA role, yet they are the page's structure.
    case 'TABLE': return 'table';
    case 'TR': return 'row';
    case 'FORM': return 'form';
    case 'FIELDSET': return 'group';
    default: return null;
  }
}

export function walkDocument(doc: Document, c: DomCache, at?: (el: Element, ctx: WalkAt) => void): Walked {
  const controls: WalkedControl[] = [];
  const paths = new Set<string>();
  const rows: RowCache = newRowCache();
  const shadowText: string[] = [];
  const modal = activeModal(doc, c);
  const dataTables = new Map<Element, boolean>();
  const disabled = new Map<Element, boolean>();
  const title = normalize(doc.title);
  if (title) paths.add(`title '${maskData(title)}'`);

  // A path without a label is its chain and role alone: the cells of a row give the same one again and again, and a
  // path equal to the last one added is in the set already, so it is not built and hashed again.
  let lastChain: string | undefined;
  let lastRole: string | undefined;
  const addPath = (ctx: Ctx, role: string, label: string) => {
    if (label) paths.add(`${ctx.chain}${role} '${maskData(label)}'`);
    else if (ctx.chain !== lastChain || role !== lastRole) {
      lastChain = ctx.chain;
      lastRole = role;
      paths.add(`${ctx.chain}${role}`);
    }
  };
  // The walk reaches an element only through ancestors that are not aria-hidden (it returns at aria-hidden="true"),
  // so an element it asks about is known to be outside an aria-hidden chain without walking up it again.
  const visible = (el: Element, tag: string) => {
    if (!c.ariaHidden.has(el)) c.ariaHidden.set(el, false);
    return !isHiddenForAria(c, el, tag);
  };

  const shadowHosts: Element[] = [];
  const unwalked: Element[] = [];
  const regions: HTMLElement[] = [];
  const rowEls: Element[] = [];

  // `up`: the aria-disabled answer of the element's parent element (shared/dom/state.ts ariaDisabledBelow), undefined
  // when the walk reached it another way (a slotted element, whose parent element is its host).
  const visit = (el: Element, ctx: Ctx, up: boolean | undefined): void => {
    // The tag name is read once here and handed to every question below that needs it (docs/design/walker.md, "The
    // walker"): reading `tagName` crosses into the DOM and makes a string each time.
    const tag = el.tagName;
    if (isIgnoredName(tag)) {
      unwalked.push(el);
      return;
    }
    // aria-hidden="true" removes the whole subtree (WAI-ARIA 1.2 §6.6 aria-hidden).
    if ((el.getAttribute('aria-hidden') || '').toLowerCase() === 'true') {
      unwalked.push(el);
      return;
    }
    const shadow = el.shadowRoot;
    if (shadow) shadowHosts.push(el);
    if (el === modal) ctx = { ...ctx, blocked: false };
    if (el.hasAttribute('inert')) ctx = { ...ctx, blocked: true };
    at?.(el, ctx);
    const ariaDisabled = ariaDisabledBelow(el, up);
    const upperTag = upper(tag);
    const role = roleOf(c, el, upperTag);
    const verbs = VERBS_BY_ROLE[role];
    // The outermost live region: its visible words are what the app says (a region inside it is part of them).
    let inRegion = ctx.region;
    if (!inRegion && isLiveRegion(el, role)) {
      inRegion = true;
      if (el instanceof HTMLElement && visible(el, tag)) regions.push(el);
    } else if (!inRegion && ((tag === 'TR' && ctx.dataTable) || (tag !== 'TR' && (role === 'row' || role === 'listitem'))) && visible(el, tag)) {
      // A record's row: a data table's (one with header cells, or a grid), an ARIA row, a list item. A layout table's
      // rows (a label beside its field) are the page's furniture, no record a condition names.
      rowEls.push(el);
    }
    if (ctx.blocked) {
      // Behind a modal dialog or under inert: neither offered nor furniture (the dialog is the screen).
    } else if (verbs) {
      if (!visible(el, tag) && ctx.row && verbs.includes('invoke') && isRevealable(c, el)) {
        // A row's action shown only on hover: offered to be hovered, which reveals it for the next step. No path:
        // the screen's furniture is what it was without it.
        const key = rowKey(c, rows, ctx.row);
        const control: Control = { ref: '', role, name: revealedName(el, c), verbs: ['hover'], scope: [...ctx.scope], ancestors: [...ctx.ancestors] };
        if (key) control.scope.push({ role: 'row', name: key });
        controls.push({ el, control });
      } else if (visible(el, tag)) {
        const name = accessibleName(c, el);
        const control: Control = {
          ref: '',
          role,
          name,
          verbs: [...verbs],
          scope: [...ctx.scope],
          ancestors: [...ctx.ancestors],
        };
        const key = ctx.row && ctx.row !== el ? rowKey(c, rows, ctx.row) : '';
        if (key) control.scope.push({ role: 'row', name: key });
        if (!name) {
          const hint = hintOf(el);
          if (hint) control.hint = hint;
        }
        // A custom combobox or listbox (not a native <select>) is chosen in, not selected: `choose` opens it and
        // picks the option by name (docs/design/verbs.md, "The six verbs").
        if (tag !== 'SELECT' && verbs.includes('select')) control.verbs = control.verbs.map((v) => (v === 'select' ? 'choose' : v));
        Object.assign(control, controlValue(el, role, tag), controlState(el, role, tag));
        if (isDisabled(el, disabled, upperTag, ariaDisabled)) control.disabled = true;
        if (isSecretField(c, el, tag)) control.secret = true;
        controls.push({ el, control });
        // Furniture: buttons and labelled fields always; links only outside data rows (there they are data).
        let label: string;
        if (role === 'link') label = ctx.dataRow ? '' : name;
        else if (verbs.includes('invoke')) label = name;
        else label = ctx.dataRow ? name : name || control.hint || '';
        // A row's action shown only while the pointer or the focus is in its row is no more furniture than when it
        // is hidden (above): the screen is the same wherever the pointer rests.
        if (!(ctx.row && verbs.includes('invoke') && shownByPointer(c, el, ctx.row))) addPath(ctx, role, label);
      }
    } else if (role === 'heading' || role === 'columnheader' || (role === 'rowheader' && !ctx.dataRow)) {
      if (visible(el, tag)) addPath(ctx, role, accessibleName(c, el));
    } else if (role === 'cell' || role === 'gridcell' || role === 'rowheader') {
      addPath(ctx, role, '');
    } else if ((tag === 'B' || tag === 'STRONG') && !ctx.dataRow) {
      // Emphasised text on a legacy screen is its headline or its message line ("HOLD POSTED ...").
      const t = plainText(el);
      if (t && visible(el, tag)) addPath(ctx, 'strong', t);
    } else if (role === 'img' && !ctx.dataRow) {
      if (visible(el, tag)) addPath(ctx, role, accessibleName(c, el));
    } else if (tag === 'FRAME' || tag === 'IFRAME') {
      addPath(ctx, 'frame', el.getAttribute('name') || el.getAttribute('title') || '');
    }

    if (OPAQUE.has(tag)) {
      // None of these can host a shadow root (DOM §4.2.14 attachShadow), so the element stands for its subtree.
      unwalked.push(el);
      return;
    }
    let next = inRegion === ctx.region ? ctx : { ...ctx, region: inRegion };
    const structural = chainRole(tag, role);
    if (structural) {
      next = { ...next, ancestors: [...ctx.ancestors, structural], chain: `${ctx.chain}${structural}>` };
      const scopeRole = SCOPE_ROLE[role];
      if (scopeRole) {
        const name = accessibleName(c, el);
        if (name) {
          next.scope = [...ctx.scope, { role: scopeRole, name }];
          if (visible(el, tag) && !ctx.blocked) addPath(ctx, role, name);
        }
      }
      if (next.scope === ctx.scope) {
        const landmark = LANDMARK_ROLES.has(role) ? accessibleName(c, el) : '';
        const link = landmark ? { role: 'landmark' as const, name: landmark } : unnamedScope(role);
        if (link) next.scope = [...ctx.scope, link];
      }
      if (tag === 'TABLE') {
        let data = dataTables.get(el);
        if (data === undefined) dataTables.set(el, (data = isDataTable(el)));
        next.dataTable = data;
        next.dataRow = false;
        next.row = null;
      } else if (tag === 'TR') {
        const header = isHeaderRow(el);
        next.row = header ? null : el;
        next.dataRow = ctx.dataTable && !header;
      }
    }
    // Only a TR, an ARIA row or a list item can be a row (rows.ts rowKind); a TR was handled above.
    if (tag !== 'TR' && (role === 'row' || role === 'listitem')) {
      const kind = rowKind(c, rows, el);
      // An ARIA row is data, as a data table's row is; a list item keeps its list's furniture rules.
      // A row that names nothing (a list item holding only a link) leaves the outer row in charge.
      if (kind && rowKey(c, rows, el)) next = { ...next, row: el, dataRow: kind === 'aria' ? true : next.dataRow };
      else if (role === 'row') next = { ...next, row: null };
    }
    // The flat tree (DOM §4.2.2.3), as the accessibility tree follows it: a shadow host's shadow tree in place of
    // its children, and a slot's assigned elements (else its fallback content) in place of the slot.
    // A slot with assigned text only renders that text, not its fallback.
    const slotted = tag === 'SLOT' && (el as HTMLSlotElement).assignedNodes().length > 0;
    if (slotted) {
      for (const ch of (el as HTMLSlotElement).assignedElements()) visit(ch, next, undefined);
      unwalked.push(el);
    } else if (shadow) {
      for (let ch = shadow.firstElementChild; ch; ch = ch.nextElementSibling) {
        // innerText stops at a shadow host (HTML §3.2.7 "the innerText getter" walks the DOM tree, not the flat
        // tree): a shadow tree's rendered text is read from its own top elements; one not rendered gives none.
        if (!isIgnoredTag(ch) && ch instanceof HTMLElement && ch.checkVisibility()) shadowText.push(ch.innerText);
        // A shadow root's child has no parent element: its own aria-disabled alone decides.
        visit(ch, next, false);
      }
      for (let ch = el.firstElementChild; ch; ch = ch.nextElementSibling) unwalked.push(ch);
    } else for (let ch = el.firstElementChild; ch; ch = ch.nextElementSibling) visit(ch, next, ariaDisabled);
  };

  const root = doc.documentElement;
  if (root) visit(root, { ancestors: [], chain: '', scope: [], row: null, blocked: modal !== null, dataRow: false, dataTable: false, region: false }, false);
  const body = doc.body;
  const said = regions.map((r) => normalize(r.innerText)).filter(Boolean);
  const all = body && body.tagName !== 'FRAMESET' ? normalize([body.innerText, ...shadowText].join(' ')) : '';
  const text = said.length ? withoutSaid(all, said) : all;
  const keyed: Walked['rows'] = [];
  for (const row of rowEls) {
    // Header rows and rows that name nothing are no rows a condition can name (shared/dom/rows.ts rowKey).
    if (!rowKind(c, rows, row)) continue;
    const key = rowKey(c, rows, row);
    if (key) keyed.push({ key, text: rowText(c, rows, row) });
  }
  return { controls, paths: [...paths].sort(), text, said, rows: keyed, title, url: doc.URL, shadowHosts, unwalked };
}

