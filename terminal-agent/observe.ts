// What the terminal surface sees of one 3270 screen (docs/design/terminal.md, "The terminal surface"): one part whose
// controls are the unprotected fields (textboxes named by the protected text to their left on the same row, else
// above them; a field inside a row of a list is named by its column's heading and scoped to that row; a non-display
// field is a secret textbox) and the keys the screen names (`F5=Search`, `ENTER=Sign On`: buttons that press that AID,
// plus a bare Enter when the screen names none). Paths are furniture only: each field's attributes and column
// (protected, or an input inside a row) or position and width (any other input), and each control's masked name, so
// the same screen showing another member, or another number of shares, keeps its signature. Pure: a Screen in, an
// Observation out.
import { maskData } from '../shared/dom/walk.ts';
import { formatRef, parseRef } from '../shared/ref.ts';
import type { Control, Observation, Part } from '../shared/schema/observation.ts';
import { combineParts } from '../shared/screens.ts';
import type { AidKey } from './datastream.ts';
import { screenRows, type TerminalRow } from './rows.ts';
import type { Field, Screen } from './screen.ts';

/** The observer's version: observations carry it and fingerprints hash it (bump when these rules change). */
export const TERMINAL_OBSERVER = 'tn3270/2';

/** What a control's ref stands for on the screen: a field (by its first address), a key, or a screen row. */
export type Target = { kind: 'field'; start: number } | { kind: 'key'; aid: AidKey } | { kind: 'row'; row: number };

export function refOf(t: Target): string {
  return formatRef([], t.kind === 'field' ? `f${t.start}` : t.kind === 'key' ? `k${t.aid}` : `r${t.row}`);
}

export function targetOf(ref: string): Target | null {
  const local = parseRef(ref)?.local ?? '';
  const m = /^(?:f(\d+)|k([A-Z0-9]+)|r(\d+))$/.exec(local);
  if (!m) return null;
  if (m[1] !== undefined) return { kind: 'field', start: Number(m[1]) };
  if (m[2] !== undefined) return { kind: 'key', aid: m[2] as AidKey };
  return { kind: 'row', row: Number(m[3]) };
}

/** A key legend on the screen: `F5=Search`, `PF10=Post Hold`, `PA1=Cancel`, `ENTER=Sign On`, `CLEAR=Restart`. */
const KEY = /\b(?:(P?F)(\d{1,2})|(PA)([123])|(ENTER|CLEAR))=/gi;

export interface KeyLegend {
  name: string;
  aid: AidKey;
}

/** The keys a screen names, in reading order: the legend runs to two spaces or the next legend. */
export function keyLegends(lines: readonly string[]): KeyLegend[] {
  const out: KeyLegend[] = [];
  for (const line of lines) {
    const hits = [...line.matchAll(KEY)];
    hits.forEach((h, i) => {
      const from = (h.index ?? 0) + h[0].length;
      const to = hits[i + 1]?.index ?? line.length;
      const label = line.slice(from, to).split(/\s{2,}/)[0]?.trim() ?? '';
      if (!label) return;
      const n = h[2] ?? h[4];
      const aid = (h[5] ? h[5].toUpperCase() : `${h[3] ? 'PA' : 'PF'}${Number(n)}`) as AidKey;
      if (aid.startsWith('PF') && (Number(n) < 1 || Number(n) > 24)) return;
      out.push({ name: `${h[0]}${label}`, aid });
    });
  }
  return out;
}

/** The screen's lines with what the operator typed blanked: only the host's own (protected) text. */
function protectedLines(screen: Screen): string[] {
  const lines = screen.lines().map((l) => [...l]);
  for (const f of screen.fields()) {
    if (f.protected) continue;
    for (let i = 0; i < f.length; i++) {
      const a = (f.start + i) % screen.size;
      const row = lines[Math.floor(a / screen.cols)];
      if (row) row[a % screen.cols] = ' ';
    }
  }
  return lines.map((l) => l.join(''));
}

const tidyLabel = (s: string): string => s.replace(/[\s.:]+$/, '').replace(/^[\s.:]+/, '').replace(/\s+/g, ' ');

/**
 * The protected text that names an input field: on its row, the nearest protected field ending before it; else on
 * the row above, the run of words over the field's first column. Trailing leader dots and colons are dropped.
 */
