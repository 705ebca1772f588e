// Rows and their keys: the one place that says what a row is and which text names it, for the walker's row
// scope links and for finding a row again (find.ts). A row is a table's <tr> (not a header row), an ARIA `row`
// in any container (div grids and treegrids; WAI-ARIA 1.2 §5.3.4 row), or a list item (`li`, role=listitem).
// Its key is the text of the first column whose texts are non-empty and unique across the container's rows, so
// a grid whose first column repeats ("Open", "Open") is keyed by the column that tells rows apart; with no such
// column, the first non-empty cell. A list item has no columns: its key is the first of its texts (each element's own
// text, in reading order) that is unique across its sibling items, else its whole text without its controls.
import { roleOf } from './role.ts';
import type { SurfaceRows } from '../schema/observation.ts';
import { isHiddenForAria, isIgnoredTag, parentOf, type DomCache } from './style.ts';
import { normalize } from './name.ts';

const CELL_ROLES = new Set(['cell', 'gridcell', 'rowheader', 'columnheader']);
const CONTAINER_ROLES = new Set(['grid', 'treegrid', 'table']);
/** Controls whose own labels are not part of a list item's key (shared/dom/walk.ts offers these roles). */
const CONTROL_ROLES = new Set([
  'link', 'button', 'menuitem', 'tab', 'textbox', 'searchbox', 'spinbutton', 'combobox', 'listbox', 'checkbox',
  'radio', 'switch', 'menuitemcheckbox', 'menuitemradio', 'slider', 'option', 'treeitem',
]);

export type RowKind = 'tr' | 'aria' | 'item';

/**
 * What one walk keeps of rows. A table's or grid's row and a list item are asked different questions, and one element
 * can be asked both (a cell of a table inside a list item; a parent holding a grid's rows and a list's items), so each
 * question has its own map: an answer of one kind never stands for the other (docs/design/walker.md, "The walker",
 * "One question, one map").
 */
export interface RowCache {
  kind: Map<Element, RowKind | null>;
  /** A table's or ARIA row's cells. */
  cells: Map<Element, Element[]>;
  /** Text per cell (its whole text, `plainText`), read only when a key needs it (a grid keyed by its first column never reads the others). */
  cellText: Map<Element, string>;
  /** A list item's text holders, in reading order (`pieces`). */
  holders: Map<Element, Element[]>;
  /** A holder's own text: its own text nodes, not its children's. */
  ownText: Map<Element, string>;
  /** The key column of a table's or grid's rows, per container. */
  column: Map<Element, number>;
  /** The key piece of a list's items, per parent. */
  itemColumn: Map<Element, number>;
  key: Map<Element, string>;
}

export function newRowCache(): RowCache {
  return { kind: new Map(), cells: new Map(), cellText: new Map(), holders: new Map(), ownText: new Map(), column: new Map(), itemColumn: new Map(), key: new Map() };
}

/** Visible-ish text of a subtree without layout: text nodes and push-button labels, skipping script/style/template. */
export function plainText(el: Element, skip?: (e: Element) => boolean): string {
  // A cell holding one text node and nothing else (most of a table's): its text is that node's, normalized.
  const only = el.firstChild;
  if (only && only.nodeType === 3 && !only.nextSibling) return normalize(only.nodeValue || '');
  let out = '';
  const visit = (n: Node) => {
    if (n.nodeType === 3) out += n.nodeValue || '';
    else if (n.nodeType === 1 && !isIgnoredTag(n as Element)) {
      const e = n as Element;
      if (skip?.(e)) return;
      if (e.tagName === 'BR') out += ' ';
      // A push button's label is drawn text a reader sees (Playwright's text matching counts it too).
      if (e.tagName === 'INPUT' && ['submit', 'button', 'reset'].includes((e as HTMLInputElement).type)) {
        out += ` ${(e as HTMLInputElement).value} `;
      }
      for (let ch = n.firstChild; ch; ch = ch.nextSibling) visit(ch);
      out += ' ';
    }
  };
  for (let ch = el.firstChild; ch; ch = ch.nextSibling) visit(ch);
  return normalize(out);
}

const HTML_NS = 'http://www.w3.org/1999/xhtml';

