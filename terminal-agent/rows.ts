// Rows on a 3270 screen (docs/design/terminal.md, "Rows on a terminal screen"): a list as an operator reads it. A header
// line is protected text only, two or more headings (runs of words, split by two spaces or a field attribute), none
// holding a digit or ending in a leader (`. .`, `:`); under it, each line whose cells each lie under exactly one
// heading is a row, up to the first line that is not. A cell is a run of protected text or an input field (its typed
// value is never a row's text, as on the web, so a password never keys a row). A form line (a label ending in a
// leader) is never a row. A row's key is its text in the first column whose texts are non-empty and unique across the
// rows (the web's rule, shared/dom/rows.ts), else its first non-empty cell; its link names the column it came from.
// Pure: a Screen and its protected lines in, the rows out.
import type { ScopeLink } from '../shared/schema/observation.ts';
import type { Field, Screen } from './screen.ts';

/** One cell of a line: columns [from, to) (0-based), its text, and the input field it is, if it is one. */
interface Cell {
  from: number;
  to: number;
  text: string;
  field?: Field;
}

export interface TerminalRow {
  /** 0-based screen line. */
  line: number;
  /** Text by heading ('' for a column holding only input fields). */
  cells: Record<string, string>;
  /** The row's link for its controls' scope, or null when the row has no text to be keyed by. */
  link: (ScopeLink & { role: 'row' }) | null;
}

export interface TerminalRows {
  rows: TerminalRow[];
  /** Each input field inside a row, by its first address: its heading (its name) and its row. */
  fields: Map<number, { heading: string; row: TerminalRow }>;
}

/** A heading is words: no digit (a value, not a header), no trailing leader dots, colon or `=` (a label or a key). */
const HEADING = /^[^\d]*[^\d\s.:=]$/;
/** A form label's end: leader dots (`NOTE . . .`, `REASON CODE .`) or a colon. */
const LEADER = /(?:\s\.|\.\.|:)$/;

/** A line's cells: runs of protected text (broken by two spaces, a field attribute or an input field) and input fields. */
function cellsOf(screen: Screen, plines: readonly string[], line: number, inputs: readonly Field[]): Cell[] | null {
  const cols = screen.cols;
  const base = line * cols;
  const text = plines[line] ?? '';
  const out: Cell[] = [];
  const isInput = new Int32Array(cols).fill(-1);
  for (const [i, f] of inputs.entries()) {
    const from = f.start - base;
    const to = from + f.length;
    // A field that runs onto another line is no cell of a list (a wrapped note field): such a line is not a row.
    if (from < 0 || to > cols) return null;
    for (let c = from; c < to; c++) isInput[c] = i;
  }
  let run: Cell | null = null;
  let spaces = 0;
  const close = (): void => {
    if (run) out.push({ ...run, text: run.text.trimEnd() });
    run = null;
    spaces = 0;
  };
  for (let c = 0; c < cols; c++) {
    const input = isInput[c] ?? -1;
    if (input >= 0) {
      close();
      const f = inputs[input] as Field;
      if (f.start - base === c) out.push({ from: c, to: c + f.length, text: '', field: f });
      continue;
    }
    if ((screen.attrs[base + c] ?? -1) >= 0) {
      close();
      continue;
    }
    const ch = text[c] ?? ' ';
    if (ch === ' ') {
      spaces++;
      if (spaces >= 2) close();
      else if (run) (run as Cell).text += ' ';
      continue;
    }
    spaces = 0;
    if (!run) run = { from: c, to: c + 1, text: ch };
    else {
      const r: Cell = run;
      r.text += ch;
      r.to = c + 1;
    }
  }
  close();
  return out;
}

/** The heading a cell lies under: the one heading its columns overlap, or -1 (none, or more than one). */
function under(cell: Cell, headings: readonly Cell[]): number {
  const hits = headings.flatMap((h, i) => (cell.from < h.to && h.from < cell.to ? [i] : []));
  return hits.length === 1 ? (hits[0] as number) : -1;
}

/** The rows of every list on the screen, and the input fields inside them. */
export function screenRows(screen: Screen, plines: readonly string[]): TerminalRows {
  const inputsByLine = new Map<number, Field[]>();
  for (const f of screen.fields()) {
    if (f.protected || f.length === 0) continue;
    const line = Math.floor(f.start / screen.cols);
    inputsByLine.set(line, [...(inputsByLine.get(line) ?? []), f]);
  }
  const lines = Array.from({ length: screen.rows }, (_, l) => cellsOf(screen, plines, l, inputsByLine.get(l) ?? []));
  const rows: TerminalRow[] = [];
  const fields = new Map<number, { heading: string; row: TerminalRow }>();
  for (let h = 0; h < screen.rows; h++) {
    const headings = lines[h];
    if (!headings || headings.length < 2 || headings.some((c) => c.field || !HEADING.test(c.text))) continue;
    const table: { row: TerminalRow; cells: Cell[][] }[] = [];
    let l = h + 1;
    for (; l < screen.rows; l++) {
      const cells = lines[l];
      if (!cells || cells.length < 2 || cells.some((c) => !c.field && LEADER.test(c.text))) break;
      const byHeading: Cell[][] = headings.map(() => []);
      if (!cells.every((c) => {
        const k = under(c, headings);
        if (k >= 0) byHeading[k]?.push(c);
        return k >= 0;
      })) break;
      const texts: Record<string, string> = {};
      headings.forEach((hd, k) => {
        texts[hd.text] ??= (byHeading[k] ?? []).filter((c) => !c.field).map((c) => c.text).join(' ');
      });
      table.push({ row: { line: l, cells: texts, link: null }, cells: byHeading });
    }
    if (!table.length) continue;
    // The key column: the first whose texts are non-empty and unique across the rows (shared/dom/rows.ts).
    const names = headings.map((hd) => hd.text);
    const keyColumn = names.find((name) => {
      const texts = table.map((t) => t.row.cells[name] ?? '');
      return texts.every(Boolean) && new Set(texts).size === texts.length;
    });
    for (const t of table) {
      const column = keyColumn ?? names.find((name) => t.row.cells[name]);
      const key = column === undefined ? '' : (t.row.cells[column] ?? '');
      if (key && column !== undefined) t.row.link = { role: 'row', name: key, column };
      rows.push(t.row);
      t.cells.forEach((cs, k) => {
        for (const c of cs) if (c.field) fields.set(c.field.start, { heading: names[k] ?? '', row: t.row });
      });
    }
    h = l - 1;
  }
  return { rows, fields };
}