export function labelOf(screen: Screen, field: Field, plines: readonly string[]): string {
  const row = Math.floor(field.at / screen.cols);
  const col = field.at % screen.cols;
  const fields = screen.fields();
  const left = fields
    .filter((f) => f.protected && !f.hidden && Math.floor(f.at / screen.cols) <= row && f.at < field.at)
    .reverse();
  for (const f of left) {
    const from = Math.max(f.start, row * screen.cols);
    const to = Math.min(f.start + f.length, field.at);
    if (to <= from) continue;
    const text = tidyLabel(decodeRow(plines, screen.cols, from, to));
    if (text) return text;
  }
  const above = plines[row - 1];
  if (above !== undefined) {
    const start = col + 1;
    const runs = [...above.matchAll(/\S+(?: \S+)*/g)];
    const run = runs.find((r) => (r.index ?? 0) <= start && start < (r.index ?? 0) + r[0].length) ?? runs.find((r) => (r.index ?? 0) >= start && (r.index ?? 0) < start + field.length);
    if (run) return tidyLabel(run[0]);
  }
  return '';
}

function decodeRow(plines: readonly string[], cols: number, from: number, to: number): string {
  let s = '';
  for (let a = from; a < to; a++) s += plines[Math.floor(a / cols)]?.[a % cols] ?? ' ';
  return s;
}

/** The screen's text as a terminal shows it: 24 lines, trailing blanks dropped, trailing empty lines dropped. */
export function screenText(screen: Screen): string {
  return screen.lines().map((l) => l.trimEnd()).join('\n').trimEnd();
}

function flags(f: Field): string {
  return [f.protected ? 'protected' : 'input', f.numeric ? 'numeric' : '', f.intensified ? 'bright' : '', f.hidden ? 'hidden' : ''].filter(Boolean).join(' ');
}

export interface Observed {
  observation: Observation;
  /** Each control's target, by ref. */
  targets: Map<string, Target>;
  /** The rows of the screen's lists (terminal-agent/rows.ts), for a text target scoped to a row. */
  rows: TerminalRow[];
}

export function observeScreen(screen: Screen, host: string): Observed {
  const plines = protectedLines(screen);
  const controls: Control[] = [];
  const targets = new Map<string, Target>();
  const paths = new Set<string>();
  const { rows, fields: inRows } = screenRows(screen, plines);
  for (const f of screen.fields()) {
    const row = Math.floor(f.at / screen.cols) + 1;
    const col = (f.at % screen.cols) + 1;
    const listed = f.protected ? undefined : inRows.get(f.start);
    // A protected field's row is left out, and so is a row's input field: a list of data lines (a member's shares,
    // each with its SEL field) is one path however long it is.
    paths.add(f.protected ? `field c${col} ${flags(f)}` : listed ? `field c${col} w${f.length} ${flags(f)} row` : `field r${row}c${col} w${f.length} ${flags(f)}`);
    if (f.protected || f.length === 0) continue;
    const name = listed ? listed.heading : labelOf(screen, f, plines);
    const target: Target = { kind: 'field', start: f.start };
    const ref = refOf(target);
    targets.set(ref, target);
    const value = screen.fieldText(f).replace(/\s+$/, '');
    const link = listed?.row.link;
    controls.push({
      ref,
      role: 'textbox',
      name,
      verbs: ['set_value', 'read'],
      scope: link ? [link] : [],
      ancestors: listed ? ['row'] : [],
      ...(f.hidden ? { secret: true } : { value }),
    });
    paths.add(`textbox '${maskData(name)}'${f.hidden ? ' secret' : ''}`);
  }
  const legends = keyLegends(plines);
  if (!legends.some((k) => k.aid === 'ENTER')) legends.push({ name: 'Enter', aid: 'ENTER' });
  const seen = new Set<string>();
  for (const k of legends) {
    if (seen.has(k.aid)) continue;
    seen.add(k.aid);
    const target: Target = { kind: 'key', aid: k.aid };
    const ref = refOf(target);
    targets.set(ref, target);
    controls.push({ ref, role: 'button', name: k.name, verbs: ['invoke'], scope: [], ancestors: [] });
    paths.add(`button '${maskData(k.name)}'`);
  }
  const text = screenText(screen);
  const part: Part = {
    part: [],
    locus: { host, screen: (screen.lines().find((l) => l.trim()) ?? '').trim().replace(/\s{2,}/g, ' · ') },
    controls,
    paths: [...paths].sort(),
    text,
  };
  return { observation: combineParts([part], TERMINAL_OBSERVER), targets, rows };
}