/**
 * The table's rows as `table.rows` lists them (HTML §4.9.1 "The table element": its `tr` children and those of its
 * `thead`, `tbody` and `tfoot` children; the `thead` rows first, then those of the table and its `tbody` elements, then
 * the `tfoot` rows, each group in tree order), read off the children: iterating the live collection asks the browser
 * for each item and costs several times more on a page of many tables (docs/design/walker.md, "The walker").
 */
export function tableRows(table: Element): Element[] {
  // Not an HTML <table> (an element of another namespace spelled TABLE): asked as before, which fails as it did.
  if (table.namespaceURI !== HTML_NS) return [...(table as HTMLTableElement).rows];
  const head: Element[] = [];
  const body: Element[] = [];
  const foot: Element[] = [];
  for (let ch = table.firstElementChild; ch; ch = ch.nextElementSibling) {
    if (ch.namespaceURI !== HTML_NS) continue;
    const name = ch.localName;
    if (name === 'tr') body.push(ch);
    else if (name === 'thead' || name === 'tbody' || name === 'tfoot') {
      const into = name === 'thead' ? head : name === 'tfoot' ? foot : body;
      for (let r = ch.firstElementChild; r; r = r.nextElementSibling) if (r.localName === 'tr' && r.namespaceURI === HTML_NS) into.push(r);
    }
  }
  return head.length || foot.length ? head.concat(body, foot) : body;
}

export function isHeaderRow(tr: Element): boolean {
  let cells = 0;
  for (let ch = tr.firstElementChild; ch; ch = ch.nextElementSibling) {
    if (ch.tagName === 'TD') return false;
    if (ch.tagName === 'TH') cells++;
  }
  return cells > 0;
}

function ariaCells(c: DomCache, row: Element): Element[] {
  const out: Element[] = [];
  const visit = (e: Element) => {
    for (let ch = e.firstElementChild; ch; ch = ch.nextElementSibling) {
      const r = roleOf(c, ch);
      if (CELL_ROLES.has(r)) out.push(ch);
      else if (r !== 'row') visit(ch);
    }
  };
  visit(row);
  return out;
}

/** What kind of row `el` is, or null: header rows (all header cells) are not rows. */
export function rowKind(c: DomCache, rc: RowCache, el: Element): RowKind | null {
  const role = roleOf(c, el);
  if (el.tagName !== 'TR' && role !== 'row' && role !== 'listitem') return null;
  const hit = rc.kind.get(el);
  if (hit !== undefined) return hit;
  let kind: RowKind | null = null;
  if (el.tagName === 'TR') kind = isHeaderRow(el) ? null : 'tr';
  else if (role === 'row') {
    const cells = ariaCells(c, el);
    kind = cells.length && cells.every((x) => roleOf(c, x) === 'columnheader') ? null : 'aria';
  } else if (role === 'listitem') kind = 'item';
  rc.kind.set(el, kind);
  return kind;
}

function cellsOf(c: DomCache, rc: RowCache, row: Element, kind: RowKind): Element[] {
  const hit = rc.cells.get(row);
  if (hit) return hit;
  let cells: Element[] = [];
  if (kind === 'tr') {
    for (let ch = row.firstElementChild; ch; ch = ch.nextElementSibling) if (ch.tagName === 'TD' || ch.tagName === 'TH') cells.push(ch);
  } else if (kind === 'aria') cells = ariaCells(c, row);
  rc.cells.set(row, cells);
  return cells;
}

/** The text of the row's k-th cell ('' past its last cell). */
function cellText(c: DomCache, rc: RowCache, row: Element, kind: RowKind, k: number): string {
  const cell = cellsOf(c, rc, row, kind)[k];
  if (!cell) return '';
  let t = rc.cellText.get(cell);
  if (t === undefined) rc.cellText.set(cell, (t = plainText(cell)));
  return t;
}

/** The container whose rows a row is compared with: its table, or the grid (or parent) of an ARIA row. */
function containerOf(c: DomCache, row: Element, kind: RowKind): Element | null {
  if (kind === 'tr') return row.closest('table');
  const parent = parentOf(row);
  for (let e = parent; e; e = parentOf(e)) if (CONTAINER_ROLES.has(roleOf(c, e))) return e;
  return parent;
}

