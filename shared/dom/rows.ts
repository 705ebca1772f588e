// Rows and their keys: the one place that says what a row is and which text names it, for the walker's row
// scope links and for finding a row again (find.ts). A row is a table's <tr> (not a header row), an ARIA `row`
// in any container (div grids and treegrids; WAI-ARIA 1.2 §5.3.4 row), or a list item (`li`, role=listitem).
// Its key is the text of the first column whose texts are non-empty and unique across the container's rows, so
// a grid whose first column repeats ("Open", "Open") is keyed by the column that tells rows apart; with no such
// column, the first non-empty cell. A list item has no columns: its key is its own text, without its controls.
import { roleOf } from './role.ts';
import { isIgnoredTag, parentOf, type DomCache } from './style.ts';
import { normalize } from './name.ts';

const CELL_ROLES = new Set(['cell', 'gridcell', 'rowheader', 'columnheader']);
const CONTAINER_ROLES = new Set(['grid', 'treegrid', 'table']);
/** Controls whose own labels are not part of a list item's key (shared/dom/walk.ts offers these roles). */
const CONTROL_ROLES = new Set([
  'link', 'button', 'menuitem', 'tab', 'textbox', 'searchbox', 'spinbutton', 'combobox', 'listbox', 'checkbox',
  'radio', 'switch', 'menuitemcheckbox', 'menuitemradio', 'slider', 'option', 'treeitem',
]);

export type RowKind = 'tr' | 'aria' | 'item';

export interface RowCache {
  kind: Map<Element, RowKind | null>;
  cells: Map<Element, Element[]>;
  /** Text per cell, read only when a key needs it (a grid keyed by its first column never reads the others). */
  text: Map<Element, string>;
  column: Map<Element, number>;
  key: Map<Element, string>;
}

export function newRowCache(): RowCache {
  return { kind: new Map(), cells: new Map(), text: new Map(), column: new Map(), key: new Map() };
}

/** Visible-ish text of a subtree without layout: text nodes and push-button labels, skipping script/style/template. */
export function plainText(el: Element, skip?: (e: Element) => boolean): string {
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
  let t = rc.text.get(cell);
  if (t === undefined) rc.text.set(cell, (t = plainText(cell)));
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
  if (kind === 'tr') return [...(container as HTMLTableElement).rows].filter((r) => rowKind(c, rc, r) === 'tr');
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

/** The row's key ('' for a header row, a non-row, or a row with no text of its own). */
export function rowKey(c: DomCache, rc: RowCache, row: Element): string {
  const hit = rc.key.get(row);
  if (hit !== undefined) return hit;
  const kind = rowKind(c, rc, row);
  let key = '';
  if (kind === 'item') {
    key = plainText(row, (e) => CONTROL_ROLES.has(roleOf(c, e)) || rowKind(c, rc, e) === 'item');
  } else if (kind) {
    const k = keyColumn(c, rc, row, kind);
    if (k >= 0) key = cellText(c, rc, row, kind, k);
    for (let i = 0; !key && i < cellsOf(c, rc, row, kind).length; i++) key = cellText(c, rc, row, kind, i);
  }
  rc.key.set(row, key);
  return key;
}