function rowsOf(c: DomCache, rc: RowCache, container: Element, kind: RowKind): Element[] {
  if (kind === 'tr') return tableRows(container).filter((r) => rowKind(c, rc, r) === 'tr');
  return [...container.querySelectorAll('*')].filter((e) => e.tagName !== 'TR' && rowKind(c, rc, e) === 'aria');
}

function keyColumn(c: DomCache, rc: RowCache, row: Element, kind: RowKind): number {
  const container = containerOf(c, row, kind);
  if (!container) return -1;
  const hit = rc.column.get(container);
  if (hit !== undefined) return hit;
  const rows = rowsOf(c, rc, container, kind);
  const width = Math.max(0, ...rows.map((r) => cellsOf(c, rc, r, kind).length));
  let column = -1;
  for (let k = 0; k < width && column < 0; k++) {
    const seen = new Set<string>();
    let unique = true;
    for (const r of rows) {
      const v = cellText(c, rc, r, kind, k);
      if (!v || seen.has(v)) {
        unique = false;
        break;
      }
      seen.add(v);
    }
    if (unique) column = k;
  }
  rc.column.set(container, column);
  return column;
}

/**
 * A list item's texts in reading order, one per element that holds text of its own (its own text nodes, not its
 * children's), skipping controls and nested items: the item's "cells" when it has no columns. A case row whose
 * title and meta come in as two slotted spans has two; `<li>Buy milk <button>…</button></li>` has one.
 */
function pieces(c: DomCache, rc: RowCache, item: Element): string[] {
  const hit = rc.holders.get(item);
  if (hit) return hit.map((e) => rc.ownText.get(e) ?? '');
  const holders: Element[] = [];
  const visit = (e: Element) => {
    let own = '';
    for (let n = e.firstChild; n; n = n.nextSibling) {
      if (n.nodeType === 3) own += n.nodeValue || '';
      else if (n.nodeType === 1 && !isIgnoredTag(n as Element)) {
        const ch = n as Element;
        if (!CONTROL_ROLES.has(roleOf(c, ch)) && rowKind(c, rc, ch) !== 'item') visit(ch);
      }
    }
    const t = normalize(own);
    if (t) {
      rc.ownText.set(e, t);
      holders.push(e);
    }
  };
  visit(item);
  // Reading order: a holder is visited after its children, so sort by document position.
  holders.sort((a, b) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
  rc.holders.set(item, holders);
  return holders.map((e) => rc.ownText.get(e) ?? '');
}

/** The first piece position whose texts are non-empty and unique across the item's sibling items; -1 when none. */
function itemColumn(c: DomCache, rc: RowCache, item: Element): number {
  const container = parentOf(item);
  if (!container) return -1;
  const hit = rc.itemColumn.get(container);
  if (hit !== undefined) return hit;
  const items: Element[] = [];
  for (let ch = container.firstElementChild; ch; ch = ch.nextElementSibling) if (rowKind(c, rc, ch) === 'item') items.push(ch);
  const all = items.map((i) => pieces(c, rc, i));
  const width = Math.max(0, ...all.map((p) => p.length));
  let column = -1;
  for (let k = 0; k < width && column < 0 && items.length > 1; k++) {
    const texts = all.map((p) => p[k] ?? '');
    if (texts.every((t) => t) && new Set(texts).size === texts.length) column = k;
  }
  rc.itemColumn.set(container, column);
  return column;
}

/** The row's key ('' for a header row, a non-row, or a row with no text of its own). */
export function rowKey(c: DomCache, rc: RowCache, row: Element): string {
  const hit = rc.key.get(row);
  if (hit !== undefined) return hit;
  const kind = rowKind(c, rc, row);
  let key = '';
  if (kind === 'item') {
    // The piece that tells the list's items apart (a title beside a status that repeats), else the whole text.
    const k = itemColumn(c, rc, row);
    if (k >= 0) key = pieces(c, rc, row)[k] ?? '';
    if (!key) key = plainText(row, (e) => CONTROL_ROLES.has(roleOf(c, e)) || rowKind(c, rc, e) === 'item');
  } else if (kind) {
    const k = keyColumn(c, rc, row, kind);
    if (k >= 0) key = cellText(c, rc, row, kind, k);
    for (let i = 0; !key && i < cellsOf(c, rc, row, kind).length; i++) key = cellText(c, rc, row, kind, i);
  }
  rc.key.set(row, key);
  return key;
}

/**
 * A row's visible text, as `read_rows` reads it: a table's or ARIA row's whole text, a list item's without its controls
 * and nested items; hidden parts (display:none, aria-hidden) left out, a field's typed value never in it.
 */
export function rowText(c: DomCache, rc: RowCache, row: Element): string {
  const hidden = (e: Element): boolean => isHiddenForAria(c, e);
  if (rowKind(c, rc, row) === 'item') return plainText(row, (x) => hidden(x) || CONTROL_ROLES.has(roleOf(c, x)) || rowKind(c, rc, x) === 'item');
  return plainText(row, hidden);
}

// ── Reading rows (docs/design/capability.md, "Rows as outputs") ─────────────────────────────────────────
const LIST_ROLES = new Set(['list']);

/**
 * The table, grid or list a `read_rows` target stands for: the element itself, or — for a column header, the way a
 * table without a name of its own is targeted — the nearest table or grid around it (in the flat tree).
 */
export function rowsContainer(c: DomCache, el: Element): Element | null {
  const isTable = (e: Element): boolean => e.tagName === 'TABLE' || CONTAINER_ROLES.has(roleOf(c, e));
  if (isTable(el) || LIST_ROLES.has(roleOf(c, el))) return el;
  if (roleOf(c, el) !== 'columnheader') return null;
  for (let e = parentOf(el); e; e = parentOf(e)) if (isTable(e)) return e;
  return null;
}

/**
 * The rows of a table, grid or list as they show now: a table's or grid's cells by the text of their column header
 * (the first header row; a cell past the last header is left out), a list item's text without its controls. Rows
 * hidden from the accessibility tree (display:none, aria-hidden) are not read, nor is text inside hidden parts of a
 * row; a field's typed value is never text here (plainText reads text nodes and push-button labels only), so a
 * password is never read. Null when `el` is not a rows container nor a column header inside one.
 */
export function readRows(c: DomCache, el: Element): SurfaceRows | null {
  const container = rowsContainer(c, el);
  if (!container) return null;
  const rc = newRowCache();
  const hidden = (e: Element): boolean => isHiddenForAria(c, e);
  const textOf = (e: Element): string => plainText(e, hidden);
  const role = roleOf(c, container);
  if (LIST_ROLES.has(role)) {
    // The list's own items: nested lists' items belong to their own list.
    const items = [...container.querySelectorAll('*')].filter(
      (e) => rowKind(c, rc, e) === 'item' && !hidden(e) && nearestList(c, e) === container,
    );
    return { headers: [], rows: items.map((item) => ({ cells: {}, text: rowText(c, rc, item) })) };
  }
  const kind: RowKind = container.tagName === 'TABLE' ? 'tr' : 'aria';
  const headerRow =
    kind === 'tr'
      ? tableRows(container).find((r) => isHeaderRow(r))
      : [...container.querySelectorAll('*')].find((e) => roleOf(c, e) === 'row' && rowKind(c, rc, e) === null);
  const headers = headerRow ? (kind === 'tr' ? [...headerRow.children].filter((x) => x.tagName === 'TH') : ariaCells(c, headerRow)).map((h) => textOf(h)) : [];
  const rows = rowsOf(c, rc, container, kind)
    .filter((r) => !hidden(r))
    .map((r) => {
      const cells: Record<string, string> = {};
      cellsOf(c, rc, r, kind).forEach((cell, k) => {
        const header = headers[k];
        if (header && !(header in cells)) cells[header] = textOf(cell);
      });
      return { cells, text: rowText(c, rc, r) };
    });
  return { headers: headers.filter(Boolean), rows };
}

function nearestList(c: DomCache, item: Element): Element | null {
  for (let e = parentOf(item); e; e = parentOf(e)) if (LIST_ROLES.has(roleOf(c, e))) return e;
  return null;
}
